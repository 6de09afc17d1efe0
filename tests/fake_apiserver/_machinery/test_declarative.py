"""The declarative validation interpreter on the scheduling.k8s.io/v1beta1 plans: unit cases whose
expected messages are apimachinery's formats (``pkg/api/validate`` and ``field.Error``), the data
against its generator over the Go module cache, and a corpus of bodies compared with what a real
kube-apiserver v1.37.2 answers."""

from __future__ import annotations

import copy
import itertools
import json
import os
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from fake_apiserver._machinery import declarative
from fake_apiserver._machinery.declarative import root_type, subresources, validate

ROOT = Path(__file__).resolve().parents[3]
DATA = ROOT / "fake_apiserver" / "data" / "validations-v1.37.json"
GROUP, VERSION = "scheduling.k8s.io", "v1beta1"
WORKLOAD = root_type(GROUP, VERSION, "Workload", release="1.37") or ""
PODGROUP = root_type(GROUP, VERSION, "PodGroup", release="1.37") or ""

#: the gates of kube-apiserver v1.37 at their defaults (DeclarativeValidationBeta is beta, on)
DEFAULTS = {"DeclarativeValidationBeta": True}


def gates_of(on: dict[str, bool]) -> Callable[[str], bool]:
    return lambda name: on.get(name, False)


def errors(plan: str, obj: Any, old: Any = None, gates: dict[str, bool] | None = None) -> list[str]:
    return [e.render() for e in validate(plan, obj, old, release="1.37", gates=gates_of(gates or DEFAULTS))]


def template(name: str = "a", policy: dict[str, Any] | None = None, **more: Any) -> dict[str, Any]:
    return {"name": name, "schedulingPolicy": policy if policy is not None else {"basic": {}}, **more}


def workload(*templates: dict[str, Any], **spec: Any) -> dict[str, Any]:
    return {"metadata": {"name": "w", "namespace": "default"},
            "spec": {"podGroupTemplates": list(templates), **spec}}


def podgroup(**spec: Any) -> dict[str, Any]:
    return {"metadata": {"name": "p", "namespace": "default"},
            "spec": {"schedulingPolicy": {"basic": {}}, "disruptionMode": {"single": {}}, **spec}}


# ------------------------------------------------------------------- the roots


def test_the_roots_and_their_subresources() -> None:
    assert WORKLOAD and PODGROUP
    assert subresources(WORKLOAD, release="1.37") == ("/",)
    assert subresources(PODGROUP, release="1.37") == ("/", "/status")
    assert root_type(GROUP, VERSION, "NoSuchKind", release="1.37") is None
    with pytest.raises(LookupError, match="no declarative validation data for Kubernetes 1.30"):
        declarative.roots("1.30")


def test_the_data_names_only_checks_the_interpreter_runs() -> None:
    data = json.loads(DATA.read_text())
    named = {c["fn"] for plan in data["plans"].values() for c in plan["checks"]}
    named |= {c["fn"] for plan in data["plans"].values() for f in plan["fields"] for c in f["checks"]}
    assert named - declarative.SUPPORTED_CHECKS == set()
    assert {"Union", "RequiredValue", "EachValSliceVal", "ValSliceUpdate", "Immutable"} <= named


# ------------------------------------------------------------------- create


def test_a_valid_workload_and_podgroup_pass() -> None:
    assert errors(WORKLOAD, workload(template("a"), template("b", {"gang": {"minCount": 2}}))) == []
    assert errors(PODGROUP, podgroup(workloadRef={"workloadName": "w", "templateName": "a"})) == []


def test_min_count_zero_is_required_and_negative_is_below_the_minimum() -> None:
    # RequiredValue on an int32 finds its zero value missing; Minimum words content.MinError.
    assert errors(PODGROUP, podgroup(schedulingPolicy={"gang": {"minCount": 0}})) == [
        "spec.schedulingPolicy.gang.minCount: Required value"]
    assert errors(PODGROUP, podgroup(schedulingPolicy={"gang": {}})) == [
        "spec.schedulingPolicy.gang.minCount: Required value"]
    assert errors(PODGROUP, podgroup(schedulingPolicy={"gang": {"minCount": -1}})) == [
        "spec.schedulingPolicy.gang.minCount: Invalid value: -1: must be greater than or equal to 1"]


