"""The registry: what is true of each kind.

The kind table (one row per kind), and each kind's rules as kube-apiserver's ``pkg/registry``
keeps them: strategies (defaults, validation, update rules), admission, and the rules of the
subresources (binding, resize, eviction's disruption budget). Rules here are functions of objects:
they never read or write the store; the store calls them.
"""
