"""Body shapes: the JSON types of the fields the fake reads, checked as Go's decoder checks them.

The real server decodes a body into Go structs, so a field of the wrong JSON type fails the
request with encoding/json's message before any rule runs. The fake keeps bodies as JSON, so it
checks the types of the fields its own code reads (the registry's rules, validation, selectors)
and gives the same 400; other fields are stored as sent. A ``null`` is what Go makes of it: the
zero value (the field left out; an empty object, or "", inside a list). An empty list or map in
a field tagged ``omitempty`` is left out too, as the real server never encodes one.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from collections.abc import Mapping
from typing import Any, Callable, Union

from fake_apiserver._machinery.errors import BadRequest
from fake_apiserver._machinery.jsonutil import go_json_type

__all__ = ["DELETE_OPTIONS_SHAPE", "check_meta_shape", "check_shape", "shape_for"]

Obj = dict[str, Any]


@dataclass(frozen=True)
class _Scalar:
    go: str  # "string", "bool", "int64", "int32", "quantity" or "time"


@dataclass(frozen=True)
class _Struct:
    go: str  # the Go type, e.g. "v1.PodSpec"
    fields: Mapping[str, Shape] = field(default_factory=dict)

    @property
    def name(self) -> str:
        """The struct's name as an ``UnmarshalTypeError`` gives it (``PodSpec``)."""
        return self.go.rpartition(".")[2]


@dataclass(frozen=True)
class _List:
    go: str  # e.g. "[]v1.Container"
    elem: Shape
    omitempty: bool = True


@dataclass(frozen=True)
class _Map:
    go: str  # e.g. "map[string]string", "v1.ResourceList"
    value: Shape
    omitempty: bool = True


Shape = Union[_Scalar, _Struct, _List, _Map]

_STR, _BOOL, _I64, _I32 = _Scalar("string"), _Scalar("bool"), _Scalar("int64"), _Scalar("int32")
_TIME, _QUANTITY = _Scalar("time"), _Scalar("quantity")
_STRINGS = _List("[]string", _STR)
_STRING_MAP = _Map("map[string]string", _STR)
_RESOURCES = _Map("v1.ResourceList", _QUANTITY)
# resource.ParseQuantity's format check (apimachinery/pkg/api/resource/quantity.go).
_QUANTITY_FORMAT = "^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$"
_QUANTITY_RE = re.compile(_QUANTITY_FORMAT)


def _struct(go: str, **fields: Shape) -> _Struct:
    return _Struct(go, fields)


def _list_of(elem: _Struct, *, omitempty: bool = True) -> _List:
    return _List("[]" + elem.go, elem, omitempty)


_OBJECT_META = _struct(
    "v1.ObjectMeta", name=_STR, generateName=_STR, namespace=_STR, uid=_STR, resourceVersion=_STR,
    generation=_I64, labels=_STRING_MAP, annotations=_STRING_MAP, finalizers=_STRINGS,
    ownerReferences=_list_of(_struct("v1.OwnerReference", apiVersion=_STR, kind=_STR, name=_STR, uid=_STR,
                                     controller=_BOOL, blockOwnerDeletion=_BOOL)),
)
#: ``metav1.DeleteOptions`` as the delete handler decodes a body.
DELETE_OPTIONS_SHAPE = _struct(
    "v1.DeleteOptions", gracePeriodSeconds=_I64, orphanDependents=_BOOL, propagationPolicy=_STR, dryRun=_STRINGS,
    preconditions=_struct("v1.Preconditions", uid=_STR, resourceVersion=_STR),
    ignoreStoreReadErrorWithClusterBreakingPotential=_BOOL,
)
_SELECTOR_REQUIREMENTS = _list_of(_struct("v1.NodeSelectorRequirement", key=_STR, operator=_STR, values=_STRINGS))
_SELECTOR_TERM = _struct("v1.NodeSelectorTerm", matchExpressions=_SELECTOR_REQUIREMENTS, matchFields=_SELECTOR_REQUIREMENTS)
_LABEL_SELECTOR = _struct(
    "v1.LabelSelector", matchLabels=_STRING_MAP,
    matchExpressions=_list_of(_struct("v1.LabelSelectorRequirement", key=_STR, operator=_STR, values=_STRINGS)),
)
_RESOURCE_REQUIREMENTS = _struct("v1.ResourceRequirements", limits=_RESOURCES, requests=_RESOURCES,
                                 claims=_list_of(_struct("v1.ResourceClaim", name=_STR, request=_STR)))
