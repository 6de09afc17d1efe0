"""The column definitions of kube-apiserver v1.37's server-side Tables, kind by kind.

Each list is what ``GET <collection>`` with ``Accept: application/json;as=Table;v=v1;g=meta.k8s.io``
answers as ``columnDefinitions`` on kube-apiserver v1.37.2 (recorded in
``tests/data/tables/v1.37.2.json``; the printers are ``pkg/printers/internalversion/printers.go``
and, for CustomResourceDefinitions, apiextensions-apiserver's). The descriptions are the Go types'
swagger docs the printers cite: long, but clients show them in help (``kubectl explain``-like
tools) and the test compares them exactly, so they are carried word for word. A kind without a
printer of its own (Role, ClusterRole, LimitRange, CSIStorageCapacity, ...) is absent here and gets
:data:`DEFAULT_COLUMNS`, the generic ``Name``/``Created At`` table of ``rest.NewDefaultTableConvertor``.

Kept apart from the row printers (:mod:`~fake_apiserver._endpoints.printers`) because it is data:
a release that changes a column changes a line here, not code.
"""

from __future__ import annotations

from typing import Any

__all__ = ["COLUMNS", "DEFAULT_COLUMNS", "NAME_DOC", "CREATED_DOC"]

Obj = dict[str, Any]

NAME_DOC = (
    "Name must be unique within a namespace. Is required when creating resources, although some resources "
    "may allow a client to request the generation of an appropriate name automatically. Name is primarily "
    "intended for creation idempotence and configuration definition. Cannot be updated. More info: "
    "https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names"
)
CREATED_DOC = (
    "CreationTimestamp is a timestamp representing the server time when this object was created. It is not "
    "guaranteed to be set in happens-before order across separate operations. Clients may not set this value. "
    "It is represented in RFC3339 form and is in UTC.\n\nPopulated by the system. Read-only. Null for lists. "
    "More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata"
)
_NAME_DOC = NAME_DOC
_CREATED_DOC = CREATED_DOC
_CONTAINERS_DOC = "Names of each container in the template."
_IMAGES_DOC = "Images referenced by each container in the template."


def _column(name: str, description: str, *, type_: str = "string", fmt: str = "", priority: int = 0) -> Obj:
    return {"name": name, "type": type_, "format": fmt, "description": description, "priority": priority}


_NAME = _column("Name", NAME_DOC, fmt="name")
_AGE = _column("Age", CREATED_DOC)

#: ``rest.NewDefaultTableConvertor``: the table of a kind without a printer.
DEFAULT_COLUMNS = [_NAME, _column("Created At", CREATED_DOC, type_="date")]

_COMPONENTSTATUS_COLUMNS = [
    _NAME,
    _column("Status", "Status of the component conditions"),
    _column("Message", "Message of the component conditions"),
    _column("Error", "Error of the component conditions"),
]

_CONFIGMAP_COLUMNS = [
    _NAME,
    _column("Data", "Data contains the configuration data. Each key must consist of alphanumeric characters, '-', '_' or '.'. "
        "Values with non-UTF-8 byte sequences must use the BinaryData field. The keys stored in Data must not "
        "overlap with the keys in the BinaryData field, this is enforced during validation process."),
    _AGE,
]

_ENDPOINTS_COLUMNS = [
    _NAME,
    _column("Endpoints", "The set of all endpoints is the union of all subsets. Addresses are placed into subsets according to the "
        "IPs they share. A single address with multiple ports, some of which are ready and some of which are not "
        "(because they come from different containers) will result in the address being displayed in different "
        "subsets for the different ports. No address will appear in both Addresses and NotReadyAddresses in the "
        "same subset. Sets of addresses and ports that comprise a service."),
    _AGE,
]

_EVENT_COLUMNS = [
    _column("Last Seen", "The time at which the most recent occurrence of this event was recorded."),
    _column("Type", "Type of this event (Normal, Warning), new types could be added in the future"),
    _column("Reason", "This should be a short, machine understandable string that gives the reason for the transition into the "
        "object's current status."),
    _column("Object", "The object that this event is about."),
    _column("Subobject", "If referring to a piece of an object instead of an entire object, this string should contain a valid "
        "JSON/Go field access statement, such as desiredState.manifest.containers[2]. For example, if the object "
        "reference is to a container within a pod, this would take on a value like: \"spec.containers{name}\" "
        "(where \"name\" refers to the name of the container that triggered the event) or if no container name is "
        "specified \"spec.containers[2]\" (container with index 2 in this pod). This syntax is chosen only to have "
        "some well-defined way of referencing a part of an object.", priority=1),
    _column("Source", "The component reporting this event. Should be a short machine understandable string.", priority=1),
    _column("Message", "A human-readable description of the status of this operation."),
    _column("First Seen", "The time at which the event was first recorded. (Time of server receipt is in TypeMeta.)", priority=1),
    _column("Count", "The number of times this event has occurred.", priority=1),
    _column("Name", _NAME_DOC, fmt="name", priority=1),
]

_NAMESPACE_COLUMNS = [
    _NAME,
    _column("Status", "The status of the namespace"),
    _AGE,
]

_NODE_COLUMNS = [
    _NAME,
    _column("Status", "The status of the node"),
    _column("Roles", "The roles of the node"),
    _AGE,
    _column("Version", "Kubelet Version reported by the node."),
    _column("Internal-IP", "List of addresses reachable to the node. Queried from cloud provider, if available. More info: "
        "https://kubernetes.io/docs/reference/node/node-status/#addresses Note: This field is declared as "
        "mergeable, but the merge key is not sufficiently unique, which can cause data corruption when it is "
        "merged. Callers should instead use a full-replacement patch. See https://pr.k8s.io/79391 for an example. "
        "Consumers should assume that addresses can change during the lifetime of a Node. However, there are some "
        "exceptions where this may not be possible, such as Pods that inherit a Node's address in its own status "
        "or consumers of the downward API (status.hostIP).", priority=1),
    _column("External-IP", "List of addresses reachable to the node. Queried from cloud provider, if available. More info: "
        "https://kubernetes.io/docs/reference/node/node-status/#addresses Note: This field is declared as "
        "mergeable, but the merge key is not sufficiently unique, which can cause data corruption when it is "
        "merged. Callers should instead use a full-replacement patch. See https://pr.k8s.io/79391 for an example. "
        "Consumers should assume that addresses can change during the lifetime of a Node. However, there are some "
        "exceptions where this may not be possible, such as Pods that inherit a Node's address in its own status "
        "or consumers of the downward API (status.hostIP).", priority=1),
    _column("OS-Image", "OS Image reported by the node from /etc/os-release (e.g. Debian GNU/Linux 7 (wheezy)).", priority=1),
    _column("Kernel-Version", "Kernel Version reported by the node from 'uname -r' (e.g. 3.16.0-0.bpo.4-amd64).", priority=1),
    _column("Container-Runtime", "ContainerRuntime Version reported by the node through runtime remote API (e.g. containerd://1.4.2).", priority=1),
]

