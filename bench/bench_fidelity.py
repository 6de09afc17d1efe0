"""Status-code fidelity of the fake API server against a real kube-apiserver:
``python bench/bench_fidelity.py --kubeconfig PATH``.

A measurement tool, not a test: it needs a real kube-apiserver (the kubeconfig's current
context: server, bearer token, TLS settings). It starts the fake in this process
(:class:`fake_apiserver.FakeApiServer` on loopback), generates a seeded corpus of malformed and
edge-case requests across the served kinds (bad query parameters, bad names, bad patches of each
patch type, wrong-typed fields, bad bodies, random bytes, invalid selectors, invalid
``DeleteOptions``, invalid objects, bad routes) and sends each request to both servers. Every
request gets a namespace of its own on both sides (``fid-<run>-<n>``), created first together
with the objects the request needs (a pod to patch, a ConfigMap to get ...), so both servers start
from the same state; cluster-scoped objects get names carrying the same prefix.

It prints how often the status codes agree, overall and per category, every disagreeing case
(method, path, body summary, both codes, both messages) and, apart, the writes the real server
refused that the fake answered 2xx, i.e. stored. ``--json PATH`` writes every case and both
answers. Afterwards the run's namespaces and cluster-scoped objects are deleted from the real
server (a namespace is finalized by hand: the real server used here runs no namespace
controller).

A watch is read only until its status line: the code is what is compared, and both servers'
streams differ in timing. The generator is deterministic for a seed, so two runs of the same
seed send the same requests (names differ only in the run prefix).
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import json
import random
import re
import ssl
import sys
import time
from collections import Counter, defaultdict
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Callable

import aiohttp
import yaml

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from fake_apiserver import FakeApiServer  # noqa: E402
from fake_apiserver import KINDS, KindSpec  # noqa: E402
from fake_apiserver import served_release as release  # noqa: E402

__all__ = ["Case", "generate", "main"]

Obj = dict[str, Any]

JSON = "application/json"
MERGE = "application/merge-patch+json"
STRATEGIC = "application/strategic-merge-patch+json"
JSON_PATCH = "application/json-patch+json"
APPLY = "application/apply-patch+yaml"
WATCH_READ_TIMEOUT = 10.0  # seconds to wait for a watch's status line
REQUEST_TIMEOUT = 30.0


@dataclass
class Case:
    """One request, sent the same way to both servers. ``path`` and ``body`` carry ``{ns}``
    (the case's namespace) and ``{px}`` (the case's name prefix for cluster-scoped objects),
    filled in per side; ``setup`` is created first (kind resource path, body)."""

    category: str
    method: str
    path: str
    query: list[tuple[str, str]] = field(default_factory=list)
    body: bytes | None = None
    content_type: str = JSON
    setup: list[tuple[str, Obj]] = field(default_factory=list)
    note: str = ""

    def summary(self) -> str:
        if self.body is None:
            return "-"
        text = self.body[:90].decode("utf-8", errors="replace")
        return f"{self.content_type} {text!r}" + (" ..." if len(self.body) > 90 else "")


@dataclass
class Answer:
    code: int
    message: str


# --- what the corpus is made of -------------------------------------------------------------

POD_SPEC: Obj = {"containers": [{"name": "c", "image": "busybox"}]}
TEMPLATE: Obj = {"metadata": {"labels": {"app": "a"}}, "spec": POD_SPEC}
CLAIM_SPEC: Obj = {"devices": {"requests": [{"name": "r", "exactly": {"deviceClassName": "dc"}}]}}


def valid_body(spec: KindSpec, name: str) -> Obj:
    """A minimal object of ``spec`` that the real server accepts (checked by the ``valid``
    category of the corpus)."""
    body: Obj = {"apiVersion": spec.api_version, "kind": spec.kind, "metadata": {"name": name}}
    extra: dict[str, Obj] = {
        "Pod": {"spec": POD_SPEC},
        "Event": ({"involvedObject": {"kind": "Pod", "name": "p", "namespace": "{ns}"}, "reason": "R",
                   "message": "m", "type": "Normal"} if spec.group == "" else
                  {"eventTime": "2024-01-01T00:00:00.000000Z", "reportingController": "x",
                   "reportingInstance": "y", "action": "A", "reason": "R", "type": "Normal",
                   "regarding": {"kind": "Pod", "name": "p", "namespace": "{ns}"}}),
        "Service": {"spec": {"ports": [{"port": 80}]}},
        "ReplicationController": {"spec": {"selector": {"app": "a"}, "template": TEMPLATE}},
        "PersistentVolume": {"spec": {"capacity": {"storage": "1Gi"}, "accessModes": ["ReadWriteOnce"],
                                      "hostPath": {"path": "/tmp"}}},
        "PersistentVolumeClaim": {"spec": {"accessModes": ["ReadWriteOnce"],
                                           "resources": {"requests": {"storage": "1Gi"}}}},
        "ConfigMap": {"data": {"k": "v"}},
        "ReplicaSet": {"spec": {"selector": {"matchLabels": {"app": "a"}}, "template": TEMPLATE}},
        "StatefulSet": {"spec": {"selector": {"matchLabels": {"app": "a"}}, "template": TEMPLATE}},
        "PodDisruptionBudget": {"spec": {"minAvailable": 1, "selector": {"matchLabels": {"app": "a"}}}},
        "StorageClass": {"provisioner": "example.com/x"},
        "CSINode": {"spec": {"drivers": []}},
        "CSIDriver": {"spec": {}},
        "CSIStorageCapacity": {"storageClassName": "sc"},
        "VolumeAttachment": {"spec": {"attacher": "a", "nodeName": "n",
                                      "source": {"persistentVolumeName": "pv"}}},
        "Lease": {"spec": {"holderIdentity": "h"}},
        "ResourceClaim": {"spec": CLAIM_SPEC},
        "ResourceClaimTemplate": {"spec": {"spec": CLAIM_SPEC}},
        "ResourceSlice": {"spec": {"driver": "d.example.com", "nodeName": "n",
                                   "pool": {"name": "p", "generation": 1, "resourceSliceCount": 1}}},
        "DeviceClass": {"spec": {}},
        "PriorityClass": {"value": 100},
        "Node": {},
        "Namespace": {},
    }
    body.update(json.loads(json.dumps(extra.get(spec.kind, {}))))
    return body


def collection_path(spec: KindSpec) -> str:
    root = f"/apis/{spec.group}/{spec.version}" if spec.group else "/api/v1"
    return f"{root}/namespaces/{{ns}}/{spec.resource}" if spec.namespaced else f"{root}/{spec.resource}"


def object_name(spec: KindSpec, name: str) -> str:
    """A name for an object of ``spec`` in a case: cluster-scoped ones carry the case prefix."""
    return name if spec.namespaced else f"{{px}}-{name}"


SPECS = [k for k in KINDS if k.kind != "Namespace"]
SIMPLE = [k for k in SPECS if k.kind in ("ConfigMap", "Pod", "Lease", "Service", "PriorityClass", "Node",
                                         "ResourceClaim", "ReplicaSet", "PodDisruptionBudget", "StorageClass")]


def seeded(spec: KindSpec, name: str = "obj") -> tuple[str, str, list[tuple[str, Obj]]]:
    """The collection path, the object path and the setup that creates it."""
    oname = object_name(spec, name)
    coll = collection_path(spec)
    return coll, f"{coll}/{oname}", [(coll, valid_body(spec, oname))]


def dumps(value: Any) -> bytes:
    return json.dumps(value).encode()


Gen = Callable[[random.Random], Case]

_RV_VALUES = ["abc", "-1", "1.5", "0x10", " 1", "99999999999999", "18446744073709551616", "", "0", "1", "+5"]
_INT_VALUES = ["abc", "-1", "1.5", "", "0", "10", "99999999999999999999", "1e3", " 5", "+3"]
_BOOL_VALUES = ["abc", "true", "false", "1", "0", "", "TRUE", "yes"]
_LABEL_SELECTORS = ["a===b", "a in (b", "!", "a,", "a=b,c!=", "a=b c", "-a=b", "a=" + "b" * 64,
                    "a notin ()", "a in (b,c)", "x/y/z=1", "a>1", "a<b", "a=b", "a!=b,!c", "a=%", "A_b.c=d"]
_FIELD_SELECTORS = ["foo=bar", "metadata.name=x", "metadata.name==x", "metadata.name!=x", "metadata.name",
                    "metadata.name=x,", "status.phase=Running", "spec.nodeName=n", "metadata.namespace=y",
                    "metadata.name in (x)", "a=b=c", "metadata.name=x\\", "metadata.uid=u"]


def _list_query(rng: random.Random) -> list[tuple[str, str]]:
    key = rng.choice(["resourceVersion", "resourceVersionMatch", "limit", "timeoutSeconds", "continue",
                      "watch", "pretty", "allowWatchBookmarks", "sendInitialEvents", "labelSelector",
                      "fieldSelector", "resourceVersion+match", "limit+continue", "includeObject"])
    if key == "resourceVersion":
        return [(key, rng.choice(_RV_VALUES))]
    if key == "resourceVersionMatch":
        return [(key, rng.choice(["Exact", "NotOlderThan", "Bogus", "", "exact"]))]
    if key == "resourceVersion+match":
        return [("resourceVersion", rng.choice(_RV_VALUES)),
                ("resourceVersionMatch", rng.choice(["Exact", "NotOlderThan", "Bogus"]))]
    if key in ("limit", "timeoutSeconds"):
        return [(key, rng.choice(_INT_VALUES))]
    if key == "continue":
        token = rng.choice(["garbage", "", "eyJ2IjoibWV0YS5rOHMuaW8vdjEiLCJydiI6MSwic3RhcnQiOiJ4In0",
                            base64.urlsafe_b64encode(b'{"v":"meta.k8s.io/v1","rv":-5,"start":"a"}').decode(),
                            base64.urlsafe_b64encode(b'{"v":"bad","rv":1,"start":"a"}').decode(), "%%%"])
        return [(key, token)]
    if key == "limit+continue":
        return [("limit", rng.choice(["1", "-1", "abc"])), ("continue", rng.choice(["x", "", "abc"]))]
    if key == "labelSelector":
        return [(key, rng.choice(_LABEL_SELECTORS))]
    if key == "fieldSelector":
        return [(key, rng.choice(_FIELD_SELECTORS))]
    if key == "includeObject":
        return [(key, rng.choice(["None", "Object", "Bogus"]))]
    return [(key, rng.choice(_BOOL_VALUES))]


def gen_query_list(rng: random.Random) -> Case:
    spec = rng.choice(SPECS)
    coll, _, setup = seeded(spec)
    query = _list_query(rng)
    if rng.random() < 0.3:
        query += _list_query(rng)
    if any(k == "watch" for k, _ in query):
        query.append(("timeoutSeconds", "1"))
    return Case("query-list", "GET", coll, query, setup=setup if rng.random() < 0.5 else [])


def gen_query_watch(rng: random.Random) -> Case:
    spec = rng.choice(SPECS)
    coll, path, setup = seeded(spec)
    query = [("watch", rng.choice(["1", "true"]))] + _list_query(rng)
    if not any(k == "timeoutSeconds" for k, _ in query):
        query.append(("timeoutSeconds", "1"))
    return Case("query-watch", "GET", coll if rng.random() < 0.7 else path, query, setup=setup)


def gen_query_get(rng: random.Random) -> Case:
    spec = rng.choice(SPECS)
    _, path, setup = seeded(spec)
    key = rng.choice(["resourceVersion", "resourceVersionMatch", "limit", "pretty", "watch", "export",
                      "labelSelector", "fieldSelector", "includeObject"])
    values = {"resourceVersion": _RV_VALUES, "limit": _INT_VALUES, "labelSelector": _LABEL_SELECTORS,
              "fieldSelector": _FIELD_SELECTORS, "includeObject": ["Bogus", "None"],
              "resourceVersionMatch": ["Exact", "Bogus"]}.get(key, _BOOL_VALUES)
    query = [(key, rng.choice(values))]
    if key == "watch":
        query.append(("timeoutSeconds", "1"))
    if not rng.random() < 0.8:
        setup = []
    return Case("query-get", "GET", path, query, setup=setup)


def gen_query_write(rng: random.Random) -> Case:
    spec = rng.choice(SIMPLE)
    coll, path, setup = seeded(spec)
    key, value = rng.choice([("dryRun", "Foo"), ("dryRun", "All"), ("dryRun", ""), ("dryRun", "all"),
                             ("fieldManager", "x" * 129), ("fieldManager", "m\x01"), ("fieldManager", "ok"),
                             ("fieldValidation", "Bogus"), ("fieldValidation", "strict"),
                             ("pretty", "abc"), ("gracePeriodSeconds", "x"), ("force", "true"),
                             ("force", "abc"), ("propagationPolicy", "Bogus"), ("orphanDependents", "abc"),
                             ("gracePeriodSeconds", "-5"), ("gracePeriodSeconds", "1.5")])
    verb = rng.choice(["create", "update", "patch", "delete", "apply"])
    name = object_name(spec, "obj")
    if verb == "create":
        return Case("query-write", "POST", coll, [(key, value)], dumps(valid_body(spec, object_name(spec, "new"))))
    if verb == "update":
        return Case("query-write", "PUT", path, [(key, value)], dumps(valid_body(spec, name)), setup=setup)
    if verb == "patch":
        return Case("query-write", "PATCH", path, [(key, value)], b'{"metadata":{"labels":{"a":"b"}}}', MERGE,
                    setup=setup)
    if verb == "apply":
        query = [(key, value)] + ([("fieldManager", "m")] if key != "fieldManager" else [])
        return Case("query-write", "PATCH", path, query, dumps(valid_body(spec, name)), APPLY, setup=setup)
    return Case("query-write", "DELETE", path, [(key, value)], setup=setup)


_DNS_SUBDOMAIN = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*")
_BAD_NAMES = ["UPPER", "a_b", "-a", "a-", "a.b", "a..b", ".a", "a" * 64, "a" * 254, "a/b", "a%2Fb", "..", ".",
              "a b", "ä", "a:b", "1abc", "a" * 63, "a.b-c", "a@b", "%2E%2E", "a.", "a%00"]


def gen_names(rng: random.Random) -> Case:
    spec = rng.choice(SPECS + [k for k in KINDS if k.kind == "Namespace"])
    coll = collection_path(spec)
    bad = rng.choice(_BAD_NAMES)
    shape = rng.choice(["body", "body", "generateName", "put", "mismatch", "namespace", "empty"])
    bad_name = bad
    if not spec.namespaced and (rng.random() < 0.5 or _DNS_SUBDOMAIN.fullmatch(bad)):
        bad_name = f"{{px}}-{bad}"  # a name the real server may take must carry the case prefix
    body = valid_body(spec, bad_name)
    if shape == "generateName":
        del body["metadata"]["name"]
        body["metadata"]["generateName"] = bad_name if spec.namespaced else f"{{px}}-{bad}"
        return Case("names", "POST", coll, body=dumps(body))
    if shape == "put":
        if not spec.namespaced:
            bad_name = f"{{px}}-{bad}"
            body = valid_body(spec, bad_name)
        return Case("names", "PUT", f"{coll}/{bad_name}", body=dumps(body))
    if shape == "mismatch":
        good = object_name(spec, "obj")
        _, path, setup = seeded(spec)
        body = valid_body(spec, object_name(spec, "other"))
        return Case("names", rng.choice(["PUT", "PATCH"]), path, body=dumps(body),
                    content_type=JSON if rng.random() < 0.5 else MERGE, setup=setup, note=good)
    if shape == "namespace" and spec.namespaced:
        body["metadata"]["name"] = "ok"
        body["metadata"]["namespace"] = rng.choice(["other", "", "UPPER", "default"])
        return Case("names", "POST", coll, body=dumps(body))
    if shape == "empty":
        del body["metadata"]["name"]
        return Case("names", "POST", coll, body=dumps(body))
    return Case("names", "POST", coll, body=dumps(body))


def _patch_bodies(spec: KindSpec, name: str) -> list[tuple[str, bytes]]:
    return [
        (JSON_PATCH, b'[{"op":"add","path":"/metadata/labels","value":{"a":"b"}}]'),
        (JSON_PATCH, b'[{"op":"bogus","path":"/metadata/labels","value":{}}]'),
        (JSON_PATCH, b'[{"op":"replace","path":"/metadata/nope/x","value":1}]'),
        (JSON_PATCH, b'[{"op":"remove","path":"/metadata/labels/zz"}]'),
        (JSON_PATCH, b'[{"op":"test","path":"/metadata/name","value":"nope"}]'),
        (JSON_PATCH, b'[{"op":"add","path":"metadata","value":1}]'),
        (JSON_PATCH, b'[{"op":"move","from":"/metadata/x","path":"/metadata/y"}]'),
        (JSON_PATCH, b'[{"op":"copy","from":"/metadata/name","path":"/metadata/generateName"}]'),
        (JSON_PATCH, b'{"op":"add"}'),
        (JSON_PATCH, b'[{"path":"/a"}]'),
        (JSON_PATCH, b'[]'),
        (JSON_PATCH, b'[{"op":"replace","path":"/metadata/name","value":"renamed"}]'),
        (JSON_PATCH, b'[{"op":"replace","path":"/kind","value":"Other"}]'),
        (JSON_PATCH, b'[{"op":"add","path":"/metadata/labels","value":{"a":1}}]'),
        (JSON_PATCH, b'[{"op":"add","path":"/metadata/finalizers/-","value":"x"}]'),
        (JSON_PATCH, b'[{"op":"add","path":"/metadata/annotations/a~1b","value":"c"}]'),
        (JSON_PATCH, b'[{"op":"add","path":"/metadata/labels/a~2","value":"c"}]'),
        (MERGE, b'{"metadata":{"labels":{"a":"b"}}}'),
        (MERGE, b'[1,2]'),
        (MERGE, b'"x"'),
        (MERGE, b'null'),
        (MERGE, b'{"metadata":{"name":"renamed"}}'),
        (MERGE, b'{"metadata":{"labels":{"a":1}}}'),
        (MERGE, b'{"metadata":{"labels":{"bad key":"v"}}}'),
        (MERGE, b'{"metadata":{"uid":"other"}}'),
        (MERGE, b'{"metadata":{"resourceVersion":"1"}}'),
        (MERGE, b'{"metadata":{"resourceVersion":"abc"}}'),
        (MERGE, b'{"apiVersion":"v2"}'),
        (MERGE, b'{"kind":"Other"}'),
        (MERGE, b'{"metadata":null}'),
        (MERGE, b'{"metadata":{"creationTimestamp":"garbage"}}'),
        (MERGE, b'{"metadata":{"generation":-1}}'),
        (MERGE, b'{'),
        (MERGE, b''),
        (STRATEGIC, b'{"metadata":{"labels":{"a":"b"}}}'),
        (STRATEGIC, b'{"$patch":"delete"}'),
        (STRATEGIC, b'{"$patch":"replace"}'),
        (STRATEGIC, b'{"$patch":"bogus"}'),
        (STRATEGIC, b'{"metadata":{"finalizers":[{"$patch":"delete"}]}}'),
        (STRATEGIC, b'{"metadata":{"$setElementOrder/finalizers":["a"]}}'),
        (STRATEGIC, b'{"metadata":{"$deleteFromPrimitiveList/finalizers":"x"}}'),
        (STRATEGIC, b'{"metadata":{"$retainKeys":["labels"]}}'),
        (STRATEGIC, b'{"metadata":{"labels":[1]}}'),
        (STRATEGIC, b'[1]'),
        (STRATEGIC, b'{"spec":{"containers":[{"image":"x"}]}}'),
        (STRATEGIC, b'{"spec":{"containers":[{"name":"c","$patch":"delete"}]}}'),
        (STRATEGIC, b'{"spec":{"$setElementOrder/containers":[{"name":"zz"}]}}'),
        (STRATEGIC, b'{"status":{"conditions":[{"type":"Ready","status":"True"}]}}'),
        (APPLY, b'{"metadata":{"name":"%s"}}' % name.encode()),
        (APPLY, dumps(valid_body(spec, name))),
        (APPLY, b'apiVersion: v1\nkind: [\n'),
        (APPLY, b'- a\n- b\n'),
        (APPLY, b'{}'),
        (APPLY, b'kind: Bogus\napiVersion: v1\nmetadata:\n  name: x\n'),
        ("application/bogus", b'{}'),
        ("text/plain", b'{}'),
        ("application/json", b'{"metadata":{"labels":{"a":"b"}}}'),
        ("application/yaml", b'metadata: {}'),
        ("application/apply-patch+json", b'{}'),
        ("application/strategic-merge-patch+json; charset=utf-8", b'{"metadata":{}}'),
    ]


def gen_patch(rng: random.Random) -> Case:
    spec = rng.choice(SPECS)
    _, path, setup = seeded(spec)
    name = object_name(spec, "obj")
    content_type, body = rng.choice(_patch_bodies(spec, name))
    query: list[tuple[str, str]] = []
    if content_type == APPLY and rng.random() < 0.8:
        query.append(("fieldManager", "m"))
    if rng.random() < 0.1:
        path, setup = path.rsplit("/", 1)[0] + "/" + object_name(spec, "missing"), setup
    if spec.has_status and rng.random() < 0.25:
        path += "/status"
    return Case("patch", "PATCH", path, query, body, content_type, setup=setup)


_WRONG_VALUES: list[Any] = ["str", 1, -1, 1.5, True, None, [], {}, [1], {"a": 1}, "1Gi", 2**63, "2024-01-01"]

_FIELD_PATHS: dict[str, list[str]] = {
    "*": ["metadata", "metadata.labels", "metadata.annotations", "metadata.name", "metadata.finalizers",
          "metadata.ownerReferences", "metadata.generation", "metadata.creationTimestamp", "metadata.uid",
          "metadata.labels.a", "metadata.deletionGracePeriodSeconds", "metadata.managedFields", "apiVersion",
          "kind", "metadata.resourceVersion", "metadata.generateName"],
    "Pod": ["spec", "spec.containers", "spec.nodeName", "spec.priority", "spec.tolerations",
            "spec.terminationGracePeriodSeconds", "spec.schedulingGates", "status", "status.phase",
            "spec.containers.0.resources", "spec.containers.0.resources.requests.cpu", "spec.containers.0.name",
            "spec.containers.0.ports", "spec.nodeSelector", "spec.affinity", "spec.restartPolicy",
            "spec.containers.0.image", "spec.priorityClassName", "spec.activeDeadlineSeconds"],
    "ConfigMap": ["data", "data.k", "binaryData", "immutable"],
    "Lease": ["spec", "spec.holderIdentity", "spec.leaseDurationSeconds", "spec.acquireTime", "spec.leaseTransitions"],
    "Node": ["spec", "spec.taints", "spec.unschedulable", "status.capacity", "spec.podCIDR", "status.conditions"],
    "Service": ["spec.ports", "spec.ports.0.port", "spec.type", "spec.selector", "spec.clusterIP"],
    "PriorityClass": ["value", "globalDefault", "preemptionPolicy", "description"],
    "ReplicaSet": ["spec.replicas", "spec.selector", "spec.template", "spec.minReadySeconds"],
    "PodDisruptionBudget": ["spec.minAvailable", "spec.maxUnavailable", "spec.selector"],
    "ResourceClaim": ["spec.devices", "spec.devices.requests", "spec.devices.requests.0.name",
                      "spec.devices.requests.0.exactly", "spec.devices.requests.0.exactly.count",
                      "spec.devices.constraints", "spec.devices.requests.0.exactly.allocationMode"],
    "StorageClass": ["provisioner", "parameters", "reclaimPolicy", "allowVolumeExpansion", "volumeBindingMode"],
}


def set_path(obj: Obj, dotted: str, value: Any) -> None:
    parts = dotted.split(".")
    cur: Any = obj
    for part in parts[:-1]:
        if isinstance(cur, list):
            cur = cur[int(part)]
            continue
        if not isinstance(cur.get(part), (dict, list)):
            cur[part] = {}
        cur = cur[part]
    last = parts[-1]
    if isinstance(cur, list):
        cur[int(last)] = value
    else:
        cur[last] = value


def gen_types(rng: random.Random) -> Case:
    spec = rng.choice(SIMPLE)
    coll, path, setup = seeded(spec)
    name = object_name(spec, "obj" if rng.random() < 0.3 else "new")
    body = valid_body(spec, name)
    dotted = rng.choice(_FIELD_PATHS["*"] + _FIELD_PATHS.get(spec.kind, []))
    value = rng.choice(_WRONG_VALUES)
    if dotted == "metadata.name" and not isinstance(value, str):
        pass
    elif dotted == "metadata.name":
        value = 5
    set_path(body, dotted, value)
    if name.endswith("obj"):
        return Case("types", "PUT", path, body=dumps(body), setup=setup, note=dotted)
    return Case("types", "POST", coll, body=dumps(body), note=dotted)


def gen_bodies(rng: random.Random) -> Case:
    spec = rng.choice(SPECS)
    coll, path, setup = seeded(spec)
    name = object_name(spec, "new")
    good = valid_body(spec, name)
    choice = rng.randrange(17)
    method, target = ("PUT", path) if rng.random() < 0.25 else ("POST", coll)
    if method == "PUT":
        good["metadata"]["name"] = object_name(spec, "obj")
    ct = JSON
    if choice == 0:
        body = b""
    elif choice == 1:
        body = b"null"
    elif choice == 2:
        body = b"[]"
    elif choice == 3:
        body = b'"string"'
    elif choice == 4:
        body = b"{\"metadata\": "
    elif choice == 5:
        body = dumps({**good, "kind": "Other"})
    elif choice == 6:
        body = dumps({**good, "apiVersion": "v9"})
    elif choice == 7:
        body = dumps({**good, "apiVersion": "a/b/c"})
    elif choice == 8:
        body = dumps({**good, "kind": 5})
    elif choice == 9:
        other = rng.choice([k for k in SPECS if k is not spec])
        body = dumps(valid_body(other, name))
    elif choice == 10:
        body = yaml.safe_dump(good).encode()
        ct = "application/yaml"
    elif choice == 11:
        body = b"apiVersion: v1\nkind: [\n"
        ct = "application/yaml"
    elif choice == 12:
        body = dumps(good)
        ct = rng.choice(["application/vnd.kubernetes.protobuf", "text/plain", "application/cbor", "bogus",
                         "application/json; charset=latin1", ""])
    elif choice == 13:
        body = b"[" * 200 + b"]" * 200
    elif choice == 14:
        body = dumps({k: v for k, v in good.items() if k not in ("apiVersion", "kind")})
    elif choice == 15:
        body = dumps(good) + b" trailing"
    else:
        body = dumps(good)[:-1] + b', "metadata": {"name": "%s"}}' % object_name(spec, "dup").encode()
    return Case("bodies", method, target, body=body, content_type=ct, setup=setup if method == "PUT" else [])


def gen_random(rng: random.Random) -> Case:
    spec = rng.choice(SPECS)
    coll, path, setup = seeded(spec)
    body = bytes(rng.randrange(256) for _ in range(rng.randrange(1, 64)))
    if rng.random() < 0.3:
        body = b"{" + body
    method, target = rng.choice([("POST", coll), ("PUT", path), ("PATCH", path)])
    ct = rng.choice([JSON, MERGE, STRATEGIC, JSON_PATCH, APPLY, "application/yaml"])
    if method == "POST" and ct not in (JSON, "application/yaml"):
        ct = JSON
    if method == "PUT" and ct not in (JSON, "application/yaml"):
        ct = JSON
    if method == "PATCH" and ct in (JSON, "application/yaml"):
        ct = MERGE
    query = [("fieldManager", "m")] if ct == APPLY else []
    return Case("random", method, target, query, body, ct, setup=setup if method != "POST" else [])


def gen_selectors(rng: random.Random) -> Case:
    spec = rng.choice(SPECS)
    coll, _, setup = seeded(spec)
    key = rng.choice(["labelSelector", "fieldSelector"])
    value = rng.choice(_LABEL_SELECTORS if key == "labelSelector" else _FIELD_SELECTORS + [
        f"{f}=x" for f in spec.fields] + ["spec.nodeName=n", "involvedObject.name=x", "spec.unschedulable=abc"])
    method = rng.choice(["GET", "GET", "WATCH", "DELETE"])
    if not spec.namespaced and method == "DELETE":
        method = "GET"  # never a deletecollection outside the case's namespace: the real server is shared
    query = [(key, value)]
    if method == "WATCH":
        query += [("watch", "1"), ("timeoutSeconds", "1")]
        method = "GET"
    return Case("selectors", method, coll, query, setup=setup)


def gen_delete_options(rng: random.Random) -> Case:
    spec = rng.choice(SIMPLE)
    coll, path, setup = seeded(spec)
    bodies: list[Any] = [
        {"propagationPolicy": "Bogus"}, {"propagationPolicy": ""}, {"gracePeriodSeconds": "x"},
        {"gracePeriodSeconds": -1}, {"gracePeriodSeconds": 1.5}, {"dryRun": ["Foo"]}, {"dryRun": "All"},
        {"dryRun": ["All", "All"]}, {"preconditions": {"uid": "nope"}}, {"preconditions": {"resourceVersion": "1"}},
        {"preconditions": {"uid": 5}}, {"orphanDependents": True, "propagationPolicy": "Background"},
        {"orphanDependents": "x"}, {"kind": "Pod"}, {"kind": "DeleteOptions", "apiVersion": "v2"},
        {"apiVersion": "meta.k8s.io/v1", "kind": "DeleteOptions"}, {"bogus": 1}, [], "x", None,
        {"ignoreStoreReadErrorWithClusterBreakingPotential": True}, {"ignoreStoreReadErrorWithClusterBreakingPotential": "x"},
        {"propagationPolicy": "Foreground", "dryRun": ["All"]},
    ]
    if rng.random() < 0.3:
        query = [rng.choice([("gracePeriodSeconds", "abc"), ("propagationPolicy", "x"), ("orphanDependents", "x"),
                             ("dryRun", "x"), ("gracePeriodSeconds", "-3"), ("propagationPolicy", "Orphan"),
                             ("orphanDependents", "true")])]
        target = path if rng.random() < 0.7 or not spec.namespaced else coll
        return Case("delete-options", "DELETE", target, query, setup=setup)
    body = rng.choice(bodies)
    raw = b"x{" if rng.random() < 0.05 else dumps(body)
    target = path if rng.random() < 0.8 or not spec.namespaced else coll
    return Case("delete-options", "DELETE", target, body=raw, setup=setup)


def _invalid_objects(spec: KindSpec, name: str) -> list[tuple[str, Any]]:
    common: list[tuple[str, Any]] = [
        ("metadata.labels", {"bad key": "v"}), ("metadata.labels", {"a": "bad value!"}),
        ("metadata.labels", {"a": "x" * 64}), ("metadata.annotations", {"Bad_Key/x/y": "v"}),
        ("metadata.finalizers", ["bad finalizer"]), ("metadata.finalizers", ["noslash"]),
        ("metadata.ownerReferences", [{"apiVersion": "v1", "kind": "Pod", "name": "x", "uid": ""}]),
        ("metadata.ownerReferences", [{"apiVersion": "", "kind": "", "name": "", "uid": "u"}]),
        ("metadata.generateName", "Bad"), ("metadata.deletionGracePeriodSeconds", 5),
        ("metadata.annotations", {"a": "x" * 300000}),
    ]
    per_kind: dict[str, list[tuple[str, Any]]] = {
        "Pod": [("spec.containers", []), ("spec.containers.0.name", "Bad_Name"), ("spec.containers.0.image", ""),
                ("spec.containers.0.image", " busybox"), ("spec.restartPolicy", "Sometimes"),
                ("spec.containers.0.resources", {"requests": {"cpu": "2"}, "limits": {"cpu": "1"}}),
                ("spec.containers.0.resources", {"requests": {"cpu": "-1"}}),
                ("spec.containers.0.resources", {"requests": {"cpu": "abc"}}),
                ("spec.tolerations", [{"key": "a", "operator": "Exists", "value": "b"}]),
                ("spec.tolerations", [{"operator": "Equal", "value": "b"}]),
                ("spec.tolerations", [{"key": "a", "effect": "Sometimes"}]),
                ("spec.schedulingGates", [{"name": "bad name"}]), ("spec.priority", 5),
                ("spec.priorityClassName", "missing-class"), ("spec.nodeName", "Bad_Node"),
                ("spec.terminationGracePeriodSeconds", -5), ("spec.activeDeadlineSeconds", 0),
                ("spec.containers.0.ports", [{"containerPort": 0}]),
                ("spec.containers.0.ports", [{"containerPort": 80, "protocol": "ICMP"}]),
                ("spec.affinity", {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution":
                                                    {"nodeSelectorTerms": []}}}),
                ("spec.nodeSelector", {"bad key": "v"}), ("spec.dnsPolicy", "Bogus"),
                ("spec.containers", [{"name": "c", "image": "i"}, {"name": "c", "image": "i"}]),
                ("spec.resourceClaims", [{"name": "r"}]), ("spec.hostname", "Bad_Host"),
                ("spec.overhead", {"cpu": "1"}), ("status.phase", "Bogus")],
        "ConfigMap": [("data", {"bad key": "v"}), ("binaryData", {"k": "not base64!"}),
                      ("binaryData", {"k": "dg=="}), ("data", {"k": "v", ".": "x"})],
        "Lease": [("spec.leaseDurationSeconds", 0), ("spec.leaseDurationSeconds", -1),
                  ("spec.leaseTransitions", -1), ("spec.acquireTime", "not a time"),
                  ("spec.strategy", "Bogus"), ("spec.preferredHolder", "x")],
        "Node": [("spec.taints", [{"key": "a", "effect": "Bogus"}]), ("spec.taints", [{"key": "", "effect": "NoSchedule"}]),
                 ("spec.podCIDR", "garbage"), ("spec.taints", [{"key": "a", "effect": "NoSchedule"},
                                                              {"key": "a", "effect": "NoSchedule"}]),
                 ("status.capacity", {"cpu": "-1"})],
        "Service": [("spec.ports", []), ("spec.ports.0.port", 0), ("spec.ports.0.port", 70000),
                    ("spec.type", "Bogus"), ("spec.clusterIP", "garbage"), ("spec.selector", {"bad key": "v"}),
                    ("spec.ports", [{"port": 80}, {"port": 81}])],
        "PriorityClass": [("value", 2000000000), ("preemptionPolicy", "Bogus"), ("value", -2147483649)],
        "ReplicaSet": [("spec.replicas", -1), ("spec.selector", {}), ("spec.template.metadata.labels", {"app": "b"}),
                       ("spec.minReadySeconds", -1), ("spec.template.spec.restartPolicy", "Never")],
        "PodDisruptionBudget": [("spec.minAvailable", -1), ("spec.minAvailable", "150%"),
                                ("spec.maxUnavailable", 1), ("spec.minAvailable", "abc"),
                                ("spec.unhealthyPodEvictionPolicy", "Bogus")],
        "ResourceClaim": [("spec.devices.requests", []),
                          ("spec.devices.requests.0", {"name": "r"}),
                          ("spec.devices.requests.0", {"name": "r", "exactly": {"deviceClassName": "dc"},
                                                       "firstAvailable": [{"name": "s", "deviceClassName": "dc"}]}),
                          ("spec.devices.requests.0.name", "Bad_Name"),
                          ("spec.devices.requests.0.exactly", {}),
                          ("spec.devices.requests.0.exactly", {"deviceClassName": "Bad_Class"}),
                          ("spec.devices.requests.0.exactly", {"deviceClassName": "dc", "allocationMode": "Bogus"}),
                          ("spec.devices.requests.0.exactly", {"deviceClassName": "dc", "count": 0}),
                          ("spec.devices.requests.0.exactly", {"deviceClassName": "dc", "allocationMode": "All",
                                                               "count": 2}),
                          ("spec.devices.requests.0.exactly", {"deviceClassName": "dc", "selectors": [{}]}),
                          ("spec.devices.requests.0.exactly", {"deviceClassName": "dc",
                                                               "selectors": [{"cel": {"expression": "bad("}}]}),
                          ("spec.devices.requests", [{"name": "r", "exactly": {"deviceClassName": "dc"}},
                                                     {"name": "r", "exactly": {"deviceClassName": "dc"}}]),
                          ("spec.devices.requests.0", {"name": "r", "firstAvailable": []}),
                          ("spec.devices.requests.0", {"name": "r", "firstAvailable": [{"name": "s"}]}),
                          ("spec.devices.constraints", [{"requests": ["nope"], "matchAttribute": "a.b/c"}]),
                          ("spec.devices.config", [{"requests": ["nope"], "opaque": {"driver": "d", "parameters": {}}}])],
        "StorageClass": [("provisioner", ""), ("reclaimPolicy", "Bogus"), ("volumeBindingMode", "Bogus"),
                         ("provisioner", "Bad Provisioner")],
        "ReplicationController": [("spec.replicas", -1), ("spec.selector", {"app": "b"})],
        "PersistentVolumeClaim": [("spec.accessModes", []), ("spec.resources.requests", {})],
        "StatefulSet": [("spec.replicas", -1), ("spec.podManagementPolicy", "Bogus")],
        "DeviceClass": [("spec.selectors", [{}]), ("spec.config", [{}])],
        "ResourceSlice": [("spec.driver", ""), ("spec.pool.name", ""), ("spec.nodeName", "Bad_Node"),
                          ("spec.pool.resourceSliceCount", 0), ("spec.allNodes", True)],
        "Event": [("type", "Bogus"), ("reason", ""), ("involvedObject.namespace", "other")] if spec.group == "" else
                 [("type", "Bogus"), ("reportingController", ""), ("eventTime", None), ("action", "")],
        "CSINode": [("spec.drivers", [{"name": "Bad Driver", "nodeID": "n"}])],
        "CSIDriver": [("spec.fsGroupPolicy", "Bogus")],
        "CSIStorageCapacity": [("storageClassName", ""), ("capacity", "-1")],
        "VolumeAttachment": [("spec.attacher", ""), ("spec.source", {})],
        "PersistentVolume": [("spec.capacity", {}), ("spec.accessModes", [])],
    }
    return common + per_kind.get(spec.kind, [])


def gen_validation(rng: random.Random) -> Case:
    spec = rng.choice(SPECS)
    coll, path, setup = seeded(spec)
    update = rng.random() < 0.3
    name = object_name(spec, "obj" if update else "new")
    body = valid_body(spec, name)
    dotted, value = rng.choice(_invalid_objects(spec, name))
    set_path(body, dotted, json.loads(json.dumps(value)))
    if update:
        return Case("validation", "PUT", path, body=dumps(body), setup=setup, note=dotted)
    return Case("validation", "POST", coll, body=dumps(body), note=dotted)


def gen_updates(rng: random.Random) -> Case:
    """Updates and status writes of a created object: immutable fields, pod update rules, stale
    resourceVersions, conditions without lastTransitionTime."""
    spec = rng.choice([k for k in SPECS if k.kind in ("Pod", "Node", "Lease", "ConfigMap", "ResourceClaim",
                                                      "PodDisruptionBudget", "PriorityClass", "Service")])
    coll, path, setup = seeded(spec)
    name = object_name(spec, "obj")
    body = valid_body(spec, name)
    choices: list[tuple[str, Any]] = [("metadata.resourceVersion", "1"), ("metadata.resourceVersion", "abc"),
                                      ("metadata.uid", "other-uid"), ("metadata.creationTimestamp", "2020-01-01T00:00:00Z"),
                                      ("metadata.generation", 7), ("metadata.labels", {"a": "b"})]
    if spec.kind == "Pod":
        choices += [("spec.containers.0.image", "other"), ("spec.containers.0.name", "d"),
                    ("spec.restartPolicy", "Never"), ("spec.nodeName", "n1"), ("spec.priority", 3),
                    ("spec.tolerations", [{"key": "a", "operator": "Exists"}]), ("spec.schedulingGates", [{"name": "g"}]),
                    ("spec.activeDeadlineSeconds", 10), ("spec.containers.0.resources", {"requests": {"cpu": "1"}}),
                    ("spec.terminationGracePeriodSeconds", 5), ("spec.nodeSelector", {"a": "b"})]
    if spec.kind == "PriorityClass":
        choices += [("value", 5), ("preemptionPolicy", "Never")]
    if spec.kind == "ResourceClaim":
        choices += [("spec.devices.requests.0.name", "other")]
    if spec.kind == "Service":
        choices += [("spec.clusterIP", "10.0.0.99"), ("spec.type", "NodePort")]
    if spec.kind == "PodDisruptionBudget":
        choices += [("spec.minAvailable", 2), ("spec.selector", {"matchLabels": {"b": "c"}})]
    dotted, value = rng.choice(choices)
    set_path(body, dotted, json.loads(json.dumps(value)))
    if spec.has_status and rng.random() < 0.4:
        status_choice = rng.choice([
            {"conditions": [{"type": "Ready", "status": "True"}]},
            {"conditions": [{"type": "Ready", "status": "Maybe"}]},
            {"conditions": [{"type": "Ready"}]},
            {"conditions": [{"type": "Ready", "status": "True", "lastTransitionTime": "garbage"}]},
            {"phase": "Bogus"}, {"phase": "Running"},
        ])
        body["status"] = status_choice
        return Case("updates", "PUT", path + "/status", body=dumps(body), setup=setup, note=dotted)
    if rng.random() < 0.4:
        patch = json.loads(json.dumps(value))
        doc: Obj = {}
        set_path(doc, dotted, patch)
        return Case("updates", "PATCH", path, body=dumps(doc), content_type=MERGE, setup=setup, note=dotted)
    return Case("updates", "PUT", path, body=dumps(body), setup=setup, note=dotted)


def gen_routes(rng: random.Random) -> Case:
    spec = rng.choice(SPECS)
    coll, path, setup = seeded(spec)
    choice = rng.choice([
        ("GET", coll + "/obj/bogus"), ("POST", path), ("PUT", coll), ("PATCH", coll), ("GET", "/api/v1/bogus"),
        ("GET", "/apis/bogus.io/v1/things"), ("GET", "/api/v2/pods"), ("DELETE", "/api/v1/namespaces/{ns}/pods/a/b/c/d"),
        ("GET", "/apis/apps/v1/namespaces/{ns}/bogus"), ("POST", "/api/v1/namespaces/{ns}/pods/x/binding"),
        ("GET", "/api/v1/namespaces/{ns}/pods/x/binding"), ("HEAD", coll), ("OPTIONS", coll),
        ("GET", coll.replace("{ns}", "{ns}/x") if spec.namespaced else coll + "/a/b"),
        ("GET", "/api/v1/namespaces/{ns}/nodes"), ("POST", "/api/v1/namespaces/{ns}/pods/obj/eviction"),
        ("GET", path + "/status"), ("PUT", path + "/scale"), ("GET", "/api"), ("GET", "/apis/resource.k8s.io/v1"),
        ("GET", "/api/v1/namespaces/{ns}/configmaps/"), ("GET", "/api/v1/watch/namespaces/{ns}/configmaps"),
    ])
    method, target = choice
    query = [("timeoutSeconds", "1")] if "watch" in target else []
    body = dumps({}) if method in ("POST", "PUT", "PATCH") else None
    ct = MERGE if method == "PATCH" else JSON
    return Case("routes", method, target, query, body, ct, setup=setup)


def gen_valid(rng: random.Random) -> Case:
    """Creates of each kind's minimal valid object: both servers should answer 201."""
    spec = rng.choice(SPECS)
    return Case("valid", "POST", collection_path(spec), body=dumps(valid_body(spec, object_name(spec, "new"))))


