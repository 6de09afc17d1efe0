"""kubectl, unchanged, against ``schedharness serve`` (issue 2, "Must show" 1).

One server per module, started as a subprocess the way a user starts it; every kubectl call goes
through its kubeconfig, with the default ``--validate=strict`` (no ``--validate=false``). Each test
works in a namespace of its own. Ages come from the server's clock, so AGE cells are matched by
shape, never by value. The gate rules and messages are those of docs/api-facts.md §gated-create and §gated-binding; the table
columns those of ``pkg/printers/internalversion/printers.go``.
"""

from __future__ import annotations

import json
import re
import shutil
from datetime import datetime, timedelta
from pathlib import Path

import pytest
import yaml

from fake_apiserver import KINDS
from fake_apiserver._endpoints.discovery import group_versions, version_info
from tests.support.kubectl import SAFETY_TIMEOUT, Kubectl, binding, pod_manifest, stop_process, table
from tests.support.paths import ROOT

pytestmark = pytest.mark.skipif(shutil.which("kubectl") is None, reason="kubectl is not on PATH")

FIXTURES = ROOT / "fixtures"
GATE_MESSAGE = "Scheduling is blocked due to non-empty scheduling gates"
AGE = re.compile(r"^(\d+[smhdy])+$")  # HumanDuration: 5s, 2m5s, 3h, 2d1h


def jsonpath(kubectl: Kubectl, ns: str, what: str, path: str) -> str:
    return kubectl.out("get", "-n", ns, what, "-o", f"jsonpath={path}")


# --- discovery -------------------------------------------------------------------------------


def test_get_namespaces_lists_the_four_defaults(kubectl: Kubectl) -> None:
    rows = table(kubectl.out("get", "namespaces"))
    assert rows[0] == ["NAME", "STATUS", "AGE"]
    defaults = [r for r in rows[1:] if r[0] in ("default", "kube-node-lease", "kube-public", "kube-system")]
    assert [r[:2] for r in defaults] == [
        ["default", "Active"], ["kube-node-lease", "Active"], ["kube-public", "Active"], ["kube-system", "Active"],
    ]
    assert all(AGE.match(r[2]) for r in defaults)


def test_create_namespace_from_a_manifest(kubectl: Kubectl) -> None:
    assert kubectl.out("create", "-f", str(FIXTURES / "namespace.yaml")) == "namespace/team-a created\n"
    assert kubectl.out("get", "namespace", "team-a", "-o", "jsonpath={.status.phase}") == "Active"
    assert kubectl.fail("create", "-f", str(FIXTURES / "namespace.yaml")) == (
        'Error from server (AlreadyExists): error when creating "%s": namespaces "team-a" already exists\n'
        % (FIXTURES / "namespace.yaml"))
    generated = kubectl.out("create", "namespace", "team-b", "--dry-run=client", "-o", "yaml")
    assert kubectl.out("apply", "-f", "-", input=generated) == "namespace/team-b created\n"


def test_create_namespace_imperatively(kubectl: Kubectl) -> None:
    """``kubectl create namespace NAME`` uses kubectl's typed client, which sends protobuf; the
    fake decodes it (tests/fake_apiserver/_machinery/test_protobuf.py has the other imperative
    creates)."""
    assert kubectl.out("create", "namespace", "team-c") == "namespace/team-c created\n"
    assert kubectl.out("get", "namespace", "team-c", "-o", "jsonpath={.status.phase}") == "Active"


def test_api_resources_lists_every_served_kind(kubectl: Kubectl) -> None:
    names = kubectl.out("api-resources", "-o", "name").split()
    # every resource kube-apiserver of the release lists (kubectl shows the preferred version)
    assert sorted(names) == sorted(k.resource if not k.group else f"{k.resource}.{k.group}" for k in KINDS)
    rows = table(kubectl.out("api-resources", "--api-group=", "--namespaced=true"))
    assert rows[0] == ["NAME", "SHORTNAMES", "APIVERSION", "NAMESPACED", "KIND"]
    assert ["pods", "po", "v1", "true", "Pod"] in rows


