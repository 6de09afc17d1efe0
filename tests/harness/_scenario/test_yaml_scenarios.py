"""YAML scenarios: the DSL's vocabulary as files, validated on load and run through a Scenario."""

from __future__ import annotations

from pathlib import Path

import pytest

from fake_apiserver import UnfiredFaults
from harness._schedulers.adapters import CallableAdapter
from harness._backends.backend import FakeBackend
from harness._scenario.scenario import ExpectationFailed, Scenario
from harness._time.virtual_time import run
from harness._scenario.yaml_scenarios import (
    FIXTURES,
    YamlScenario,
    YamlScenarioError,
    load_scenario,
    parse_duration,
    run_scenario,
)
from tests.support.paths import ROOT
from tests.support.schedulers import first_fit_scheduler

SCENARIOS = FIXTURES / "scenarios"


def run_yaml(scenario: YamlScenario | Path, tmp_path: Path) -> tuple[Scenario, FakeBackend]:
    out: list[Scenario] = []
    backend = FakeBackend(tmp_path)

    async def main() -> None:
        await backend.start()
        adapter = CallableAdapter(first_fit_scheduler)
        await adapter.start(backend.kubeconfig_path, {})
        try:
            async with Scenario(backend) as s:
                out.append(s)
                await run_scenario(scenario, s)
        finally:
            await adapter.stop()
            await backend.stop()

    run(main())
    return out[0], backend


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "s.yaml"
    path.write_text(text)
    return path


def test_gated_pods_fixture_loads_with_its_metadata() -> None:
    scenario = load_scenario(SCENARIOS / "gated-pods.yaml")
    assert scenario.name == "a gated pod is bound only after its last gate is removed"
    assert scenario.kep == (3521, "Restricted state transition")
    assert scenario.criterion == "gates-last-removal-schedules"
    assert scenario.feature_gates == {}
    assert [op["op"] for op in scenario.ops] == [
        "createNodes", "createPods", "expectCondition", "sleep", "removeGates", "expectCondition", "removeGates",
        "barrier", "expectRequests", "expectRequests"]


def test_gated_pods_fixture_passes(tmp_path: Path) -> None:
    s, backend = run_yaml(SCENARIOS / "gated-pods.yaml", tmp_path)
    assert s.now == pytest.approx(40.0)
    assert sorted(e.name for e in backend.journal.requests("create", "pods", subresource="binding")) == [
        "gated-0", "gated-1"]


def test_core_fit_fixture_uses_the_manifest_and_passes(tmp_path: Path) -> None:
    s, backend = run_yaml(SCENARIOS / "core-fit.yaml", tmp_path)
    web = s.pod("web-0")
    assert web is not None
    assert web["metadata"]["labels"] == {"app": "web"}
    assert web["spec"]["containers"][0]["name"] == "web"
    assert web["spec"]["containers"][0]["resources"]["requests"] == {"cpu": "500m"}
    assert (s.pod("big-0") or {})["spec"]["nodeName"] == "large-0"


def test_name_counters_continue_across_ops(tmp_path: Path) -> None:
    path = write(tmp_path, """
ops:
- {op: createClaims, count: 2, namePrefix: c-}
- {op: createClaims, count: 1, namePrefix: c-, deviceClass: fpga.example.com}
- {op: createPods, count: 2, namePrefix: p-, gates: [g]}
- {op: createPods, namePrefix: p-, claims: [c-2]}
- {op: removeGates, pod: p-0, gate: g}
- {op: patch, kind: pods, name: p-1, body: {metadata: {labels: {x: "y"}}}}
- {op: delete, kind: pods, name: p-2}
- {op: expectRequests, count: 0, verb: create, resource: pods, subresource: binding}
""")
    s, backend = run_yaml(path, tmp_path / "run")
    assert [e.body["metadata"]["name"] for e in backend.journal.requests("create", "resourceclaims.resource.k8s.io")] == [
        "c-0", "c-1", "c-2"]
    assert backend.journal.requests("create", "resourceclaims.resource.k8s.io")[2].body["spec"]["devices"][
        "requests"][0]["exactly"]["deviceClassName"] == "fpga.example.com"
    assert sorted(s.pods.objects) == ["p-0", "p-1"]
    assert (s.pod("p-1") or {})["metadata"]["labels"] == {"x": "y"}


