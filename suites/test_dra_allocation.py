"""DRA allocation (KEP-4381, structured parameters): the scheduler allocates a claim from the
devices a ResourceSlice publishes, and stores that allocation before it binds the pod.

Since Kubernetes v1.32 structured parameters are the only dynamic resource allocation: DRA drivers
publish their devices in ResourceSlices, and the scheduler, not a driver's controller, picks the
devices and writes the result into the claim's ``status.allocation`` (KEP-4381 Summary; the
classic DRA of KEP-3063, where a driver's controller allocated, is gone). The KEP-5501 suites make
claims and ResourceSlices too, but most of their criteria use a claim only to cause a PreEnqueue
rejection; whether a claim is allocated from published devices before the binding is judged here,
once, so that a scheduler that gates pods on their claims but leaves allocation to others fails
this criterion, saying why, and not dozens of KEP-5501 ones.

Judged by effect (:mod:`harness._scenario.writes`): the stored write of the scheduler's that gave the claim
its ``status.allocation``, whatever request carried it (kube-scheduler writes the finalizer and
then the status; another scheduler may write both at once), and the binding, in journal order.
"""

from __future__ import annotations

from typing import Any

import pytest

from harness import DEFAULT_DEVICE_CLASS, Scenario, Write
from suites._support import CLAIMS, SLICES, create_claim, dra_cluster, reads_slices, seen_by_scheduler

__all__: list[str] = []

Obj = dict[str, Any]

#: The node of the scenario, the devices its ResourceSlice publishes, and the slice
#: (:func:`~suites._support.add_devices` names it ``<node>-<driver>``, its pool after the node).
NODE = "n1"
DEVICES = 4
SLICE = f"{NODE}-{DEFAULT_DEVICE_CLASS}"


def _results(claim: Obj | None) -> list[Obj] | None:
    """A claim's ``status.allocation.devices.results``; None when it has no allocation."""
    allocation = ((claim or {}).get("status") or {}).get("allocation")
    if not isinstance(allocation, dict):
        return None
    return list((allocation.get("devices") or {}).get("results") or [])


def _claim_writes(writes: list[Write]) -> str:
    return "\n".join(f"  t={w.time:.3f} #{w.entry.seq} {w.entry.verb} {w.entry.resource}"
                     f"{'/' + w.entry.subresource if w.entry.subresource else ''} -> {w.code} "
                     f"[{w.entry.effect or 'effect unknown'}] allocation after: {_results(w.after)}"
                     for w in writes) or "  (none)"


@pytest.mark.kep("KEP-4381", "Design Details: kube-scheduler (PreBind); Summary")
@pytest.mark.criterion("dra.allocated-before-binding")
async def test_a_claim_is_allocated_from_published_devices_before_the_binding(scenario: Scenario) -> None:
    """KEP-4381 Design Details, kube-scheduler: the scheduler's claim plugin 'is responsible for
    ensuring that a ResourceClaim is allocated and reserved for a Pod before the final binding of a
    Pod to a node'; Summary: DRA drivers publish their devices in ResourceSlices, 'available to the
    scheduler ... to query when a resource request comes in', and 'Once a node is chosen and the
    allocation decisions made, the scheduler will store the result in the API server'.

    Node n1 publishes 4 devices (dev-0 to dev-3) of driver gpu.example.com in ResourceSlice
    n1-gpu.example.com, pool n1; claim ``gpu`` asks for one device of DeviceClass gpu.example.com
    and the scheduler has seen it; pod ``p`` claims it. Expected: the pod is bound within 5 s, and
    before its binding (in journal order) a stored write of the scheduler's gave the claim a
    ``status.allocation`` whose ``devices.results`` hold exactly one result, for request
    ``req-0``, naming driver gpu.example.com, pool n1 and one of the slice's devices. A scheduler
    that never asked for ResourceSlices (no LIST or WATCH of them) cannot allocate from them: the
    failure says so. ``reservedFor`` and the allocation's node selector are not judged."""
    await dra_cluster(scenario, NODE, devices=DEVICES)
    published = await scenario.get("resourceslices", SLICE)
    spec = published.get("spec") or {}
    driver, pool = spec.get("driver"), (spec.get("pool") or {}).get("name")
    devices = sorted(str(d.get("name")) for d in spec.get("devices") or [])
    await seen_by_scheduler(scenario, (CLAIMS, await create_claim(scenario, "gpu")))
    await scenario.create_pod("p", claims=["gpu"])
    await scenario.eventually(scenario.pod_bound("p"), within=5 + scenario.slack.late)
    bindings = [w for w in scenario.writes("p") if w.binding and w.applied]
    assert bindings, f"expected a stored binding of {scenario.namespace}/p, the pod shows bound; found none"
    claim_writes = scenario.writes("gpu", kind="resourceclaims")
    allocated = [w for w in claim_writes if w.applied and _results(w.after) is not None and _results(w.before) is None]
    if not allocated:
        why = ("the scheduler never asked for ResourceSlices (no LIST or WATCH of "
               f"{SLICES} in the journal), so it cannot have allocated from the devices they publish"
               if not reads_slices(scenario) else "the scheduler reads ResourceSlices but stored no allocation")
        raise AssertionError(
            f"expected the claim {scenario.namespace}/gpu to be allocated from ResourceSlice {SLICE} (driver {driver}, "
            f"pool {pool}, devices {', '.join(devices)}) by a stored write of the scheduler's before the binding "
            f"(t={bindings[0].time:.3f} #{bindings[0].entry.seq}); {why}. The scheduler's writes of the claim:\n"
            f"{_claim_writes(claim_writes)}")
    write = allocated[0]
    assert write.entry.seq < bindings[0].entry.seq, (
        f"expected the claim's allocation stored before the binding (KEP-4381: allocated 'before the final binding'); "
        f"the binding t={bindings[0].time:.3f} #{bindings[0].entry.seq} came first, the allocation after:\n"
        f"{_claim_writes([write])}")
    results = _results(write.after) or []
    named = [(r.get("request"), r.get("driver"), r.get("pool"), r.get("device")) for r in results]
    assert len(named) == 1 and named[0][:3] == ("req-0", driver, pool) and named[0][3] in devices, (
        f"expected the allocation to name one device of ResourceSlice {SLICE} for request req-0 (driver {driver}, "
        f"pool {pool}, one of {', '.join(devices)}); it names (request, driver, pool, device): {named}")
