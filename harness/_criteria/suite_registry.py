"""The suite registry: how the harness learns of the suites it runs, without importing them.

``harness`` is the floor below ``suites``: a suite is written with the harness's public API, so
an import the other way would make a circle, and would tie the harness to one set of criteria. A
package of suites therefore registers a :class:`SuiteCollection` under a name in the
``schedharness.suites`` entry point group of its ``pyproject.toml``, and the harness loads the
group when it needs it (:mod:`importlib.metadata`). Loading an entry point at run time is a
lookup by name, not an import arrow: the harness knows the group, never the package. The
built-in suites register themselves this way as ``schedharness``; a user's own package of suites
registers the same way under its own name.

What the harness reads from the group:

- the collection named ``schedharness`` (:data:`BUILTIN`): its directory holds the suites that
  ``schedharness run``, ``criteria`` and ``selftest`` run when given no paths, and its version is
  the one reports and the criteria catalog cite;
- every registered collection: its readings, so that a criterion whose ``reading=`` is one of
  them is shown by the reading's key in a report and in the catalog.

Strict by default: an entry point that cannot be loaded, that is not a :class:`SuiteCollection`,
a name registered twice and one reading key given two texts are errors, not silent choices. The
trade-off: the group exists only once the project is installed (``pip install -e .``); a checkout
used without installing it has no built-in suites, and :func:`builtin_suites` says so.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from importlib.metadata import entry_points
from pathlib import Path

__all__ = [
    "BUILTIN",
    "ENTRY_POINT_GROUP",
    "SuiteCollection",
    "SuiteRegistryError",
    "builtin_suites",
    "registered_readings",
    "suite_collections",
]

#: The entry point group a package of suites registers its :class:`SuiteCollection` in.
ENTRY_POINT_GROUP = "schedharness.suites"
#: The name the built-in suites are registered under.
BUILTIN = "schedharness"


class SuiteRegistryError(RuntimeError):
    """The ``schedharness.suites`` entry point group cannot be read as the harness needs it."""


@dataclass(frozen=True)
class SuiteCollection:
    """What a package of suites tells the harness about itself.

    ``directory`` holds its suite files (``test_<name>.py``: the suite ``<name>``); ``version``
    is the version a report and the criteria catalog cite (a criterion's ID never changes
    meaning within one); ``readings`` maps a reading's key to its text, for the points where a
    KEP's text leaves a choice (a criterion names the text in ``criterion(..., reading=...)``).
    """

    directory: Path
    version: str
    readings: Mapping[str, str] = field(default_factory=dict)


def suite_collections() -> dict[str, SuiteCollection]:
    """Every collection registered in :data:`ENTRY_POINT_GROUP`, by its entry point's name
    (sorted), each loaded now."""
    found: dict[str, SuiteCollection] = {}
    for point in sorted(entry_points(group=ENTRY_POINT_GROUP), key=lambda p: p.name):
        where = f"the suite collection {point.name} = {point.value} (entry point group {ENTRY_POINT_GROUP})"
        if point.name in found:
            raise SuiteRegistryError(f"{where}: the name {point.name!r} is registered twice")
        try:
            collection = point.load()
        except Exception as e:  # whatever importing someone's package raises
            raise SuiteRegistryError(f"{where} cannot be loaded: {type(e).__name__}: {e}") from e
        if not isinstance(collection, SuiteCollection):
            raise SuiteRegistryError(f"{where} is a {type(collection).__name__}, not a harness.SuiteCollection")
        found[point.name] = collection
    return found


def builtin_suites() -> SuiteCollection:
    """The built-in suites' collection (:data:`BUILTIN`)."""
    collections = suite_collections()
    if BUILTIN not in collections:
        registered = ", ".join(collections) or "none"
        raise SuiteRegistryError(
            f"no suite collection named {BUILTIN!r} in the entry point group {ENTRY_POINT_GROUP} (registered: "
            f"{registered}); install schedharness (pip install -e .) so that its suites are registered")
    return collections[BUILTIN]


def registered_readings() -> dict[str, str]:
    """The readings of every registered collection, the built-in suites' first: key -> text."""
    collections = suite_collections()
    readings: dict[str, str] = {}
    given_by: dict[str, str] = {}
    for name in sorted(collections, key=lambda n: (n != BUILTIN, n)):
        for key, text in collections[name].readings.items():
            if key in readings and readings[key] != text:
                raise SuiteRegistryError(f"the reading {key!r} has two texts: one from the suite collection "
                                         f"{given_by[key]!r}, another from {name!r}")
            readings[key] = text
            given_by.setdefault(key, name)
    return readings