GENERATORS: dict[str, tuple[Gen, int]] = {
    "query-list": (gen_query_list, 14),
    "query-watch": (gen_query_watch, 6),
    "query-get": (gen_query_get, 6),
    "query-write": (gen_query_write, 8),
    "names": (gen_names, 8),
    "patch": (gen_patch, 14),
    "types": (gen_types, 8),
    "bodies": (gen_bodies, 6),
    "random": (gen_random, 4),
    "selectors": (gen_selectors, 6),
    "delete-options": (gen_delete_options, 6),
    "validation": (gen_validation, 12),
    "updates": (gen_updates, 8),
    "routes": (gen_routes, 4),
    "valid": (gen_valid, 3),
}


def generate(seed: int, count: int, categories: list[str] | None = None) -> list[Case]:
    """``count`` cases drawn from ``seed``: each a category by weight, then its generator."""
    rng = random.Random(seed)
    names = [c for c in GENERATORS if not categories or c in categories]
    weights = [GENERATORS[c][1] for c in names]
    return [GENERATORS[rng.choices(names, weights)[0]][0](rng) for _ in range(count)]


# --- sending ---------------------------------------------------------------------------------


class Side:
    """One server: its URL, headers and session."""

    def __init__(self, name: str, url: str, headers: dict[str, str], verify_tls: ssl.SSLContext | bool) -> None:
        self.name = name
        self.url = url.rstrip("/")
        self.headers = headers
        self.verify_tls = verify_tls
        self.session: aiohttp.ClientSession | None = None

    async def __aenter__(self) -> Side:
        # True: the default verification (aiohttp's ``ssl=True``)
        connector = aiohttp.TCPConnector(ssl=self.verify_tls, limit=32)
        self.session = aiohttp.ClientSession(connector=connector, headers=self.headers,
                                             timeout=aiohttp.ClientTimeout(total=REQUEST_TIMEOUT))
        return self

    async def __aexit__(self, *exc: object) -> None:
        assert self.session is not None
        await self.session.close()

    async def send(self, method: str, path: str, query: list[tuple[str, str]] | None = None,
                   body: bytes | None = None, content_type: str = JSON) -> Answer:
        assert self.session is not None
        headers = {"Accept": "application/json"}
        if body is not None:
            headers["Content-Type"] = content_type
        url = self.url + _quote_path(path)
        if query:
            url += "?" + "&".join(f"{_q(k)}={_q(v)}" for k, v in query)
        try:
            async with self.session.request(method, aiohttp.client.URL(url, encoded=True), data=body,
                                            headers=headers, skip_auto_headers=["Content-Type"]) as resp:
                if _is_watch(method, query):
                    try:
                        first = await asyncio.wait_for(resp.content.readline(), WATCH_READ_TIMEOUT)
                    except asyncio.TimeoutError:
                        first = b""
                    return Answer(resp.status, _message(first))
                return Answer(resp.status, _message(await resp.read()))
        except (aiohttp.ClientError, asyncio.TimeoutError) as e:
            return Answer(0, f"{type(e).__name__}: {e}")