_CONTAINER: dict[str, Shape] = dict(
    name=_STR, image=_STR, imagePullPolicy=_STR, command=_STRINGS, args=_STRINGS,
    resources=_RESOURCE_REQUIREMENTS, restartPolicy=_STR,
    resizePolicy=_list_of(_struct("v1.ContainerResizePolicy", resourceName=_STR, restartPolicy=_STR)),
    ports=_list_of(_struct("v1.ContainerPort", name=_STR, hostPort=_I32, containerPort=_I32, protocol=_STR)),
    env=_list_of(_struct("v1.EnvVar", name=_STR, value=_STR)),
    volumeMounts=_list_of(_struct("v1.VolumeMount", name=_STR, mountPath=_STR)),
)
_CONDITION: dict[str, Shape] = dict(type=_STR, status=_STR, lastProbeTime=_TIME, lastTransitionTime=_TIME, reason=_STR, message=_STR)
_POD_SPEC = _struct(
    "v1.PodSpec",
    volumes=_list_of(_struct("v1.Volume", name=_STR)),
    initContainers=_list_of(_struct("v1.Container", **_CONTAINER)),
    containers=_list_of(_struct("v1.Container", **_CONTAINER), omitempty=False),
    restartPolicy=_STR, terminationGracePeriodSeconds=_I64, activeDeadlineSeconds=_I64, dnsPolicy=_STR,
    nodeSelector=_STRING_MAP, serviceAccountName=_STR, nodeName=_STR, hostNetwork=_BOOL,
    affinity=_struct(
        "v1.Affinity",
        nodeAffinity=_struct(
            "v1.NodeAffinity",
            requiredDuringSchedulingIgnoredDuringExecution=_struct(
                "v1.NodeSelector", nodeSelectorTerms=_list_of(_SELECTOR_TERM, omitempty=False)),
            preferredDuringSchedulingIgnoredDuringExecution=_list_of(
                _struct("v1.PreferredSchedulingTerm", weight=_I32, preference=_SELECTOR_TERM)),
        ),
        podAffinity=_struct("v1.PodAffinity"),
        podAntiAffinity=_struct("v1.PodAntiAffinity"),
    ),
    schedulerName=_STR,
    tolerations=_list_of(_struct("v1.Toleration", key=_STR, operator=_STR, value=_STR, effect=_STR,
                                 tolerationSeconds=_I64)),
    priorityClassName=_STR, priority=_I32, preemptionPolicy=_STR, overhead=_RESOURCES,
    resources=_RESOURCE_REQUIREMENTS, os=_struct("v1.PodOS", name=_STR),
    topologySpreadConstraints=_list_of(_struct(
        "v1.TopologySpreadConstraint", maxSkew=_I32, topologyKey=_STR, whenUnsatisfiable=_STR,
        labelSelector=_LABEL_SELECTOR, minDomains=_I32, matchLabelKeys=_STRINGS)),
    schedulingGates=_list_of(_struct("v1.PodSchedulingGate", name=_STR)),
    resourceClaims=_list_of(_struct("v1.PodResourceClaim", name=_STR, resourceClaimName=_STR,
                                    resourceClaimTemplateName=_STR)),
)
_POD_STATUS = _struct(
    "v1.PodStatus", phase=_STR, conditions=_list_of(_struct("v1.PodCondition", **_CONDITION)),
    nominatedNodeName=_STR, hostIP=_STR, podIP=_STR, podIPs=_list_of(_struct("v1.PodIP", ip=_STR)),
    startTime=_TIME, qosClass=_STR,
    resourceClaimStatuses=_list_of(_struct("v1.PodResourceClaimStatus", name=_STR, resourceClaimName=_STR)),
)
_NODE_SPEC = _struct(
    "v1.NodeSpec", podCIDR=_STR, podCIDRs=_STRINGS, providerID=_STR, unschedulable=_BOOL,
    podPreemptionPolicy=_struct("v1.NodePodPreemptionPolicy", disableResizePreemption=_STRINGS),
    taints=_list_of(_struct("v1.Taint", key=_STR, value=_STR, effect=_STR, timeAdded=_TIME)),
)
_NODE_STATUS = _struct(
    "v1.NodeStatus", capacity=_RESOURCES, allocatable=_RESOURCES, phase=_STR,
    conditions=_list_of(_struct("v1.NodeCondition", type=_STR, status=_STR, lastHeartbeatTime=_TIME,
                                lastTransitionTime=_TIME, reason=_STR, message=_STR)),
    addresses=_list_of(_struct("v1.NodeAddress", type=_STR, address=_STR)),
)
_SHAPES: dict[tuple[str, str], _Struct] = {
    ("", "Pod"): _struct("v1.Pod", metadata=_OBJECT_META, spec=_POD_SPEC, status=_POD_STATUS),
    ("", "Node"): _struct("v1.Node", metadata=_OBJECT_META, spec=_NODE_SPEC, status=_NODE_STATUS),
    ("", "Namespace"): _struct("v1.Namespace", metadata=_OBJECT_META,
                               spec=_struct("v1.NamespaceSpec", finalizers=_STRINGS),
                               status=_struct("v1.NamespaceStatus", phase=_STR)),
    ("scheduling.k8s.io", "PriorityClass"): _struct("v1.PriorityClass", metadata=_OBJECT_META, value=_I32,
                                                    globalDefault=_BOOL, description=_STR, preemptionPolicy=_STR),
    ("", "Binding"): _struct("v1.Binding", metadata=_OBJECT_META,
                             target=_struct("v1.ObjectReference", kind=_STR, namespace=_STR, name=_STR, uid=_STR)),
}


