"""Generate ``fake_apiserver/data/discovery-v1.NN.json``: every resource a kube-apiserver of a
release serves by default, as its aggregated discovery describes it.

Usage::

    python tools/gen_discovery.py ASSETS [ASSETS ...] [--out-dir DIR]

Each ``ASSETS`` is a directory holding ``kube-apiserver`` and ``etcd`` of one release, as
``schedharness k8s build 1.NN`` makes it (its last line of output is the directory). The script
starts them with the project's envtest control plane (:class:`harness._backends.envtest.ControlPlane`:
default API groups and versions, no ``--runtime-config``, no feature gate changed), reads the
aggregated discovery documents of ``/api`` and ``/apis`` (``apidiscovery.k8s.io/v2``, what kubectl
reads first), and writes one file per release into ``DIR`` (default: ``fake_apiserver/data``).
Two more starts list every resource the release can serve (``--runtime-config=api/all=true``, with
the default gates and with every alpha and beta gate on), for the fake's ``--runtime-config``.

What a row of the kind table needs and the release's schemas do not say is here: the plural
resource name, the scope, the singular name, the verbs, short names, categories and
subresources (with the kinds they take and answer). The output keeps the server's order, which
is the order ``kubectl api-resources`` prints, and is deterministic (same binary, same bytes). It
is committed; this script is not packaged, and
``tests/fake_apiserver/_registry/test_discovery_data.py`` checks the committed data against a real
kube-apiserver where one is at hand.
"""

from __future__ import annotations

import argparse
import base64
import json
import ssl
import subprocess
import sys
import tempfile
import urllib.request
from pathlib import Path
from typing import Any

import yaml

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from harness._backends.envtest import ControlPlane, find_assets  # noqa: E402

__all__ = ["discovery_of", "every_resource", "kubeconfig_client", "main", "normalise", "read_discovery"]

ACCEPT = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList"
DATA = Path(__file__).resolve().parents[1] / "fake_apiserver" / "data"


def kubeconfig_client(kubeconfig: Path) -> tuple[str, dict[str, str], ssl.SSLContext]:
    """The server of a kubeconfig (its first cluster), the headers that authenticate to it (its
    first user's bearer token) and the TLS context that trusts its certificate authority."""
    config = yaml.safe_load(kubeconfig.read_text())
    cluster = config["clusters"][0]["cluster"]
    user = config["users"][0]["user"]
    context = ssl.create_default_context(cadata=base64.b64decode(cluster["certificate-authority-data"]).decode())
    return cluster["server"], {"Authorization": f"Bearer {user['token']}"}, context


def read_discovery(kubeconfig: Path) -> dict[str, Any]:
    """The aggregated discovery lists of ``/api`` and ``/apis`` of the kubeconfig's server."""
    server, headers, context = kubeconfig_client(kubeconfig)
    lists = {}
    for root in ("/api", "/apis"):
        request = urllib.request.Request(server + root, headers={"Accept": ACCEPT, **headers})
        with urllib.request.urlopen(request, context=context, timeout=30) as answer:
            content_type = answer.headers.get("Content-Type", "")
            if "apidiscovery.k8s.io" not in content_type or "v=v2" not in content_type:
                raise SystemExit(f"gen_discovery: {root} answered {content_type!r}, not aggregated discovery v2")
            lists[root] = json.loads(answer.read())
    return lists


def _kind(ref: dict[str, Any] | None) -> dict[str, str]:
    ref = ref or {}
    return {"group": ref.get("group", ""), "version": ref.get("version", ""), "kind": ref.get("kind", "")}


