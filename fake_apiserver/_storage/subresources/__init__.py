"""The subresources the store serves, one module each.

``status`` (:mod:`.status`) and ``resize`` (:mod:`.resize`) are updates of the object they belong
to, with rules of their own; :mod:`.update` gives the store the steps of an update by the
subresource it comes through. ``binding`` (:mod:`.binding`) writes a pod the binding leaves,
``scale`` (:mod:`.scale`) reads and writes a workload's replicas as a ``Scale``, and ``eviction``
(:mod:`.eviction`) is a transaction across a pod and its disruption budget. None names a kind
in code: what is a kind's is read from :mod:`fake_apiserver._registry`.
"""
