"""Expectations: descriptions, combinations and the words failure messages use for pods."""

from __future__ import annotations

from harness._scenario.expectations import Expectation, condition_of, describe_predicate, format_condition, format_pod


def test_and_and_invert_combine_descriptions() -> None:
    a = Expectation("a holds", lambda: True, lambda: "a seen", ("p",))
    b = Expectation("b holds", lambda: False, lambda: "b seen", ("p", "q"))
    both = a & b
    assert (both.description, both(), both.observe(), both.pods) == (
        "(a holds) and (b holds)", False, "a seen; b seen", ("p", "q"))
    assert ((~b).description, (~b)(), (~b).pods) == ("not (b holds)", True, ("p", "q"))


def test_plain_callables_are_described_by_name() -> None:
    def ready() -> bool:
        return False

    expectation = describe_predicate(ready)
    assert (expectation.description, expectation(), expectation.observe(), expectation.pods) == (
        "ready() is true", False, "ready() returned false", ())
    assert describe_predicate(expectation) is expectation


def test_format_condition_and_pod() -> None:
    assert format_condition(None, "PodScheduled") == "PodScheduled absent"
    assert format_condition({"type": "PodScheduled", "status": "True"}) == "PodScheduled=True"
    assert format_condition({"type": "PodScheduled", "status": "False", "reason": "Unschedulable",
                             "message": 'no "fit"'}) == 'PodScheduled=False reason=Unschedulable message="no \\"fit\\""'
    assert format_pod("default", "p", None) == "pod default/p does not exist"
    pod = {"spec": {"schedulingGates": [{"name": "a"}]},
           "status": {"conditions": [{"type": "PodScheduled", "status": "False", "reason": "SchedulingGated"}]}}
    assert format_pod("default", "p", pod) == (
        "pod default/p: not bound (spec.nodeName unset), gates ['a'], "
        "conditions: PodScheduled=False reason=SchedulingGated")
    assert format_pod("ns", "q", {"spec": {"nodeName": "n1"}}) == "pod ns/q: bound to node n1, conditions: none"
    assert condition_of(pod, "PodScheduled") == {"type": "PodScheduled", "status": "False", "reason": "SchedulingGated"}
    assert condition_of(pod, "Ready") is None