def _quote_path(path: str) -> str:
    from urllib.parse import quote

    return quote(path, safe="/%:@")


def _q(text: str) -> str:
    from urllib.parse import quote

    return quote(text, safe="")


def _is_watch(method: str, query: list[tuple[str, str]] | None) -> bool:
    if method != "GET" or not query:
        return False
    for k, v in query:
        if k == "watch" and v.lower() not in ("false", "0"):
            return True
    return False


def _message(data: bytes) -> str:
    try:
        doc = json.loads(data)
    except ValueError:
        return data[:300].decode("utf-8", errors="replace").strip()
    if isinstance(doc, dict):
        if doc.get("type") == "ERROR" and isinstance(doc.get("object"), dict):
            return "watch ERROR: " + str(doc["object"].get("message", ""))
        if doc.get("type") in ("ADDED", "MODIFIED", "DELETED", "BOOKMARK"):
            return f"watch {doc['type']}"
        if doc.get("kind") == "Status":
            return str(doc.get("message", ""))
        return f"{doc.get('kind', '?')}"
    return type(doc).__name__


def _fill(value: str, ns: str, px: str) -> str:
    return value.replace("{ns}", ns).replace("{px}", px)


def _fill_bytes(value: bytes | None, ns: str, px: str) -> bytes | None:
    if value is None:
        return None
    return value.replace(b"{ns}", ns.encode()).replace(b"{px}", px.encode())