def test_api_versions_lists_every_group_version(kubectl: Kubectl) -> None:
    expected = sorted(f"{g}/{v}" if g else v for g, versions in group_versions(KINDS).items() for v in versions)
    assert kubectl.out("api-versions").split() == expected


def test_version_reports_the_server_version(kubectl: Kubectl) -> None:
    server = json.loads(kubectl.out("version", "-o", "json"))["serverVersion"]
    assert server == {k: v for k, v in version_info().items() if k in server}
    assert server["gitVersion"] == "v1.37.0-schedharness"


# --- pods: create, apply, get ----------------------------------------------------------------


def test_create_from_manifest_validates_without_validate_false(kubectl: Kubectl, ns: str) -> None:
    assert kubectl.out("create", "-n", ns, "-f", str(FIXTURES / "pod.yaml")) == "pod/web created\n"
    pod = json.loads(kubectl.out("get", "-n", ns, "pod", "web", "-o", "json"))
    assert pod["metadata"]["labels"] == {"app": "web"}
    assert pod["status"] == {"phase": "Pending", "qosClass": "BestEffort"}
    # The OpenAPI v3 documents list fieldValidation on the Pod's PATCH, so kubectl leaves
    # validation to the server (fieldValidation=Strict) and runs none of its own checks: a
    # duplicate label key is decoded by kubectl (the last one wins) and the pod is created, as
    # kubectl v1.32 does against a real kube-apiserver v1.36 (captured).
    duplicate = pod_manifest("dup").replace('"name": "dup"', '"name": "dup", "labels": {"a": "1", "a": "2"}')
    assert kubectl.out("create", "-n", ns, "-f", "-", input=duplicate) == "pod/dup created\n"
    assert jsonpath(kubectl, ns, "pod/dup", "{.metadata.labels}") == '{"a":"2"}'


def test_apply_creates_then_configures_then_leaves_unchanged(kubectl: Kubectl, ns: str, tmp_path: Path) -> None:
    manifest = yaml.safe_load((FIXTURES / "pod.yaml").read_text())
    path = tmp_path / "pod.yaml"
    path.write_text(yaml.safe_dump(manifest))
    assert kubectl.out("apply", "-n", ns, "-f", str(path)) == "pod/web created\n"
    manifest["metadata"]["labels"]["tier"] = "frontend"
    path.write_text(yaml.safe_dump(manifest))
    assert kubectl.out("apply", "-n", ns, "-f", str(path)) == "pod/web configured\n"
    assert kubectl.out("apply", "-n", ns, "-f", str(path)) == "pod/web unchanged\n"
    assert jsonpath(kubectl, ns, "pod/web", "{.metadata.labels}") == '{"app":"web","tier":"frontend"}'
    applied = json.loads(jsonpath(kubectl, ns, "pod/web",
                                  "{.metadata.annotations.kubectl\\.kubernetes\\.io/last-applied-configuration}"))
    assert applied["metadata"]["labels"] == {"app": "web", "tier": "frontend"}


def test_get_in_every_output_format(kubectl: Kubectl, ns: str) -> None:
    kubectl.out("create", "-n", ns, "-f", str(FIXTURES / "pod.yaml"))
    as_json = json.loads(kubectl.out("get", "-n", ns, "pod", "web", "-o", "json"))
    as_yaml = yaml.safe_load(kubectl.out("get", "-n", ns, "pod", "web", "-o", "yaml"))
    assert as_json == as_yaml
    assert (as_json["kind"], as_json["metadata"]["name"], as_json["metadata"]["namespace"]) == ("Pod", "web", ns)
    assert jsonpath(kubectl, ns, "pods", "{.items[*].metadata.name}") == "web"
    assert kubectl.out("get", "-n", ns, "pods", "-o", "name") == "pod/web\n"
    header, row = table(kubectl.out("get", "-n", ns, "pods", "-o", "wide"))
    assert header == ["NAME", "READY", "STATUS", "RESTARTS", "AGE", "IP", "NODE", "NOMINATED NODE", "READINESS GATES"]
    assert row[:4] + row[5:] == ["web", "0/1", "Pending", "0", "<none>", "<none>", "<none>", "<none>"]
    assert AGE.match(row[4])


