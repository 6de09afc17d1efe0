"""The controllers the fake plays, run by the store after each commit.

A real control plane's controllers react to writes a moment later, through the API. The fake
plays a few of them at once, before the write is answered, so that what a client sees next is
what a real cluster would show it once they had acted: the CRD controllers (:mod:`.crds`), the
in-use protection controllers (:mod:`.protection`) and the expiry of Events (:mod:`.expiry`).

Each is an object with ``resources`` (the resources whose commits it reacts to; None: every
commit) and ``observe(spec, old, new)``, which the store calls after each such commit, in the
order it was given them (:meth:`~fake_apiserver._storage.store.Store.run_controllers`). None of
them names a kind: what they act on is declared in :mod:`fake_apiserver._registry`.
"""