@dataclass
class Outcome:
    index: int
    case: Case
    real: Answer
    fake: Answer

    @property
    def agree(self) -> bool:
        return self.real.code == self.fake.code

    @property
    def stored_by_fake_only(self) -> bool:
        """A write the real server refused and the fake took (a dry run stores nothing)."""
        c = self.case
        dry = any(k == "dryRun" and v == "All" for k, v in c.query) or (c.body is not None and b'"All"' in c.body)
        return (c.method in ("POST", "PUT", "PATCH", "DELETE") and self.real.code >= 400
                and 200 <= self.fake.code < 300 and not dry)


def check_confined(case: Case) -> None:
    """Refuse a case that could change anything on the (shared) real server outside the case's
    namespace and prefix: a delete, update or patch must name the case's namespace or prefix."""
    if case.method in ("DELETE", "PUT", "PATCH") and "{ns}" not in case.path and "{px}" not in case.path:
        if case.path.startswith(("/api/v1/", "/apis/")) and case.category != "routes":
            raise AssertionError(f"case not confined to its namespace: {case.method} {case.path}")


async def run_case(index: int, case: Case, run: str, real: Side, fake: Side) -> Outcome:
    check_confined(case)
    ns = f"fid-{run}-{index}"
    px = ns
    answers: list[Answer] = []
    for side in (real, fake):
        await side.send("POST", "/api/v1/namespaces", body=dumps({"metadata": {"name": ns}}))
        for coll, obj in case.setup:
            body = _fill_bytes(dumps(obj), ns, px)
            await side.send("POST", _fill(coll, ns, px), body=body)
        answers.append(await side.send(case.method, _fill(case.path, ns, px),
                                       [(k, _fill(v, ns, px)) for k, v in case.query],
                                       _fill_bytes(case.body, ns, px), case.content_type))
    return Outcome(index, case, answers[0], answers[1])