def test_get_sorts_and_lists_across_namespaces(kubectl: Kubectl, ns: str) -> None:
    for name in ("zeta", "alpha"):
        kubectl.out("create", "-n", ns, "-f", "-", input=pod_manifest(name))
    # --sort-by makes kubectl ask for includeObject=Object and sort the rows itself.
    rows = table(kubectl.out("get", "-n", ns, "pods", "--sort-by=.metadata.name"))
    assert [r[0] for r in rows] == ["NAME", "alpha", "zeta"]
    # NAMESPACE comes from each row's PartialObjectMetadata.
    rows = table(kubectl.out("get", "pods", "-A", "--field-selector", f"metadata.namespace={ns}"))
    assert [r[:3] for r in rows] == [["NAMESPACE", "NAME", "READY"], [ns, "alpha", "0/1"], [ns, "zeta", "0/1"]]


def test_get_shows_scheduling_gated_status(kubectl: Kubectl, ns: str) -> None:
    kubectl.out("create", "-n", ns, "-f", str(FIXTURES / "pod-gated.yaml"))
    kubectl.out("create", "-n", ns, "-f", str(FIXTURES / "pod.yaml"))
    rows = table(kubectl.out("get", "-n", ns, "pods"))
    assert [r[:4] for r in rows] == [
        ["NAME", "READY", "STATUS", "RESTARTS"],
        ["gated", "0/1", "SchedulingGated", "0"],
        ["web", "0/1", "Pending", "0"],
    ]


def test_get_shows_container_statuses_written_through_status(kubectl: Kubectl, ns: str) -> None:
    kubectl.out("create", "-n", ns, "-f", str(FIXTURES / "pod.yaml"))
    kubectl.out("create", "--raw", f"/api/v1/namespaces/{ns}/pods/web/binding", "-f", "-", input=binding("web", "n1"))
    created = jsonpath(kubectl, ns, "pod/web", "{.metadata.creationTimestamp}")
    # The last restart three hours before creation on the server's clock: RESTARTS reads "2 (3h ago)".
    three_hours_before = (datetime.fromisoformat(created) - timedelta(hours=3)).strftime("%Y-%m-%dT%H:%M:%SZ")
    status = {"status": {"phase": "Running", "podIP": "10.1.0.7", "containerStatuses": [{
        "name": "c", "ready": True, "restartCount": 2, "image": "registry.k8s.io/pause:3.10", "imageID": "",
        "started": True, "state": {"running": {"startedAt": created}},
        "lastState": {"terminated": {"exitCode": 1, "finishedAt": three_hours_before}},
    }]}}
    assert kubectl.out("patch", "-n", ns, "pod", "web", "--subresource=status", "--type=merge",
                       "-p", json.dumps(status)) == "pod/web patched\n"
    header, row = table(kubectl.out("get", "-n", ns, "pods", "-o", "wide"))
    assert row[:4] + row[5:] == ["web", "1/1", "Running", "2 (3h ago)", "10.1.0.7", "n1", "<none>", "<none>"]


# --- pods: patch, delete, wait, watch --------------------------------------------------------


def test_patch_json_merge_and_strategic(kubectl: Kubectl, ns: str) -> None:
    kubectl.out("create", "-n", ns, "-f", str(FIXTURES / "pod.yaml"))
    assert kubectl.out("patch", "-n", ns, "pod", "web", "--type=json",
                       "-p", '[{"op":"add","path":"/metadata/annotations","value":{"note":"json"}}]') == "pod/web patched\n"
    assert kubectl.out("patch", "-n", ns, "pod", "web", "--type=merge",
                       "-p", '{"metadata":{"labels":{"tier":"merge"}}}') == "pod/web patched\n"
    assert kubectl.out("patch", "-n", ns, "pod", "web", "--type=strategic",
                       "-p", '{"spec":{"containers":[{"name":"c","image":"registry.k8s.io/pause:3.9"}]}}') == (
        "pod/web patched\n")
    pod = json.loads(kubectl.out("get", "-n", ns, "pod", "web", "-o", "json"))
    assert pod["metadata"]["annotations"] == {"note": "json"}
    assert pod["metadata"]["labels"] == {"app": "web", "tier": "merge"}
    assert [(c["name"], c["image"]) for c in pod["spec"]["containers"]] == [("c", "registry.k8s.io/pause:3.9")]
    assert pod["metadata"]["generation"] == 2  # only the image change touched the spec
    stderr = kubectl.fail("patch", "-n", ns, "pod", "web", "--type=json",
                          "-p", '[{"op":"test","path":"/metadata/labels/app","value":"db"}]')
    assert stderr.startswith('The request is invalid: the server rejected our request due to an error in our request')