_PERSISTENTVOLUMECLAIM_COLUMNS = [
    _NAME,
    _column("Status", "phase represents the current phase of PersistentVolumeClaim."),
    _column("Volume", "volumeName is the binding reference to the PersistentVolume backing this claim."),
    _column("Capacity", "capacity represents the actual resources of the underlying volume."),
    _column("Access Modes", "accessModes contains the actual access modes the volume backing the PVC has. More info: "
        "https://kubernetes.io/docs/concepts/storage/persistent-volumes#access-modes-1"),
    _column("StorageClass", "StorageClass of the pvc"),
    _column("VolumeAttributesClass", "VolumeAttributesClass of the pvc"),
    _AGE,
    _column("VolumeMode", "volumeMode defines what type of volume is required by the claim. Value of Filesystem is implied when not "
        "included in claim spec.", priority=1),
]

_PERSISTENTVOLUME_COLUMNS = [
    _NAME,
    _column("Capacity", "capacity is the description of the persistent volume's resources and capacity. More info: "
        "https://kubernetes.io/docs/concepts/storage/persistent-volumes#capacity"),
    _column("Access Modes", "accessModes contains all ways the volume can be mounted. More info: "
        "https://kubernetes.io/docs/concepts/storage/persistent-volumes#access-modes"),
    _column("Reclaim Policy", "persistentVolumeReclaimPolicy defines what happens to a persistent volume when released from its claim. "
        "Valid options are Retain (default for manually created PersistentVolumes), Delete (default for "
        "dynamically provisioned PersistentVolumes), and Recycle (deprecated). Recycle must be supported by the "
        "volume plugin underlying this PersistentVolume. More info: "
        "https://kubernetes.io/docs/concepts/storage/persistent-volumes#reclaiming"),
    _column("Status", "phase indicates if a volume is available, bound to a claim, or released by a claim. More info: "
        "https://kubernetes.io/docs/concepts/storage/persistent-volumes#phase"),
    _column("Claim", "claimRef is part of a bi-directional binding between PersistentVolume and PersistentVolumeClaim. Expected "
        "to be non-nil when bound. claim.VolumeName is the authoritative bind between PV and PVC. More info: "
        "https://kubernetes.io/docs/concepts/storage/persistent-volumes#binding"),
    _column("StorageClass", "StorageClass of the pv"),
    _column("VolumeAttributesClass", "VolumeAttributesClass of the pv"),
    _column("Reason", "reason is a brief CamelCase string that describes any failure and is meant for machine parsing and tidy "
        "display in the CLI."),
    _AGE,
    _column("VolumeMode", "volumeMode defines if a volume is intended to be used with a formatted filesystem or to remain in raw "
        "block state. Value of Filesystem is implied when not included in spec.", priority=1),
]

_POD_COLUMNS = [
    _NAME,
    _column("Ready", "The aggregate readiness state of this pod for accepting traffic."),
    _column("Status", "The aggregate status of the containers in this pod."),
    _column("Restarts", "The number of times the containers in this pod have been restarted and when the last container in this "
        "pod has restarted."),
    _AGE,
    _column("IP", "podIP address allocated to the pod. Routable at least within the cluster. Empty if not yet allocated.", priority=1),
    _column("Node", "NodeName indicates in which node this pod is scheduled. If empty, this pod is a candidate for scheduling "
        "by the scheduler defined in schedulerName. Once this field is set, the kubelet for this node becomes "
        "responsible for the lifecycle of this pod. This field should not be used to express a desire for the pod "
        "to be scheduled on a specific node. "
        "https://kubernetes.io/docs/concepts/scheduling-eviction/assign-pod-node/#nodename", priority=1),
    _column("Nominated Node", "nominatedNodeName is set only when this pod preempts other pods on the node, but it cannot be scheduled "
        "right away as preemption victims receive their graceful termination periods. This field does not "
        "guarantee that the pod will be scheduled on this node. Scheduler may decide to place the pod elsewhere if "
        "other nodes become available sooner. Scheduler may also decide to give the resources on this node to a "
        "higher priority pod that is created after preemption. As a result, this field may be different than "
        "PodSpec.nodeName when the pod is scheduled.", priority=1),
    _column("Readiness Gates", "If specified, all readiness gates will be evaluated for pod readiness. A pod is ready when all its "
        "containers are ready AND all conditions specified in the readiness gates have status equal to \"True\" "
        "More info: https://git.k8s.io/enhancements/keps/sig-network/580-pod-readiness-gates", priority=1),
]

_PODTEMPLATE_COLUMNS = [
    _NAME,
    _column("Containers", _CONTAINERS_DOC),
    _column("Images", _IMAGES_DOC),
    _column("Pod Labels", "The labels for the pod template."),
]

_REPLICATIONCONTROLLER_COLUMNS = [
    _NAME,
    _column("Desired", "Replicas is the number of desired replicas. This is a pointer to distinguish between explicit zero and "
        "unspecified. Defaults to 1. More info: "
        "https://kubernetes.io/docs/concepts/workloads/controllers/replicationcontroller#what-is-a-replicationcontroller", type_="integer"),
    _column("Current", "Replicas is the most recently observed number of replicas. More info: "
        "https://kubernetes.io/docs/concepts/workloads/controllers/replicationcontroller#what-is-a-replicationcontroller", type_="integer"),
    _column("Ready", "The number of ready replicas for this replication controller.", type_="integer"),
    _AGE,
    _column("Containers", _CONTAINERS_DOC, priority=1),
    _column("Images", _IMAGES_DOC, priority=1),
    _column("Selector", "Selector is a label query over pods that should match the Replicas count. If Selector is empty, it is "
        "defaulted to the labels present on the Pod template. Label keys and values that must match in order to be "
        "controlled by this replication controller, if empty defaulted to labels on Pod template. More info: "
        "https://kubernetes.io/docs/concepts/overview/working-with-objects/labels/#label-selectors", priority=1),
]

_RESOURCEQUOTA_COLUMNS = [
    _NAME,
    _column("Request", "Request represents a minimum amount of cpu/memory that a container may consume."),
    _column("Limit", "Limits control the maximum amount of cpu/memory that a container may use independent of contention on the "
        "node."),
    _AGE,
]

_SECRET_COLUMNS = [
    _NAME,
    _column("Type", "Used to facilitate programmatic handling of secret data. More info: "
        "https://kubernetes.io/docs/concepts/configuration/secret/#secret-types"),
    _column("Data", "Data contains the secret data. Each key must consist of alphanumeric characters, '-', '_' or '.'. The "
        "serialized form of the secret data is a base64 encoded string, representing the arbitrary (possibly "
        "non-string) data value here. Described in https://tools.ietf.org/html/rfc4648#section-4"),
    _AGE,
]

_SERVICEACCOUNT_COLUMNS = [
    _NAME,
    _AGE,
]