def test_failing_op_names_file_and_op(tmp_path: Path) -> None:
    path = write(tmp_path, """
ops:
- {op: createPods, count: 1, namePrefix: p-, cpu: "1"}
- {op: barrier, podPrefix: p-, within: 2s}
""")
    with pytest.raises(ExpectationFailed) as info:
        run_yaml(path, tmp_path / "run")
    lines = str(info.value).splitlines()
    assert lines[:2] == ["s.yaml: ops[1] barrier: expected within 2 s (t=0.000..2.000): all pods named default/p-* are bound",
                         "observed at t=2.000: 1 pods named p-*, unbound: ['p-0']"]


def test_expect_condition_never(tmp_path: Path) -> None:
    path = write(tmp_path, """
ops:
- {op: createNodes}
- {op: createPods, namePrefix: p-}
- {op: expectCondition, pod: p-0, type: PodScheduled, status: "True", never: true, within: 1m}
""")
    with pytest.raises(ExpectationFailed, match=r"^s\.yaml: ops\[2\] expectCondition: expected never within 60 s "
                                                r"\(t=0\.000\.\.60\.000\): pod default/p-0 has condition PodScheduled "
                                                r"with status=True\nbut at t=0\.000 it held: pod default/p-0: bound to node node-0"):
        run_yaml(path, tmp_path / "run")


KNOWN_OPS = ("addFault, barrier, createClaims, createNodes, createObjects, createPods, delete, expectCondition, "
             "expectField, expectRequests, patch, removeFault, removeGates, sleep")
NOT_A_DURATION = "write seconds (5, 2.5) or a number with ms, s, m or h (500ms, 2m)"
STRINGS_TO_STRINGS = 'give a mapping of strings to strings (quote a number or a boolean: "1", "true")'