async def cleanup(real: Side, run: str, count: int) -> None:
    """Delete the run's objects from the real server: cluster-scoped ones by their prefix, then
    each namespace's objects, then the namespaces (finalized by hand)."""
    prefix = f"fid-{run}-"

    async def list_names(path: str) -> list[Obj]:
        assert real.session is not None
        async with real.session.get(real.url + path) as resp:
            if resp.status != 200:
                return []
            return list((await resp.json()).get("items", []))

    for spec in KINDS:
        if spec.namespaced:
            continue
        root = f"/apis/{spec.group}/{spec.version}" if spec.group else "/api/v1"
        for item in await list_names(f"{root}/{spec.resource}"):
            name = item["metadata"]["name"]
            if not name.startswith(prefix):
                continue
            path = f"{root}/{spec.resource}/{name}"
            if item["metadata"].get("finalizers") and spec.kind != "Namespace":
                await real.send("PATCH", path, body=b'{"metadata":{"finalizers":null}}', content_type=MERGE)
            if spec.kind != "Namespace":
                await real.send("DELETE", path, [("gracePeriodSeconds", "0")])
    sem = asyncio.Semaphore(8)
    namespaced = [k for k in KINDS if k.namespaced]

    async def one(ns: str) -> None:
        async with sem:
            for spec in namespaced:
                root = f"/apis/{spec.group}/{spec.version}" if spec.group else "/api/v1"
                coll = f"{root}/namespaces/{ns}/{spec.resource}"
                items = await list_names(coll)
                if not items:
                    continue
                for item in items:
                    if item["metadata"].get("finalizers"):
                        await real.send("PATCH", f"{coll}/{item['metadata']['name']}",
                                        body=b'{"metadata":{"finalizers":null}}', content_type=MERGE)
                await real.send("DELETE", coll, [("gracePeriodSeconds", "0")])
            await real.send("DELETE", f"/api/v1/namespaces/{ns}")
            await real.send("PUT", f"/api/v1/namespaces/{ns}/finalize",
                            body=dumps({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": ns},
                                        "spec": {"finalizers": []}}))

    namespaces = [item["metadata"]["name"] for item in await list_names("/api/v1/namespaces")]
    await asyncio.gather(*(one(ns) for ns in namespaces if ns.startswith(prefix)))


