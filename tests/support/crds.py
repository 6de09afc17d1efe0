"""CustomResourceDefinitions for the tests of the fake's apiextensions: the bodies (:func:`crd`, a
version, an object schema), what the fake's CRD rules answer to a create or an update called as the
store calls them (:func:`fake_create`, :func:`fake_update`), and a plain client of a real
kube-apiserver's CRDs (:class:`CrdClient`) whose answers :func:`answer_of` puts in the same form.
What kube-apiserver v1.37.2 answered is kept in ``tests/data/apiextensions/``."""

from __future__ import annotations

import base64
import copy
import json
import ssl
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import pytest
import yaml

from fake_apiserver._machinery.errors import Invalid
from fake_apiserver._machinery.kindspec import KindSpec
from fake_apiserver._registry import meta as object_meta
from fake_apiserver._registry.apiextensions.customresourcedefinition import KIND as CRD_KIND
from fake_apiserver._registry.apiextensions.customresourcedefinition.naming import names_status
from fake_apiserver._registry.apiextensions.customresourcedefinition.strategy import CustomResourceDefinitionStrategy
from harness._backends.envtest import ASSETS_VARIABLE, envtest_unavailable
from tests.support.paths import TEST_DATA

__all__ = ["DATA", "LATER", "NOW", "SPEC", "CrdClient", "Obj", "answer_of", "crd", "established", "fake_create",
           "fake_update", "needs_binaries", "obj", "version", "without_times"]

DATA = TEST_DATA / "apiextensions"
NOW = "2026-01-01T00:00:00Z"
LATER = "2026-01-01T00:01:00Z"
SPEC = KindSpec("apiextensions.k8s.io", "v1", "customresourcedefinitions", "CustomResourceDefinition", False,
                "customresourcedefinition", short_names=("crd", "crds"), subresources=("status",),
                categories=("api-extensions",))
needs_binaries = pytest.mark.skipif(
    envtest_unavailable() is not None,
    reason=f"set {ASSETS_VARIABLE} to a directory holding etcd and kube-apiserver (setup-envtest use -p path)")

Obj = dict[str, Any]


def crd(plural: str = "widgets", group: str = "example.com", kind: str = "Widget", *, scope: str = "Namespaced",
        schema: Any = None, versions: Any = None, name: str | None = None, names: Obj | None = None, **spec: Any) -> Obj:
    version = {"name": "v1", "served": True, "storage": True,
               "schema": {"openAPIV3Schema": schema if schema is not None else {"type": "object"}}}
    body: Obj = {
        "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
        "metadata": {"name": name if name is not None else f"{plural}.{group}"},
        "spec": {"group": group, "names": names if names is not None else {"plural": plural, "kind": kind},
                 "scope": scope, "versions": versions if versions is not None else [version], **spec},
    }
    return body


def version(name: str, storage: bool = False, **extra: Any) -> Obj:
    return {"name": name, "served": True, "storage": storage,
            "schema": {"openAPIV3Schema": {"type": "object"}}, **extra}


def obj(**props: Any) -> Obj:
    return {"type": "object", "properties": props}


def _strategy() -> CustomResourceDefinitionStrategy:
    strategy = CRD_KIND.strategy
    assert strategy is not None
    built = strategy(SPEC, None)  # type: ignore[arg-type]  # the CRD strategy reads no options
    assert isinstance(built, CustomResourceDefinitionStrategy)
    built.use(CRD_KIND)
    return built


def _refusal(error: Invalid) -> Obj:
    status = error.to_status()
    return {"code": status["code"], "message": status["message"], "causes": status["details"]["causes"]}