@pytest.mark.parametrize(("text", "message"), [
    ("ops: [{op: createPod}]", f"s.yaml: line 1: ops[0]: unknown op 'createPod'; known ops: {KNOWN_OPS}"),
    ("ops: [{op: addFault, match: {verb: get}, action: {type: explode}}]",
     "s.yaml: line 1: ops[0] addFault: unknown fault action type 'explode': use respond, delay, close, end-watch or "
     "watch-lag"),
    ("ops: [{op: sleep}]", "s.yaml: line 1: ops[0] sleep: missing duration"),
    ("ops: [{op: sleep, duration: 1s, wait: 2}]", "s.yaml: line 1: ops[0] sleep: unknown key wait; allowed: duration"),
    ("ops: [{op: sleep, duration: soon}]", f"s.yaml: line 1: ops[0] sleep: duration: duration 'soon': {NOT_A_DURATION}"),
    ("ops: [{op: removeGates, gate: g}]", "s.yaml: line 1: ops[0] removeGates: give exactly one of pod, podPrefix"),
    ("ops: [{op: createPods, manifest: ../../etc/passwd}]",
     "s.yaml: line 1: ops[0] createPods: manifest '../../etc/passwd' is outside {dir} and " + str(FIXTURES)),
    ("ops: [{op: createPods, manifest: nope.yaml}]",
     "s.yaml: line 1: ops[0] createPods: manifest 'nope.yaml' not found under {dir} or " + str(FIXTURES)),
    ("ops: [createNodes]", "s.yaml: line 1: ops[0]: each op is a mapping with an 'op' key, got 'createNodes'"),
    ("steps: []", "s.yaml: line 1: a scenario is a mapping with a list of 'ops'"),
    ("", "s.yaml: line 1: a scenario is a mapping with a list of 'ops'"),
    ("name: x\nops: {}", "s.yaml: line 2: a scenario is a mapping with a list of 'ops'"),
    ("ops: []\nkepp: 1",
     "s.yaml: line 2: unknown key kepp; allowed: criterion, featureGates, kep, name, ops, reading, runtimeConfig"),
    ("ops: [\n", "s.yaml: line 2, column 1: not valid YAML: expected the node content, but found '<stream end>'"),
    ("ops: []\n---\nops: []\n",
     "s.yaml: line 2, column 1: not valid YAML: but found another document"),
    # the header's values
    ("ops: []\nkep: {number: abc}", "s.yaml: line 2: kep: number 'abc': give a whole number, 0 or more"),
    ("ops: []\nkep:\n  section: Proposal\n  number: -1",
     "s.yaml: line 4: kep: number -1: give a whole number, 0 or more"),
    ("ops: []\nkep: {section: Proposal}", "s.yaml: line 2: kep: missing number, e.g. {number: 3521, section: Proposal}"),
    ("ops: []\nkep: 3521",
     "s.yaml: line 2: kep 3521: give a mapping with a number and a section, e.g. {number: 3521, section: Proposal}"),
    ("ops: []\nkep: {number: 1, sec: x}", "s.yaml: line 2: kep: unknown key sec; allowed: number, section"),
    ("ops: []\nkep: {number: 1, section: [x]}", "s.yaml: line 2: kep: section ['x']: give a string"),
    ("ops: []\nfeatureGates: [A]",
     "s.yaml: line 2: featureGates ['A']: give a mapping of gate names to true or false, e.g. "
     "{SchedulerPreEnqueuePodStatus: true}"),
    ("ops: []\nfeatureGates: A=true",
     "s.yaml: line 2: featureGates 'A=true': give a mapping of gate names to true or false, e.g. "
     "{SchedulerPreEnqueuePodStatus: true}"),
    ("ops: []\nfeatureGates:\n  A: true\n  B: maybe", "s.yaml: line 4: featureGates: B 'maybe': give true or false"),
    ("ops: []\nruntimeConfig: [scheduling.k8s.io/v1beta1]",
     "s.yaml: line 2: runtimeConfig ['scheduling.k8s.io/v1beta1']: give a mapping of group versions to true or false, "
     "e.g. {scheduling.k8s.io/v1beta1: true}"),
    ("ops: []\nruntimeConfig: {api/beta: true}",
     "s.yaml: line 2: runtimeConfig: api/beta: name a group/version or group/version/resource "
     "(e.g. scheduling.k8s.io/v1beta1=true)"),
    ("ops: []\nruntimeConfig: {scheduling.k8s.io/v1beta1: maybe}",
     "s.yaml: line 2: runtimeConfig: scheduling.k8s.io/v1beta1=maybe: give true or false"),
    ("ops: []\nname: [x]", "s.yaml: line 2: name ['x']: give a string"),
    ("ops: []\ncriterion: {id: x}", "s.yaml: line 2: criterion {'id': 'x'}: give a string"),
    ("ops: []\nreading: 2", "s.yaml: line 2: reading 2: give a string"),
    # each op key's value, on the line of the key
    ("ops:\n- {op: createNodes}\n- op: createNodes\n  count: abc",
     "s.yaml: line 4: ops[1] createNodes: count 'abc': give a whole number, 0 or more"),
    ("ops: [{op: createNodes, count: -3}]",
     "s.yaml: line 1: ops[0] createNodes: count -3: give a whole number, 0 or more"),
    ("ops: [{op: createClaims, count: 1.5}]",
     "s.yaml: line 1: ops[0] createClaims: count 1.5: give a whole number, 0 or more"),
    ("ops: [{op: createNodes, pods: many}]",
     "s.yaml: line 1: ops[0] createNodes: pods 'many': give a whole number, 0 or more"),
    ("ops: [{op: createNodes, cpu: lots}]",
     "s.yaml: line 1: ops[0] createNodes: cpu 'lots': give a quantity, 0 or more (500m, 2, 8Gi)"),
    ("ops: [{op: createPods, memory: -1Gi}]",
     "s.yaml: line 1: ops[0] createPods: memory '-1Gi': give a quantity, 0 or more (500m, 2, 8Gi)"),
    ("ops: [{op: createNodes, namePrefix: [n]}]", "s.yaml: line 1: ops[0] createNodes: namePrefix ['n']: give a string"),
    ("ops: [{op: createNodes, labels: [a]}]", f"s.yaml: line 1: ops[0] createNodes: labels ['a']: {STRINGS_TO_STRINGS}"),
    ("ops: [{op: createPods, nodeSelector: {zone: 1}}]",
     f"s.yaml: line 1: ops[0] createPods: nodeSelector {{'zone': 1}}: {STRINGS_TO_STRINGS}"),
    ("ops: [{op: createNodes, taints: gpu}]",
     "s.yaml: line 1: ops[0] createNodes: taints 'gpu': give a list of key[=value]:Effect strings or taint mappings"),
    ("ops: [{op: createNodes, taints: [gpu]}]",
     "s.yaml: line 1: ops[0] createNodes: taint 'gpu': write key[=value]:Effect with Effect NoSchedule, "
     "PreferNoSchedule or NoExecute"),
    ("ops: [{op: createNodes, unschedulable: maybe}]",
     "s.yaml: line 1: ops[0] createNodes: unschedulable 'maybe': give true or false"),
    ("ops: [{op: createNodes, kubelet: {confirms: maybe}}]",
     "s.yaml: line 1: ops[0] createNodes: kubelet: confirms 'maybe': give true or false"),
    ("ops: [{op: createNodes, kubelet: {terminationDelay: soon}}]",
     f"s.yaml: line 1: ops[0] createNodes: kubelet: terminationDelay: duration 'soon': {NOT_A_DURATION}"),
    ("ops: [{op: createNodes, kubelet: {resizes: sometimes}}]",
     "s.yaml: line 1: ops[0] createNodes: kubelet: resizes must be one of actuate, refuse, ignore, not 'sometimes'"),
    ("ops: [{op: createPods, gates: example.com/a}]",
     "s.yaml: line 1: ops[0] createPods: gates 'example.com/a': give a list of strings"),
    ("ops: [{op: createPods, claims: [c, 2]}]",
     "s.yaml: line 1: ops[0] createPods: claims ['c', 2]: give a list of strings"),
    ("ops: [{op: createPods, manifest: [pod.yaml]}]",
     "s.yaml: line 1: ops[0] createPods: manifest ['pod.yaml']: give a string"),
    ("ops: [{op: removeGates, pod: [p]}]", "s.yaml: line 1: ops[0] removeGates: pod ['p']: give a string"),
    ("ops: [{op: sleep, duration: -5}]", f"s.yaml: line 1: ops[0] sleep: duration: duration -5: {NOT_A_DURATION}"),
    ("ops: [{op: barrier, within: true}]", f"s.yaml: line 1: ops[0] barrier: within: duration True: {NOT_A_DURATION}"),
    ("ops: [{op: barrier, condition: PodScheduled}]",
     "s.yaml: line 1: ops[0] barrier: condition 'PodScheduled': give a mapping with type and any of status, reason, "
     "message"),
    ("ops: [{op: barrier, condition: {type: PodScheduled, status: ture}}]",
     "s.yaml: line 1: ops[0] barrier: condition: status 'ture': give \"True\", \"False\" or \"Unknown\""),
    ("ops: [{op: expectCondition, pod: p, type: PodScheduled, status: 1}]",
     "s.yaml: line 1: ops[0] expectCondition: status 1: give \"True\", \"False\" or \"Unknown\""),
    ("ops: [{op: expectCondition, pod: p, type: PodScheduled, never: maybe}]",
     "s.yaml: line 1: ops[0] expectCondition: never 'maybe': give true or false"),
    ("ops: [{op: expectRequests, count: some}]",
     "s.yaml: line 1: ops[0] expectRequests: count 'some': give a whole number, 0 or more"),
    ("ops: [{op: expectRequests, count: 0, verb: [get]}]",
     "s.yaml: line 1: ops[0] expectRequests: verb ['get']: give a string"),
    ("ops: [{op: addFault, match: pods, action: {type: close}}]",
     "s.yaml: line 1: ops[0] addFault: match 'pods': give a mapping of any of verb, resource, subresource, namespace, "
     "name, content_type, body_contains"),
    ("ops: [{op: addFault, match: {verb: get}, action: respond}]",
     "s.yaml: line 1: ops[0] addFault: action 'respond': give a mapping with a type: respond, delay, close, end-watch, "
     "watch-lag"),
    ("ops: [{op: addFault, match: {verb: get}, action: {type: respond}}]",
     "s.yaml: line 1: ops[0] addFault: action respond: missing code"),
    ("ops: [{op: addFault, match: {verb: get}, action: {type: respond, code: abc}}]",
     "s.yaml: line 1: ops[0] addFault: action respond: code 'abc': give an HTTP status code, 100 to 599"),
    ("ops: [{op: addFault, match: {verb: get}, action: {type: delay, seconds: 1, code: 5}}]",
     "s.yaml: line 1: ops[0] addFault: action delay: unknown key code; allowed: type, seconds"),
    ("ops: [{op: addFault, match: {verb: get}, action: {type: close}, times: once}]",
     "s.yaml: line 1: ops[0] addFault: times 'once': give a whole number, 1 or more"),
    ("ops: [{op: addFault, match: {verb: get}, action: {type: close}, probability: 2}]",
     "s.yaml: line 1: ops[0] addFault: probability 2: give a number from 0 to 1"),
    ("ops: [{op: removeFault, name: [f]}]", "s.yaml: line 1: ops[0] removeFault: name ['f']: give a string"),
    ("ops: [{op: patch, kind: pods, name: p, body: x}]",
     "s.yaml: line 1: ops[0] patch: body 'x': give a mapping for type strategic"),
    ("ops: [{op: patch, kind: pods, name: p, type: json, body: {}}]",
     "s.yaml: line 1: ops[0] patch: body {}: give a list of RFC 6902 operations for type json"),
    ("ops: [{op: patch, kind: pods, name: p, body: {}, type: apply}]",
     "s.yaml: line 1: ops[0] patch: type 'apply': give one of strategic, merge, json"),
    ("ops: [{op: delete, kind: [pods], name: p}]", "s.yaml: line 1: ops[0] delete: kind ['pods']: give a string"),
])
def test_malformed_files_are_refused_on_load(tmp_path: Path, text: str, message: str) -> None:
    with pytest.raises(YamlScenarioError) as info:
        load_scenario(write(tmp_path, text))
    assert str(info.value) == message.replace("{dir}", str(tmp_path))