_SERVICE_COLUMNS = [
    _NAME,
    _column("Type", "type determines how the Service is exposed. Defaults to ClusterIP. Valid options are ExternalName, "
        "ClusterIP, NodePort, and LoadBalancer. \"ClusterIP\" allocates a cluster-internal IP address for "
        "load-balancing to endpoints. Endpoints are determined by the selector or if that is not specified, by "
        "manual construction of an Endpoints object or EndpointSlice objects. If clusterIP is \"None\", no virtual "
        "IP is allocated and the endpoints are published as a set of endpoints rather than a virtual IP. "
        "\"NodePort\" builds on ClusterIP and allocates a port on every node which routes to the same endpoints as "
        "the clusterIP. \"LoadBalancer\" builds on NodePort and creates an external load-balancer (if supported in "
        "the current cloud) which routes to the same endpoints as the clusterIP. \"ExternalName\" aliases this "
        "service to the specified externalName. Several other fields do not apply to ExternalName services. More "
        "info: https://kubernetes.io/docs/concepts/services-networking/service/#publishing-services-service-types"),
    _column("Cluster-IP", "clusterIP is the IP address of the service and is usually assigned randomly. If an address is specified "
        "manually, is in-range (as per system configuration), and is not in use, it will be allocated to the "
        "service; otherwise creation of the service will fail. This field may not be changed through updates "
        "unless the type field is also being changed to ExternalName (which requires this field to be blank) or "
        "the type field is being changed from ExternalName (in which case this field may optionally be specified, "
        "as describe above).  Valid values are \"None\", empty string (\"\"), or a valid IP address. Setting this "
        "to \"None\" makes a \"headless service\" (no virtual IP), which is useful when direct endpoint "
        "connections are preferred and proxying is not required.  Only applies to types ClusterIP, NodePort, and "
        "LoadBalancer. If this field is specified when creating a Service of type ExternalName, creation will "
        "fail. This field will be wiped when updating a Service to type ExternalName. More info: "
        "https://kubernetes.io/docs/concepts/services-networking/service/#virtual-ips-and-service-proxies"),
    _column("External-IP", "externalIPs is a list of IP addresses for which nodes in the cluster will also accept traffic for this "
        "service.  These IPs are not managed by Kubernetes.  The user is responsible for ensuring that traffic "
        "arrives at a node with this IP.  A common example is external load-balancers that are not part of the "
        "Kubernetes system."),
    _column("Port(s)", "The list of ports that are exposed by this service. More info: "
        "https://kubernetes.io/docs/concepts/services-networking/service/#virtual-ips-and-service-proxies"),
    _AGE,
    _column("Selector", "Route service traffic to pods with label keys and values matching this selector. If empty or not present, "
        "the service is assumed to have an external process managing its endpoints, which Kubernetes will not "
        "modify. Only applies to types ClusterIP, NodePort, and LoadBalancer. Ignored if type is ExternalName. "
        "More info: https://kubernetes.io/docs/concepts/services-networking/service/", priority=1),
]

_APISERVICE_COLUMNS = [
    _NAME,
    _column("Service", "The reference to the service that hosts this API endpoint."),
    _column("Available", "Whether this service is available."),
    _AGE,
]

_CONTROLLERREVISION_COLUMNS = [
    _NAME,
    _column("Controller", "Controller of the object"),
    _column("Revision", "Revision indicates the revision of the state represented by Data."),
    _AGE,
]

_DAEMONSET_COLUMNS = [
    _NAME,
    _column("Desired", "The total number of nodes that should be running the daemon pod (including nodes correctly running the "
        "daemon pod). More info: https://kubernetes.io/docs/concepts/workloads/controllers/daemonset/", type_="integer"),
    _column("Current", "The number of nodes that are running at least 1 daemon pod and are supposed to run the daemon pod. More "
        "info: https://kubernetes.io/docs/concepts/workloads/controllers/daemonset/", type_="integer"),
    _column("Ready", "numberReady is the number of nodes that should be running the daemon pod and have one or more of the "
        "daemon pod running with a Ready Condition.", type_="integer"),
    _column("Up-to-date", "The total number of nodes that are running updated daemon pod", type_="integer"),
    _column("Available", "The number of nodes that should be running the daemon pod and have one or more of the daemon pod running "
        "and available (ready for at least spec.minReadySeconds)", type_="integer"),
    _column("Node Selector", "NodeSelector is a selector which must be true for the pod to fit on a node. Selector which must match a "
        "node's labels for the pod to be scheduled on that node. More info: "
        "https://kubernetes.io/docs/concepts/configuration/assign-pod-node/"),
    _AGE,
    _column("Containers", _CONTAINERS_DOC, priority=1),
    _column("Images", _IMAGES_DOC, priority=1),
    _column("Selector", "A label query over pods that are managed by the daemon set. Must match in order to be controlled. It must "
        "match the pod template's labels. More info: "
        "https://kubernetes.io/docs/concepts/overview/working-with-objects/labels/#label-selectors", priority=1),
]

_DEPLOYMENT_COLUMNS = [
    _NAME,
    _column("Ready", "Number of the pod with ready state"),
    _column("Up-to-date", "Total number of non-terminating pods targeted by this deployment that have the desired template spec."),
    _column("Available", "Total number of available non-terminating pods (ready for at least minReadySeconds) targeted by this "
        "deployment."),
    _AGE,
    _column("Containers", _CONTAINERS_DOC, priority=1),
    _column("Images", _IMAGES_DOC, priority=1),
    _column("Selector", "Label selector for pods. Existing ReplicaSets whose pods are selected by this will be the ones affected "
        "by this deployment. It must match the pod template's labels.", priority=1),
]

_REPLICASET_COLUMNS = [
    _NAME,
    _column("Desired", "Replicas is the number of desired pods. This is a pointer to distinguish between explicit zero and "
        "unspecified. Defaults to 1. More info: "
        "https://kubernetes.io/docs/concepts/workloads/controllers/replicaset", type_="integer"),
    _column("Current", "Replicas is the most recently observed number of non-terminating pods. More info: "
        "https://kubernetes.io/docs/concepts/workloads/controllers/replicaset", type_="integer"),
    _column("Ready", "The number of non-terminating pods targeted by this ReplicaSet with a Ready Condition.", type_="integer"),
    _AGE,
    _column("Containers", _CONTAINERS_DOC, priority=1),
    _column("Images", _IMAGES_DOC, priority=1),
    _column("Selector", "Selector is a label query over pods that should match the replica count. Label keys and values that must "
        "match in order to be controlled by this replica set. It must match the pod template's labels. More info: "
        "https://kubernetes.io/docs/concepts/overview/working-with-objects/labels/#label-selectors", priority=1),
]

_STATEFULSET_COLUMNS = [
    _NAME,
    _column("Ready", "Number of the pod with ready state"),
    _AGE,
    _column("Containers", _CONTAINERS_DOC, priority=1),
    _column("Images", _IMAGES_DOC, priority=1),
]

