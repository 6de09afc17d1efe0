"""The server: what wraps the endpoints (fault rules and the request journal, kube-apiserver's
filters), running the fake in-process or standalone, and the fault proxy in front of a real API
server."""
