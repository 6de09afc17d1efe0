"""A real kube-scheduler, unchanged, against the fake API server (issue 2, "Must show" 3).

The binary comes from the environment, never from the project:

- ``SCHEDHARNESS_KUBE_SCHEDULER``: the path of a kube-scheduler binary, or several separated by
  ``:`` (e.g. ``/opt/bin/kube-scheduler-v1.35:/opt/bin/kube-scheduler-v1.30``);
- ``SCHEDHARNESS_KUBE_SCHEDULER_V130``: optionally one more (a v1.30 binary), added to the list.

Every test that needs a scheduler runs once per binary. Without either variable those tests are
skipped; a listed path that is not an executable file skips its own tests, naming the path. Two
tests at the end need no binary: they pin, on the store alone, the two server behaviours the real
schedulers showed were missing.

Per binary and per body type, one :class:`~fake_apiserver.FakeApiServer`
(``taint_not_ready_nodes=False``) runs on a real-time event loop in a background thread, and the
scheduler runs as a subprocess with a ``KubeSchedulerConfiguration`` (harness
``scheduler_config``) with ``leaderElect: false`` and ``--secure-port=0``, once with ``clientConnection.contentType: application/json`` and once without it, so with
its default configuration: protobuf bodies for creates (binding, Events) and DeleteOptions, which
the fake decodes, and strategic-merge JSON for patches either way. Every test runs against both;
the journal records a protobuf body as the JSON it decodes to, so the bodies are asserted alike.
Its log goes to ``kube-scheduler.log`` in the test's temporary directory; a failing test prints
the log's tail and the end of the request journal.

Readiness is a state, never a duration: a probe pod is bound, which the scheduler does only
after ``WaitForCacheSync`` on every informer (F.3), and the journal shows every informed
resource synced: a LIST (v1.30) or a streaming list whose ``k8s.io/initial-events-end``
bookmark was delivered (v1.35, client-go ``WatchListClient`` on by default, E.4). Waits poll
with a 60 s safety timeout that only a hang reaches.

The bodies asserted exactly below are what the binaries really sent (read from their logs and the
journal). The v1.35 line's status patches and binding are recorded in
``tests/data/scheduler_plugins_k8s_v1.35.4_requests.json`` (read through ``recorded_requests``:
scheduler-plugins' ``cmd/scheduler`` built against ``k8s.io/kubernetes`` v1.35.4), which the
reference scheduler's tests share; the tables below say how v1.30 and v1.37 differ. They follow
docs/api-facts.md §fit-error and §binding: the fit error
``0/%v nodes are available: %v.`` with the PostFilter messages after it, the strategic-merge
status patch built by ``CreateTwoWayMergePatch`` (``$setElementOrder/conditions`` only when the
old status already had conditions), the binding body of ``DefaultBinder``, and a
``FailedScheduling`` event through ``events.k8s.io/v1`` (the scheduler probes that group-version
in discovery and finds it served), whose repetition is a strategic-merge PATCH of its ``series``
(F.3). Where a version differs, the tables below say which way; for a minor version they do not
list, the message is checked against the D.3 format only.
"""

from __future__ import annotations

import contextlib
import json
import re
import socket
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator

import pytest

from fake_apiserver import FakeApiServer, JournalEntry, Store
from fake_apiserver._endpoints.discovery import api_resource_list
from tests.support.kube_scheduler import (
    BASE_INFORMED,
    BINARIES,
    JSON,
    NAMESPACE,
    NODE,
    NODES,
    PODS,
    SAFETY_TIMEOUT,
    ServerThread,
    binary_minor,
    binary_or_skip,
    informed_resources,
    kind_spec,
    node_manifest,
    pod_manifest,
    start_kube_scheduler,
    synced,
    wait_until,
)
from tests.support.recorded_requests import RECORDED, recorded_body

