"""Server-side ``Table`` rendering: what ``kubectl get`` prints.

``kubectl get`` asks for ``Accept: application/json;as=Table;v=v1;g=meta.k8s.io,...`` and prints
the columns the server sends; the STATUS column that shows ``SchedulingGated`` exists only in the
server's printer. A server that answers with a plain list gets kubectl's
fallback of NAME and AGE, so the fake renders the Table itself.

Sources, followed field for field:

* the wire shape: ``apimachinery/pkg/apis/meta/v1/types.go`` (``Table``, ``TableColumnDefinition``,
  ``TableRow``, ``IncludeObjectPolicy``); ``columnDefinitions`` and ``rows`` are never omitted;
* the row objects and ``includeObject``: ``apiserver/pkg/endpoints/handlers/response.go``
  (``asTable``: ``PartialObjectMetadata`` of the Table's group-version unless ``Object`` or
  ``None``; a watch sends the column definitions with its first event only);
* the columns and cells: :mod:`~fake_apiserver._endpoints.columns` (kube-apiserver v1.37's column
  definitions, generated data) and the printer the kind declares (its
  :class:`~fake_apiserver._registry.generic.KindRules`' ``printer``, in the kind's module of
  ``_registry``: the cells, after ``pkg/printers/internalversion/printers.go``). The server always
  prints wide (``pkg/printers/storage``: ``GenerateOptions{Wide: true}``); kubectl hides the
  columns of priority 1 unless ``-o wide``.

A built-in kind that declares no printer (Role, ClusterRole, LimitRange, ...) gets the server's
default table, NAME and "Created At" (the creationTimestamp as written, a "date" column,
:func:`~fake_apiserver._registry.printing.default_row`); a custom resource gets its CRD version's
``additionalPrinterColumns`` (:mod:`~fake_apiserver._endpoints.printers_custom`, NAME and a
``date`` AGE when it declares none). Ages come from the injected clock, never the
machine's.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import datetime
from collections.abc import Mapping
from typing import Any, Callable, Sequence

from fake_apiserver._endpoints.columns import DEFAULT_COLUMNS, kind_columns
from fake_apiserver._endpoints.printers_custom import custom_table
from fake_apiserver._machinery.errors import BadRequest
from fake_apiserver._machinery.kindspec import KindSpec
from fake_apiserver._registry.kinds import built_in_kinds, declaration
from fake_apiserver._registry.printing import Printer, default_row

__all__ = ["TableRequest", "TableStream", "negotiate_table", "render_table"]

Obj = dict[str, Any]

_INCLUDE_OBJECT = ("Metadata", "Object", "None")
_JSON_MEDIA = ("application/json", "application/*", "*/*")

def _printer(spec: KindSpec, custom_columns: Sequence[Mapping[str, Any]] | None) -> tuple[list[Obj], Printer]:
    """The columns and the row printer of ``spec``'s kind: its own, the default table of a built-in
    kind without one, or a custom resource's from its CRD version's printer columns."""
    key = (spec.group, spec.kind)
    if spec.custom or key not in built_in_kinds():
        return custom_table(custom_columns)
    printer = declaration(spec.group, spec.kind).printer
    if printer is None:
        return DEFAULT_COLUMNS, default_row
    return kind_columns()[key], printer


# --- negotiation and rendering ---------------------------------------------------------------


@dataclass(frozen=True)
class TableRequest:
    """A request for a Table: its group-version (``v1`` or ``v1beta1`` of ``meta.k8s.io``) and
    what each row carries as ``object`` (``includeObject``: Metadata, Object or None)."""

    version: str = "v1"
    include_object: str = "Metadata"

    @property
    def api_version(self) -> str:
        return f"meta.k8s.io/{self.version}"


def _clauses(accept: str) -> list[tuple[str, dict[str, str]]]:
    """Accept clauses by descending ``q``, then specificity, else in order (``goautoneg.ParseAccept``)."""
    parsed: list[tuple[float, int, int, str, dict[str, str]]] = []
    for index, clause in enumerate(accept.split(",")):
        parts = [p.strip() for p in clause.split(";")]
        media = parts[0].lower()
        if not media:
            continue
        params: dict[str, str] = {}
        for p in parts[1:]:
            key, _, value = p.partition("=")
            params[key.strip().lower()] = value.strip()
        try:
            q = float(params.pop("q", "1"))
        except ValueError:
            q = 0.0
        specificity = 2 if media == "*/*" else 1 if media.endswith("/*") else 0
        parsed.append((-q, specificity, index, media, params))
    parsed.sort()
    return [(media, params) for _, _, _, media, params in parsed]


def negotiate_table(accept: str, include_object: str = "") -> TableRequest | None:
    """The Table the client asked for, or None for a plain JSON answer.

    The first JSON clause decides, as in apiserver's ``NegotiateOutputMediaType``: one with
    ``as=Table;g=meta.k8s.io;v=v1|v1beta1`` asks for a Table; one with another ``as=`` (e.g.
    ``PartialObjectMetadata``, which the fake does not serve) is skipped; a plain one ends the
    search. ``includeObject`` is checked only when a Table is served, as in ``asTable``.
    """
    if "as=" not in accept:  # the common case: no conversion asked for
        return None
    for media, params in _clauses(accept):
        if media not in _JSON_MEDIA:
            continue
        target = params.get("as")
        if target is None:
            return None
        if target == "Table" and params.get("g") == "meta.k8s.io" and params.get("v") in ("v1", "v1beta1"):
            if include_object and include_object not in _INCLUDE_OBJECT:
                raise BadRequest(f"unrecognized includeObject value: {json.dumps(include_object)}")
            return TableRequest(params["v"], include_object or "Metadata")
    return None


def _row_object(obj: Obj, request: TableRequest) -> Obj | None:
    if request.include_object == "Object":
        return obj
    if request.include_object == "None":
        return None
    return {"kind": "PartialObjectMetadata", "apiVersion": request.api_version, "metadata": obj.get("metadata") or {}}


def render_table(spec: KindSpec, result: Obj, request: TableRequest, now: datetime, *, headers: bool = True,
                 columns: Sequence[Mapping[str, Any]] | None = None) -> Obj:
    """``result`` (one object or a ``<Kind>List``) as a ``meta.k8s.io`` Table.

    The list's ``resourceVersion``, ``continue`` and ``remainingItemCount`` carry over
    (``printers.GenerateTable``); ``headers=False`` leaves ``columnDefinitions`` null, as on every
    watch event after the first. ``columns`` are a custom resource's ``additionalPrinterColumns``
    (its CRD version's; ignored for a built-in kind)."""
    definitions, printer = _printer(spec, columns)
    is_list = isinstance(result.get("items"), list) and str(result.get("kind", "")).endswith("List")
    items: list[Obj] = result["items"] if is_list else [result]
    rows = []
    for item in items:
        cells, conditions = printer(item, now)
        row: Obj = {"cells": cells}
        if conditions:
            row["conditions"] = conditions
        row["object"] = _row_object(item, request)
        rows.append(row)
    source_meta: Obj = result.get("metadata") or {}
    meta: Obj = {}
    if source_meta.get("resourceVersion"):
        meta["resourceVersion"] = source_meta["resourceVersion"]
    if is_list and source_meta.get("continue"):
        meta["continue"] = source_meta["continue"]
    if is_list and source_meta.get("remainingItemCount") is not None:
        meta["remainingItemCount"] = source_meta["remainingItemCount"]
    return {
        "kind": "Table",
        "apiVersion": request.api_version,
        "metadata": meta,
        "columnDefinitions": list(definitions) if headers else None,
        "rows": rows,
    }


@dataclass
class TableStream:
    """Renders the objects of one watch as Tables: column definitions with the first event only
    (``watchEmbeddedEncoder``); ``Status`` objects (ERROR events) pass through unchanged.
    ``columns``: a custom resource's printer columns when the watch began."""

    spec: KindSpec
    request: TableRequest
    now: Callable[[], datetime]
    columns: Sequence[Mapping[str, Any]] | None = None
    _headers: bool = field(default=True, init=False)

    def __call__(self, obj: Obj) -> Obj:
        if obj.get("kind") == "Status":
            return obj
        table = render_table(self.spec, obj, self.request, self.now(), headers=self._headers, columns=self.columns)
        self._headers = False
        return table