def test_runtime_config_is_a_mapping_or_the_flags_value(tmp_path: Path) -> None:
    (tmp_path / "a.yaml").write_text("ops: []\nruntimeConfig: {scheduling.k8s.io/v1beta1: true, /v1/pods: 'false'}\n")
    (tmp_path / "b.yaml").write_text("ops: []\nruntimeConfig: scheduling.k8s.io/v1beta1=true,coordination.k8s.io/v1beta1\n")
    (tmp_path / "c.yaml").write_text("ops: []\n")
    assert load_scenario(tmp_path / "a.yaml").runtime_config == {"scheduling.k8s.io/v1beta1": "true", "/v1/pods": "false"}
    assert load_scenario(tmp_path / "b.yaml").runtime_config == {"scheduling.k8s.io/v1beta1": "true",
                                                                 "coordination.k8s.io/v1beta1": ""}
    assert load_scenario(tmp_path / "c.yaml").runtime_config == {}


def test_an_unknown_kind_is_refused_on_load(tmp_path: Path) -> None:
    with pytest.raises(YamlScenarioError, match=r"^s\.yaml: line 1: ops\[0\] delete: unknown kind 'pdos': use a served "
                                                r"resource or kind name \(.*\bpods\b.*\)$"):
        load_scenario(write(tmp_path, "ops: [{op: delete, kind: pdos, name: p}]"))