def test_a_union_needs_exactly_one_member() -> None:
    assert errors(WORKLOAD, workload(template("a", {}))) == [
        'spec.podGroupTemplates[0].schedulingPolicy: Invalid value: "": must specify one of: `basic`, `gang`']
    assert errors(WORKLOAD, workload(template("a", {"basic": {}, "gang": {"minCount": 1}}))) == [
        'spec.podGroupTemplates[0].schedulingPolicy: Invalid value: "{basic, gang}": '
        "must specify exactly one of: `basic`, `gang`"]
    assert errors(WORKLOAD, {"metadata": {"name": "w"}, "spec": {}}) == [
        'spec: Invalid value: "": must specify one of: `podGroupTemplates`, `compositePodGroupTemplates`']
    assert errors(PODGROUP, podgroup(disruptionMode={})) == [
        'spec.disruptionMode: Invalid value: "": must specify one of: `single`, `all`']


def test_too_many_templates_stop_the_list() -> None:
    body = workload(*(template(f"t{i}", {}) for i in range(9)))
    assert errors(WORKLOAD, body) == ["spec.podGroupTemplates: Too many: 9: must have at most 8 items"]


def test_a_duplicate_key_shows_the_item_as_go_marshals_it() -> None:
    body = workload(template("a"), template("b"), template("a", {"gang": {"minCount": 3}}, priority=5))
    # declaration order, omitempty fields left out, a non-omitempty nil pointer as null
    assert errors(WORKLOAD, body) == [
        'spec.podGroupTemplates[2]: Duplicate value: {"name":"a","schedulingPolicy":{"gang":{"minCount":3}},'
        '"schedulingConstraints":null,"priority":5}']


def test_names_and_formats() -> None:
    body = workload(template("A.b"), template("x", priorityClassName="Bad_Class"),
                    controllerRef={"apiGroup": "apps", "kind": "", "name": "a/b"})
    label = ("a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start "
             "and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is "
             "'[a-z0-9]([-a-z0-9]*[a-z0-9])?')")
    subdomain = ("a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and "
                 "must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation "
                 "is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')")
    assert errors(WORKLOAD, body) == [
        "spec.controllerRef.kind: Required value",
        "spec.controllerRef.name: Invalid value: \"a/b\": may not contain '/'",
        f'spec.podGroupTemplates[0].name: Invalid value: "A.b": {label}',
        f'spec.podGroupTemplates[1].priorityClassName: Invalid value: "Bad_Class": {subdomain}',
    ]
    assert errors(WORKLOAD, workload(template("a.b"))) == [
        'spec.podGroupTemplates[0].name: Invalid value: "a.b": must not contain dots']
    assert errors(WORKLOAD, workload(template("x" * 64))) == [
        f'spec.podGroupTemplates[0].name: Invalid value: "{"x" * 64}": must be no more than 63 bytes']


def test_an_enum_lists_its_values_sorted() -> None:
    on = {**DEFAULTS, "PodGroupPreemptionPolicy": True}
    assert errors(PODGROUP, podgroup(preemptionPolicy="Sometimes"), gates=on) == [
        'spec.preemptionPolicy: Unsupported value: "Sometimes": supported values: "Never", "PreemptLowerPriority"']


def test_a_gated_field_with_its_gate_off_is_forbidden() -> None:
    assert errors(PODGROUP, podgroup(preemptionPolicy="Never")) == ["spec.preemptionPolicy: Forbidden"]
    on = {**DEFAULTS, "PodGroupPreemptionPolicy": True}
    assert errors(PODGROUP, podgroup(preemptionPolicy="Never"), gates=on) == []


def test_alpha_checks_are_shadowed_and_beta_ones_follow_their_gate() -> None:
    # DependentRequired on workloadRef is alpha: the real server reports it from its handwritten rule.
    on = {**DEFAULTS, "CompositePodGroup": True}
    assert errors(PODGROUP, podgroup(parentCompositePodGroupName="parent"), gates=on) == []
    # metadata's checks are all alpha
    assert errors(WORKLOAD, {**workload(template()), "metadata": {"name": "w", "generation": -1}}) == []


# ------------------------------------------------------------------- update


def test_unchanged_data_is_not_validated_again() -> None:
    old = workload(template("a", {"gang": {"minCount": 0}}))  # stored before the rule existed
    assert errors(WORKLOAD, copy.deepcopy(old), old) == []
    new = copy.deepcopy(old)
    new["spec"]["podGroupTemplates"][0]["schedulingPolicy"]["gang"]["minCount"] = -2
    assert errors(WORKLOAD, new, old) == [
        "spec.podGroupTemplates[0].schedulingPolicy.gang.minCount: Invalid value: -2: must be greater than or equal to 1"]


