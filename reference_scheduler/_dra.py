"""Dynamic resource allocation beyond PreEnqueue, as far as the suite's scenarios need.

What is supported (``docs/api-facts.md`` §dra-preenqueue): a pod's claims named directly or generated from a
template (``status.resourceClaimStatuses``); a claim already allocated (its
``allocation.nodeSelector`` must match the node); an unallocated claim whose requests are
``exactly`` (``resource.k8s.io/v1``) or flat (``v1beta1``) requests with ``deviceClassName``,
``allocationMode`` ``ExactCount`` (``count``, default 1) or ``All``. Devices come from
ResourceSlices published for the node (``spec.nodeName``) or for all nodes (``spec.allNodes``); a
device is free unless another claim's allocation (or one this scheduler has just made) holds it.
Allocation writes, as the real DRA PreBind does: the finalizer
``resource.kubernetes.io/delete-protection`` (PUT of the claim), then ``status.allocation`` and
``status.reservedFor`` ``{resource: pods, name, uid}`` (PUT of ``resourceclaims/{name}/status``,
re-read and retried on a conflict); an allocated claim only gets the pod added to ``reservedFor``.

Not supported, by design: CEL. A DeviceClass selector is understood only in the one form
``device.driver == "<driver>"``; any other class selector makes the class match no device, and a
request with its own ``selectors``, ``firstAvailable`` sub-requests, ``adminAccess``, constraints,
config, capacity, counters, device taints, slices with a ``nodeSelector`` or
``perDeviceNodeSelection``, and partitionable devices make the claim unallocatable. Such a pod is
reported ``cannot allocate all claims`` on every node — the real Filter's reason — instead of
being scheduled wrongly.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from kubeclient import ConflictError, KubeClient, resource_path
from reference_scheduler._plugins import NodeInfo, match_term
from reference_scheduler._resources import Resources

__all__ = ["ClaimAllocator", "DELETE_PROTECTION", "REASON_CANNOT_ALLOCATE", "REASON_NOT_AVAILABLE", "pod_claim_names"]

Obj = dict[str, Any]

DELETE_PROTECTION = "resource.kubernetes.io/delete-protection"
REASON_CANNOT_ALLOCATE = "cannot allocate all claims"
REASON_NOT_AVAILABLE = "resourceclaim not available on the node"
_DRIVER_SELECTOR = re.compile(r'^\s*device\.driver\s*==\s*"([^"\\]+)"\s*$')

Device = tuple[str, str, str]  # driver, pool, device


def pod_claim_names(pod: Obj) -> list[str]:
    """The names of the claims the pod uses (PreEnqueue has already checked they exist)."""
    statuses = {s.get("name"): s for s in (pod.get("status") or {}).get("resourceClaimStatuses") or []}
    names = []
    for entry in (pod.get("spec") or {}).get("resourceClaims") or []:
        if entry.get("resourceClaimName"):
            names.append(str(entry["resourceClaimName"]))
        elif (statuses.get(entry.get("name")) or {}).get("resourceClaimName"):
            names.append(str(statuses[entry.get("name")]["resourceClaimName"]))
    return names


def _results(claim: Obj) -> list[Obj]:
    return list((((claim.get("status") or {}).get("allocation") or {}).get("devices") or {}).get("results") or [])


class ClaimAllocator:
    def __init__(
        self,
        claims: Callable[[str], Obj | None],
        all_claims: Callable[[], list[Obj]],
        slices: Callable[[], list[Obj]],
        classes: Callable[[str], Obj | None],
    ) -> None:
        self.claims = claims
        self.all_claims = all_claims
        self.slices = slices
        self.classes = classes
        self.assumed: dict[str, list[Device]] = {}  # claim key -> devices picked, not yet seen allocated
        #: False only for the ``binds-without-allocating`` mutant: claims are left as they are (no
        #: device picked, nothing written to them) and every node passes the claims' filter
        self.allocates = True

    def _in_use(self) -> set[Device]:
        used = {(r.get("driver", ""), r.get("pool", ""), r.get("device", "")) for c in self.all_claims() for r in _results(c)}
        for key, devices in list(self.assumed.items()):
            claim = self.claims(key)
            if claim is None or _results(claim):
                del self.assumed[key]  # the informer shows the allocation now (or the claim is gone)
            else:
                used.update(devices)
        return used

    def _class_driver(self, class_name: str) -> str | None:
        cls = self.classes(class_name)
        if cls is None:
            return None
        selectors = (cls.get("spec") or {}).get("selectors") or []
        drivers = set()
        for sel in selectors:
            match = _DRIVER_SELECTOR.match(((sel.get("cel") or {}).get("expression")) or "")
            if match is None:
                return None
            drivers.add(match.group(1))
        return drivers.pop() if len(drivers) == 1 else None

    def _node_devices(self, node: str) -> list[Device]:
        out = []
        for s in sorted(self.slices(), key=lambda o: str(o["metadata"]["name"])):
            spec = s.get("spec") or {}
            if spec.get("nodeName") != node and not spec.get("allNodes"):
                continue
            pool = str((spec.get("pool") or {}).get("name", ""))
            for d in spec.get("devices") or []:
                out.append((str(spec.get("driver", "")), pool, str(d.get("name", ""))))
        return out

    def plan(self, pod: Obj, node_obj: Obj) -> tuple[list[tuple[str, list[Obj]]], str]:
        """The allocations to write for ``pod`` on ``node`` (claim name, results; results empty for
        an allocated claim), or a filter reason."""
        if not self.allocates:
            return [], ""
        ns = str(pod["metadata"].get("namespace", ""))
        node = str(node_obj["metadata"]["name"])
        used = self._in_use()
        plans: list[tuple[str, list[Obj]]] = []
        for name in pod_claim_names(pod):
            claim = self.claims(f"{ns}/{name}")
            if claim is None:
                return [], REASON_CANNOT_ALLOCATE
            allocation = (claim.get("status") or {}).get("allocation")
            if allocation is not None:
                selector = allocation.get("nodeSelector")
                if selector and not any(match_term(t, node_obj) for t in selector.get("nodeSelectorTerms") or []):
                    return [], REASON_NOT_AVAILABLE
                plans.append((name, []))
                continue
            results = self._allocate(claim, node, used)
            if results is None:
                return [], REASON_CANNOT_ALLOCATE
            used.update((r["driver"], r["pool"], r["device"]) for r in results)
            plans.append((name, results))
        return plans, ""

    def _allocate(self, claim: Obj, node: str, used: set[Device]) -> list[Obj] | None:
        devices = (claim.get("spec") or {}).get("devices") or {}
        if devices.get("constraints") or devices.get("config"):
            return None
        free = [d for d in self._node_devices(node) if d not in used]
        results: list[Obj] = []
        for request in devices.get("requests") or []:
            exact = request.get("exactly") if "exactly" in request else request
            if request.get("firstAvailable") or not exact or exact.get("selectors") or exact.get("adminAccess"):
                return None
            driver = self._class_driver(str(exact.get("deviceClassName", "")))
            if driver is None:
                return None
            matching = [d for d in free if d[0] == driver]
            mode = exact.get("allocationMode") or "ExactCount"
            count = len(matching) if mode == "All" else int(exact.get("count") or 1)
            if count == 0 or len(matching) < count:
                return None
            for d in matching[:count]:
                free.remove(d)
                results.append({"request": request.get("name", ""), "driver": d[0], "pool": d[1], "device": d[2]})
        return results

    def filter(self, pod: Obj, req: Resources, info: NodeInfo) -> list[str]:
        if not pod_claim_names(pod):
            return []
        _, reason = self.plan(pod, info.node)
        return [reason] if reason else []

    def assume(self, pod: Obj, plans: list[tuple[str, list[Obj]]]) -> None:
        ns = str(pod["metadata"].get("namespace", ""))
        for name, results in plans:
            if results:
                self.assumed[f"{ns}/{name}"] = [(r["driver"], r["pool"], r["device"]) for r in results]

    def forget(self, pod: Obj, plans: list[tuple[str, list[Obj]]]) -> None:
        ns = str(pod["metadata"].get("namespace", ""))
        for name, _ in plans:
            self.assumed.pop(f"{ns}/{name}", None)

    async def reserve(self, client: KubeClient, pod: Obj, node: str, plans: list[tuple[str, list[Obj]]]) -> None:
        """PreBind: write the allocations and ``reservedFor``; re-read and retry on a conflict."""
        meta = pod["metadata"]
        ns = str(meta.get("namespace", ""))
        consumer = {"resource": "pods", "name": meta["name"], "uid": meta.get("uid", "")}
        for name, results in plans:
            path = resource_path("resource.k8s.io", "v1", "resourceclaims", ns, name)
            for attempt in range(5):
                claim = await client.get(path)
                try:
                    if results and DELETE_PROTECTION not in (claim["metadata"].get("finalizers") or []):
                        claim["metadata"]["finalizers"] = [*(claim["metadata"].get("finalizers") or []), DELETE_PROTECTION]
                        claim = await client.put(path, claim)
                    status = claim.setdefault("status", {})
                    if results and status.get("allocation") is None:
                        status["allocation"] = {
                            "devices": {"results": results},
                            "nodeSelector": {"nodeSelectorTerms": [{"matchFields": [
                                {"key": "metadata.name", "operator": "In", "values": [node]}]}]},
                        }
                    reserved = status.setdefault("reservedFor", [])
                    if not any(r.get("uid") == consumer["uid"] for r in reserved):
                        reserved.append(consumer)
                    await client.put(path + "/status", claim)
                    break
                except ConflictError:
                    if attempt == 4:
                        raise