def test_patch_status_subresource_writes_status_only(kubectl: Kubectl, ns: str) -> None:
    kubectl.out("create", "-n", ns, "-f", str(FIXTURES / "pod.yaml"))
    condition = {"type": "PodScheduled", "status": "False", "reason": "Unschedulable",
                 "message": "0/1 nodes are available: 1 node(s) were unschedulable."}
    patch = {"spec": {"nodeName": "ignored"}, "status": {"conditions": [condition]}}
    assert kubectl.out("patch", "-n", ns, "pod", "web", "--subresource=status",
                       "-p", json.dumps(patch)) == "pod/web patched\n"
    pod = json.loads(kubectl.out("get", "-n", ns, "pod", "web", "-o", "json"))
    assert "nodeName" not in pod["spec"]
    [written] = pod["status"]["conditions"]
    assert {k: written[k] for k in condition} == condition
    assert kubectl.out("get", "-n", ns, "pod", "web", "--subresource=status", "-o",
                       "jsonpath={.status.conditions[0].reason}") == "Unschedulable"


def test_delete_pod(kubectl: Kubectl, ns: str) -> None:
    kubectl.out("create", "-n", ns, "-f", str(FIXTURES / "pod.yaml"))
    assert kubectl.out("delete", "-n", ns, "pod", "web") == 'pod "web" deleted\n'
    assert kubectl.fail("get", "-n", ns, "pod", "web") == 'Error from server (NotFound): pods "web" not found\n'


def test_wait_for_pod_scheduled_after_binding(kubectl: Kubectl, ns: str) -> None:
    kubectl.out("create", "-n", ns, "-f", str(FIXTURES / "pod.yaml"))
    waiter = kubectl.start_watching("wait", "-n", ns, "--for=condition=PodScheduled", "pod/web", "--timeout=60s")
    try:
        created = kubectl.out("create", "--raw", f"/api/v1/namespaces/{ns}/pods/web/binding", "-f", "-",
                              input=binding("web", "node-1"))
        assert json.loads(created) == {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Success",
                                       "code": 201}
        assert waiter.wait(timeout=SAFETY_TIMEOUT) == 0
    finally:
        stop_process(waiter)
    assert waiter.stdout is not None and waiter.stdout.read() == "pod/web condition met\n"
    assert jsonpath(kubectl, ns, "pod/web", "{.spec.nodeName}") == "node-1"


def test_wait_for_delete(kubectl: Kubectl, ns: str) -> None:
    kubectl.out("create", "-n", ns, "-f", str(FIXTURES / "pod.yaml"))
    waiter = kubectl.start_watching("wait", "-n", ns, "--for=delete", "pod/web", "--timeout=60s")
    try:
        assert kubectl.out("delete", "-n", ns, "pod", "web", "--wait=false") == 'pod "web" deleted\n'
        assert waiter.wait(timeout=SAFETY_TIMEOUT) == 0
    finally:
        stop_process(waiter)
    assert waiter.stdout is not None and waiter.stdout.read() == "pod/web condition met\n"


def test_get_watch_prints_every_change(kubectl: Kubectl, ns: str) -> None:
    kubectl.out("create", "-n", ns, "-f", "-", input=pod_manifest("first"))
    proc, lines = kubectl.start("get", "-n", ns, "pods", "-w", "-o", "name")
    try:
        lines.until(["pod/first"])  # the initial list; the watch starts from its resourceVersion
        kubectl.out("create", "-n", ns, "-f", "-", input=pod_manifest("second"))
        kubectl.out("label", "-n", ns, "pod", "first", "seen=yes")
        kubectl.out("delete", "-n", ns, "pod", "second")
        assert lines.until(["pod/second", "pod/first", "pod/second"]) == ["pod/second", "pod/first", "pod/second"]
    finally:
        stop_process(proc)