def real_server(kubeconfig: Path) -> tuple[str, dict[str, str], ssl.SSLContext | bool]:
    """The current context's server URL, its bearer-token header and how to verify TLS: the
    cluster's CA (``certificate-authority-data`` or ``certificate-authority``), the system's
    (True), or not at all (``insecure-skip-tls-verify``: False)."""
    config = yaml.safe_load(kubeconfig.read_text())
    context_name = config.get("current-context")
    context = next(c["context"] for c in config["contexts"] if c["name"] == context_name)
    cluster = next(c["cluster"] for c in config["clusters"] if c["name"] == context["cluster"])
    user: Obj = next((u["user"] for u in config.get("users", []) if u["name"] == context.get("user")), {})
    token = user.get("token")
    if not token and user.get("tokenFile"):
        token = Path(user["tokenFile"]).read_text().strip()
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    if cluster.get("insecure-skip-tls-verify", False):
        return cluster["server"], headers, False
    if cluster.get("certificate-authority-data"):
        return cluster["server"], headers, ssl.create_default_context(
            cadata=base64.b64decode(cluster["certificate-authority-data"]).decode("ascii"))
    if cluster.get("certificate-authority"):
        return cluster["server"], headers, ssl.create_default_context(cafile=cluster["certificate-authority"])
    return cluster["server"], headers, True