def test_a_manifest_that_is_no_pod_is_refused_on_load(tmp_path: Path) -> None:
    (tmp_path / "list.yaml").write_text("- a\n")
    (tmp_path / "broken.yaml").write_text("metadata: [\n")
    with pytest.raises(YamlScenarioError, match=r"^s\.yaml: line 2: ops\[0\] createPods: manifest 'list\.yaml' is not "
                                                r"one YAML mapping \(a Pod\)$"):
        load_scenario(write(tmp_path, "ops:\n- {op: createPods, manifest: list.yaml}"))
    with pytest.raises(YamlScenarioError, match=r"^s\.yaml: line 1: ops\[0\] createPods: manifest 'broken\.yaml': line 2, "
                                                r"column 1: not valid YAML: expected the node content, but found "
                                                r"'<stream end>'$"):
        load_scenario(write(tmp_path, "ops: [{op: createPods, manifest: broken.yaml}]"))


def test_a_file_that_is_not_utf8_is_refused_on_load(tmp_path: Path) -> None:
    path = tmp_path / "s.yaml"
    path.write_bytes(b"ops: []\nname: \xff\n")
    with pytest.raises(YamlScenarioError, match=r"^s\.yaml: not UTF-8 text: byte 14 cannot be decoded$"):
        load_scenario(path)