def test_get_watch_prints_table_rows(kubectl: Kubectl, ns: str) -> None:
    kubectl.out("create", "-n", ns, "-f", str(FIXTURES / "pod-gated.yaml"))
    proc, lines = kubectl.start("get", "-n", ns, "pods", "-w")
    try:
        assert [r[:4] for r in table(lines.next() + "\n" + lines.next())] == [
            ["NAME", "READY", "STATUS", "RESTARTS"], ["gated", "0/1", "SchedulingGated", "0"]]
        kubectl.out("create", "-n", ns, "-f", str(FIXTURES / "pod.yaml"))
        # Column definitions come with the first watch event only; kubectl prints the header once.
        assert table(lines.next())[0][:4] == ["web", "0/1", "Pending", "0"]
    finally:
        stop_process(proc)


# --- nodes -----------------------------------------------------------------------------------


def test_node_create_get_cordon_label_taint(kubectl: Kubectl) -> None:
    assert kubectl.out("create", "-f", str(FIXTURES / "node.yaml")) == "node/kubectl-node created\n"
    header, row = table(kubectl.out("get", "nodes", "kubectl-node", "-o", "wide"))
    assert header == ["NAME", "STATUS", "ROLES", "AGE", "VERSION", "INTERNAL-IP", "EXTERNAL-IP", "OS-IMAGE",
                      "KERNEL-VERSION", "CONTAINER-RUNTIME"]
    assert row[:3] + row[4:] == ["kubectl-node", "Ready", "worker", "v1.35.0", "10.0.0.10", "<none>",
                                 "Debian GNU/Linux 12 (bookworm)", "6.1.0", "containerd://2.0.0"]
    node = "node/kubectl-node"
    # TaintNodesByCondition: a node created through the API starts not-ready-tainted.
    assert kubectl.out("get", node, "-o", "jsonpath={.spec.taints[*].key}") == "node.kubernetes.io/not-ready"
    assert kubectl.out("cordon", "kubectl-node") == "node/kubectl-node cordoned\n"
    assert kubectl.out("get", node, "-o", "jsonpath={.spec.unschedulable}") == "true"
    assert table(kubectl.out("get", "nodes", "kubectl-node"))[1][1] == "Ready,SchedulingDisabled"
    assert kubectl.out("label", "node", "kubectl-node", "zone=z1") == "node/kubectl-node labeled\n"
    assert kubectl.out("get", "nodes", "-l", "zone=z1", "-o", "name") == "node/kubectl-node\n"
    assert kubectl.out("taint", "node", "kubectl-node", "dedicated=gpu:NoSchedule") == "node/kubectl-node tainted\n"
    assert json.loads(kubectl.out("get", node, "-o", "jsonpath={.spec.taints}")) == [
        {"effect": "NoSchedule", "key": "dedicated", "value": "gpu"},
        {"effect": "NoSchedule", "key": "node.kubernetes.io/not-ready"},
    ]
    assert kubectl.out("taint", "node", "kubectl-node", "dedicated:NoSchedule-") == "node/kubectl-node untainted\n"
    assert kubectl.out("uncordon", "kubectl-node") == "node/kubectl-node uncordoned\n"
    assert kubectl.out("get", node, "-o", "jsonpath={.spec}") == (
        '{"taints":[{"effect":"NoSchedule","key":"node.kubernetes.io/not-ready"}]}')


def test_node_created_through_the_api_has_uid_and_creation_timestamp(kubectl: Kubectl) -> None:
    kubectl.out("create", "-f", "-", input=json.dumps({"apiVersion": "v1", "kind": "Node", "metadata": {"name": "stamped"}}))
    meta = json.loads(kubectl.out("get", "node", "stamped", "-o", "jsonpath={.metadata}"))
    assert sorted(meta) == ["creationTimestamp", "name", "resourceVersion", "uid"]
    assert AGE.match(table(kubectl.out("get", "nodes", "stamped"))[1][3])


# --- scheduling gates through kubectl (docs/api-facts.md §gated-create, §gated-binding) --------------------------------