def normalise(lists: dict[str, Any]) -> list[dict[str, Any]]:
    """The groups, versions and resources of the two lists, in the server's order, each resource
    with what a kind table row needs (empty lists and absent fields written out, so that every
    resource has the same keys)."""
    groups = []
    for root in ("/api", "/apis"):
        for group in lists[root].get("items") or []:
            versions = []
            for version in group.get("versions") or []:
                resources = []
                for r in version.get("resources") or []:
                    resources.append({
                        "resource": r["resource"],
                        "kind": r.get("responseKind", {}).get("kind", ""),
                        "scope": r["scope"],
                        "singular": r.get("singularResource", ""),
                        "verbs": list(r.get("verbs") or []),
                        "shortNames": list(r.get("shortNames") or []),
                        "categories": list(r.get("categories") or []),
                        "subresources": [
                            {"subresource": s["subresource"], "responseKind": _kind(s.get("responseKind")),
                             "verbs": list(s.get("verbs") or [])}
                            for s in r.get("subresources") or []
                        ],
                    })
                versions.append({"version": version["version"], "resources": resources})
            groups.append({"group": group.get("metadata", {}).get("name", ""), "versions": versions})
    return groups


def _server_version(assets: Path) -> str:
    out = subprocess.run([str(assets / "kube-apiserver"), "--version"], capture_output=True, text=True, check=True)
    return out.stdout.strip().rsplit(" ", 1)[-1]  # "Kubernetes v1.37.2"


ALL_ON = {"AllAlpha": True, "AllBeta": True}
"""The gates of the run that lists every resource the release can serve."""


def _run(assets: Path, *, runtime_config: str = "", feature_gates: dict[str, bool] | None = None) -> list[dict[str, Any]]:
    with tempfile.TemporaryDirectory(prefix="gen-discovery-") as logs:
        plane = ControlPlane(assets=assets, logdir=Path(logs), feature_gates=feature_gates or {},
                             runtime_config=runtime_config)
        kubeconfig = plane.start()
        try:
            return normalise(read_discovery(kubeconfig))
        finally:
            plane.stop()


def _keys(groups: list[dict[str, Any]]) -> set[tuple[str, str, str]]:
    return {(g["group"], v["version"], r["resource"]) for g in groups for v in g["versions"] for r in v["resources"]}


def every_resource(assets: Path, default: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Every resource the release can serve, in the server's order: what ``--runtime-config=api/all=true``
    with every alpha and beta gate on lists, each resource marked ``default`` (served with the
    default groups, versions and gates) and ``gated`` (not served with ``api/all=true`` and the
    default gates: a feature gate, which discovery does not name, decides)."""
    served, ungated = _keys(default), _keys(_run(assets, runtime_config="api/all=true"))
    groups = _run(assets, runtime_config="api/all=true", feature_gates=ALL_ON)
    for group in groups:
        for version in group["versions"]:
            for r in version["resources"]:
                key = (group["group"], version["version"], r["resource"])
                r["default"], r["gated"] = key in served, key not in ungated
    missing = served - _keys(groups)
    if missing:
        raise SystemExit(f"gen_discovery: served by default but not with api/all=true: {sorted(missing)}")
    return groups


def discovery_of(assets: Path) -> dict[str, Any]:
    """The discovery data of the kube-apiserver in ``assets``, as the committed file holds it."""
    version = _server_version(assets)
    groups = _run(assets)
    return {
        "about": f"Aggregated discovery of kube-apiserver {version} with its default API groups and versions "
                 "(groups), and of every resource it can serve (all: --runtime-config=api/all=true with every "
                 "alpha and beta gate on), generated by tools/gen_discovery.py; do not edit.",
        "kubernetes": version,
        "groups": groups,
        "all": every_resource(assets, groups),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("assets", nargs="+", type=Path, help="a `schedharness k8s build` directory")
    parser.add_argument("--out-dir", type=Path, default=DATA)
    args = parser.parse_args(argv)
    for assets in args.assets:
        data = discovery_of(find_assets(assets))
        minor = ".".join(data["kubernetes"].lstrip("v").split(".")[:2])
        out = args.out_dir / f"discovery-v{minor}.json"
        out.write_text(json.dumps(data, indent=1) + "\n")
        count = sum(len(v["resources"]) for g in data["groups"] for v in g["versions"])
        print(f"{out}: {count} resources in {len(data['groups'])} groups ({data['kubernetes']})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