_EVENT_COLUMNS = [
    _column("Last Seen", "The time at which the most recent occurrence of this event was recorded."),
    _column("Type", "Type of this event (Normal, Warning), new types could be added in the future"),
    _column("Reason", "This should be a short, machine understandable string that gives the reason for the transition into the "
        "object's current status."),
    _column("Object", "The object that this event is about."),
    _column("Subobject", "If referring to a piece of an object instead of an entire object, this string should contain a valid "
        "JSON/Go field access statement, such as desiredState.manifest.containers[2]. For example, if the object "
        "reference is to a container within a pod, this would take on a value like: \"spec.containers{name}\" "
        "(where \"name\" refers to the name of the container that triggered the event) or if no container name is "
        "specified \"spec.containers[2]\" (container with index 2 in this pod). This syntax is chosen only to have "
        "some well-defined way of referencing a part of an object.", priority=1),
    _column("Source", "The component reporting this event. Should be a short machine understandable string.", priority=1),
    _column("Message", "A human-readable description of the status of this operation."),
    _column("First Seen", "The time at which the event was first recorded. (Time of server receipt is in TypeMeta.)", priority=1),
    _column("Count", "The number of times this event has occurred.", priority=1),
    _column("Name", _NAME_DOC, fmt="name", priority=1),
]

_HORIZONTALPODAUTOSCALER_COLUMNS = [
    _NAME,
    _column("Reference", "scaleTargetRef points to the target resource to scale, and is used to the pods for which metrics should "
        "be collected, as well as to actually change the replica count."),
    _column("Targets", "metrics contains the specifications for which to use to calculate the desired replica count (the maximum "
        "replica count across all metrics will be used).  The desired replica count is calculated multiplying the "
        "ratio between the target value and the current value by the current number of pods.  Ergo, metrics used "
        "must decrease as the pod count is increased, and vice-versa.  See the individual metric source types for "
        "more information about how each type of metric must respond. If not set, the default metric will be set "
        "to 80% average CPU utilization."),
    _column("MinPods", "minReplicas is the lower limit for the number of replicas to which the autoscaler can scale down.  It "
        "defaults to 1 pod.  minReplicas is allowed to be 0 if the alpha feature gate HPAScaleToZero is enabled "
        "and at least one Object or External metric is configured.  Scaling is active as long as at least one "
        "metric value is available."),
    _column("MaxPods", "maxReplicas is the upper limit for the number of replicas to which the autoscaler can scale up. It cannot "
        "be less that minReplicas."),
    _column("Replicas", "currentReplicas is current number of replicas of pods managed by this autoscaler, as last seen by the "
        "autoscaler."),
    _AGE,
]

_CRONJOB_COLUMNS = [
    _NAME,
    _column("Schedule", "The schedule in Cron format, see https://en.wikipedia.org/wiki/Cron."),
    _column("Timezone", "The time zone name for the given schedule, see "
        "https://en.wikipedia.org/wiki/List_of_tz_database_time_zones. If not specified, this will default to the "
        "time zone of the kube-controller-manager process. The set of valid time zone names and the time zone "
        "offset is loaded from the system-wide time zone database by the API server during CronJob validation and "
        "the controller manager during execution. If no system-wide time zone database can be found a bundled "
        "version of the database is used instead. If the time zone name becomes invalid during the lifetime of a "
        "CronJob or due to a change in host configuration, the controller will stop creating new new Jobs and will "
        "create a system event with the reason UnknownTimeZone. More information can be found in "
        "https://kubernetes.io/docs/concepts/workloads/controllers/cron-jobs/#time-zones"),
    _column("Suspend", "This flag tells the controller to suspend subsequent executions, it does not apply to already started "
        "executions.  Defaults to false.", type_="boolean"),
    _column("Active", "A list of pointers to currently running jobs.", type_="integer"),
    _column("Last Schedule", "Information when was the last time the job was successfully scheduled."),
    _AGE,
    _column("Containers", _CONTAINERS_DOC, priority=1),
    _column("Images", _IMAGES_DOC, priority=1),
    _column("Selector", "A label query over pods that should match the pod count. Normally, the system sets this field for you. "
        "More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/labels/#label-selectors", priority=1),
]

_JOB_COLUMNS = [
    _NAME,
    _column("Status", "Status of the job."),
    _column("Completions", "The number of pods which reached phase Succeeded. The value increases monotonically for a given spec. "
        "However, it may decrease in reaction to scale down of elastic indexed jobs."),
    _column("Duration", "Time required to complete the job."),
    _AGE,
    _column("Containers", _CONTAINERS_DOC, priority=1),
    _column("Images", _IMAGES_DOC, priority=1),
    _column("Selector", "A label query over pods that should match the pod count. Normally, the system sets this field for you. "
        "More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/labels/#label-selectors", priority=1),
]

_CERTIFICATESIGNINGREQUEST_COLUMNS = [
    _NAME,
    _AGE,
    _column("SignerName", "Requested signer for the request. It is a qualified name in the form: `scope-hostname.io/name`. If empty, "
        "it will be defaulted:\n 1. If it's a kubelet client certificate, it is assigned\n    "
        "\"kubernetes.io/kube-apiserver-client-kubelet\".\n 2. If it's a kubelet serving certificate, it is "
        "assigned\n    \"kubernetes.io/kubelet-serving\".\n 3. Otherwise, it is assigned "
        "\"kubernetes.io/legacy-unknown\".\nDistribution of trust for signers happens out of band. You can select "
        "on this field using `spec.signerName`."),
    _column("Requestor", "Base64-encoded PKCS#10 CSR data"),
    _column("RequestedDuration", "expirationSeconds is the requested duration of validity of the issued certificate. The certificate signer "
        "may issue a certificate with a different validity duration so a client must check the delta between the "
        "notBefore and and notAfter fields in the issued certificate to determine the actual duration.\n\nThe "
        "v1.22+ in-tree implementations of the well-known Kubernetes signers will honor this field as long as the "
        "requested duration is not greater than the maximum duration they will honor per the "
        "--cluster-signing-duration CLI flag to the Kubernetes controller manager.\n\nCertificate signers may not "
        "honor this field for various reasons:\n\n  1. Old signer that is unaware of the field (such as the "
        "in-tree\n     implementations prior to v1.22)\n  2. Signer whose configured maximum is shorter than the "
        "requested duration\n  3. Signer whose configured minimum is longer than the requested duration\n\nThe "
        "minimum valid value for expirationSeconds is 600, i.e. 10 minutes."),
    _column("Condition", "Conditions applied to the request, such as approval or denial."),
]

_CLUSTERTRUSTBUNDLE_COLUMNS = [
    _NAME,
    _column("SignerName", "signerName indicates the associated signer, if any.\n\nIn order to create or update a ClusterTrustBundle "
        "that sets signerName, you must have the following cluster-scoped permission: group=certificates.k8s.io "
        "resource=signers resourceName=<the signer name> verb=attest.\n\nIf signerName is not empty, then the "
        "ClusterTrustBundle object must be named with the signer name as a prefix (translating slashes to colons). "
        "For example, for the signer name `example.com/foo`, valid ClusterTrustBundle object names include "
        "`example.com:foo:abc` and `example.com:foo:v1`.\n\nIf signerName is empty, then the ClusterTrustBundle "
        "object's name must not have such a prefix.\n\nList/watch requests for ClusterTrustBundles can filter on "
        "this field using a `spec.signerName=NAME` field selector."),
]

