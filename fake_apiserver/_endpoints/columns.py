"""The column definitions of the built-in kinds' server-side Tables, and the default table.

The columns are data generated from a real kube-apiserver (``fake_apiserver/data/columns-v1.37.json``,
written by ``tools/gen_columns.py`` from the Tables kube-apiserver v1.37.2 answered,
``tests/data/tables/v1.37.2.json``): for each group and kind, what ``GET <collection>`` with
``Accept: application/json;as=Table;v=v1;g=meta.k8s.io`` answers as ``columnDefinitions``, names,
types, formats, descriptions (the Go types' swagger docs, which clients show in help) and
priorities, in the order Go writes their fields. A release that changes a column changes the data,
not code. The fake serves v1.37's columns, as it prints v1.37's cells (each kind's printer, in its
module of ``fake_apiserver/_registry``), whichever release it serves.

The default table stays here, in code: :data:`DEFAULT_COLUMNS`, the ``Name``/``Created At`` of
``rest.NewDefaultTableConvertor``, which a built-in kind without a printer of its own gets, and
the two descriptions a custom resource's table shares with it (:data:`NAME_DOC`,
:data:`CREATED_DOC`).
"""

from __future__ import annotations

import functools
import json
from importlib import resources
from typing import Any

__all__ = ["CREATED_DOC", "DATA_FILE", "DEFAULT_COLUMNS", "NAME_DOC", "kind_columns"]

Obj = dict[str, Any]

#: the generated columns the fake serves, for every release
DATA_FILE = "columns-v1.37.json"

NAME_DOC = (
    "Name must be unique within a namespace. Is required when creating resources, although some resources "
    "may allow a client to request the generation of an appropriate name automatically. Name is primarily "
    "intended for creation idempotence and configuration definition. Cannot be updated. More info: "
    "https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names"
)
CREATED_DOC = (
    "CreationTimestamp is a timestamp representing the server time when this object was created. It is not "
    "guaranteed to be set in happens-before order across separate operations. Clients may not set this value. "
    "It is represented in RFC3339 form and is in UTC.\n\nPopulated by the system. Read-only. Null for lists. "
    "More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata"
)

#: ``rest.NewDefaultTableConvertor``: the table of a kind without a printer.
DEFAULT_COLUMNS: list[Obj] = [
    {"name": "Name", "type": "string", "format": "name", "description": NAME_DOC, "priority": 0},
    {"name": "Created At", "type": "date", "format": "", "description": CREATED_DOC, "priority": 0},
]


@functools.cache
def kind_columns() -> dict[tuple[str, str], list[Obj]]:
    """(group, kind) -> its Table's column definitions, as the generated data holds them (read
    once, on the first Table)."""
    with (resources.files("fake_apiserver") / "data" / DATA_FILE).open("rb") as f:
        data: Obj = json.load(f)
    return {(group, kind): columns for group, kinds in data["groups"].items() for kind, columns in kinds.items()}
