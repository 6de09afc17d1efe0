"""What the ``admissionregistration.k8s.io`` admission policies and their bindings share: the
policies' PARAMKIND cell (:func:`param_kind_cell`) and the bindings' Table rows
(:func:`print_admission_policy_binding`), validating and mutating alike. The fake evaluates no
policy."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from fake_apiserver._registry.printing import Cells, age_of, name_of

__all__ = ["param_kind_cell", "print_admission_policy_binding"]

Obj = dict[str, Any]


def param_kind_cell(spec: Obj) -> str:
    """A policy's PARAMKIND: ``apiVersion/kind``, ``<unset>`` without one."""
    kind = spec.get("paramKind")
    return f"{kind.get('apiVersion', '')}/{kind.get('kind', '')}" if isinstance(kind, dict) else "<unset>"


def _selector_text(selector: Obj) -> str:
    """A ``*metav1.LabelSelector`` formatted with ``%v``/``String()`` (gogo-protobuf's form)."""
    labels = selector.get("matchLabels") or {}
    pairs = "".join(f"{k}: {labels[k]}," for k in sorted(labels))
    exprs = "".join(
        f"LabelSelectorRequirement{{Key:{e.get('key', '')},Operator:{e.get('operator', '')},"
        f"Values:[{' '.join(str(v) for v in e.get('values') or [])}],}},"
        for e in selector.get("matchExpressions") or [])
    return (f"&LabelSelector{{MatchLabels:map[string]string{{{pairs}}},"
            f"MatchExpressions:[]LabelSelectorRequirement{{{exprs}}},}}")


def print_admission_policy_binding(obj: Obj, now: datetime) -> tuple[Cells, list[Obj]]:
    """PARAMREF ``namespace/name`` (``*/name`` without a namespace), else the selector as Go prints it."""
    spec: Obj = obj.get("spec") or {}
    ref = spec.get("paramRef")
    text = "<unset>"
    if isinstance(ref, dict):
        if ref.get("name"):
            text = f"{ref.get('namespace') or '*'}/{ref['name']}"
        elif isinstance(ref.get("selector"), dict):
            text = _selector_text(ref["selector"])
    return [name_of(obj), spec.get("policyName", ""), text, age_of(obj, now)], []