_PODCERTIFICATEREQUEST_COLUMNS = [
    _NAME,
    _column("PodName", "podName is the name of the pod into which the certificate will be mounted."),
    _column("ServiceAccountName", "serviceAccountName is the name of the service account the pod is running as."),
    _column("NodeName", "nodeName is the name of the node the pod is assigned to."),
    _column("SignerName", "signerName indicates the requested signer.\n\nAll signer names beginning with `kubernetes.io` are "
        "reserved for use by the Kubernetes project.  There is currently one well-known signer documented by the "
        "Kubernetes project, `kubernetes.io/kube-apiserver-client-pod`, which will issue client certificates "
        "understood by kube-apiserver.  It is currently unimplemented."),
    _column("State", "Is the request Pending, Issued, Denied, or Failed?"),
    _column("UnverifiedUserAnnotations", "unverifiedUserAnnotations allow pod authors to pass additional information to the signer implementation.  "
        "Kubernetes does not restrict or validate this metadata in any way.\n\nEntries are subject to the same "
        "validation as object metadata annotations, with the addition that all keys must be domain-prefixed. No "
        "restrictions are placed on values, except an overall size limitation on the entire field.\n\nSigners "
        "should document the keys and values they support.  Signers should deny requests that contain keys they do "
        "not recognize."),
]

_INGRESSCLASS_COLUMNS = [
    _NAME,
    _column("Controller", "Controller that is responsible for handling this class"),
    _column("Parameters", "A reference to a resource with additional parameters"),
    _AGE,
]

_INGRESS_COLUMNS = [
    _NAME,
    _column("Class", "The name of the IngressClass resource that should be used for additional configuration"),
    _column("Hosts", "Hosts that incoming requests are matched against before the ingress rule"),
    _column("Address", "Address is a list containing ingress points for the load-balancer"),
    _column("Ports", "Ports of TLS configurations that open"),
    _AGE,
]

_IPADDRESS_COLUMNS = [
    _NAME,
    _column("ParentRef", "parentRef references the resource that an IPAddress is attached to. An IPAddress must reference a parent "
        "object."),
]

_NETWORKPOLICY_COLUMNS = [
    _NAME,
    _column("Pod-Selector", "podSelector selects the pods to which this NetworkPolicy object applies. The array of rules is applied to "
        "any pods selected by this field. An empty selector matches all pods in the policy's namespace. Multiple "
        "network policies can select the same set of pods. In this case, the ingress rules for each are combined "
        "additively. This field is optional. If it is not specified, it defaults to an empty selector."),
    _AGE,
]

_SERVICECIDR_COLUMNS = [
    _NAME,
    _column("CIDRs", "cidrs defines the IP blocks in CIDR notation (e.g. \"192.168.0.0/24\" or \"2001:db8::/64\") from which to "
        "assign service cluster IPs. Max of two CIDRs is allowed, one of each IP family. This field is immutable."),
    _AGE,
]

_PODDISRUPTIONBUDGET_COLUMNS = [
    _NAME,
    _column("Min Available", "The minimum number of pods that must be available."),
    _column("Max Unavailable", "The maximum number of pods that may be unavailable."),
    _column("Allowed Disruptions", "Calculated number of pods that may be disrupted at this time.", type_="integer"),
    _AGE,
]

_CLUSTERROLEBINDING_COLUMNS = [
    _NAME,
    _column("Role", "roleRef can only reference a ClusterRole in the global namespace. If the RoleRef cannot be resolved, the "
        "Authorizer must return an error."),
    _AGE,
    _column("Users", "Users in the clusterRoleBinding", priority=1),
    _column("Groups", "Groups in the clusterRoleBinding", priority=1),
    _column("ServiceAccounts", "ServiceAccounts in the clusterRoleBinding", priority=1),
]

_ROLEBINDING_COLUMNS = [
    _NAME,
    _column("Role", "roleRef can reference a Role in the current namespace or a ClusterRole in the global namespace. If the "
        "RoleRef cannot be resolved, the Authorizer must return an error."),
    _AGE,
    _column("Users", "Users in the roleBinding", priority=1),
    _column("Groups", "Groups in the roleBinding", priority=1),
    _column("ServiceAccounts", "ServiceAccounts in the roleBinding", priority=1),
]

_CSIDRIVER_COLUMNS = [
    _NAME,
    _column("AttachRequired", "attachRequired indicates this CSI volume driver requires an attach operation (because it implements the "
        "CSI ControllerPublishVolume() method), and that the Kubernetes attach detach controller should call the "
        "attach volume interface which checks the volumeattachment status and waits until the volume is attached "
        "before proceeding to mounting. The CSI external-attacher coordinates with CSI volume driver and updates "
        "the volumeattachment status when the attach operation is complete. If the value is specified to false, "
        "the attach operation will be skipped. Otherwise the attach operation will be called.\n\nThis field is "
        "immutable.", type_="boolean"),
    _column("PodInfoOnMount", "podInfoOnMount indicates this CSI volume driver requires additional pod information (like podName, "
        "podUID, etc.) during mount operations, if set to true. If set to false, pod information will not be "
        "passed on mount. Default is false.\n\nThe CSI driver specifies podInfoOnMount as part of driver "
        "deployment. If true, Kubelet will pass pod information as VolumeContext in the CSI NodePublishVolume() "
        "calls. The CSI driver is responsible for parsing and validating the information passed in as "
        "VolumeContext.\n\nThe following VolumeContext will be passed if podInfoOnMount is set to true. This list "
        "might grow, but the prefix will be used. \"csi.storage.k8s.io/pod.name\": pod.Name "
        "\"csi.storage.k8s.io/pod.namespace\": pod.Namespace \"csi.storage.k8s.io/pod.uid\": string(pod.UID) "
        "\"csi.storage.k8s.io/ephemeral\": \"true\" if the volume is an ephemeral inline volume\n                  "
        "              defined by a CSIVolumeSource, otherwise \"false\"\n\n\"csi.storage.k8s.io/ephemeral\" is a "
        "new feature in Kubernetes 1.16. It is only required for drivers which support both the \"Persistent\" and "
        "\"Ephemeral\" VolumeLifecycleMode. Other drivers can leave pod info disabled and/or ignore this field. As "
        "Kubernetes 1.15 doesn't support this field, drivers can only support one mode when deployed on such a "
        "cluster and the deployment determines which mode that is, for example via a command line parameter of the "
        "driver.\n\nThis field was immutable in Kubernetes < 1.29 and now is mutable.", type_="boolean"),
    _column("StorageCapacity", "storageCapacity indicates that the CSI volume driver wants pod scheduling to consider the storage "
        "capacity that the driver deployment will report by creating CSIStorageCapacity objects with capacity "
        "information, if set to true.\n\nThe check can be enabled immediately when deploying a driver. In that "
        "case, provisioning new volumes with late binding will pause until the driver deployment has published "
        "some suitable CSIStorageCapacity object.\n\nAlternatively, the driver can be deployed with the field "
        "unset or false and it can be flipped later when storage capacity information has been published.\n\nThis "
        "field was immutable in Kubernetes <= 1.22 and now is mutable.", type_="boolean"),
    _column("TokenRequests", "tokenRequests indicates the CSI driver needs pods' service account tokens it is mounting volume for to do "
        "necessary authentication. Kubelet will pass the tokens in VolumeContext in the CSI NodePublishVolume "
        "calls. The CSI driver should parse and validate the following VolumeContext: "
        "\"csi.storage.k8s.io/serviceAccount.tokens\": {\n  \"<audience>\": {\n    \"token\": <token>,\n    "
        "\"expirationTimestamp\": <expiration timestamp in RFC3339>,\n  },\n  ...\n}\n\nNote: Audience in each "
        "TokenRequest should be different and at most one token is empty string. To receive a new token after "
        "expiry, RequiresRepublish can be used to trigger NodePublishVolume periodically."),
    _column("RequiresRepublish", "requiresRepublish indicates the CSI driver wants `NodePublishVolume` being periodically called to reflect "
        "any possible change in the mounted volume. This field defaults to false.\n\nNote: After a successful "
        "initial NodePublishVolume call, subsequent calls to NodePublishVolume should only update the contents of "
        "the volume. New mount points will not be seen by a running container.", type_="boolean"),
    _column("Modes", "volumeLifecycleModes defines what kind of volumes this CSI volume driver supports. The default if the "
        "list is empty is \"Persistent\", which is the usage defined by the CSI specification and implemented in "
        "Kubernetes via the usual PV/PVC mechanism.\n\nThe other mode is \"Ephemeral\". In this mode, volumes are "
        "defined inline inside the pod spec with CSIVolumeSource and their lifecycle is tied to the lifecycle of "
        "that pod. A driver has to be aware of this because it is only going to get a NodePublishVolume call for "
        "such a volume.\n\nFor more information about implementing this mode, see "
        "https://kubernetes-csi.github.io/docs/ephemeral-local-volumes.html A driver can support one or more of "
        "these modes and more modes may be added in the future.\n\nThis field is beta. This field is immutable."),
    _AGE,
]