def test_gated_pod_carries_the_scheduling_gated_condition(kubectl: Kubectl, ns: str) -> None:
    kubectl.out("create", "-n", ns, "-f", str(FIXTURES / "pod-gated.yaml"))
    condition = '{.status.conditions[?(@.type=="PodScheduled")]'
    assert jsonpath(kubectl, ns, "pod/gated", condition + ".status}") == "False"
    assert jsonpath(kubectl, ns, "pod/gated", condition + ".reason}") == "SchedulingGated"
    assert jsonpath(kubectl, ns, "pod/gated", condition + ".message}") == GATE_MESSAGE


def test_adding_a_gate_is_forbidden(kubectl: Kubectl, ns: str) -> None:
    kubectl.out("create", "-n", ns, "-f", str(FIXTURES / "pod-gated.yaml"))
    kubectl.out("create", "-n", ns, "-f", str(FIXTURES / "pod.yaml"))
    forbidden = "Forbidden: only deletion is allowed, but found new scheduling gate 'example.com/late'"
    assert kubectl.fail("patch", "-n", ns, "pod", "gated", "--type=json",
                        "-p", '[{"op":"add","path":"/spec/schedulingGates/-","value":{"name":"example.com/late"}}]') == (
        f'The Pod "gated" is invalid: spec.schedulingGates[1].name: {forbidden}\n')
    assert kubectl.fail("patch", "-n", ns, "pod", "gated", "--type=merge", "-p", json.dumps(
        {"spec": {"schedulingGates": [{"name": "example.com/gate"}, {"name": "example.com/late"}]}})) == (
        f'The Pod "gated" is invalid: spec.schedulingGates[1].name: {forbidden}\n')
    assert kubectl.fail("patch", "-n", ns, "pod", "web", "-p",
                        '{"spec":{"schedulingGates":[{"name":"example.com/late"}]}}') == (
        f'The Pod "web" is invalid: spec.schedulingGates[0].name: {forbidden}\n')
    assert jsonpath(kubectl, ns, "pod/gated", "{.spec.schedulingGates}") == '[{"name":"example.com/gate"}]'


def test_removing_gates_leaves_the_condition(kubectl: Kubectl, ns: str) -> None:
    kubectl.out("create", "-n", ns, "-f", str(FIXTURES / "pod-gated.yaml"))
    before = jsonpath(kubectl, ns, "pod/gated", "{.status.conditions}")
    assert kubectl.out("patch", "-n", ns, "pod", "gated", "--type=json",
                       "-p", '[{"op":"remove","path":"/spec/schedulingGates"}]') == "pod/gated patched\n"
    assert jsonpath(kubectl, ns, "pod/gated", "{.spec.schedulingGates}") == ""
    assert jsonpath(kubectl, ns, "pod/gated", "{.status.conditions}") == before
    # The printer reads the condition, so the stale reason still shows until something binds the pod.
    assert table(kubectl.out("get", "-n", ns, "pod", "gated"))[1][2] == "SchedulingGated"
    kubectl.out("create", "--raw", f"/api/v1/namespaces/{ns}/pods/gated/binding", "-f", "-",
                input=binding("gated", "node-1"))
    assert table(kubectl.out("get", "-n", ns, "pod", "gated"))[1][2] == "Pending"
    [scheduled] = json.loads(jsonpath(kubectl, ns, "pod/gated", "{.status.conditions}"))
    assert sorted(scheduled) == ["lastProbeTime", "lastTransitionTime", "status", "type"]
    assert (scheduled["type"], scheduled["status"]) == ("PodScheduled", "True")


def test_binding_a_gated_pod_is_refused(kubectl: Kubectl, ns: str) -> None:
    kubectl.out("create", "-n", ns, "-f", str(FIXTURES / "pod-gated.yaml"))
    assert kubectl.fail("create", "--raw", f"/api/v1/namespaces/{ns}/pods/gated/binding", "-f", "-",
                        input=binding("gated", "node-1")) == (
        'Error from server (Conflict): Operation cannot be fulfilled on pods/binding "gated": '
        "pod gated has non-empty .spec.schedulingGates\n")


