"""The ``pods/binding`` subresource: the ``Binding`` a scheduler posts, validated as the real
registry validates it before the pod's ``spec.nodeName`` is set.
"""

from __future__ import annotations

from typing import Any, Mapping

from fake_apiserver._machinery.errors import FieldError, UnknownError
from fake_apiserver._registry.meta import dedupe

__all__ = ["check_binding", "validate_binding"]

Obj = dict[str, Any]


def validate_binding(binding: Mapping[str, Any]) -> list[FieldError]:
    """``ValidatePodBinding``: the target must be a Node (or kind left empty) and be named."""
    target: Mapping[str, Any] = binding.get("target") or {}
    errors: list[FieldError] = []
    kind = target.get("kind") or ""
    if kind and kind != "Node":
        errors.append(FieldError.not_supported("target.kind", kind, ["Node", "<empty>"]))
    if not target.get("name"):
        errors.append(FieldError.required("target.name"))
    return errors


def check_binding(errors: list[FieldError]) -> None:
    """Raise what the real server answers to an invalid binding.

    ``BindingREST.Create`` returns ``errs.ToAggregate()``, a plain error rather than a
    ``StatusError``, so the client sees HTTP 500 with no reason and the aggregate as the message
    (``target.name: Required value``), not a 422.
    """
    if errors:
        rendered = [e.render() for e in dedupe(errors)]
        raise UnknownError(rendered[0] if len(rendered) == 1 else "[" + ", ".join(rendered) + "]")
