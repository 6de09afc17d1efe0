"""Where the Kubernetes API a scenario talks to comes from, and what plays the rest of a cluster.

``backend`` (the fake, kind, envtest, any kubeconfig, each behind a journal and fault rules),
``kind_cluster`` and ``kind_setup`` (a kind cluster's lifecycle, and a real cluster made ready
for a run), ``envtest`` (etcd and kube-apiserver as plain processes), ``k8sbuild`` (those
binaries built from their Go modules), ``shared_cluster`` (what a scenario does on a cluster
other tests share), ``apiserver_gates`` (the API server's feature gates), ``runtime_config``
(the API server's ``--runtime-config``), ``kubelet`` (the kubelet stand-in of a scenario's nodes) and ``scenario_client`` (the harness's requests and
informer, on the project's client :mod:`kubeclient`). Imports only :mod:`harness._time` of the
harness.
"""