def test_templates_may_not_be_added_or_removed() -> None:
    old = workload(template("a"), template("b"))
    assert errors(WORKLOAD, workload(template("a"), template("b"), template("c")), old) == [
        "spec.podGroupTemplates[2]: Forbidden: item may not be added"]
    assert errors(WORKLOAD, workload(template("b")), old) == [
        "spec.podGroupTemplates: Forbidden: item may not be removed"]
    assert errors(WORKLOAD, workload(template("b"), template("a")), old) == []  # correlated by name


def test_immutable_fields() -> None:
    old = workload(template("a", priorityClassName="high", priority=5),
                   controllerRef={"kind": "Job", "name": "j"})
    new = workload(template("a", priorityClassName="low", priority=6), controllerRef={"kind": "Job", "name": "k"})
    assert errors(WORKLOAD, new, old) == [
        "spec.controllerRef: Invalid value: null: field is immutable",
        "spec.podGroupTemplates[0].priorityClassName: Invalid value: null: field is immutable",
        "spec.podGroupTemplates[0].priority: Invalid value: null: field is immutable",
    ]
    pg_old = podgroup(workloadRef={"workloadName": "w", "templateName": "a"})
    pg_new = podgroup(workloadRef={"workloadName": "w", "templateName": "b"}, disruptionMode={"all": {}})
    assert errors(PODGROUP, pg_new, pg_old) == [
        "spec.workloadRef: Invalid value: null: field is immutable",
        "spec.disruptionMode: Invalid value: null: field is immutable",
    ]


def test_basic_may_not_become_gang() -> None:
    old = workload(template("a", {"basic": {}}))
    new = workload(template("a", {"gang": {"minCount": 2}}))
    assert errors(WORKLOAD, new, old) == [
        "spec.podGroupTemplates[0].schedulingPolicy.basic: Invalid value: null: field is immutable",
        "spec.podGroupTemplates[0].schedulingPolicy.gang: Invalid value: null: field cannot be set once created",
    ]
    back = errors(WORKLOAD, old, new)
    assert back == ["spec.podGroupTemplates[0].schedulingPolicy.basic: Invalid value: null: field is immutable",
                    "spec.podGroupTemplates[0].schedulingPolicy.gang: Invalid value: null: "
                    "field cannot be cleared once set"]


def test_a_union_unchanged_on_update_is_not_checked_again() -> None:
    old = podgroup(schedulingPolicy={"gang": {"minCount": 1}, "basic": {}})
    new = podgroup(schedulingPolicy={"gang": {"minCount": 2}, "basic": {}})
    assert errors(PODGROUP, new, old) == []


def test_a_gated_field_changed_with_its_gate_off_is_forbidden_on_update() -> None:
    on = {**DEFAULTS, "PodGroupPreemptionPolicy": True}
    old = podgroup(preemptionPolicy="Never")
    assert errors(PODGROUP, podgroup(preemptionPolicy="Never"), old) == []  # kept: ratcheted
    # every short-circuit check runs before the field stops
    assert errors(PODGROUP, podgroup(preemptionPolicy="PreemptLowerPriority"), old) == [
        "spec.preemptionPolicy: Forbidden", "spec.preemptionPolicy: Invalid value: null: field is immutable"]
    assert errors(PODGROUP, podgroup(preemptionPolicy="PreemptLowerPriority"), old, gates=on) == [
        "spec.preemptionPolicy: Invalid value: null: field is immutable"]


# ------------------------------------------------------------------- the generator