def test_numbers_and_unquoted_booleans_are_taken_where_they_mean_the_same(tmp_path: Path) -> None:
    """``cpu: 1`` is the quantity "1", ``status: True`` the condition status "True", a duration
    may be plain seconds (in a kubelet too)."""
    loaded = load_scenario(write(tmp_path, """
ops:
- {op: createNodes, cpu: 1, memory: 0.5, kubelet: {terminationDelay: 5}}
- {op: expectCondition, pod: p, type: PodScheduled, status: True, within: 2.5}
"""))
    assert [op["op"] for op in loaded.ops] == ["createNodes", "expectCondition"]


def test_a_manifest_beside_the_scenario_is_found_first(tmp_path: Path) -> None:
    """A user's scenario (e.g. installed from a wheel, with no project fixtures/) keeps its
    manifests beside it."""
    (tmp_path / "web.yaml").write_text("metadata: {labels: {app: web}}\nspec: {containers: [{name: c, image: x}]}\n")
    loaded = load_scenario(write(tmp_path, "ops: [{op: createPods, manifest: web.yaml}]"))
    assert loaded.ops[0]["manifest"] == str(tmp_path / "web.yaml")


def test_status_patch_503_fixture_fires_its_fault_and_passes(tmp_path: Path) -> None:
    s, backend = run_yaml(SCENARIOS / "status-patch-503.yaml", tmp_path)
    s.verify()
    patches = backend.journal.requests("patch", "pods", subresource="status", name="big-0")
    assert [(e.code, e.fault, e.body["status"]["conditions"][0]["message"]) for e in patches] == [
        (503, "refuse-first-status", "0/1 nodes are available: 1 Insufficient cpu."),
        (200, "", "0/1 nodes are available: 1 Insufficient cpu."),  # re-evaluated on the fit- pods' events
        (200, "", "0/2 nodes are available: 2 Insufficient cpu."),
    ]
    assert sorted((s.pod(n) or {})["spec"]["nodeName"] for n in ("fit-0", "fit-1")) == ["small-0", "small-0"]


def test_fault_ops_and_strictness(tmp_path: Path) -> None:
    path = write(tmp_path, """
ops:
- {op: addFault, name: never, match: {verb: delete, resource: nodes}, action: {type: respond, code: 500}}
- {op: removeFault, name: never}
""")
    s, _ = run_yaml(path, tmp_path / "run")
    with pytest.raises(UnfiredFaults, match=r"^fault rules that never fired \(the scenario did not exercise them\):\n"
                                            r"  never: Respond\(500, None, None, None\) on verb=delete resource=nodes$"):
        s.verify()
    bad = write(tmp_path, "ops: [{op: removeFault, name: nope}]")
    with pytest.raises(ValueError, match=r"^no fault rule named 'nope' was added \(added: \[\]\)\nin s\.yaml: ops\[0\] removeFault$") as info:
        run_yaml(bad, tmp_path / "run2")
    assert info.value.__notes__ == ["in s.yaml: ops[0] removeFault"]


def test_parse_duration() -> None:
    assert [parse_duration(v) for v in (5, 2.5, "500ms", "5s", "2m", "1h", " 1.5 s ")] == [
        5.0, 2.5, 0.5, 5.0, 120.0, 3600.0, 1.5]


EXAMPLES = ROOT / "docs" / "examples"
POD_GROUP = "{apiVersion: scheduling.x-k8s.io/v1alpha1, kind: PodGroup, metadata: {name: g}, spec: {minMember: 2}}"
UNKNOWN_POD_GROUP = ("unknown kind 'PodGroup' of scheduling.x-k8s.io/v1alpha1: neither a built-in kind nor one defined "
                     "by a CustomResourceDefinition created earlier")