_CSINODE_COLUMNS = [
    _NAME,
    _column("Drivers", "Drivers indicates the number of CSI drivers registered on the node", type_="integer"),
    _AGE,
]

_STORAGECLASS_COLUMNS = [
    _NAME,
    _column("Provisioner", "provisioner indicates the type of the provisioner."),
    _column("ReclaimPolicy", "reclaimPolicy controls the reclaimPolicy for dynamically provisioned PersistentVolumes of this storage "
        "class. Defaults to Delete."),
    _column("VolumeBindingMode", "volumeBindingMode indicates how PersistentVolumeClaims should be provisioned and bound.  When unset, "
        "VolumeBindingImmediate is used. This field is only honored by servers that enable the VolumeScheduling "
        "feature."),
    _column("AllowVolumeExpansion", "allowVolumeExpansion shows whether the storage class allow volume expand."),
    _AGE,
]

_VOLUMEATTACHMENT_COLUMNS = [
    _NAME,
    _column("Attacher", "attacher indicates the name of the volume driver that MUST handle this request. This is the name returned "
        "by GetPluginName().", fmt="name"),
    _column("PV", "persistentVolumeName represents the name of the persistent volume to attach."),
    _column("Node", "nodeName represents the node that the volume should be attached to."),
    _column("Attached", "attached indicates the volume is successfully attached. This field must only be set by the entity "
        "completing the attach operation, i.e. the external-attacher.", type_="boolean"),
    _AGE,
]

_VOLUMEATTRIBUTESCLASS_COLUMNS = [
    _NAME,
    _column("DriverName", "driverName is the name of the CSI driver This field is immutable."),
    _AGE,
]

_MUTATINGADMISSIONPOLICY_COLUMNS = [
    _NAME,
    _column("Mutations", "Mutation indicates the number of mutations rules defined in this configuration", type_="integer"),
    _column("ParamKind", "ParamKind specifies the kind of resources used to parameterize this policy"),
    _AGE,
]

_MUTATINGADMISSIONPOLICYBINDING_COLUMNS = [
    _NAME,
    _column("PolicyName", "PolicyName indicates the policy definition which the policy binding binded to"),
    _column("ParamRef", "ParamRef indicates the param resource which sets the configuration param"),
    _AGE,
]

_MUTATINGWEBHOOKCONFIGURATION_COLUMNS = [
    _NAME,
    _column("Webhooks", "Webhooks indicates the number of webhooks registered in this configuration", type_="integer"),
    _AGE,
]

_VALIDATINGADMISSIONPOLICY_COLUMNS = [
    _NAME,
    _column("Validations", "Validations indicates the number of validation rules defined in this configuration", type_="integer"),
    _column("ParamKind", "ParamKind specifies the kind of resources used to parameterize this policy"),
    _AGE,
]

_VALIDATINGADMISSIONPOLICYBINDING_COLUMNS = [
    _NAME,
    _column("PolicyName", "PolicyName indicates the policy definition which the policy binding binded to"),
    _column("ParamRef", "ParamRef indicates the param resource which sets the configuration param"),
    _AGE,
]

_VALIDATINGWEBHOOKCONFIGURATION_COLUMNS = [
    _NAME,
    _column("Webhooks", "Webhooks indicates the number of webhooks registered in this configuration", type_="integer"),
    _AGE,
]

_CUSTOMRESOURCEDEFINITION_COLUMNS = [
    _NAME,
    _column("Scope", "Cluster/Namespaced"),
    _column("Versions", "Served versions"),
    _column("Created At", _CREATED_DOC, type_="date"),
    _column("Group", "API group", priority=1),
    _column("Kind", "CustomResource kind", priority=1),
    _column("ShortNames", "Short names", priority=1),
    _column("Established", "Established status", type_="boolean", priority=1),
]

_PRIORITYCLASS_COLUMNS = [
    _NAME,
    _column("Value", "value represents the integer value of this priority class. This is the actual priority that pods receive "
        "when they have the name of this class in their pod spec.", type_="integer"),
    _column("Global-Default", "globalDefault specifies whether this PriorityClass should be considered as the default priority for pods "
        "that do not have any priority class. Only one PriorityClass can be marked as `globalDefault`. However, if "
        "more than one PriorityClasses exists with their `globalDefault` field set to true, the smallest value of "
        "such global default PriorityClasses will be used as the default priority.", type_="boolean"),
    _AGE,
    _column("PreemptionPolicy", "preemptionPolicy is the Policy for preempting pods with lower priority. One of Never, "
        "PreemptLowerPriority. Defaults to PreemptLowerPriority if unset."),
]