def report(outcomes: list[Outcome], show: int) -> str:
    lines: list[str] = []
    total = len(outcomes)
    agree = sum(o.agree for o in outcomes)
    same_message = sum(o.agree and o.real.message == o.fake.message for o in outcomes)
    lines.append(f"status codes agree: {agree}/{total} = {100.0 * agree / max(total, 1):.1f}%"
                 f"  (and the message too: {same_message}/{total} = {100.0 * same_message / max(total, 1):.1f}%)")
    by_cat: dict[str, list[Outcome]] = defaultdict(list)
    for o in outcomes:
        by_cat[o.case.category].append(o)
    lines.append("")
    lines.append(f"{'category':<16}{'cases':>7}{'codes agree':>13}{'messages agree':>16}")
    for cat in sorted(by_cat):
        group = by_cat[cat]
        a = sum(o.agree for o in group)
        m = sum(o.agree and o.real.message == o.fake.message for o in group)
        lines.append(f"{cat:<16}{len(group):>7}{100.0 * a / len(group):>12.1f}%{100.0 * m / len(group):>15.1f}%")
    pairs = Counter((o.real.code, o.fake.code) for o in outcomes if not o.agree)
    if pairs:
        lines.append("")
        lines.append("disagreements by (real, fake) code: " +
                     ", ".join(f"{r}->{f}: {n}" for (r, f), n in pairs.most_common()))
    stored = [o for o in outcomes if o.stored_by_fake_only]
    lines.append("")
    lines.append(f"refused by the real server, stored by the fake: {len(stored)}")
    for o in stored[:show]:
        lines.append(_describe(o))
    disagreeing = [o for o in outcomes if not o.agree and not o.stored_by_fake_only]
    lines.append("")
    lines.append(f"other disagreeing cases: {len(disagreeing)}" + (f" (first {show})" if len(disagreeing) > show else ""))
    seen: set[tuple[str, int, int, str]] = set()
    shown = 0
    for o in disagreeing:
        key = (o.case.category, o.real.code, o.fake.code, o.real.message[:60])
        if key in seen:
            continue
        seen.add(key)
        lines.append(_describe(o))
        shown += 1
        if shown >= show:
            break
    return "\n".join(lines)


