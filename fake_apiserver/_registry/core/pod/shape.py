"""The JSON shape of a pod's body: the fields the fake reads (the pod's rules, the scheduler's
view of it, field selectors), checked with Go's decoder's messages where the release has no schema
of the kind (:func:`~fake_apiserver._machinery.shapes.check_shape`).
"""

from __future__ import annotations

from fake_apiserver._machinery.shapes import (
    BOOL,
    I32,
    I64,
    LABEL_SELECTOR,
    OBJECT_META,
    RESOURCES,
    STR,
    STRING_MAP,
    STRINGS,
    TIME,
    Shape,
    list_of,
    struct_of,
)

__all__ = ["POD"]

_SELECTOR_REQUIREMENTS = list_of(struct_of("v1.NodeSelectorRequirement", key=STR, operator=STR, values=STRINGS))
_SELECTOR_TERM = struct_of("v1.NodeSelectorTerm", matchExpressions=_SELECTOR_REQUIREMENTS,
                           matchFields=_SELECTOR_REQUIREMENTS)
_RESOURCE_REQUIREMENTS = struct_of("v1.ResourceRequirements", limits=RESOURCES, requests=RESOURCES,
                                   claims=list_of(struct_of("v1.ResourceClaim", name=STR, request=STR)))
_CONTAINER: dict[str, Shape] = dict(
    name=STR, image=STR, imagePullPolicy=STR, command=STRINGS, args=STRINGS,
    resources=_RESOURCE_REQUIREMENTS, restartPolicy=STR,
    resizePolicy=list_of(struct_of("v1.ContainerResizePolicy", resourceName=STR, restartPolicy=STR)),
    ports=list_of(struct_of("v1.ContainerPort", name=STR, hostPort=I32, containerPort=I32, protocol=STR)),
    env=list_of(struct_of("v1.EnvVar", name=STR, value=STR)),
    volumeMounts=list_of(struct_of("v1.VolumeMount", name=STR, mountPath=STR)),
)
_CONDITION: dict[str, Shape] = dict(type=STR, status=STR, lastProbeTime=TIME, lastTransitionTime=TIME, reason=STR,
                                    message=STR)
_POD_SPEC = struct_of(
    "v1.PodSpec",
    volumes=list_of(struct_of("v1.Volume", name=STR)),
    initContainers=list_of(struct_of("v1.Container", **_CONTAINER)),
    containers=list_of(struct_of("v1.Container", **_CONTAINER), omitempty=False),
    restartPolicy=STR, terminationGracePeriodSeconds=I64, activeDeadlineSeconds=I64, dnsPolicy=STR,
    nodeSelector=STRING_MAP, serviceAccountName=STR, nodeName=STR, hostNetwork=BOOL,
    affinity=struct_of(
        "v1.Affinity",
        nodeAffinity=struct_of(
            "v1.NodeAffinity",
            requiredDuringSchedulingIgnoredDuringExecution=struct_of(
                "v1.NodeSelector", nodeSelectorTerms=list_of(_SELECTOR_TERM, omitempty=False)),
            preferredDuringSchedulingIgnoredDuringExecution=list_of(
                struct_of("v1.PreferredSchedulingTerm", weight=I32, preference=_SELECTOR_TERM)),
        ),
        podAffinity=struct_of("v1.PodAffinity"),
        podAntiAffinity=struct_of("v1.PodAntiAffinity"),
    ),
    schedulerName=STR,
    tolerations=list_of(struct_of("v1.Toleration", key=STR, operator=STR, value=STR, effect=STR,
                                  tolerationSeconds=I64)),
    priorityClassName=STR, priority=I32, preemptionPolicy=STR, overhead=RESOURCES,
    resources=_RESOURCE_REQUIREMENTS, os=struct_of("v1.PodOS", name=STR),
    topologySpreadConstraints=list_of(struct_of(
        "v1.TopologySpreadConstraint", maxSkew=I32, topologyKey=STR, whenUnsatisfiable=STR,
        labelSelector=LABEL_SELECTOR, minDomains=I32, matchLabelKeys=STRINGS)),
    schedulingGates=list_of(struct_of("v1.PodSchedulingGate", name=STR)),
    resourceClaims=list_of(struct_of("v1.PodResourceClaim", name=STR, resourceClaimName=STR,
                                     resourceClaimTemplateName=STR)),
)
_POD_STATUS = struct_of(
    "v1.PodStatus", phase=STR, conditions=list_of(struct_of("v1.PodCondition", **_CONDITION)),
    nominatedNodeName=STR, hostIP=STR, podIP=STR, podIPs=list_of(struct_of("v1.PodIP", ip=STR)),
    startTime=TIME, qosClass=STR,
    resourceClaimStatuses=list_of(struct_of("v1.PodResourceClaimStatus", name=STR, resourceClaimName=STR)),
)

POD = struct_of("v1.Pod", metadata=OBJECT_META, spec=_POD_SPEC, status=_POD_STATUS)
"""A pod's shape."""
