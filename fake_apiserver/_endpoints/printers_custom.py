"""A custom resource's Table: its CRD version's ``additionalPrinterColumns``.

kube-apiserver's apiextensions-apiserver builds one table convertor per CRD version
(``registry/customresource/tableconvertor``), and the fake does the same from the columns the
CRD version declares (the store hands them over, :meth:`Store.printer_columns`). As
kube-apiserver v1.37.2 renders them (``tests/fake_apiserver/_endpoints/test_tables_custom.py``
compares the two):

* the columns: ``Name`` (format ``name``, ObjectMeta's doc) then each declared column with its
  ``type``, ``format`` and ``priority`` as written (a priority 1 column is always in the Table;
  kubectl shows it with ``-o wide`` only) and its ``description``, or ``Custom resource definition
  column (in JSONPath format): <jsonPath>`` without one; a version that declares none gets
  ``Age``, a ``date`` column of ``.metadata.creationTimestamp`` with its doc;
* a column whose JSONPath kube cannot parse is dropped with every column after it (the real
  convertor stops there and logs it);
* the cells: the JSONPath's first match (:mod:`~fake_apiserver._machinery.jsonpath`); none, or
  an evaluation error, is null. A ``string`` column prints the match as JSONPath does (maps and
  lists as JSON, numbers as Go's ``%v``, a JSON null as ``<no value>``); the other types take a
  value of their own JSON type only, else null: ``integer`` truncates a float, ``number`` widens
  an integer, ``boolean`` takes a bool, ``date`` takes an RFC 3339 string and prints its age
  (``<unknown>`` for an empty or zero time, ``<invalid>`` for one that does not parse).

Ages come from the injected clock. A path form the JSONPath module does not evaluate (see its
docstring) keeps its column with null cells.
"""

from __future__ import annotations

from datetime import datetime, timezone
from collections.abc import Mapping
from typing import Any, Sequence

from fake_apiserver._endpoints.columns import CREATED_DOC, DEFAULT_COLUMNS
from fake_apiserver._machinery import gotime
from fake_apiserver._machinery.jsonpath import (
    GoByte,
    JSONPath,
    JSONPathError,
    JSONPathSyntaxError,
    Unsupported,
    go_number,
    parse,
    print_value,
)
from fake_apiserver._registry.printing import Printer, human_duration

__all__ = ["DEFAULT_CUSTOM_COLUMNS", "custom_table"]

Obj = dict[str, Any]

#: apiextensions-apiserver's column for a version that declares none.
DEFAULT_CUSTOM_COLUMNS: tuple[Obj, ...] = (
    {"name": "Age", "type": "date", "description": CREATED_DOC, "jsonPath": ".metadata.creationTimestamp"},
)
_NO_DESCRIPTION = "Custom resource definition column (in JSONPath format): {}"
_INT64 = 1 << 63
_ZERO_TIME = datetime(1, 1, 1, tzinfo=timezone.utc)


def _date(value: str, now: datetime) -> str:
    if value in ("", "null"):  # metav1.Time.UnmarshalQueryParameter: the zero time
        return "<unknown>"
    try:
        then = gotime.parse(value, gotime.RFC3339)
    except gotime.TimeError:
        return "<invalid>"
    if then is None or then == _ZERO_TIME:  # a time Go holds but datetime cannot, or the zero time
        return "<unknown>"
    return human_duration((now - then).total_seconds())


def _typed_cell(column_type: str, value: Any, now: datetime) -> Any:
    """``cellForJSONValue``: the value if it has the column's JSON type, else null."""
    if value is None or isinstance(value, GoByte):
        return None
    value = go_number(value)
    is_number = isinstance(value, (int, float)) and not isinstance(value, bool)
    if column_type == "integer" and is_number:
        if isinstance(value, float):
            return int(value) if -_INT64 <= value < _INT64 else -_INT64  # Go's conversion on amd64
        return value
    if column_type == "number" and is_number:
        wide = float(value)
        return int(wide) if wide.is_integer() and abs(wide) < 1e21 else wide  # encoding/json's digits
    if column_type == "boolean" and isinstance(value, bool):
        return value
    if column_type == "date" and isinstance(value, str):
        return _date(value, now)
    return None


def _cell(column_type: str, path: JSONPath | None, obj: Obj, now: datetime) -> Any:
    if path is None:
        return None
    try:
        found = path.find(obj)
    except JSONPathError:
        return None
    if not found:
        return None
    if column_type == "string":
        return print_value(found[0])
    return _typed_cell(column_type, found[0], now)


def custom_table(declared: Sequence[Mapping[str, Any]] | None) -> tuple[list[Obj], Printer]:
    """The column definitions and the row printer of a CRD version whose
    ``additionalPrinterColumns`` are ``declared`` (None or empty: the default ``Age``)."""
    headers: list[Obj] = [DEFAULT_COLUMNS[0]]
    readers: list[tuple[str, JSONPath | None]] = []
    for column in declared or DEFAULT_CUSTOM_COLUMNS:
        json_path = str(column.get("jsonPath") or "")
        try:
            path: JSONPath | None = parse(json_path)
        except Unsupported:
            path = None
        except JSONPathSyntaxError:
            break
        column_type = str(column.get("type") or "")
        headers.append({
            "name": str(column.get("name") or ""),
            "type": column_type,
            "format": str(column.get("format") or ""),
            "description": str(column.get("description") or "") or _NO_DESCRIPTION.format(json_path),
            "priority": int(column.get("priority") or 0),
        })
        readers.append((column_type, path))

    def printer(obj: Obj, now: datetime) -> tuple[list[Any], list[Obj]]:
        name = (obj.get("metadata") or {}).get("name", "")
        return [name, *(_cell(t, p, obj, now) for t, p in readers)], []

    return headers, printer
