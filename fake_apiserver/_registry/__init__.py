"""The registry: what is true of each kind.

The kind table (one row per kind, :mod:`.kinds`), and each kind's rules as kube-apiserver's
``pkg/registry/<group>/<kind>`` keeps them: one package per API group (:mod:`.core`, :mod:`.apps`,
:mod:`.scheduling`, ...) with one module per kind that has knowledge of its own, which declares
the kind (its ``KIND``: rules, strategy, field labels, body shape, Table printer), and a package
where the kind is big (:mod:`.core.pod`, :mod:`.apiextensions.customresourcedefinition`). What no
kind owns sits at this package's top: the generic strategy and the declaration's type
(:mod:`.generic`), ObjectMeta rules, shared field rules, gated fields, the scheme, reset fields,
the reviews' answers, the cell formats the kinds' printers share (:mod:`.printing`), and
:mod:`.strategy`, which builds each kind's strategy from its declaration. Rules here are functions
of objects: they never read or write the store; the store calls them.
"""
