"""Workloads and PodGroups (``scheduling.k8s.io/v1beta1`` at v1.37) and the pod's
``spec.schedulingGroup``: served only with ``--runtime-config`` and ``GenericWorkload``, and
written as kube-apiserver v1.37.2 writes them.

Through the store (each rule of ``fake_apiserver/_registry/scheduling/``), then against a real
kube-apiserver v1.37.2 started with the same flags (``KUBEBUILDER_ASSETS``): the same bodies
created on both must be stored alike, and ``kubectl api-resources`` and ``kubectl explain`` of
both kinds must print the same.
"""

from __future__ import annotations

import json
import re
import subprocess
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import pytest

from fake_apiserver import Forbidden, Invalid, Store, StatusError
from fake_apiserver._machinery.kindspec import KindSpec
from harness._backends.envtest import ControlPlane, envtest_unavailable, find_assets
from tests.support.threaded_server import ThreadedServer

RUNTIME_CONFIG = "scheduling.k8s.io/v1beta1=true"
ON = {"GenericWorkload": True}
GROUP = "scheduling.k8s.io/v1beta1"
needs_binaries = pytest.mark.skipif(envtest_unavailable() is not None, reason=str(envtest_unavailable()))


class FixedClock:
    def now(self) -> datetime:
        return datetime(2026, 1, 1, tzinfo=timezone.utc)


def store(gates: dict[str, bool] | None = None, runtime_config: str = RUNTIME_CONFIG) -> Store:
    return Store(FixedClock(), kubernetes_version="1.37", feature_gates=ON if gates is None else gates,
                 runtime_config=runtime_config)


def spec_of(s: Store, resource: str) -> KindSpec:
    found = next((k for k in s.kinds if k.resource == resource), None)
    assert found is not None, f"{resource} not served"
    return found


def pod_group(name: str, **spec: Any) -> dict[str, Any]:
    return {"apiVersion": GROUP, "kind": "PodGroup", "metadata": {"name": name},
            "spec": {"schedulingPolicy": {"gang": {"minCount": 2}}, **spec}}


def workload(name: str, *templates: dict[str, Any]) -> dict[str, Any]:
    return {"apiVersion": GROUP, "kind": "Workload", "metadata": {"name": name},
            "spec": {"podGroupTemplates": list(templates) or [{"name": "workers",
                                                                "schedulingPolicy": {"gang": {"minCount": 2}}}]}}


def pod(name: str, group: str | None = "g") -> dict[str, Any]:
    spec: dict[str, Any] = {"containers": [{"name": "c", "image": "busybox:1"}]}
    if group is not None:
        spec["schedulingGroup"] = {"podGroupName": group}
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name}, "spec": spec}


def served(s: Store) -> set[str]:
    return {f"{k.group}/{k.version}/{k.resource}" for k in s.kinds if k.group == "scheduling.k8s.io"}


def test_the_kinds_are_served_with_the_version_and_the_gate_and_only_then() -> None:
    both = {f"{GROUP}/podgroups", f"{GROUP}/workloads", "scheduling.k8s.io/v1/priorityclasses"}
    assert served(store()) == both
    assert served(store(gates={})) == {"scheduling.k8s.io/v1/priorityclasses"}
    assert served(store(runtime_config="")) == {"scheduling.k8s.io/v1/priorityclasses"}
    assert spec_of(store(), "podgroups").subresources == ("status",)
    assert spec_of(store(), "workloads").subresources == ()


def test_a_pod_group_is_defaulted_protected_and_given_its_priority() -> None:
    s = store()
    made = s.create(spec_of(s, "podgroups"), "default", pod_group("g"))
    assert made["spec"]["disruptionMode"] == {"single": {}}
    assert made["spec"]["priority"] == 0 and "priorityClassName" not in made["spec"]
    assert made["metadata"]["finalizers"] == ["scheduling.k8s.io/podgroup-protection"]
    assert made["status"] == {} and "generation" not in made["metadata"]


