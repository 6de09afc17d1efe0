"""What the ``apps/v1`` workloads share: the strategy that answers a create with the kind's zero
status, the rules of a template under a selector, the immutable selector, and Go's rendering of
a bad value.

The status a create answers with is the Go struct's zero value as the real server encodes it
(``{}``, or the counters without ``omitempty``), checked against kube-apiserver v1.37.2
(``tests/fake_apiserver/_registry/test_builtin_kinds.py``).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from fake_apiserver._machinery.errors import FieldError, GoJSON
from fake_apiserver._registry.core.pod.template import pod_template_errors
from fake_apiserver._registry.fieldrules import get_in, go_selector, immutable_errors, selector_matches, template_mismatch
from fake_apiserver._registry.generic import Strategy

__all__ = ["WorkloadStrategy", "go_json", "restart_errors", "selector_immutable", "selector_required_errors",
           "template_errors"]

Obj = dict[str, Any]


def go_json(value: Any) -> GoJSON:
    return GoJSON(json.dumps(value, separators=(",", ":")))


def template_errors(spec: Mapping[str, Any], kind: str) -> list[FieldError]:
    """``ValidatePodTemplateSpecForReplicaSet``'s own checks: the selector selects the template's
    labels, the template's restart policy is Always, no active deadline."""
    labels = get_in(spec, "template", "metadata", "labels") or {}
    errors: list[FieldError] = []
    if not selector_matches(spec.get("selector"), labels):
        errors.append(template_mismatch(labels))
    return errors + pod_template_errors(spec.get("template"), "spec.template") + restart_errors(spec, kind)


def restart_errors(spec: Mapping[str, Any], kind: str) -> list[FieldError]:
    """A workload's template restarts Always and has no active deadline."""
    errors: list[FieldError] = []
    restart = get_in(spec, "template", "spec", "restartPolicy")
    if restart != "Always":
        errors.append(FieldError.not_supported("spec.template.spec.restartPolicy", restart or "", ["Always"]))
    if get_in(spec, "template", "spec", "activeDeadlineSeconds") is not None:
        errors.append(FieldError.forbidden("spec.template.spec.activeDeadlineSeconds",
                                           f"activeDeadlineSeconds in {kind} is not Supported"))
    return errors


def selector_required_errors(spec: Mapping[str, Any], kind: str) -> list[FieldError]:
    selector = spec.get("selector")
    if not isinstance(selector, Mapping):
        return [FieldError.required("spec.selector")]
    if not selector.get("matchLabels") and not selector.get("matchExpressions"):
        return [FieldError.invalid("spec.selector", go_selector(selector), f"empty selector is invalid for {kind}")]
    return []


def selector_immutable(new: Mapping[str, Any], old: Mapping[str, Any]) -> list[FieldError]:
    selector = get_in(new, "spec", "selector")
    errors = immutable_errors(selector, get_in(old, "spec", "selector"), "spec.selector")
    return [FieldError.invalid("spec.selector", go_selector(selector), "field is immutable")] if errors else []


class WorkloadStrategy(Strategy):
    """Defaults on every write (the decoder defaults every body), so that validation and the
    update rules compare defaulted specs; a create answers with the kind's zero ``status``."""

    zero_status: Mapping[str, Any] = {}

    def prepare_for_create(self, obj: Obj, now: str) -> None:
        super().prepare_for_create(obj, now)
        obj["status"] = dict(self.zero_status)