_LEASE_COLUMNS = [
    _NAME,
    _column("Holder", "holderIdentity contains the identity of the holder of a current lease. If Coordinated Leader Election is "
        "used, the holder identity must be equal to the elected LeaseCandidate.metadata.name field."),
    _AGE,
]

_RUNTIMECLASS_COLUMNS = [
    _NAME,
    _column("Handler", ""),
    _AGE,
]

_ENDPOINTSLICE_COLUMNS = [
    _NAME,
    _column("AddressType", "addressType specifies the type of address carried by this EndpointSlice. All addresses in this slice must "
        "be the same type. This field is immutable after creation. The following address types are currently "
        "supported: * IPv4: Represents an IPv4 Address. * IPv6: Represents an IPv6 Address. * FQDN: Represents a "
        "Fully Qualified Domain Name. (Deprecated) The EndpointSlice controller only generates, and kube-proxy "
        "only processes, slices of addressType \"IPv4\" and \"IPv6\". No semantics are defined for the \"FQDN\" "
        "type."),
    _column("Ports", "ports specifies the list of network ports exposed by each endpoint in this slice. Each port must have a "
        "unique name. Each slice may include a maximum of 100 ports. Services always have at least 1 port, so "
        "EndpointSlices generated by the EndpointSlice controller will likewise always have at least 1 port. "
        "EndpointSlices used for other purposes may have an empty ports list."),
    _column("Endpoints", "endpoints is a list of unique endpoints in this slice. Each slice may include a maximum of 1000 endpoints."),
    _AGE,
]

_DEVICECLASS_COLUMNS = [
    _NAME,
    _AGE,
]

_DEVICETAINTRULE_COLUMNS = [
    _NAME,
    _column("Key", "The taint key to be applied to a device. Must be a label name."),
    _column("Value", "The taint value corresponding to the taint key. Must be a label value."),
    _column("Effect", "The effect of the taint on claims that do not tolerate the taint and through such claims on the pods "
        "using them.\n\nValid effects are None, NoSchedule and NoExecute. PreferNoSchedule as used for nodes is "
        "not valid here. More effects may get added in the future. Consumers must treat unknown effects like None."),
    _column("TimeAdded", "TimeAdded represents the time at which the taint was added or (only in a DeviceTaintRule) the effect was "
        "modified. Added automatically during create or update if not set.\n\nIn addition, in a DeviceTaintRule a "
        "value provided during an update gets replaced with the current time if the provided value is the same as "
        "the old one and the new effect is different. Changing the key and/or value while keeping the effect "
        "unchanged is possible and does not update the time stamp because the eviction which uses it is either "
        "already started (NoExecute) or not started yet (NoEffect, NoSchedule)."),
    _AGE,
]

_RESOURCECLAIM_COLUMNS = [
    _NAME,
    _column("State", "A summary of the current state (allocated, pending, reserved, etc.)."),
    _AGE,
]

_RESOURCECLAIMTEMPLATE_COLUMNS = [
    _NAME,
    _AGE,
]

_RESOURCESLICE_COLUMNS = [
    _NAME,
    _column("Node", "NodeName identifies the node which provides the resources in this pool. A field selector can be used to "
        "list only ResourceSlice objects belonging to a certain node.\n\nThis field can be used to limit access "
        "from nodes to ResourceSlices with the same node name. It also indicates to autoscalers that adding new "
        "nodes of the same type as some old node might also make new resources available.\n\nExactly one of "
        "NodeName, NodeSelector, AllNodes, and PerDeviceNodeSelection must be set. This field is immutable."),
    _column("Driver", "Driver identifies the DRA driver providing the capacity information. A field selector can be used to list "
        "only ResourceSlice objects with a certain driver name.\n\nMust be a DNS subdomain and should end with a "
        "DNS domain owned by the vendor of the driver. It should use only lower case characters. This field is "
        "immutable."),
    _column("Pool", "Name is used to identify the pool. For node-local devices, this is often the node name, but this is not "
        "required. A field selector can be used to list only ResourceSlice objects belonging to a certain "
        "pool.\n\nIt must not be longer than 253 characters and must consist of one or more DNS sub-domains "
        "separated by slashes. This field is immutable."),
    _AGE,
]

_FLOWSCHEMA_COLUMNS = [
    _NAME,
    _column("PriorityLevel", "`name` is the name of the priority level configuration being referenced Required."),
    _column("MatchingPrecedence", "`matchingPrecedence` is used to choose among the FlowSchemas that match a given request. The chosen "
        "FlowSchema is among those with the numerically lowest (which we take to be logically highest) "
        "MatchingPrecedence.  Each MatchingPrecedence value must be ranged in [1,10000]. Note that if the "
        "precedence is not specified, it will be set to 1000 as default."),
    _column("DistinguisherMethod", "`distinguisherMethod` defines how to compute the flow distinguisher for requests that match this schema. "
        "`nil` specifies that the distinguisher is disabled and thus will always be the empty string."),
    _AGE,
    _column("MissingPL", "references a broken or non-existent PriorityLevelConfiguration"),
]

_PRIORITYLEVELCONFIGURATION_COLUMNS = [
    _NAME,
    _column("Type", "`type` indicates whether this priority level is subject to limitation on request execution.  A value of "
        "`\"Exempt\"` means that requests of this priority level are not subject to a limit (and thus are never "
        "queued) and do not detract from the capacity made available to other priority levels.  A value of "
        "`\"Limited\"` means that (a) requests of this priority level _are_ subject to limits and (b) some of the "
        "server's limited capacity is made available exclusively to this priority level. Required."),
    _column("NominalConcurrencyShares", "`nominalConcurrencyShares` (NCS) contributes to the computation of the NominalConcurrencyLimit "
        "(NominalCL) of this level. This is the number of execution seats available at this priority level. This "
        "is used both for requests dispatched from this priority level as well as requests dispatched from other "
        "priority levels borrowing seats from this level. The server's concurrency limit (ServerCL) is divided "
        "among the Limited priority levels in proportion to their NCS values:\n\nNominalCL(i)  = ceil( ServerCL * "
        "NCS(i) / sum_ncs ) sum_ncs = sum[priority level k] NCS(k)\n\nBigger numbers mean a larger nominal "
        "concurrency limit, at the expense of every other priority level.\n\nIf not specified, this field defaults "
        "to a value of 30.\n\nSetting this field to zero supports the construction of a \"jail\" for this priority "
        "level that is used to hold some request(s)"),
    _column("Queues", "`queues` is the number of queues for this priority level. The queues exist independently at each "
        "apiserver. The value must be positive.  Setting it to 1 effectively precludes shufflesharding and thus "
        "makes the distinguisher method of associated flow schemas irrelevant.  This field has a default value of "
        "64."),
    _column("HandSize", "`handSize` is a small positive number that configures the shuffle sharding of requests into queues.  When "
        "enqueuing a request at this priority level the request's flow identifier (a string pair) is hashed and "
        "the hash value is used to shuffle the list of queues and deal a hand of the size specified here.  The "
        "request is put into one of the shortest queues in that hand. `handSize` must be no larger than `queues`, "
        "and should be significantly smaller (so that a few heavy flows do not saturate most of the queues).  See "
        "the user-facing documentation for more extensive guidance on setting this field.  This field has a "
        "default value of 8."),
    _column("QueueLengthLimit", "`queueLengthLimit` is the maximum number of requests allowed to be waiting in a given queue of this "
        "priority level at a time; excess requests are rejected.  This value must be positive.  If not specified, "
        "it will be defaulted to 50."),
    _AGE,
]