def test_a_pod_group_takes_the_global_default_class_and_refuses_another_priority() -> None:
    s = store()
    classes = next(k for k in s.kinds if k.resource == "priorityclasses")
    s.create(classes, None, {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass",
                             "metadata": {"name": "batch"}, "value": 500, "globalDefault": True})
    made = s.create(spec_of(s, "podgroups"), "default", pod_group("g"))
    assert (made["spec"]["priorityClassName"], made["spec"]["priority"]) == ("batch", 500)
    with pytest.raises(Forbidden, match=re.escape(
            'podgroups.scheduling.k8s.io "h" is forbidden: priority set in the pod group (7) must match the priority '
            'computed (500) based on the priority class set in the spec')):
        s.create(spec_of(s, "podgroups"), "default", pod_group("h", priority=7))
    with pytest.raises(Forbidden, match=re.escape(
            'podgroups.scheduling.k8s.io "i" is forbidden: no PriorityClass with name missing was found')):
        s.create(spec_of(s, "podgroups"), "default", pod_group("i", priorityClassName="missing"))


def test_an_update_needs_a_resource_version_keeps_the_status_and_bumps_no_generation() -> None:
    s = store()
    groups = spec_of(s, "podgroups")
    made = s.create(groups, "default", pod_group("g"))
    status = {**made, "status": {"conditions": [{"type": "PodGroupInitiallyScheduled", "status": "True",
                                                 "reason": "Scheduled", "message": "",
                                                 "lastTransitionTime": "2026-01-01T00:00:00Z"}]}}
    written = s.update(groups, "default", "g", status, subresource="status")
    assert written["status"]["conditions"][0]["reason"] == "Scheduled"
    changed = {**written, "metadata": {**written["metadata"], "labels": {"a": "b"}}, "status": {}}
    updated = s.update(groups, "default", "g", changed)
    assert updated["status"] == written["status"] and "generation" not in updated["metadata"]
    unversioned = {**updated, "metadata": {k: v for k, v in updated["metadata"].items() if k != "resourceVersion"}}
    with pytest.raises(Invalid, match="metadata.resourceVersion: Invalid value: 0: must be specified for an update"):
        s.update(groups, "default", "g", unversioned)


def test_fields_of_a_gate_that_is_off_are_dropped() -> None:
    s = store()
    made = s.create(spec_of(s, "podgroups"), "default", pod_group(
        "g", schedulingConstraints={"topology": [{"key": "zone"}]}, preemptionPolicy="Never"))
    assert "schedulingConstraints" not in made["spec"] and "preemptionPolicy" not in made["spec"]
    w = s.create(spec_of(s, "workloads"), "default", workload("w", {
        "name": "a", "schedulingPolicy": {"basic": {}}, "schedulingConstraints": {"topology": [{"key": "zone"}]}}))
    assert w["spec"]["podGroupTemplates"][0]["schedulingConstraints"] is None  # nil, written: no omitempty


def test_the_templates_of_a_workload_share_one_priority() -> None:
    s = store()
    with pytest.raises(Invalid) as refused:
        s.create(spec_of(s, "workloads"), "default", workload(
            "w", {"name": "a", "schedulingPolicy": {"basic": {}}, "priority": 1},
            {"name": "b", "schedulingPolicy": {"basic": {}}, "priority": 2}))
    assert "spec: Invalid value: null: detected multiple priority configurations" in str(refused.value)


def test_a_pods_scheduling_group_is_kept_with_the_gate_and_dropped_without() -> None:
    on, off = store(), store(gates={})
    pods = spec_of(on, "pods")
    assert on.create(pods, "default", pod("p"))["spec"]["schedulingGroup"] == {"podGroupName": "g"}
    assert "schedulingGroup" not in off.create(spec_of(off, "pods"), "default", pod("p"))["spec"]