def _describe(o: Outcome) -> str:
    c = o.case
    query = ("?" + "&".join(f"{k}={v}" for k, v in c.query)) if c.query else ""
    return (f"#{o.index} [{c.category}] {c.method} {c.path}{query}  body: {c.summary()}"
            + (f"  ({c.note})" if c.note else "")
            + f"\n    real {o.real.code}: {o.real.message[:400]}\n    fake {o.fake.code}: {o.fake.message[:400]}")


async def real_release(url: str, headers: dict[str, str], verify: ssl.SSLContext | bool) -> str | None:
    """The real server's release (``1.36``) if the fake can serve as it, else None."""

    async with Side("real", url, headers, verify) as side:
        assert side.session is not None
        async with side.session.get(side.url + "/version") as answer:
            info = await answer.json(content_type=None)
    try:
        return release(f"{info.get('major')}.{info.get('minor')}")
    except ValueError:
        return None


async def run(args: argparse.Namespace) -> int:
    url, headers, verify = real_server(args.kubeconfig)
    cases = generate(args.seed, args.count, args.category)
    run_id = args.run_id or format(int(time.time()) % 1_000_000, "x")
    version = args.fake_version or await real_release(url, headers, verify)
    server = FakeApiServer(journal_limit=1000, admin=False, **({"kubernetes_version": version} if version else {}))
    await server.start()
    outcomes: list[Outcome] = []
    started = time.monotonic()
    try:
        async with Side("real", url, headers, verify) as real, Side("fake", server.url, {}, False) as fake:
            sem = asyncio.Semaphore(args.concurrency)

            async def one(i: int, case: Case) -> None:
                async with sem:
                    outcomes.append(await run_case(i, case, run_id, real, fake))

            try:
                await asyncio.gather(*(one(i, c) for i, c in enumerate(cases)))
            finally:
                if not args.keep:
                    await cleanup(real, run_id, len(cases))
    finally:
        await server.stop()
    outcomes.sort(key=lambda o: o.index)
    print(f"{len(cases)} cases (seed {args.seed}, run {run_id}) in {time.monotonic() - started:.0f} s "
          f"against {url} and the in-process fake serving as Kubernetes v{server.store.release}\n")
    print(report(outcomes, args.show))
    if args.json is not None:
        args.json.write_text(json.dumps([
            {"index": o.index, **{k: v for k, v in asdict(o.case).items() if k != "body"},
             "body": None if o.case.body is None else o.case.body.decode("utf-8", errors="replace"),
             "real": asdict(o.real), "fake": asdict(o.fake)} for o in outcomes], indent=1, default=str))
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kubeconfig", type=Path, required=True, help="kubeconfig of a real kube-apiserver")
    parser.add_argument("--seed", type=int, default=12, help="corpus seed (default 12)")
    parser.add_argument("--count", type=int, default=3000, help="number of requests (default 3000)")
    parser.add_argument("--category", action="append", choices=sorted(GENERATORS),
                        help="only this category (repeatable)")
    parser.add_argument("--concurrency", type=int, default=8, help="cases in flight at once (default 8)")
    parser.add_argument("--fake-version", default=None, metavar="1.NN",
                        help="the release the fake serves as (default: the real server's, when the fake can)")
    parser.add_argument("--show", type=int, default=60, help="disagreeing cases to print (default 60)")
    parser.add_argument("--json", type=Path, help="write every case and both answers here")
    parser.add_argument("--run-id", help="namespace prefix part (default: from the time)")
    parser.add_argument("--keep", action="store_true", help="leave the run's objects on the real server")
    args = parser.parse_args(argv)
    if not args.kubeconfig.is_file():
        parser.error(f"--kubeconfig: no such file: {args.kubeconfig}")
    return asyncio.run(run(args))


if __name__ == "__main__":
    sys.exit(main())