def fake_create(body: Obj) -> tuple[Obj, Obj | None]:
    """What the rules answer to a POST of ``body``: the answer as captured (code and message and
    causes, or code, spec and status), and the object created."""
    obj = copy.deepcopy(body)
    strategy = _strategy()
    strategy.default(obj)  # as the store does right after decoding
    strategy.prepare_for_create(obj, NOW)
    errors = object_meta.validate_object_meta(SPEC, obj, create=True) + strategy.validate_create(obj)
    try:
        object_meta.check(SPEC, obj["metadata"].get("name") or "", errors)
    except Invalid as error:
        return _refusal(error), None
    return {"code": 201, "spec": obj["spec"], "status": obj["status"]}, obj


def fake_update(old: Obj, new: Obj, *, status: bool) -> tuple[Obj, Obj | None]:
    """What the rules answer to a PUT of ``new`` over ``old`` (through ``/status`` when ``status``)."""
    obj = copy.deepcopy(new)
    strategy = _strategy()
    strategy.default(obj)  # as the store does right after decoding
    if status:
        strategy.prepare_for_status_update(obj, old, NOW)
        errors = strategy.validate_status_update(obj, old)
    else:
        strategy.prepare_for_update(obj, old)
        errors = strategy.validate_update(obj, old)
    if obj["metadata"] != old["metadata"]:
        errors = object_meta.validate_object_meta(SPEC, obj, create=False, old=old) + errors
    try:
        object_meta.check(SPEC, obj["metadata"]["name"], errors)
    except Invalid as error:
        return _refusal(error), None
    answer = {"code": 200, "metadata": {k: obj["metadata"].get(k) for k in ("generation", "labels", "finalizers")},
              "spec": obj["spec"], "status": obj["status"]}
    return answer, obj


def without_times(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: without_times(v) for k, v in value.items() if k != "lastTransitionTime"}
    if isinstance(value, list):
        return [without_times(v) for v in value]
    return value


def established(body: Obj, others: list[Obj] = []) -> Obj:  # noqa: B006  # never mutated
    answer, obj = fake_create(body)
    assert obj is not None, answer
    obj["status"] = names_status(obj, others, NOW)
    return obj


class CrdClient:
    """Plain HTTPS to the envtest server, with the kubeconfig's CA and token."""

    BASE = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions"

    def __init__(self, kubeconfig: Path, tmp: Path) -> None:
        config = yaml.safe_load(kubeconfig.read_text())
        cluster = config["clusters"][0]["cluster"]
        self.url = cluster["server"]
        self.token = config["users"][0]["user"]["token"]
        ca = tmp / "ca.pem"
        ca.write_bytes(base64.b64decode(cluster["certificate-authority-data"]))
        self.context = ssl.create_default_context(cafile=str(ca))

    def request(self, method: str, path: str, body: Obj | None = None) -> tuple[int, Obj]:
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(self.url + self.BASE + path, data=data, method=method, headers={
            "Authorization": "Bearer " + self.token, "Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(request, context=self.context, timeout=30) as answer:
                return answer.status, json.loads(answer.read())
        except urllib.error.HTTPError as error:
            return error.code, json.loads(error.read())

    def settled(self, name: str) -> Obj:
        """The CRD once its controllers have written its status (Established, or names refused)."""
        for _ in range(150):
            _, obj = self.request("GET", "/" + name)
            conditions = {c["type"]: c["status"] for c in (obj.get("status") or {}).get("conditions") or []}
            if conditions.get("Established") == "True" or conditions.get("NamesAccepted") == "False":
                return obj
            time.sleep(0.1)  # polling a real server's controllers, not timing anything
        raise AssertionError(f"{name} was not settled: {obj.get('status')}")


def answer_of(code: int, body: Obj, keys: tuple[str, ...]) -> Obj:
    if code >= 300:
        return {"code": code, "message": body.get("message"), "causes": (body.get("details") or {}).get("causes")}
    out: Obj = {"code": code, **{k: body.get(k) for k in keys}}
    if "metadata" in out:
        out["metadata"] = {k: body["metadata"].get(k) for k in ("generation", "labels", "finalizers")}
    return out