# Observed per minor version. v1.35: DRA is GA and on (resource.k8s.io/v1), and NodeVolumeLimits
# registers VolumeAttachment/Delete, which starts a VolumeAttachment informer. v1.37: DeviceTaintRules
# too (gate DRADeviceTaintRules GA and on: pkg/scheduler/scheduler.go hands the ResourceSlice tracker a
# DeviceTaintRule informer).
INFORMED = {
    30: BASE_INFORMED,
    35: BASE_INFORMED | {
        "volumeattachments.storage.k8s.io", "resourceclaims.resource.k8s.io",
        "resourceslices.resource.k8s.io", "deviceclasses.resource.k8s.io",
    },
    37: BASE_INFORMED | {
        "volumeattachments.storage.k8s.io", "resourceclaims.resource.k8s.io",
        "resourceslices.resource.k8s.io", "deviceclasses.resource.k8s.io", "devicetaintrules.resource.k8s.io",
    },
}
# The FailedScheduling message for a pod requesting more cpu than the one node has, where it
# differs from v1.35's recorded one. v1.35 adds the DynamicResources PostFilter message, and its
# NodeResourcesFit marks a request above the node's allocatable as unresolvable, so preemption
# reports itself not helpful; v1.30 does neither. v1.37's DynamicResources PostFilter rejects a pod
# without claims with no message ("No new claims to deallocate" is only logged: dynamicresources.go,
# PostFilter), so only preemption's is left.
UNSCHEDULABLE = {
    30: "0/1 nodes are available: 1 Insufficient cpu. "
        "preemption: 0/1 nodes are available: 1 No preemption victims found for incoming pod.",
    37: "0/1 nodes are available: 1 Insufficient cpu. "
        "preemption: 0/1 nodes are available: 1 Preemption is not helpful for scheduling.",
}
# docs/api-facts.md §fit-error: "0/%v nodes are available: %v." then the PostFilter messages.
FIT_ERROR = re.compile(r"^0/1 nodes are available: 1 Insufficient cpu\. .*preemption: 0/1 nodes are available: 1 .+\.$")
RFC3339 = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$")
MICRO_TIME = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$")

EVENTS = kind_spec("events.k8s.io", "v1", "events")

PROTOBUF = "application/vnd.kubernetes.protobuf"
# The body types a kube-scheduler is run with: JSON set in its configuration, and its default.
CONTENT_TYPES = {"json": JSON, "protobuf": None}


@dataclass
class Scheduler:
    """A running kube-scheduler, the fake it talks to and where its log goes."""

    binary: str
    minor: int
    content_type: str | None  # clientConnection.contentType; None: the client's default (protobuf)
    fake: ServerThread
    proc: subprocess.Popen[bytes]
    log: Path

    def log_tail(self, lines: int = 60) -> str:
        text = self.log.read_text(errors="replace").splitlines() if self.log.exists() else []
        return "\n".join(text[-lines:])

    def journal(self) -> list[JournalEntry]:
        return self.fake.call(lambda: list(self.fake.server.journal.entries))

    def explain(self) -> str:
        journal = self.fake.call(lambda: self.fake.server.journal.format(limit=30))
        return (f"--- kube-scheduler ({self.binary}) exit={self.proc.poll()} log tail ({self.log}):\n"
                f"{self.log_tail()}\n--- journal tail:\n{journal}")

    @contextlib.contextmanager
    def reported(self) -> Iterator[None]:
        """Print the scheduler's log tail and the journal's end when the block fails."""
        try:
            yield
        except BaseException:
            print(self.explain())
            raise

    def pod(self, name: str) -> dict[str, Any]:
        return self.fake.call(lambda: self.fake.server.store.get(PODS, NAMESPACE, name))

    def create_pod(self, name: str, cpu: str, *, gated: bool = False) -> dict[str, Any]:
        body = pod_manifest(name, cpu, gated=gated)
        return self.fake.call(lambda: self.fake.server.store.create(PODS, NAMESPACE, body))

    def wait_bound(self, name: str) -> dict[str, Any]:
        return wait_until(f"pod {name} bound", lambda: (p := self.pod(name))["spec"].get("nodeName") and p,
                          self.explain)

    def requests(self, verb: str, resource: str, *, subresource: str = "", name: str = "") -> list[JournalEntry]:
        return [e for e in self.journal() if e.type == "request" and e.verb == verb and e.resource == resource
                and e.subresource == subresource and (not name or e.name == name)]


@pytest.fixture(scope="module", params=[(b, t) for b in BINARIES or ["<unset>"] for t in CONTENT_TYPES],
                ids=lambda p: f"{Path(p[0]).name}-{p[1]}")
