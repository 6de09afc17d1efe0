"""Storage: the store (the generic registry store on the fake's etcd), graceful deletion, watch
fan-out, effects (what a write changed), the subresources (``subresources/``) and the controllers
the fake plays after each commit (``controllers/``). No module here names a kind: what is a
kind's is read from :mod:`fake_apiserver._registry`."""
