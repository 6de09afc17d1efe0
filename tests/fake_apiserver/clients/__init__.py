"""The fake driven by real, unchanged clients: kubectl, the ``kubernetes`` Python client and kube-scheduler."""