def _type_error(value: Any, struct: str, path: str, go: str) -> str:
    return f"json: cannot unmarshal {go_json_type(value)} into Go struct field {struct}.{path} of type {go}"


def _zero(shape: Shape) -> Any:
    if isinstance(shape, (_Struct, _Map)):
        return {}
    if isinstance(shape, _List):
        return []
    return {"string": "", "bool": False, "time": None, "quantity": "0"}.get(shape.go, 0)


# A checker takes a value and returns the first type error under it (in document order) or None;
# it replaces nulls by Go's zero values and drops empty omitempty fields as it goes. A shape is
# compiled once per place it is used (its JSON path and the struct holding it are fixed there,
# as they appear in the error): writes are hot.
Checker = Callable[[Any], "str | None"]
_QUANTITY_ERROR = f"quantities must match the regular expression '{_QUANTITY_FORMAT}'"


class _Never:
    """A type no JSON value has."""


def _scalar_checker(go: str, struct: str, path: str) -> Checker:
    if go in ("string", "bool"):
        wanted = str if go == "string" else bool

        def plain(value: Any) -> str | None:
            return None if type(value) is wanted else _type_error(value, struct, path, go)

        return plain
    if go == "time":  # metav1.Time.UnmarshalJSON decodes a string first
        def time(value: Any) -> str | None:
            return None if type(value) is str else f"json: cannot unmarshal {go_json_type(value)} into Go value of type string"

        return time
    if go == "quantity":  # resource.Quantity.UnmarshalJSON takes a string or a number
        def quantity(value: Any) -> str | None:
            kind = type(value)
            if kind is int or kind is float or (kind is str and _QUANTITY_RE.match(value.strip())):
                return None
            return _QUANTITY_ERROR

        return quantity
    bound = 2 ** (63 if go == "int64" else 31)

    def integer(value: Any) -> str | None:
        kind = type(value)
        if kind is int and -bound <= value < bound:
            return None
        if kind is int or kind is float:
            return f"json: cannot unmarshal number {value} into Go struct field {struct}.{path} of type {go}"
        return _type_error(value, struct, path, go)

    return integer