def test_a_pods_scheduling_group_is_validated_and_immutable() -> None:
    s = store()
    pods = spec_of(s, "pods")
    with pytest.raises(Invalid) as refused:
        s.create(pods, "default", pod("p", group="Not_A_Name"))
    assert 'spec.schedulingGroup.podGroupName: Invalid value: "Not_A_Name": a lowercase RFC 1123 subdomain' \
        in str(refused.value)
    bare = pod("q")
    bare["spec"]["schedulingGroup"] = {}
    with pytest.raises(Invalid, match=re.escape(
            "spec.schedulingGroup.podGroupName: Invalid value: null: must specify one of: `podGroupName`")):
        s.create(pods, "default", bare)
    made = s.create(pods, "default", pod("r"))
    moved = {**made, "spec": {**made["spec"], "schedulingGroup": {"podGroupName": "other"}}}
    with pytest.raises(StatusError, match="pod updates may not change fields other than"):
        s.update(pods, "default", "r", moved)


# ---------------------------------------------------------------------- against kube-apiserver v1.37.2


def _normal(obj: dict[str, Any]) -> dict[str, Any]:
    text = json.dumps(obj)
    text = re.sub(r'"(uid|resourceVersion|creationTimestamp|time)": "[^"]*"', r'"\1": "X"', text)
    return dict(json.loads(text))


BODIES = [
    ("workloads", workload("w1", {"name": "a", "schedulingPolicy": {"gang": {"minCount": 2}}},
                           {"name": "b", "schedulingPolicy": {"basic": {}}, "disruptionMode": {"all": {}},
                            "schedulingConstraints": {"topology": [{"key": "zone"}]}})),
    ("podgroups", pod_group("g1", workloadRef={"workloadName": "w1", "templateName": "a"})),
    ("podgroups", pod_group("g2", schedulingPolicy={"basic": {}}, disruptionMode={"all": {}})),
]


EXPLAINED = [("podgroup.spec",), ("workload.spec", "--recursive"), ("podgroups", "--recursive"),
             ("pod.spec.schedulingGroup",)]


def _kubectl(kubeconfig: Path, *args: str) -> str:
    done = subprocess.run(["kubectl", f"--kubeconfig={kubeconfig}", *args], capture_output=True, text=True, timeout=60)
    return done.stdout + done.stderr


def _created(kubeconfig: Path, tmp_path: Path) -> list[dict[str, Any]]:
    out = []
    for resource, body in BODIES:
        path = tmp_path / f"{body['metadata']['name']}.json"
        path.write_text(json.dumps(body))
        text = _kubectl(kubeconfig, "create", "-n", "default", "-f", str(path), "-o", "json")
        out.append(_normal(json.loads(text)))
    return out


@needs_binaries
@pytest.mark.skipif(subprocess.run(["which", "kubectl"], capture_output=True).returncode != 0,
                    reason="kubectl is not installed")
def test_the_fake_serves_and_stores_them_as_kube_apiserver_v1_37_2(tmp_path: Path) -> None:
    with ControlPlane(assets=find_assets(), logdir=tmp_path / "real", feature_gates=ON,
                      runtime_config=RUNTIME_CONFIG) as plane:
        assert plane.kubeconfig_path is not None
        real_resources = _kubectl(plane.kubeconfig_path, "api-resources")
        real_explained = [_kubectl(plane.kubeconfig_path, "explain", *what) for what in EXPLAINED]
        real = _created(plane.kubeconfig_path, tmp_path)
    fake = ThreadedServer(tmp_path / "fake", kubernetes_version="1.37", feature_gates=ON,
                          runtime_config=RUNTIME_CONFIG).start()
    try:
        assert _kubectl(fake.kubeconfig, "api-resources") == real_resources
        assert [_kubectl(fake.kubeconfig, "explain", *what) for what in EXPLAINED] == real_explained
        assert _created(fake.kubeconfig, tmp_path) == real
    finally:
        fake.stop()