def scheduler(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Scheduler]:
    """A fake with one ready node, a kube-scheduler started against it (JSON bodies, or its
    default protobuf), and a bound probe pod."""
    binary = binary_or_skip(request)
    content_key = request.param[1]
    content_type = CONTENT_TYPES[content_key]
    minor = binary_minor(binary)
    tmp = tmp_path_factory.mktemp(f"kube-scheduler-v1.{minor}-{content_key}")
    server = FakeApiServer(taint_not_ready_nodes=False)
    server.journal.keep_watch_objects = True  # the initial-events-end bookmark is read from them
    with ServerThread(server) as fake:
        kubeconfig = server.write_kubeconfig(tmp / "kubeconfig")
        fake.call(lambda: server.store.create(NODES, None, node_manifest(NODE, "2")))
        log = tmp / "kube-scheduler.log"
        proc = start_kube_scheduler(binary, kubeconfig, tmp, log, content_type)
        sched = Scheduler(binary, minor, content_type, fake, proc, log)
        try:
            with sched.reported():
                sched.create_pod("probe", "100m")
                wait_until("the probe pod bound (every informer synced)",
                           lambda: proc.poll() is None and sched.pod("probe")["spec"].get("nodeName"),
                           sched.explain)
            yield sched
        finally:
            proc.terminate()
            try:
                proc.wait(SAFETY_TIMEOUT)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(SAFETY_TIMEOUT)


def test_every_informer_syncs_and_nothing_is_refused(scheduler: Scheduler) -> None:
    """F.3: every informed resource is served (a 404 would stall ``WaitForCacheSync``), each
    synced by a LIST or a streaming list, and no request the scheduler made was refused."""
    with scheduler.reported():
        entries = scheduler.journal()
        informed = informed_resources(entries)
        assert BASE_INFORMED <= informed
        if scheduler.minor in INFORMED:
            assert informed == INFORMED[scheduler.minor]
        assert sorted(r for r in informed if not synced(entries, r)) == []
        pods = [e for e in entries if e.type == "request" and e.resource == "pods" and e.verb in ("list", "watch")]
        assert {e.query.get("fieldSelector") for e in pods} == {"status.phase!=Succeeded,status.phase!=Failed"}
        if scheduler.minor >= 35:  # client-go WatchListClient is on by default from v1.35 (E.4)
            assert pods[0].verb == "watch"
            assert pods[0].query["sendInitialEvents"] == "true"
            assert pods[0].query["resourceVersionMatch"] == "NotOlderThan"
        assert [(e.verb, e.path, e.code) for e in entries if e.type == "request" and e.code >= 400] == []
        # The events broadcaster's discovery probe (E.6): served, so events go to events.k8s.io/v1.
        assert [e.code for e in entries if e.type == "request" and e.path == "/apis/events.k8s.io/v1"] == [200]


def test_a_pod_that_fits_is_bound(scheduler: Scheduler) -> None:
    """D.4: ``POST pods/fits/binding`` with ``DefaultBinder``'s body; the pod gets
    ``spec.nodeName`` and ``PodScheduled=True`` with no reason or message."""
    with scheduler.reported():
        created = scheduler.create_pod("fits", "1")
        pod = scheduler.wait_bound("fits")
        assert pod["spec"]["nodeName"] == NODE
        [cond] = [c for c in pod["status"]["conditions"] if c["type"] == "PodScheduled"]
        assert {k: v for k, v in cond.items() if k != "lastTransitionTime"} == {
            "type": "PodScheduled", "status": "True", "lastProbeTime": None}
        assert RFC3339.match(cond["lastTransitionTime"])
        [binding] = scheduler.requests("create", "pods", subresource="binding", name="fits")
        assert _request_line(binding) == _recorded_line("binding", scheduler)
        expected = recorded_body("binding", binding.body)
        assert expected["metadata"]["uid"] == created["metadata"]["uid"]
        # v1.30's apimachinery encodes the zero creationTimestamp as null; v1.35's and v1.37's omit
        # it, and so does the fake's protobuf decoding (ObjectMeta's omitzero, since v1.36).
        if scheduler.content_type == JSON and {30: True, 35: False, 37: False}.get(
                scheduler.minor, "creationTimestamp" in binding.body["metadata"]):
            expected["metadata"] = {"creationTimestamp": None, **expected["metadata"]}
        assert binding.body == expected
        event = wait_until("the Scheduled event", lambda: _event(scheduler, "fits"), scheduler.explain)
        assert (event["reason"], event["type"], event["action"], event["note"]) == (
            "Scheduled", "Normal", "Binding", f"Successfully assigned default/fits to {NODE}")
        creates = [e for e in scheduler.requests("create", "events.events.k8s.io") if e.body["regarding"]["name"] == "fits"]
        assert [(e.content_type, e.code) for e in creates] == [(_body_type(scheduler), 201)]