def test_the_generator_reproduces_the_data(tmp_path: Path) -> None:
    """``tools/gen_validations.py`` over the Go module cache writes the committed file byte for byte."""
    sys.path.insert(0, str(ROOT / "tools"))
    try:
        from gen_validations import KUBERNETES, STAGING, default_modcache
    finally:
        sys.path.pop(0)
    cache = default_modcache()
    wanted = [cache / "k8s.io" / f"kubernetes@{KUBERNETES}", cache / "k8s.io" / f"api@{STAGING}",
              cache / "k8s.io" / f"apimachinery@{STAGING}"]
    if not all(path.is_dir() for path in wanted):
        pytest.skip(f"needs k8s.io/kubernetes@{KUBERNETES} and its staging modules in the Go module cache")
    out = tmp_path / "validations.json"
    done = subprocess.run([sys.executable, str(ROOT / "tools" / "gen_validations.py"), "--modcache", str(cache),
                           "--out", str(out)], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert out.read_text() == DATA.read_text()


def test_the_generator_refuses_a_malformed_group_version(capsys: pytest.CaptureFixture[str]) -> None:
    sys.path.insert(0, str(ROOT / "tools"))
    try:
        from gen_validations import main
    finally:
        sys.path.pop(0)
    assert main(["scheduling"]) == 2
    assert "not a group/version" in capsys.readouterr().err


# ------------------------------------------------------------------- a real kube-apiserver v1.37.2

#: the gates the real server runs with, and the interpreter answers with
SERVER_GATES = {**DEFAULTS, "GenericWorkload": True, "DRAWorkloadResourceClaims": True}
_names = (f"c{i}" for i in itertools.count())


def _w(*templates: dict[str, Any], **spec: Any) -> dict[str, Any]:
    return {"apiVersion": f"{GROUP}/{VERSION}", "kind": "Workload", "metadata": {"name": next(_names)},
            "spec": {"podGroupTemplates": list(templates), **spec}}


def _p(**spec: Any) -> dict[str, Any]:
    body = podgroup(**spec)
    return {"apiVersion": f"{GROUP}/{VERSION}", "kind": "PodGroup", "metadata": {"name": next(_names)},
            "spec": body["spec"]}


GANG = {"gang": {"minCount": 2}}
#: (resource, old body or None, new body or a function of the stored old object, handwritten causes first)
CORPUS: list[tuple[str, Any, Any, int]] = [
    ("workloads", None, _w(template("a"), template("b", GANG)), 0),
    ("workloads", None, _w(template("a", {"gang": {"minCount": 0}})), 0),
    ("workloads", None, _w(template("a", {"gang": {"minCount": -1}})), 0),
    ("workloads", None, _w(template("a", {})), 0),
    ("workloads", None, _w(template("a", {"basic": {}, "gang": {"minCount": 1}})), 0),
    ("workloads", None, _w(*(template(f"t{i}") for i in range(9))), 0),
    ("workloads", None, _w(template("a"), template("a", GANG), template("b"), template("b")), 0),
    ("workloads", None, {**_w(), "spec": {}}, 0),
    ("workloads", None, _w(template("A_b"), template("a.b"), template("x" * 64)), 0),
    ("workloads", None, _w(template("a"), controllerRef={"apiGroup": "Bad_Group", "kind": "", "name": ".."}), 0),
    ("workloads", None, _w(template("a", priorityClassName="Bad", priority=2000000000)), 0),
    ("workloads", None, _w(template("a", disruptionMode={"single": {}, "all": {}})), 0),
    ("workloads", None, _w(template("a", disruptionMode={})), 0),
    ("workloads", None, _w(template("a", resourceClaims=[
        {"name": "x", "resourceClaimName": "c"}, {"name": "x", "resourceClaimTemplateName": "t"},
        {"name": "Y"}, {"name": "z", "resourceClaimName": "c", "resourceClaimTemplateName": "t"},
        {"name": "w", "resourceClaimName": "No"}])), 0),
    ("workloads", None, _w(template("a", resourceClaims=[{"name": f"r{i}", "resourceClaimName": "c"}
                                                         for i in range(5)])), 0),
    ("workloads", _w(template("a"), template("b")), lambda old: _update(old, templates=[template("a"), template("c")]), 0),
    ("workloads", _w(template("a")), lambda old: _update(old, templates=[template("a"), template("b")]), 0),
    ("workloads", _w(template("a"), template("b")), lambda old: _update(old, templates=[template("b")]), 0),
    ("workloads", _w(template("a"), controllerRef={"kind": "Job", "name": "j"}),
     lambda old: _update(old, controllerRef={"kind": "Job", "name": "k"}), 0),
    ("workloads", _w(template("a")), lambda old: _update(old, templates=[template("a", GANG)]), 0),
    ("workloads", _w(template("a", GANG)), lambda old: _update(old, templates=[template("a")]), 0),
    ("workloads", _w(template("a", GANG)), lambda old: _update(old, templates=[template("a", {"gang": {"minCount": 0}})]), 0),
    ("workloads", _w(template("a", priorityClassName="high", priority=1)),
     lambda old: _update(old, templates=[template("a", priorityClassName="low", priority=2)]), 0),
    ("workloads", _w(template("b"), template("a")), lambda old: _update(old, templates=[template("a"), template("b")]), 0),
    ("podgroups", None, _p(), 0),
    ("podgroups", None, _p(schedulingPolicy={"gang": {"minCount": 0}}), 0),
    ("podgroups", None, _p(schedulingPolicy={}), 0),
    ("podgroups", None, _p(workloadRef={"workloadName": "", "templateName": ""}), 0),
    ("podgroups", None, _p(workloadRef={"workloadName": "W", "templateName": "a.b"}), 0),
    ("podgroups", None, _p(disruptionMode={}), 0),
    ("podgroups", None, _p(disruptionMode={"single": {}, "all": {}}), 0),
    # (a podgroup's priority and priorityClassName go through the Priority admission plugin first)
    ("podgroups", None, _p(resourceClaims=[{"name": f"r{i}", "resourceClaimName": "c"} for i in range(5)]), 0),
    ("podgroups", None, _p(workloadRef={"workloadName": "x" * 254, "templateName": "t"}), 0),
    ("podgroups", _p(workloadRef={"workloadName": "w", "templateName": "a"}),
     lambda old: _update(old, workloadRef={"workloadName": "w", "templateName": "b"}), 0),
    ("podgroups", _p(), lambda old: _update(old, schedulingPolicy=GANG), 0),
    ("podgroups", _p(), lambda old: _update(old, disruptionMode={"all": {}}), 0),
    ("podgroups", _p(resourceClaims=[{"name": "x", "resourceClaimName": "c"}]),
     lambda old: _update(old, resourceClaims=[{"name": "x", "resourceClaimName": "d"}]), 0),
]


def _update(old: dict[str, Any], *, templates: list[dict[str, Any]] | None = None, **spec: Any) -> dict[str, Any]:
    new = copy.deepcopy(old)
    if templates is not None:
        new["spec"]["podGroupTemplates"] = templates
    new["spec"].update(spec)
    return new


def _assets() -> Path | None:
    if os.environ.get("KUBEBUILDER_ASSETS", "").strip():
        return Path(os.environ["KUBEBUILDER_ASSETS"]).expanduser()
    cached = Path("~/.cache/schedharness/k8s/v1.37.2").expanduser()
    return cached if (cached / "kube-apiserver").is_file() else None


@pytest.fixture(scope="module")
def real_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    from harness._backends.envtest import ControlPlane
    from tests.support.real_apiserver import json_caller

    assets = _assets()
    if assets is None or not (assets / "kube-apiserver").is_file():
        pytest.skip("needs kube-apiserver v1.37.2: set KUBEBUILDER_ASSETS or run `schedharness k8s build 1.37`")
    version = subprocess.run([str(assets / "kube-apiserver"), "--version"], capture_output=True, text=True,
                             timeout=60, check=False).stdout.strip()
    if not version.startswith("Kubernetes v1.37."):
        pytest.skip(f"the corpus is compared with kube-apiserver v1.37; {assets} holds {version}")
    gates = {name: on for name, on in SERVER_GATES.items() if name != "DeclarativeValidationBeta"}
    plane = ControlPlane(assets=assets, logdir=tmp_path_factory.mktemp("dv-apiserver"), feature_gates=gates,
                         runtime_config=f"{GROUP}/{VERSION}=true")
    plane.start()
    try:
        yield json_caller(*plane.access())
    finally:
        plane.stop()


def _causes(answer: list[Any]) -> list[tuple[str, str, str]]:
    code, status = answer
    if code in (200, 201):
        return []
    assert code == 422, answer
    return [(c.get("field", ""), c["reason"], c["message"]) for c in status["details"]["causes"]]


@pytest.mark.parametrize("case", range(len(CORPUS)))
def test_the_interpreter_answers_as_kube_apiserver(real_server: Any, case: int) -> None:
    resource, old_body, new, handwritten = CORPUS[case]
    call = real_server
    base = f"/apis/{GROUP}/{VERSION}/namespaces/default/{resource}"
    plan = WORKLOAD if resource == "workloads" else PODGROUP
    gates = gates_of(SERVER_GATES)
    if old_body is None:
        answer = call("POST", base, new, "")
        old = None
    else:
        created = call("POST", base, old_body, "")
        assert created[0] == 201, created
        old = created[1]
        new = new(old)
        answer = call("PUT", f"{base}/{old['metadata']['name']}", new, "")
    mine = [(e.field, e.type, e.body()) for e in validate(plan, new, old, release="1.37", gates=gates)]
    theirs = _causes(answer)
    assert theirs[handwritten:] == mine
    assert mine or answer[0] in (200, 201), answer