def _struct_checker(shape: _Struct, struct: str, path: str) -> Checker:
    name, go = shape.name, shape.go
    table: dict[str, tuple[Checker, bool, bool, type]] = {}
    for key, child in shape.fields.items():
        keep_null = isinstance(child, _Scalar) and child.go == "time"  # encoded as null, not omitted
        omitempty = isinstance(child, (_List, _Map)) and child.omitempty
        plain: type = {"string": str, "bool": bool}.get(child.go, _Never) if isinstance(child, _Scalar) else _Never
        table[key] = (_compile(child, name, f"{path}.{key}" if path else key), keep_null, omitempty, plain)

    def fields(value: Any) -> str | None:
        if type(value) is not dict:
            return _type_error(value, struct, path, go)
        for key in [k for k in value if k in table]:
            checker, keep_null, omitempty, plain = table[key]
            item = value[key]
            if item is None:
                if not keep_null:
                    del value[key]
                continue
            if type(item) is plain:
                continue
            error = checker(item)
            if error:
                return error
            if omitempty and not item:
                del value[key]
        return None

    return fields


def _list_checker(shape: _List, struct: str, path: str) -> Checker:
    go, elem, zero = shape.go, _compile(shape.elem, struct, path), shape.elem

    def items(value: Any) -> str | None:
        if type(value) is not list:
            return _type_error(value, struct, path, go)
        for i, item in enumerate(value):
            if item is None:
                value[i] = _zero(zero)
                continue
            error = elem(item)
            if error:
                return error
        return None

    return items


def _map_checker(shape: _Map, struct: str, path: str) -> Checker:
    go, check, zero = shape.go, _compile(shape.value, struct, path), shape.value
    plain: type = {"string": str}.get(zero.go, _Never) if isinstance(zero, _Scalar) else _Never

    def entries(value: Any) -> str | None:
        if type(value) is not dict:
            return _type_error(value, struct, path, go)
        for key, item in value.items():
            if type(item) is plain:
                continue
            if item is None:
                value[key] = _zero(zero)
                continue
            error = check(item)
            if error:
                return error
        return None

    return entries


def _compile(shape: Shape, struct: str, path: str) -> Checker:
    if isinstance(shape, _Scalar):
        return _scalar_checker(shape.go, struct, path)
    if isinstance(shape, _Struct):
        return _struct_checker(shape, struct, path)
    if isinstance(shape, _List):
        return _list_checker(shape, struct, path)
    return _map_checker(shape, struct, path)


_CHECKERS: dict[tuple[str, int], tuple[_Struct, Checker]] = {}


def check_shape(kind: str, version: str, obj: Obj, shape: _Struct | None = None) -> None:
    """Raise the 400 the real server's decoder gives when a field the fake reads has the wrong
    JSON type (``Pod in version "v1" cannot be handled as a Pod: json: cannot unmarshal ...``,
    ``transformDecodeError`` around encoding/json's ``UnmarshalTypeError``); fill nulls as Go
    would. ``shape`` defaults to the object metadata alone."""
    hit = _CHECKERS.get((kind, id(shape)))
    if hit is None or (shape is not None and hit[0] is not shape):
        compiled = shape or _struct(f"v1.{kind}", metadata=_OBJECT_META)
        hit = _CHECKERS[(kind, id(shape))] = (compiled, _compile(compiled, kind, ""))
    error = hit[1](obj)
    if error:
        raise BadRequest(f"{kind} in version \"{version}\" cannot be handled as a {kind}: {error}")


def check_meta_shape(kind: str, version: str, obj: Obj) -> None:
    """:func:`check_shape` for a core kind by name (``Binding`` has a shape of its own); a kind
    without one gets its metadata checked."""
    check_shape(kind, version, obj, _SHAPES.get(("", kind)))


def shape_for(group: str, kind: str) -> _Struct | None:
    """The shape of a kind's body, for the kinds whose fields the fake reads."""
    return _SHAPES.get((group, kind))
