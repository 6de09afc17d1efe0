"""Storage: the store (the fake's etcd with the generic registry store on top), watch fan-out,
effects (what a write changed), and the subresource transactions that span objects (eviction)."""
