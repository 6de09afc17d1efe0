"""Generate ``fake_apiserver/data/openapi-enums-v1.NN.json``: every ``enum`` of a kube-apiserver
release's OpenAPI definitions, with the description beside it, as the real server serves them.

Usage::

    python tools/gen_openapi_enums.py ASSETS [ASSETS ...] [--out-dir DIR]

Each ``ASSETS`` is a directory holding ``kube-apiserver`` and ``etcd`` of one release, as
``schedharness k8s build 1.NN`` makes it. The script starts them with the project's envtest
control plane (:class:`harness._backends.envtest.ControlPlane`) with ``--runtime-config=api/all=true``
and the feature gates ``AllAlpha`` and ``AllBeta`` on, so that every group-version the release has
is served and documented, reads every OpenAPI v3 document that ``/openapi/v3`` lists and the v2
document (``/openapi/v2``, JSON), and writes one file per release into ``DIR`` (default:
``fake_apiserver/data``).

The schema package the fake builds its documents from has neither of what the server's generated
OpenAPI has for an enum-typed string field (a Go string type marked ``+enum``): the ``enum`` list,
and the description ending in ``Possible enum values:`` with one line per value; ``kubectl
explain`` prints both. A file maps each definition to the JSON pointers (RFC 6901, inside the
definition) of its nodes that carry an ``enum`` — a property (``/properties/preemptionPolicy``),
the items of an array property (``/properties/policyTypes/items``) or the values of a map
property (``.../additionalProperties``); wherever one is, the walk finds it — each with its
``enum`` list and its ``description`` (absent where the node has none: an array's items carry no
description, the array property does). The v2 and v3 documents of the releases generated so far
agree on every such node; where they do not, the node's v2 form is written under ``v2`` too (and
only then). A node that two v3 documents give differently stops the script.

The output is sorted and deterministic (same binary, same bytes). It is committed; this script is
not packaged, and ``tests/fake_apiserver/_endpoints/test_openapi.py`` checks the committed data
against the generator's output where a release build is at hand.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import urllib.request
from pathlib import Path
from typing import Any, Iterator

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from harness._backends.envtest import ControlPlane, find_assets  # noqa: E402

__all__ = ["enum_nodes", "enums_of", "main", "read_documents", "render", "tabulate"]

DATA = Path(__file__).resolve().parents[1] / "fake_apiserver" / "data"
RUNTIME_CONFIG = "api/all=true"
FEATURE_GATES = {"AllAlpha": True, "AllBeta": True}

Nodes = dict[str, dict[str, dict[str, Any]]]  # definition -> JSON pointer -> {"enum", "description"}


def read_documents(url: str, token: str, context: Any) -> tuple[dict[str, Any], dict[str, Any]]:
    """Every v3 document ``/openapi/v3`` lists (by its name there) and the v2 document."""
    def get(path: str) -> Any:
        request = urllib.request.Request(url + path, headers={"Authorization": f"Bearer {token}",
                                                              "Accept": "application/json"})
        with urllib.request.urlopen(request, context=context, timeout=120) as answer:
            return json.loads(answer.read())

    root = get("/openapi/v3")
    v3 = {name: get(entry["serverRelativeURL"]) for name, entry in sorted(root["paths"].items())}
    return v3, get("/openapi/v2")


def _escape(token: str) -> str:
    return token.replace("~", "~0").replace("/", "~1")


def enum_nodes(node: Any, pointer: str = "") -> Iterator[tuple[str, dict[str, Any]]]:
    """Every object inside ``node`` that has an ``enum`` list, with its JSON pointer."""
    if isinstance(node, dict):
        if isinstance(node.get("enum"), list):
            yield pointer, node
        for key, value in node.items():
            if key != "enum":
                yield from enum_nodes(value, f"{pointer}/{_escape(key)}")
    elif isinstance(node, list):
        for index, value in enumerate(node):
            yield from enum_nodes(value, f"{pointer}/{index}")


def _entry(node: dict[str, Any]) -> dict[str, Any]:
    entry: dict[str, Any] = {"enum": node["enum"]}
    if "description" in node:
        entry["description"] = node["description"]
    return entry


def tabulate(definitions: dict[str, Any]) -> Nodes:
    """The enum nodes of a name -> schema mapping, by definition and pointer."""
    out: Nodes = {}
    for name, schema in definitions.items():
        for pointer, node in enum_nodes(schema):
            out.setdefault(name, {})[pointer] = _entry(node)
    return out


def _v3_nodes(documents: dict[str, Any]) -> Nodes:
    out: Nodes = {}
    for doc_name, document in documents.items():
        found = tabulate(document.get("components", {}).get("schemas", {}))
        for name, nodes in found.items():
            for pointer, entry in nodes.items():
                seen = out.setdefault(name, {}).setdefault(pointer, entry)
                if seen != entry:
                    raise SystemExit(f"gen_openapi_enums: {name}{pointer} differs in {doc_name}")
        for pointer, _ in enum_nodes(document.get("paths", {})):
            raise SystemExit(f"gen_openapi_enums: an enum outside the schemas of {doc_name}: {pointer}")
    return out


def _server_version(assets: Path) -> str:
    out = subprocess.run([str(assets / "kube-apiserver"), "--version"], capture_output=True, text=True, check=True)
    return out.stdout.strip().rsplit(" ", 1)[-1]  # "Kubernetes v1.37.2"


def enums_of(assets: Path) -> dict[str, Any]:
    """The enum data of the kube-apiserver in ``assets``, as the committed file holds it."""
    version = _server_version(assets)
    with tempfile.TemporaryDirectory(prefix="gen-openapi-enums-") as logs:
        with ControlPlane(assets=assets, logdir=Path(logs), runtime_config=RUNTIME_CONFIG,
                          feature_gates=FEATURE_GATES) as plane:
            v3, v2 = read_documents(*plane.access())
    v3_nodes = _v3_nodes(v3)
    v2_nodes = tabulate(v2.get("definitions", {}))
    for pointer, _ in enum_nodes(v2.get("paths", {})):
        raise SystemExit(f"gen_openapi_enums: an enum outside the v2 definitions: {pointer}")
    v2_only: Nodes = {}
    for name in sorted(set(v3_nodes) | set(v2_nodes)):
        for pointer, entry in v2_nodes.get(name, {}).items():
            if v3_nodes.get(name, {}).get(pointer) != entry:
                v2_only.setdefault(name, {})[pointer] = entry
    data: dict[str, Any] = {
        "about": f"The enums of the OpenAPI definitions of kube-apiserver {version} (all group-versions served), "
                 "generated by tools/gen_openapi_enums.py; do not edit.",
        "kubernetes": version,
        "definitions": v3_nodes,
    }
    if v2_only:
        data["v2"] = v2_only
    return data


def render(data: dict[str, Any]) -> str:
    """The file's text: sorted keys, one level of indentation."""
    return json.dumps(data, indent=1, sort_keys=True, ensure_ascii=False) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("assets", nargs="+", type=Path, help="a `schedharness k8s build` directory")
    parser.add_argument("--out-dir", type=Path, default=DATA)
    args = parser.parse_args(argv)
    for assets in args.assets:
        data = enums_of(find_assets(assets))
        minor = ".".join(data["kubernetes"].lstrip("v").split(".")[:2])
        out = args.out_dir / f"openapi-enums-v{minor}.json"
        text = render(data)
        out.write_text(text)
        count = sum(len(nodes) for nodes in data["definitions"].values())
        print(f"{out}: {count} enums in {len(data['definitions'])} definitions, "
              f"{len(data.get('v2', {}))} differing in v2, {len(text.encode())} bytes ({data['kubernetes']})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