def _events(scheduler: Scheduler, pod: str) -> list[dict[str, Any]]:
    """The bodies of the events.k8s.io/v1 Events created about ``pod``, in order."""
    creates = scheduler.requests("create", "events.events.k8s.io")
    return [e.body for e in creates if e.code == 201 and e.body["regarding"]["name"] == pod]


def _event(scheduler: Scheduler, pod: str) -> dict[str, Any] | None:
    events = _events(scheduler, pod)
    return events[0] if events else None


def _status_patch(scheduler: Scheduler, pod: str) -> JournalEntry | None:
    patches = scheduler.requests("patch", "pods", subresource="status", name=pod)
    return patches[0] if patches else None


def _sends_observed_generation(scheduler: Scheduler, sent: dict[str, Any]) -> bool:
    """v1.35 and v1.37 stamp the pod's generation on the condition (KEP-5067, gate
    PodObservedGenerationTracking); v1.30 does not. Other versions: as sent."""
    return {30: False, 35: True, 37: True}.get(scheduler.minor, "observedGeneration" in sent)


def _request_line(entry: JournalEntry) -> tuple[str, str, int]:
    return entry.path, entry.content_type, entry.code


def _recorded_line(name: str, scheduler: Scheduler | None = None) -> tuple[str, str, int]:
    """The recorded request's path, content type and code; a JSON body is protobuf from a
    ``scheduler`` run with its default configuration (patches are strategic-merge JSON either way)."""
    content_type = RECORDED[name]["content_type"]
    if scheduler is not None and content_type == JSON:
        content_type = _body_type(scheduler)
    return RECORDED[name]["path"], content_type, RECORDED[name]["code"]


def _body_type(scheduler: Scheduler) -> str:
    """The Content-Type of the scheduler's create bodies."""
    return scheduler.content_type or PROTOBUF


def _as_this_version(scheduler: Scheduler, body: dict[str, Any], sent: dict[str, Any]) -> dict[str, Any]:
    """A recorded v1.35 status patch as this binary's minor version sends it: v1.30 sends no
    ``observedGeneration``, v1.30 and v1.37 their own message (``UNSCHEDULABLE``); a minor
    version neither table lists keeps what it sent of both (its message checked against the D.3
    format)."""
    if scheduler.minor != 35:
        for cond in body["status"]["conditions"]:
            cond["message"] = UNSCHEDULABLE.get(scheduler.minor, sent["message"])
            if not _sends_observed_generation(scheduler, sent):
                cond.pop("observedGeneration", None)
    return body


def _condition(pod: dict[str, Any]) -> dict[str, Any] | None:
    conds = [c for c in pod["status"].get("conditions", []) if c["type"] == "PodScheduled"]
    return conds[0] if conds and conds[0].get("reason") == "Unschedulable" else None


