"""An everyday kubectl session against ``schedharness serve``, with kubectl's default flags.

The 37 commands a user types in a first session (imperative creates, ``create -f``, every patch
type, labels, selectors, ``wait``, client-side ``apply`` and ``replace``, a binding, node commands, discovery,
``explain``, a strict-validation failure, graceful and forced deletion), run in order in one
namespace. Each expected exit code and output was captured by running the same session with
kubectl v1.32 against a real kube-apiserver v1.36 with etcd and no controllers (no scheduler, no
kubelet), the namespace name replaced by ``NS``. Two steps could not be captured there, because
that server's OpenAPI answer was unusable to kubectl v1.32 (``/openapi/v2`` 503, and the v3
document without the pod paths' parameters); those were run with ``--validate=false`` there and
are checked here as follows: the typo step expects the kubectl rendering of the 400 that the real
server gave the same body sent with ``fieldValidation=Strict`` (captured with curl), and the
``explain`` step expects the field's description from the schema package.
"""

from __future__ import annotations

import json
import re
import shutil
import signal
import subprocess
import sys
from pathlib import Path
from typing import Iterator

import pytest

from fake_apiserver._machinery import schema as _schema
from tests.support.paths import ROOT
pytestmark = pytest.mark.skipif(shutil.which("kubectl") is None, reason="kubectl is not on PATH")

TIMEOUT = 60.0  # seconds; reached only when something hangs
NS = "everyday"

MANIFESTS = {
    "node.yaml": f"apiVersion: v1\nkind: Node\nmetadata:\n  name: {NS}-node\n  labels:\n    {NS}: 'yes'\n",
    "pod.yaml": "apiVersion: v1\nkind: Pod\nmetadata:\n  name: web\n  labels:\n    app: web\nspec:\n"
                "  containers:\n  - name: c\n    image: registry.k8s.io/pause:3.10\n",
    "typo.yaml": "apiVersion: v1\nkind: Pod\nmetadata:\n  name: typo\nspec:\n  containerz:\n  - name: c\n"
                 "    image: registry.k8s.io/pause:3.10\n  containers:\n  - name: c\n    image: registry.k8s.io/pause:3.10\n",
    "cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: applied\ndata:\n  a: '1'\n",
    "cm2.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: applied\ndata:\n  b: '2'\n",
}
BINDING = json.dumps({"apiVersion": "v1", "kind": "Binding", "metadata": {"name": "web"},
                      "target": {"apiVersion": "v1", "kind": "Node", "name": f"{NS}-node"}})
FORCE_WARNING = ("Warning: Immediate deletion does not wait for confirmation that the running resource has been "
                 "terminated. The resource may continue to run on the cluster indefinitely.\n")
EXPLAIN = "explain pod.spec.schedulingGates"