_STORAGEVERSIONMIGRATION_COLUMNS = [
    _column("Name", _NAME_DOC),
    _column("Resource", "GroupResource to migrate"),
    _column("Status", "Status of the migration"),
]


#: (group, kind) -> the columns of its printer.
COLUMNS: dict[tuple[str, str], list[Obj]] = {
    ("", "ComponentStatus"): _COMPONENTSTATUS_COLUMNS,
    ("", "ConfigMap"): _CONFIGMAP_COLUMNS,
    ("", "Endpoints"): _ENDPOINTS_COLUMNS,
    ("", "Event"): _EVENT_COLUMNS,
    ("", "Namespace"): _NAMESPACE_COLUMNS,
    ("", "Node"): _NODE_COLUMNS,
    ("", "PersistentVolumeClaim"): _PERSISTENTVOLUMECLAIM_COLUMNS,
    ("", "PersistentVolume"): _PERSISTENTVOLUME_COLUMNS,
    ("", "Pod"): _POD_COLUMNS,
    ("", "PodTemplate"): _PODTEMPLATE_COLUMNS,
    ("", "ReplicationController"): _REPLICATIONCONTROLLER_COLUMNS,
    ("", "ResourceQuota"): _RESOURCEQUOTA_COLUMNS,
    ("", "Secret"): _SECRET_COLUMNS,
    ("", "ServiceAccount"): _SERVICEACCOUNT_COLUMNS,
    ("", "Service"): _SERVICE_COLUMNS,
    ("apiregistration.k8s.io", "APIService"): _APISERVICE_COLUMNS,
    ("apps", "ControllerRevision"): _CONTROLLERREVISION_COLUMNS,
    ("apps", "DaemonSet"): _DAEMONSET_COLUMNS,
    ("apps", "Deployment"): _DEPLOYMENT_COLUMNS,
    ("apps", "ReplicaSet"): _REPLICASET_COLUMNS,
    ("apps", "StatefulSet"): _STATEFULSET_COLUMNS,
    ("events.k8s.io", "Event"): _EVENT_COLUMNS,
    ("autoscaling", "HorizontalPodAutoscaler"): _HORIZONTALPODAUTOSCALER_COLUMNS,
    ("batch", "CronJob"): _CRONJOB_COLUMNS,
    ("batch", "Job"): _JOB_COLUMNS,
    ("certificates.k8s.io", "CertificateSigningRequest"): _CERTIFICATESIGNINGREQUEST_COLUMNS,
    ("certificates.k8s.io", "ClusterTrustBundle"): _CLUSTERTRUSTBUNDLE_COLUMNS,
    ("certificates.k8s.io", "PodCertificateRequest"): _PODCERTIFICATEREQUEST_COLUMNS,
    ("networking.k8s.io", "IngressClass"): _INGRESSCLASS_COLUMNS,
    ("networking.k8s.io", "Ingress"): _INGRESS_COLUMNS,
    ("networking.k8s.io", "IPAddress"): _IPADDRESS_COLUMNS,
    ("networking.k8s.io", "NetworkPolicy"): _NETWORKPOLICY_COLUMNS,
    ("networking.k8s.io", "ServiceCIDR"): _SERVICECIDR_COLUMNS,
    ("policy", "PodDisruptionBudget"): _PODDISRUPTIONBUDGET_COLUMNS,
    ("rbac.authorization.k8s.io", "ClusterRoleBinding"): _CLUSTERROLEBINDING_COLUMNS,
    ("rbac.authorization.k8s.io", "RoleBinding"): _ROLEBINDING_COLUMNS,
    ("storage.k8s.io", "CSIDriver"): _CSIDRIVER_COLUMNS,
    ("storage.k8s.io", "CSINode"): _CSINODE_COLUMNS,
    ("storage.k8s.io", "StorageClass"): _STORAGECLASS_COLUMNS,
    ("storage.k8s.io", "VolumeAttachment"): _VOLUMEATTACHMENT_COLUMNS,
    ("storage.k8s.io", "VolumeAttributesClass"): _VOLUMEATTRIBUTESCLASS_COLUMNS,
    ("admissionregistration.k8s.io", "MutatingAdmissionPolicy"): _MUTATINGADMISSIONPOLICY_COLUMNS,
    ("admissionregistration.k8s.io", "MutatingAdmissionPolicyBinding"): _MUTATINGADMISSIONPOLICYBINDING_COLUMNS,
    ("admissionregistration.k8s.io", "MutatingWebhookConfiguration"): _MUTATINGWEBHOOKCONFIGURATION_COLUMNS,
    ("admissionregistration.k8s.io", "ValidatingAdmissionPolicy"): _VALIDATINGADMISSIONPOLICY_COLUMNS,
    ("admissionregistration.k8s.io", "ValidatingAdmissionPolicyBinding"): _VALIDATINGADMISSIONPOLICYBINDING_COLUMNS,
    ("admissionregistration.k8s.io", "ValidatingWebhookConfiguration"): _VALIDATINGWEBHOOKCONFIGURATION_COLUMNS,
    ("apiextensions.k8s.io", "CustomResourceDefinition"): _CUSTOMRESOURCEDEFINITION_COLUMNS,
    ("scheduling.k8s.io", "PriorityClass"): _PRIORITYCLASS_COLUMNS,
    ("coordination.k8s.io", "Lease"): _LEASE_COLUMNS,
    ("node.k8s.io", "RuntimeClass"): _RUNTIMECLASS_COLUMNS,
    ("discovery.k8s.io", "EndpointSlice"): _ENDPOINTSLICE_COLUMNS,
    ("resource.k8s.io", "DeviceClass"): _DEVICECLASS_COLUMNS,
    ("resource.k8s.io", "DeviceTaintRule"): _DEVICETAINTRULE_COLUMNS,
    ("resource.k8s.io", "ResourceClaim"): _RESOURCECLAIM_COLUMNS,
    ("resource.k8s.io", "ResourceClaimTemplate"): _RESOURCECLAIMTEMPLATE_COLUMNS,
    ("resource.k8s.io", "ResourceSlice"): _RESOURCESLICE_COLUMNS,
    ("flowcontrol.apiserver.k8s.io", "FlowSchema"): _FLOWSCHEMA_COLUMNS,
    ("flowcontrol.apiserver.k8s.io", "PriorityLevelConfiguration"): _PRIORITYLEVELCONFIGURATION_COLUMNS,
    ("storagemigration.k8s.io", "StorageVersionMigration"): _STORAGEVERSIONMIGRATION_COLUMNS,
}