def test_an_unschedulable_pod_gets_the_condition_by_strategic_merge_patch(scheduler: Scheduler) -> None:
    """D.3: ``PodScheduled=False`` reason ``Unschedulable`` with the fit-error message, sent as a
    strategic-merge ``PATCH pods/big/status`` (no ``$setElementOrder``: the pod had no
    conditions), and a ``FailedScheduling`` Warning event with action ``Scheduling``."""
    with scheduler.reported():
        created = scheduler.create_pod("big", "3")
        assert created["metadata"]["generation"] == 1  # the recorded observedGeneration
        patch = wait_until("the status patch of big", lambda: _status_patch(scheduler, "big"), scheduler.explain)
        assert _request_line(patch) == _recorded_line("unschedulable_without_conditions")
        [sent] = patch.body["status"]["conditions"]
        assert FIT_ERROR.match(sent["message"])
        assert RFC3339.match(sent["lastTransitionTime"])
        body = _as_this_version(scheduler, recorded_body("unschedulable_without_conditions", patch.body), sent)
        assert patch.body == body
        [expected] = body["status"]["conditions"]

        stored = wait_until("the Unschedulable condition", lambda: _condition(scheduler.pod("big")), scheduler.explain)
        assert stored == expected
        assert "nodeName" not in scheduler.pod("big")["spec"]

        event = wait_until("the FailedScheduling event", lambda: _event(scheduler, "big"), scheduler.explain)
        assert (event["reason"], event["type"], event["action"], event["note"]) == (
            "FailedScheduling", "Warning", "Scheduling", expected["message"])
        assert event["regarding"] == {"kind": "Pod", "namespace": NAMESPACE, "name": "big",
                                      "uid": created["metadata"]["uid"], "apiVersion": "v1",
                                      "resourceVersion": created["metadata"]["resourceVersion"]}
        assert (event["reportingController"], event["reportingInstance"]) == (
            "default-scheduler", f"default-scheduler-{socket.gethostname()}")
        assert re.match(r"^big\.[0-9a-f]+$", event["metadata"]["name"])
        assert MICRO_TIME.match(event["eventTime"])
        stored_event = scheduler.fake.call(
            lambda: scheduler.fake.server.store.get(EVENTS, NAMESPACE, event["metadata"]["name"]))
        assert (stored_event["reason"], stored_event["note"]) == ("FailedScheduling", expected["message"])


def test_a_pod_released_from_its_gate_gets_set_element_order(scheduler: Scheduler) -> None:
    """A.3 and D.3: a gated pod carries ``PodScheduled=False/SchedulingGated`` from create; once
    its gate is removed and it fails to fit, the scheduler's patch replaces that condition by its
    merge key, so the body carries ``$setElementOrder/conditions`` and only the changed fields
    (``lastTransitionTime`` is kept: the status stays ``False``)."""
    with scheduler.reported():
        created = scheduler.create_pod("gated", "3", gated=True)
        gated_cond = created["status"]["conditions"][0]
        assert (gated_cond["reason"], gated_cond["message"]) == (
            "SchedulingGated", "Scheduling is blocked due to non-empty scheduling gates")
        released = scheduler.fake.call(lambda: scheduler.fake.server.store.patch(
            PODS, NAMESPACE, "gated", b'{"spec":{"schedulingGates":null}}', "application/merge-patch+json"))
        assert released["metadata"]["generation"] == 2  # the recorded observedGeneration
        patch = wait_until("the status patch of gated", lambda: _status_patch(scheduler, "gated"), scheduler.explain)
        assert _request_line(patch) == _recorded_line("unschedulable_released_from_its_gate")
        [sent] = patch.body["status"]["conditions"]
        assert FIT_ERROR.match(sent["message"])
        body = _as_this_version(scheduler, recorded_body("unschedulable_released_from_its_gate", patch.body), sent)
        assert patch.body == body
        [expected] = body["status"]["conditions"]
        stored = wait_until("the Unschedulable condition", lambda: _condition(scheduler.pod("gated")), scheduler.explain)
        assert stored == {**gated_cond, **expected}  # lastTransitionTime and lastProbeTime kept