# (command, exit code, stdout+stderr); TMP is the manifests' directory.
SESSION: list[tuple[str, int, str]] = [
    ("create namespace NS", 0, "namespace/NS created\n"),
    ("get namespace NS -o jsonpath={.status.phase}", 0, "Active"),
    ("create -f TMP/node.yaml", 0, "node/NS-node created\n"),
    ("-n NS create -f TMP/pod.yaml", 0, "pod/web created\n"),
    ("-n NS create configmap settings --from-literal=mode=fast", 0, "configmap/settings created\n"),
    ("-n NS get configmap settings -o jsonpath={.data.mode}", 0, "fast"),
    ("create priorityclass NS-high --value=1000 --description=everyday", 0,
     "priorityclass.scheduling.k8s.io/NS-high created\n"),
    ("-n NS get pods -o name", 0, "pod/web\n"),
    ("-n NS get pods -l app=web -o name", 0, "pod/web\n"),
    ("-n NS get pods --field-selector=status.phase=Pending -o name", 0, "pod/web\n"),
    ("-n NS label pod web tier=front", 0, "pod/web labeled\n"),
    ("-n NS label pod web tier=back --overwrite", 0, "pod/web labeled\n"),
    ("-n NS annotate pod web owner=team-a", 0, "pod/web annotated\n"),
    ("-n NS get pods -l tier\tin\t(back) -o jsonpath={.items[*].metadata.name}", 0, "web"),
    ('-n NS patch pod web --type=merge -p {"metadata":{"labels":{"merge":"yes"}}}', 0, "pod/web patched\n"),
    ('-n NS patch pod web --type=json -p [{"op":"add","path":"/metadata/labels/json","value":"yes"}]', 0,
     "pod/web patched\n"),
    ('-n NS patch pod web -p {"spec":{"containers":[{"name":"c","image":"registry.k8s.io/pause:3.9"}]}}', 0,
     "pod/web patched\n"),
    ("-n NS get pod web -o jsonpath={.spec.containers[0].image}\t{.metadata.labels}", 0,
     'registry.k8s.io/pause:3.9 {"app":"web","json":"yes","merge":"yes","tier":"back"}'),
    ('-n NS patch pod web --subresource=status --type=merge -p '
     '{"status":{"conditions":[{"type":"example.com/Ready","status":"True"}]}}', 0, "pod/web patched\n"),
    ("-n NS apply -f TMP/cm.yaml", 0, "configmap/applied created\n"),
    ("-n NS apply -f TMP/cm.yaml", 0, "configmap/applied unchanged\n"),
    ("-n NS replace -f TMP/cm2.yaml", 0, "configmap/applied replaced\n"),
    ("-n NS get configmap applied -o jsonpath={.data}", 0, '{"b":"2"}'),
    ("-n NS create --raw /api/v1/namespaces/NS/pods/web/binding -f -", 0,
     '{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Success","code":201}\n'),
    ("-n NS wait --for=condition=PodScheduled pod/web --timeout=20s", 0, "pod/web condition met\n"),
    ("-n NS get pod web -o jsonpath={.spec.nodeName}", 0, "NS-node"),
    ("get nodes -l NS=yes -o name", 0, "node/NS-node\n"),
    ("cordon NS-node", 0, "node/NS-node cordoned\n"),
    ("taint nodes NS-node dedicated=x:NoSchedule", 0, "node/NS-node tainted\n"),
    ("api-resources --api-group=scheduling.k8s.io -o name", 0, "priorityclasses.scheduling.k8s.io\n"),
    (EXPLAIN, 0, ""),  # checked against the schema package's description (module docstring)
    ("-n NS create -f TMP/typo.yaml", 1,
     'Error from server (BadRequest): error when creating "TMP/typo.yaml": Pod in version "v1" cannot be handled '
     'as a Pod: strict decoding error: unknown field "spec.containerz"\n'),
    ("-n NS delete configmap settings", 0, 'configmap "settings" deleted\n'),
    ("-n NS delete pod web --wait=false", 0, 'pod "web" deleted\n'),
    ("-n NS get pod web -o jsonpath={.metadata.deletionGracePeriodSeconds}", 0, "30"),
    ("-n NS delete pod web --grace-period=0 --force", 0, 'pod "web" force deleted\n' + FORCE_WARNING),
    ("delete namespace NS --wait=false", 0, 'namespace "NS" deleted\n'),
]


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """``schedharness serve`` on a free port; its kubeconfig."""
    tmp = tmp_path_factory.mktemp("session")
    kubeconfig = tmp / "kubeconfig"
    proc = subprocess.Popen(
        [sys.executable, "-m", "harness.cli", "serve", "--port", "0", "--kubeconfig", str(kubeconfig)],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )
    assert proc.stdout is not None
    try:
        for line in proc.stdout:
            if line.startswith("schedharness: serving the Kubernetes API at http://127.0.0.1:"):
                break
        else:
            raise AssertionError("schedharness serve exited before serving")
        yield kubeconfig
    finally:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=TIMEOUT)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=TIMEOUT)


def _words(text: str) -> str:
    return " ".join(text.split())


def test_an_everyday_session_gives_what_a_real_server_gives(served: Path, tmp_path: Path) -> None:
    for name, text in MANIFESTS.items():
        (tmp_path / name).write_text(text)
    cache = tmp_path / "cache"
    mismatches: list[str] = []
    for command, rc, expected in SESSION:
        args = [a.replace("\t", " ").replace("TMP", str(tmp_path)).replace("NS", NS) for a in command.split(" ")]
        stdin = BINDING if "--raw" in args else None
        done = subprocess.run(["kubectl", "--kubeconfig", str(served), "--cache-dir", str(cache), *args],
                              input=stdin, capture_output=True, text=True, timeout=TIMEOUT)
        output = (done.stdout + done.stderr).replace(str(tmp_path), "TMP").replace(NS, "NS")
        if command == EXPLAIN:
            schema = _schema.definition("io.k8s.api.core.v1.PodSpec")["properties"]["schedulingGates"]
            ok = done.returncode == 0 and _words(schema["description"]) in _words(output) \
                and re.search(r"^FIELD: +schedulingGates <\[\]PodSchedulingGate>$", output, re.MULTILINE) is not None
        else:
            ok = (done.returncode, output) == (rc, expected)
        if not ok:
            mismatches.append(f"kubectl {command}\n  expected rc {rc}: {expected!r}\n  got rc {done.returncode}: {output!r}")
    assert not mismatches, f"{len(mismatches)} of {len(SESSION)} steps differ:\n" + "\n".join(mismatches)
