"""A pod's defaults (``pkg/apis/core/v1/defaults.go``), its QoS class and the pod-level resources an
update keeps: what the pod strategy and the ``/resize`` subresource fill in on a write.

Admission's additions (default tolerations, priority) are :mod:`.admission`'s: they run only on a
pod, never on a workload's template, which gets :func:`default_pod` alone (:mod:`.template`).
"""

from __future__ import annotations

import functools
from decimal import Decimal
from typing import Any

import orjson

from fake_apiserver._machinery import quantity
from fake_apiserver._machinery.features import FeatureGates
from fake_apiserver._machinery.jsonutil import json_copy

__all__ = ["default_pod", "keep_pod_level_resources", "qos_class"]

Obj = dict[str, Any]


def _qos_sum(resources: Any, into: dict[str, Decimal]) -> set[str]:
    """Add the positive cpu and memory quantities of a resource list to ``into``; the names found."""
    found: set[str] = set()
    for name, raw in resources.items() if isinstance(resources, dict) else ():
        if name not in ("cpu", "memory"):
            continue
        try:
            amount = quantity.parse(raw)
        except ValueError:
            continue
        if amount > 0:
            found.add(name)
            into[name] = into.get(name, Decimal(0)) + amount
    return found


def qos_class(pod: Obj) -> str:
    """``qos.ComputePodQOS``: only cpu and memory count, and only positive quantities; pod-level
    ``spec.resources`` stand for the containers' when set. BestEffort with none; Guaranteed when
    every container (or the pod) limits both and the summed requests equal the summed limits;
    Burstable otherwise. Kept by what it reads (the pods of one template are classed once)."""
    spec = pod.get("spec") or {}
    if not isinstance(spec, dict):
        return _qos_class(spec)
    try:
        return _qos_of(orjson.dumps({key: spec.get(key) for key in ("resources", "containers", "initContainers")}))
    except TypeError:  # not JSON orjson writes (orjson.JSONEncodeError): classed as it is
        return _qos_class(spec)


@functools.lru_cache(maxsize=1024)
def _qos_of(read: bytes) -> str:
    return _qos_class(orjson.loads(read))


def _qos_class(spec: Any) -> str:
    requests: dict[str, Decimal] = {}
    limits: dict[str, Decimal] = {}
    guaranteed = True
    pod_level = spec.get("resources")
    if isinstance(pod_level, dict):
        _qos_sum(pod_level.get("requests"), requests)
        if pod_level.get("limits"):
            guaranteed = _qos_sum(pod_level.get("limits"), limits) == {"cpu", "memory"}
    else:
        for key in ("containers", "initContainers"):
            for c in spec.get(key) or []:
                res = (c.get("resources") if isinstance(c, dict) else None) or {}
                _qos_sum(res.get("requests"), requests)
                if _qos_sum(res.get("limits"), limits) != {"cpu", "memory"}:
                    guaranteed = False
    if not requests and not limits:
        return "BestEffort"
    if guaranteed and all(limits.get(name) == amount for name, amount in requests.items()) \
            and len(requests) == len(limits):
        return "Guaranteed"
    return "Burstable"


def _default_container(c: Obj) -> None:
    image = str(c.get("image", ""))
    tag = image.rsplit("/", 1)[-1]
    latest = "@" not in image and (":" not in tag or tag.endswith(":latest"))
    c.setdefault("imagePullPolicy", "Always" if latest else "IfNotPresent")
    c.setdefault("terminationMessagePath", "/dev/termination-log")
    c.setdefault("terminationMessagePolicy", "File")
    for port in c.get("ports") or ():
        if isinstance(port, dict) and not port.get("protocol"):
            port["protocol"] = "TCP"
    res = c.setdefault("resources", {})
    limits = res.get("limits") or {}
    if limits:
        requests = res.setdefault("requests", {})
        for name, value in limits.items():
            requests.setdefault(name, value)


def default_pod(pod: Obj) -> None:
    """The pod defaults of ``pkg/apis/core/v1/defaults.go``, as far as schedulers and kubectl
    read them (admission's are :func:`~fake_apiserver._registry.core.pod.admission.admit_default_tolerations`
    and the Priority plugin's :func:`~fake_apiserver._registry.core.pod.admission.admit_pod`)."""
    spec = pod.setdefault("spec", {})
    spec.setdefault("restartPolicy", "Always")
    spec.setdefault("terminationGracePeriodSeconds", 30)
    spec.setdefault("dnsPolicy", "ClusterFirst")
    spec.setdefault("securityContext", {})
    spec.setdefault("schedulerName", "default-scheduler")
    spec.setdefault("enableServiceLinks", True)
    # the v1 field serviceAccount is a deprecated alias that conversion keeps equal to serviceAccountName
    if spec.get("serviceAccountName") and not spec.get("serviceAccount"):
        spec["serviceAccount"] = spec["serviceAccountName"]
    elif spec.get("serviceAccount") and not spec.get("serviceAccountName"):
        spec["serviceAccountName"] = spec["serviceAccount"]
    for key in ("containers", "initContainers"):
        for c in spec.get(key) or []:
            if isinstance(c, dict):
                _default_container(c)


def keep_pod_level_resources(new: Obj, old: Obj, features: FeatureGates) -> None:
    """With ``PodLevelResourcesFixDefaulting`` (beta, on, in v1.37), an update that leaves
    ``spec.resources`` out keeps the stored pod-level resources ("requests from potentially
    PLR-unaware clients that completely dropped the field", ``podStrategy.PrepareForUpdate``)."""
    spec, old_spec = new.get("spec"), old.get("spec") or {}
    if features.enabled("PodLevelResourcesFixDefaulting") and isinstance(spec, dict) \
            and spec.get("resources") is None and old_spec.get("resources") is not None:
        spec["resources"] = json_copy(old_spec["resources"])