def test_a_repeated_failure_patches_the_event_series(scheduler: Scheduler) -> None:
    """F.3: an event identical to one already sent is a strategic-merge PATCH of that event's
    ``series`` (client-go ``events`` broadcaster, ``createPatchBytesForSeries``). Deleting a bound
    pod that holds cpu (at once, as its kubelet's confirmation does) requeues the unschedulable
    pod, which fails again."""
    with scheduler.reported():
        for filler in ("filler-1", "filler-2"):
            scheduler.create_pod(filler, "300m")
            scheduler.wait_bound(filler)
        scheduler.create_pod("again", "3")
        wait_until("the first FailedScheduling event", lambda: len(_events(scheduler, "again")) == 1, scheduler.explain)
        scheduler.fake.call(lambda: scheduler.fake.server.store.delete(
            PODS, NAMESPACE, "filler-1", options={"gracePeriodSeconds": 0}))
        wait_until("the second FailedScheduling event", lambda: len(_events(scheduler, "again")) == 2, scheduler.explain)
        scheduler.fake.call(lambda: scheduler.fake.server.store.delete(
            PODS, NAMESPACE, "filler-2", options={"gracePeriodSeconds": 0}))
        first, second = _events(scheduler, "again")[:2]
        # The event cache keys on ``regarding``, resourceVersion included: the first failure's
        # status patch changed it, so the second failure was a new event and the third repeats it.
        assert first["regarding"]["resourceVersion"] != second["regarding"]["resourceVersion"]
        name = second["metadata"]["name"]
        patch = wait_until("the series patch", lambda: scheduler.requests("patch", "events.events.k8s.io", name=name),
                           scheduler.explain)[0]
        assert (patch.path, patch.content_type, patch.code) == (
            f"/apis/events.k8s.io/v1/namespaces/default/events/{name}", "application/strategic-merge-patch+json", 200)
        assert list(patch.body) == ["series"] and patch.body["series"]["count"] == 2
        assert MICRO_TIME.match(patch.body["series"]["lastObservedTime"])
        stored = scheduler.fake.call(lambda: scheduler.fake.server.store.get(EVENTS, NAMESPACE, name))
        assert stored["series"] == patch.body["series"]
        assert (stored["reason"], stored["note"], stored["eventTime"]) == (
            "FailedScheduling", second["note"], second["eventTime"])


# --- what the schedulers needed, pinned without a binary ----------------------------------------


def test_volumeattachments_are_served_for_the_v135_informer() -> None:
    """kube-scheduler v1.35 informs ``storage.k8s.io/v1 volumeattachments`` (NodeVolumeLimits
    registers VolumeAttachment/Delete); a 404 there kept its caches from syncing."""
    spec = kind_spec("storage.k8s.io", "v1", "volumeattachments")
    assert (spec.kind, spec.namespaced, spec.subresources) == ("VolumeAttachment", False, ("status",))
    doc = api_resource_list((spec,), "storage.k8s.io", "v1")
    assert doc is not None
    assert [r["name"] for r in doc["resources"]] == ["volumeattachments", "volumeattachments/status"]
    store = Store()
    listed = store.list(spec, None)
    assert (listed["kind"], listed["apiVersion"], listed["items"]) == ("VolumeAttachmentList", "storage.k8s.io/v1", [])


def test_devicetaintrules_are_served_for_the_v137_informer() -> None:
    """kube-scheduler v1.37 informs ``resource.k8s.io/v1 devicetaintrules`` (its ResourceSlice
    tracker, gate DRADeviceTaintRules on); a 404 there kept its caches from syncing. A server of
    v1.36, where the kind was v1beta2 and off, does not serve it."""
    spec = kind_spec("resource.k8s.io", "v1", "devicetaintrules")
    assert (spec.kind, spec.namespaced, spec.subresources) == ("DeviceTaintRule", False, ("status",))
    store = Store()
    doc = api_resource_list(store.kinds, "resource.k8s.io", "v1")
    assert doc is not None
    assert [r["name"] for r in doc["resources"] if r["name"].startswith("devicetaintrules")] == [
        "devicetaintrules", "devicetaintrules/status"]
    listed = store.list(spec, None)
    assert (listed["kind"], listed["apiVersion"], listed["items"]) == ("DeviceTaintRuleList", "resource.k8s.io/v1", [])
    assert not Store(kubernetes_version="1.36").serves(spec)


def test_a_condition_patched_with_a_null_probe_time_reads_back_null() -> None:
    """The scheduler's status patch sends ``"lastProbeTime": null``; strategic merge drops the key,
    and the real server, decoding into ``PodCondition`` and encoding again, stores ``null``
    (a zero ``metav1.Time``; ``omitempty`` never omits a struct)."""
    store = Store()
    store.create(PODS, NAMESPACE, pod_manifest("p", "1"))
    cond = {"lastProbeTime": None, "lastTransitionTime": "2026-01-01T00:00:00Z", "message": "m",
            "reason": "Unschedulable", "status": "False", "type": "PodScheduled"}
    body = json.dumps({"status": {"conditions": [cond]}}).encode()
    patched = store.patch(PODS, NAMESPACE, "p", body, "application/strategic-merge-patch+json", subresource="status")
    assert patched["status"]["conditions"] == [cond]
    assert store.get(PODS, NAMESPACE, "p")["status"]["conditions"] == [cond]