def test_node_name_with_gates_is_refused_on_create(kubectl: Kubectl, ns: str) -> None:
    manifest = pod_manifest("pinned", nodeName="node-1", schedulingGates=[{"name": "example.com/gate"}])
    assert kubectl.fail("create", "-n", ns, "-f", "-", input=manifest) == (
        'The Pod "pinned" is invalid: spec.nodeName: Forbidden: '
        "cannot be set until all schedulingGates have been cleared\n")


# --- priority classes (scheduling.k8s.io/v1, _priority.py) -------------------------------------

SYSTEM_CLASSES = [["system-cluster-critical", "2000000000", "false", "PreemptLowerPriority"],
                  ["system-node-critical", "2000001000", "false", "PreemptLowerPriority"]]


def test_get_priorityclasses_prints_the_server_columns(kubectl: Kubectl) -> None:
    """``printPriorityClass``: NAME, VALUE, GLOBAL-DEFAULT, AGE, PREEMPTIONPOLICY; ``pc`` is the
    short name discovery gives."""
    for what in ("priorityclass", "pc", "priorityclasses.scheduling.k8s.io"):
        rows = table(kubectl.out("get", what))
        assert rows[0] == ["NAME", "VALUE", "GLOBAL-DEFAULT", "AGE", "PREEMPTIONPOLICY"]
        system = [r for r in rows[1:] if r[0].startswith("system-")]
        assert [r[:3] + r[4:] for r in system] == SYSTEM_CLASSES
        assert all(AGE.match(r[3]) for r in system)


def test_create_a_priorityclass_from_a_manifest_and_use_it(kubectl: Kubectl, ns: str) -> None:
    """A manifest and ``kubectl create priorityclass NAME --value=N`` (a protobuf body) both make
    one; pods take its value and policy."""
    manifest = json.dumps({"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass",
                           "metadata": {"name": "kubectl-batch"}, "value": 1000, "preemptionPolicy": "Never",
                           "description": "batch jobs"})
    assert kubectl.out("create", "-f", "-", input=manifest) == "priorityclass.scheduling.k8s.io/kubectl-batch created\n"
    row = table(kubectl.out("get", "pc", "kubectl-batch"))[1]
    assert row[:3] + row[4:] == ["kubectl-batch", "1000", "false", "Never"]
    assert kubectl.out("create", "-n", ns, "-f", "-", input=pod_manifest("prio", priorityClassName="kubectl-batch")) == (
        "pod/prio created\n")
    assert jsonpath(kubectl, ns, "pod/prio", "{.spec.priority} {.spec.preemptionPolicy}") == "1000 Never"
    assert kubectl.fail("create", "-n", ns, "-f", "-", input=pod_manifest("other", priorityClassName="nope")) == (
        'Error from server (Forbidden): error when creating "STDIN": pods "other" is forbidden: no PriorityClass '
        "with name nope was found\n")
    assert kubectl.out("create", "priorityclass", "kubectl-high", "--value=2000") == (
        "priorityclass.scheduling.k8s.io/kubectl-high created\n")
    assert kubectl.out("get", "pc", "kubectl-high", "-o", "jsonpath={.value} {.preemptionPolicy}") == (
        "2000 PreemptLowerPriority")
    assert kubectl.out("delete", "pc", "kubectl-high") == 'priorityclass.scheduling.k8s.io "kubectl-high" deleted\n'
    assert kubectl.out("delete", "pc", "kubectl-batch") == 'priorityclass.scheduling.k8s.io "kubectl-batch" deleted\n'


def test_system_priorityclasses_cannot_be_deleted(kubectl: Kubectl) -> None:
    assert kubectl.fail("delete", "priorityclass", "system-node-critical") == (
        'Error from server (Forbidden): priorityclasses.scheduling.k8s.io "system-node-critical" is forbidden: '
        "this is a system priority class and cannot be deleted\n")
    manifest = json.dumps({"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass",
                           "metadata": {"name": "system-mine"}, "value": 5})
    assert kubectl.fail("create", "-f", "-", input=manifest) == (
        'The PriorityClass "system-mine" is invalid: metadata.name: Forbidden: priority class names with '
        "'system-' prefix are reserved for system use only. error: system-mine is not a known system priority "
        "class\n")