def test_expect_field_is_refused_on_load_for_a_kind_no_crd_defined_before(tmp_path: Path) -> None:
    with pytest.raises(YamlScenarioError) as info:
        load_scenario(write(tmp_path, "ops:\n- {op: expectField, apiVersion: scheduling.x-k8s.io/v1alpha1, kind: PodGroup, "
                                      "name: g, field: spec.minMember, equals: 2}\n"))
    assert str(info.value) == (f"s.yaml: line 2: ops[0] expectField: {UNKNOWN_POD_GROUP}; create its "
                               "CustomResourceDefinition before it")


@pytest.mark.parametrize(("text", "message"), [
    ("ops:\n- op: createObjects\n  manifests:\n  - {kind: ConfigMap, metadata: {name: a}}",
     "s.yaml: line 4: ops[0] createObjects: manifests: manifest 0 (ConfigMap a): missing apiVersion"),
    ("ops:\n- op: createObjects\n  manifests:\n  - {apiVersion: v1, kind: ConfigMap, metadata: {name: a}}\n"
     "  - {apiVersion: v1, metadata: {name: b}}",
     "s.yaml: line 5: ops[0] createObjects: manifests: manifest 1: missing kind"),
    ("ops: [{op: createObjects, manifests: [{apiVersion: v1, kind: ConfigMap, metadata: {generateName: a-}}]}]",
     "s.yaml: line 1: ops[0] createObjects: manifests: manifest 0: missing metadata.name; generateName is not "
     "enough: the scenario refers to its objects by name"),
    ("ops: [{op: createObjects, manifests: [{apiVersion: a/b/c, kind: X, metadata: {name: a}}]}]",
     "s.yaml: line 1: ops[0] createObjects: manifests: manifest 0 (X a): apiVersion 'a/b/c': give group/version or "
     "v1"),
    ("ops: [{op: createObjects, manifests: []}]",
     "s.yaml: line 1: ops[0] createObjects: manifests []: give a list of manifests (each with apiVersion, kind and "
     "metadata)"),
    ("ops: [{op: createObjects}]", "s.yaml: line 1: ops[0] createObjects: give exactly one of manifests, file"),
    ("ops: [{op: createObjects, file: nothere.yaml}]",
     "s.yaml: line 1: ops[0] createObjects: file 'nothere.yaml' not found under {dir} or " + str(FIXTURES)),
    ("ops: [{op: createObjects, file: ../../etc/passwd}]",
     "s.yaml: line 1: ops[0] createObjects: file '../../etc/passwd' is outside {dir} and " + str(FIXTURES)),
    (f"ops:\n- {{op: createNodes}}\n- op: createObjects\n  manifests:\n  - {POD_GROUP}",
     f"s.yaml: line 5: ops[1] createObjects: manifest 0 (PodGroup g): {UNKNOWN_POD_GROUP}; create its "
     "CustomResourceDefinition before it"),
    ("ops: [{op: createObjects, manifests: [{apiVersion: apps/v1, kind: Deploy, metadata: {name: d}}]}]",
     "s.yaml: line 1: ops[0] createObjects: manifest 0 (Deploy d): unknown kind 'Deploy' of apps/v1: neither a "
     "built-in kind nor one defined by a CustomResourceDefinition created earlier; create its "
     "CustomResourceDefinition before it"),
])
def test_create_objects_is_refused_on_load(tmp_path: Path, text: str, message: str) -> None:
    with pytest.raises(YamlScenarioError) as info:
        load_scenario(write(tmp_path, text))
    assert str(info.value) == message.replace("{dir}", str(tmp_path))


