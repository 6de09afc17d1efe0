"""Manifests a scenario creates as they are (``apiVersion``, ``kind``, ``metadata``...): reading
them from a YAML file and checking them before anything is sent.

Both the Python DSL (:meth:`~harness._scenario.scenario.Scenario.create_objects`) and the YAML op
``createObjects`` read manifests here, so a file means the same in both. A file holds one or more
YAML documents (``---``); an empty document is skipped, as ``kubectl`` skips it, and a ``List``
(``kind: List`` or any ``...List`` with ``items``) stands for its items.

The checks are the ones that need no server: a manifest is a mapping with a string ``apiVersion``
and ``kind`` and a ``metadata.name`` (``generateName`` is refused: a scenario refers to what it
made by name). :func:`check_kinds` goes one step further for a file of scenario ops, which is
loaded before any server exists: each kind must be a built-in kind of a release the fake serves (by
default or through ``--runtime-config``, as ``scheduling.k8s.io`` PodGroups), or the
kind of a CustomResourceDefinition created earlier in the same scenario, at one of its served
versions. A kind defined by a CRD already installed in a cluster is therefore refused by the
loader; the scenario creates the CRD itself (an existing one is taken as it is), which keeps it
runnable on a fresh cluster too. Whether the server really serves a kind is settled when the
object is created (:mod:`harness._scenario.discovery`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Iterable

import yaml

from fake_apiserver import built_in_kinds
from harness._scenario.discovery import split_api_version

__all__ = ["CRD_API_VERSION", "CRD_KIND", "ManifestError", "check_kinds", "check_manifest", "defined_kinds",
           "is_manifest_file", "load_manifests"]

Obj = dict[str, Any]
CRD_API_VERSION = "apiextensions.k8s.io/v1"
CRD_KIND = "CustomResourceDefinition"


class ManifestError(ValueError):
    """A manifest or manifest file that cannot be created; the message says which and why, and
    ``index`` which manifest of the list or file (None: the file as a whole)."""

    def __init__(self, message: str, index: int | None = None) -> None:
        super().__init__(message)
        self.index = index


def _what(index: int, manifest: Any) -> str:
    meta = manifest.get("metadata") if isinstance(manifest, dict) else None
    name = meta.get("name") if isinstance(meta, dict) else None
    kind = manifest.get("kind") if isinstance(manifest, dict) else None
    return f"manifest {index}" + (f" ({kind} {name})" if isinstance(kind, str) and isinstance(name, str) else "")


def check_manifest(manifest: Any, index: int = 0) -> Obj:
    """``manifest`` if it can be sent as it is; :class:`ManifestError` saying what it lacks."""
    what = _what(index, manifest)
    if not isinstance(manifest, dict):
        raise ManifestError(f"{what}: give a mapping with apiVersion, kind and metadata, got {manifest!r}", index)
    for key in ("apiVersion", "kind"):
        value = manifest.get(key)
        if value is None:
            raise ManifestError(f"{what}: missing {key}", index)
        if not isinstance(value, str) or not value or value.count("/") > 1 or value.endswith("/"):
            raise ManifestError(f"{what}: {key} {value!r}: give " +
                                ("group/version or v1" if key == "apiVersion" else "a kind name (Deployment)"), index)
    meta = manifest.get("metadata")
    if not isinstance(meta, dict) or not isinstance(meta.get("name"), str) or not meta["name"]:
        extra = "; generateName is not enough: the scenario refers to its objects by name" if \
            isinstance(meta, dict) and "generateName" in meta else ""
        raise ManifestError(f"{what}: missing metadata.name{extra}", index)
    return manifest


def _flatten(documents: Iterable[Any]) -> list[Any]:
    out: list[Any] = []
    for doc in documents:
        if doc is None:
            continue
        if isinstance(doc, dict) and str(doc.get("kind", "")).endswith("List") and isinstance(doc.get("items"), list):
            out.extend(_flatten(doc["items"]))
        else:
            out.append(doc)
    return out


def load_manifests(path: str | Path) -> list[Obj]:
    """Every manifest of a YAML file, checked (:func:`check_manifest`); :class:`ManifestError`
    naming the file when it is missing, unreadable, not YAML or holds a bad manifest."""
    p = Path(path)
    try:
        text = p.read_text()
    except FileNotFoundError:
        raise ManifestError(f"manifest file {str(path)!r} does not exist") from None
    except (OSError, UnicodeDecodeError) as e:
        raise ManifestError(f"manifest file {str(path)!r} cannot be read: {getattr(e, 'strerror', None) or e}") from None
    try:
        documents = list(yaml.safe_load_all(text))
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None)
        where = f"line {mark.line + 1}, column {mark.column + 1}: " if mark is not None else ""
        raise ManifestError(f"manifest file {str(path)!r}: {where}not valid YAML: "
                            f"{getattr(e, 'problem', None) or e}") from None
    manifests = _flatten(documents)
    if not manifests:
        raise ManifestError(f"manifest file {str(path)!r} holds no manifest")
    try:
        return [check_manifest(m, i) for i, m in enumerate(manifests)]
    except ManifestError as e:
        raise ManifestError(f"manifest file {str(path)!r}: {e}", e.index) from None


def is_manifest_file(path: str | Path) -> bool:
    """Whether a YAML file holds Kubernetes manifests (each document a mapping with ``apiVersion``
    and ``kind``, none with ``ops``) rather than a scenario: a scenario's manifests may sit beside
    it, and a directory run leaves them out. A file that cannot be read or parsed is no manifest
    file (the scenario loader then says what is wrong with it)."""
    try:
        documents = [d for d in yaml.safe_load_all(Path(path).read_text()) if d is not None]
    except (OSError, UnicodeDecodeError, yaml.YAMLError):
        return False
    return bool(documents) and all(isinstance(d, dict) and "apiVersion" in d and "kind" in d and "ops" not in d
                                   for d in documents)


def defined_kinds(crd: Obj) -> set[tuple[str, str]]:
    """``(apiVersion, kind)`` of each version a CustomResourceDefinition manifest serves."""
    spec: Obj = crd["spec"] if isinstance(crd.get("spec"), dict) else {}
    names: Obj = spec["names"] if isinstance(spec.get("names"), dict) else {}
    group, kind = spec.get("group"), names.get("kind")
    if not isinstance(group, str) or not isinstance(kind, str):
        return set()
    return {(f"{group}/{v['name']}", kind) for v in spec.get("versions") or []
            if isinstance(v, dict) and isinstance(v.get("name"), str) and v.get("served", True)}


_BUILT_IN = built_in_kinds()  # served by default, or through --runtime-config (PodGroup)


def check_kinds(manifests: Iterable[Obj], custom: set[tuple[str, str]]) -> None:
    """Each manifest's kind is built in or in ``custom`` (``(apiVersion, kind)`` of CRDs created
    before it), which grows by the CRDs among ``manifests``; :class:`ManifestError` otherwise."""
    for index, manifest in enumerate(manifests):
        api_version, kind = manifest["apiVersion"], manifest["kind"]
        group, _ = split_api_version(api_version)
        if (group, kind) not in _BUILT_IN and (api_version, kind) not in custom:
            versions = sorted(v for v, k in custom if k == kind and split_api_version(v)[0] == group)
            hint = (f"; its CustomResourceDefinition serves it at {', '.join(versions)}" if versions else
                    "; create its CustomResourceDefinition before it")
            raise ManifestError(f"{_what(index, manifest)}: unknown kind {kind!r} of {api_version}: neither a built-in "
                                f"kind nor one defined by a CustomResourceDefinition created earlier{hint}", index)
        if api_version == CRD_API_VERSION and kind == CRD_KIND:
            custom |= defined_kinds(manifest)