def test_create_objects_files_are_read_and_checked_on_load(tmp_path: Path) -> None:
    """A file beside the scenario, of several documents; a kind of a CRD created earlier (in the
    file or an earlier op) is known, at the versions the CRD serves only."""
    (tmp_path / "crd.yaml").write_text((EXAMPLES / "podgroup-crd.yaml").read_text())
    (tmp_path / "two.yaml").write_text(f"---\n{POD_GROUP}\n---\n---\napiVersion: v1\nkind: ConfigMap\n"
                                       "metadata: {name: c}\n")
    loaded = load_scenario(write(tmp_path, "ops:\n- {op: createObjects, file: crd.yaml}\n"
                                           "- {op: createObjects, file: two.yaml}\n"))
    assert [[m["kind"] for m in op["manifests"]] for op in loaded.ops] == [
        ["CustomResourceDefinition"], ["PodGroup", "ConfigMap"]]
    (tmp_path / "v2.yaml").write_text("apiVersion: scheduling.x-k8s.io/v1beta1\nkind: PodGroup\nmetadata: {name: g}\n")
    with pytest.raises(YamlScenarioError) as info:
        load_scenario(write(tmp_path, "ops:\n- {op: createObjects, file: crd.yaml}\n"
                                      "- {op: createObjects, file: v2.yaml}\n"))
    assert str(info.value) == (
        "s.yaml: line 3: ops[1] createObjects: file 'v2.yaml': manifest 0 (PodGroup g): unknown kind 'PodGroup' of "
        "scheduling.x-k8s.io/v1beta1: neither a built-in kind nor one defined by a CustomResourceDefinition created "
        "earlier; its CustomResourceDefinition serves it at scheduling.x-k8s.io/v1alpha1")
    (tmp_path / "empty.yaml").write_text("---\n")
    with pytest.raises(YamlScenarioError) as info:
        load_scenario(write(tmp_path, "ops: [{op: createObjects, file: empty.yaml}]"))
    assert str(info.value) == "s.yaml: line 1: ops[0] createObjects: manifest file 'empty.yaml' holds no manifest"


def test_create_objects_makes_a_crd_and_its_objects(tmp_path: Path) -> None:
    (tmp_path / "podgroup-crd.yaml").write_text((EXAMPLES / "podgroup-crd.yaml").read_text())
    s, backend = run_yaml(write(tmp_path, f"""
ops:
- {{op: createObjects, file: podgroup-crd.yaml}}
- op: createObjects
  manifests:
  - {POD_GROUP}
  - {{apiVersion: v1, kind: ConfigMap, metadata: {{name: c}}, data: {{a: b}}}}
- {{op: expectField, apiVersion: scheduling.x-k8s.io/v1alpha1, kind: PodGroup, name: g, field: spec.minMember, equals: 2}}
- {{op: expectField, apiVersion: v1, kind: ConfigMap, name: c, field: data.a, equals: b, within: 1s}}
"""), tmp_path)
    created = [(e.verb, e.path, e.code) for e in backend.journal.requests("create")]
    assert created == [
        ("create", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", 201),
        ("create", "/apis/scheduling.x-k8s.io/v1alpha1/namespaces/default/podgroups", 201),
        ("create", "/api/v1/namespaces/default/configmaps", 201)]


def test_patch_and_delete_take_a_custom_kind_with_its_api_version(tmp_path: Path) -> None:
    """``patch`` and ``delete`` with ``apiVersion`` find a custom kind through discovery; without
    a CRD created before, the kind is refused on load as for ``expectField``."""
    (tmp_path / "crd.yaml").write_text((EXAMPLES / "podgroup-crd.yaml").read_text())
    gv = "scheduling.x-k8s.io/v1alpha1"
    s, backend = run_yaml(load_scenario(write(tmp_path, (
        "ops:\n- {op: createObjects, file: crd.yaml}\n"
        f"- op: createObjects\n  manifests:\n  - {POD_GROUP}\n"
        f"- {{op: patch, apiVersion: {gv}, kind: PodGroup, name: g, type: merge, body: {{spec: {{minMember: 4}}}}}}\n"
        f"- {{op: expectField, apiVersion: {gv}, kind: PodGroup, name: g, field: spec.minMember, equals: 4}}\n"
        f"- {{op: delete, apiVersion: {gv}, kind: PodGroup, name: g}}\n"))), tmp_path)
    writes = [(e.verb, e.name, e.code) for e in backend.journal.entries
              if e.type == "request" and e.resource == "podgroups.scheduling.x-k8s.io" and e.verb in ("patch", "delete")]
    assert writes == [("patch", "g", 200), ("delete", "g", 200)]
    with pytest.raises(YamlScenarioError) as info:
        load_scenario(write(tmp_path, f"ops:\n- {{op: delete, apiVersion: {gv}, kind: PodGroup, name: g}}\n"))
    assert str(info.value) == (f"s.yaml: line 2: ops[0] delete: {UNKNOWN_POD_GROUP}; create its "
                               "CustomResourceDefinition before it")
