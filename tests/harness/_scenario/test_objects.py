"""Whole manifests created by a scenario (:mod:`harness._scenario.objects`, :mod:`harness._scenario.discovery`,
:mod:`harness._scenario.manifests`): a CRD, then its custom objects, and a built-in kind, each resolved
through the server's discovery; on a shared cluster, what was made is deleted at close (a CRD
that was there already is kept). The shared-cluster test runs on the fake behind the fault proxy
and, with ``KUBEBUILDER_ASSETS`` set, on a real kube-apiserver (envtest), where the CRD is
Established a moment after it is created, and its schema refuses what the fake refuses, in the
same words."""

from __future__ import annotations

import asyncio
from pathlib import Path
from contextlib import asynccontextmanager
from typing import Any, AsyncIterator, Callable

import pytest
import yaml

from fake_apiserver import FakeApiServer
from harness._backends.backend import FakeBackend, KubeconfigBackend
from harness._backends.envtest import ControlPlane, envtest_unavailable, find_assets
from harness._backends.scenario_client import ApiError, ScenarioClient
from harness._scenario.discovery import UnknownKind
from harness._scenario.manifests import ManifestError, is_manifest_file, load_manifests
from harness._scenario.scenario import ExpectationFailed, Scenario
from harness._time.virtual_time import run
from tests.support.paths import ROOT

Obj = dict[str, Any]
EXAMPLES = ROOT / "docs" / "examples"
CRD_FILE = EXAMPLES / "podgroup-crd.yaml"
CRD_PATH = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/podgroups.scheduling.x-k8s.io"
GROUP = "scheduling.x-k8s.io/v1alpha1"


def pod_group(name: str, min_member: int = 2, **meta: str) -> Obj:
    return {"apiVersion": GROUP, "kind": "PodGroup", "metadata": {"name": name, **meta},
            "spec": {"minMember": min_member}}


DEPLOYMENT = {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "d"},
              "spec": {"selector": {"matchLabels": {"app": "d"}},
                       "template": {"metadata": {"labels": {"app": "d"}},
                                    "spec": {"containers": [{"name": "c", "image": "registry.k8s.io/pause:3.10"}]}}}}


def with_fake_scenario(body: Callable[[Scenario], Any], tmp_path: Path) -> None:
    async def main() -> None:
        backend = FakeBackend(tmp_path)
        await backend.start()
        try:
            async with Scenario(backend) as s:
                await body(s)
        finally:
            await backend.stop()

    run(main())


def test_a_crd_then_its_objects_and_a_built_in_kind_are_created(tmp_path: Path) -> None:
    async def body(s: Scenario) -> None:
        [crd] = await s.create_objects(CRD_FILE)
        assert [(c["type"], c["status"]) for c in crd["status"]["conditions"]] == [
            ("NamesAccepted", "True"), ("Established", "True")]
        made = await s.create_objects([pod_group("g"), DEPLOYMENT])
        assert [(m["kind"], m["metadata"]["namespace"]) for m in made] == [("PodGroup", "default"),
                                                                            ("Deployment", "default")]
        listed = await s.client.request("GET", f"/apis/{GROUP}/namespaces/default/podgroups")
        assert [item["spec"] for item in listed["items"]] == [{"minMember": 2}]
        assert {e.path for e in s.requests("create", include_own=True)} == {
            "/apis/apiextensions.k8s.io/v1/customresourcedefinitions",
            f"/apis/{GROUP}/namespaces/default/podgroups", "/apis/apps/v1/namespaces/default/deployments"}

    with_fake_scenario(body, tmp_path)


def test_what_cannot_be_created_says_why(tmp_path: Path) -> None:
    async def body(s: Scenario) -> None:
        with pytest.raises(UnknownKind) as unknown:
            await s.create_object(pod_group("g"))
        assert str(unknown.value) == "the server serves no API group version scheduling.x-k8s.io/v1alpha1"
        await s.create_objects(CRD_FILE)
        with pytest.raises(UnknownKind) as unknown:
            await s.create_object({"apiVersion": GROUP, "kind": "PodGang", "metadata": {"name": "g"}})
        assert str(unknown.value) == "kind 'PodGang' is not served at scheduling.x-k8s.io/v1alpha1 (it serves: PodGroup)"
        with pytest.raises(ValueError) as elsewhere:
            await s.create_object(pod_group("g", namespace="kube-system"))
        assert str(elsewhere.value) == ("PodGroup g: metadata.namespace 'kube-system' is not the scenario's namespace "
                                        "'default'; leave it out (namespaced objects go to the scenario's)")

    with_fake_scenario(body, tmp_path)


@asynccontextmanager
async def _fake_cluster(tmp_path: Path) -> AsyncIterator[Path]:
    async with FakeApiServer(taint_not_ready_nodes=False) as server:
        yield server.write_kubeconfig(tmp_path / "cluster.kubeconfig")


@asynccontextmanager
async def _envtest_cluster(tmp_path: Path) -> AsyncIterator[Path]:
    with ControlPlane(assets=find_assets(), logdir=tmp_path / "envtest") as plane:
        assert plane.kubeconfig_path is not None
        yield Path(plane.kubeconfig_path)


async def _status(client: ScenarioClient, path: str) -> int:
    try:
        await client.request("GET", path)
    except ApiError as e:
        return e.code
    return 200


async def _gone(client: ScenarioClient, path: str) -> None:
    """Until ``path`` answers 404 (asked every 0.1 s: a state no watch of ours reports here)."""
    while await _status(client, path) != 404:
        await asyncio.sleep(0.1)


async def _shared_run(kubeconfig: Path, tmp_path: Path, direct: ScenarioClient, *, installed: bool) -> str:
    backend = KubeconfigBackend(kubeconfig, tmp_path / "test")
    await backend.start()
    try:
        scenario = await Scenario(backend).start()
        ns = scenario.namespace
        try:
            [crd] = await scenario.create_objects(CRD_FILE)
            assert any(c["type"] == "Established" and c["status"] == "True" for c in crd["status"]["conditions"])
            await scenario.create_objects([pod_group("g"), DEPLOYMENT])
            assert await _status(direct, f"/apis/{GROUP}/namespaces/{ns}/podgroups/g") == 200
            with pytest.raises(ApiError) as refused:  # the CRD's schema: minMember minimum 1
                await scenario.create_object(pod_group("bad", min_member=0))
            assert (refused.value.code, refused.value.message) == (422, (
                'PodGroup.scheduling.x-k8s.io "bad" is invalid: spec.minMember: Invalid value: 0: spec.minMember in '
                'body should be greater than or equal to 1'))
        finally:
            await scenario.close()
        assert await _status(direct, f"/apis/{GROUP}/namespaces/{ns}/podgroups/g") == 404
        if installed:
            assert not (await direct.request("GET", CRD_PATH))["metadata"].get("deletionTimestamp")
        else:  # deleted, or being deleted: kube-apiserver deletes a CRD's objects first, then the CRD
            await asyncio.wait_for(_gone(direct, CRD_PATH), 60)
        return ns
    finally:
        await backend.stop()


@pytest.mark.parametrize("cluster", ["fake", "envtest"])
def test_on_a_shared_cluster_what_was_made_is_deleted_and_an_installed_crd_kept(tmp_path: Path, cluster: str) -> None:
    if cluster == "envtest" and envtest_unavailable():
        pytest.skip(envtest_unavailable() or "")
    make = _fake_cluster if cluster == "fake" else _envtest_cluster

    async def main() -> None:
        async with make(tmp_path) as kubeconfig:
            upstream = yaml.safe_load(kubeconfig.read_text())
            direct = ScenarioClient(upstream["clusters"][0]["cluster"]["server"]) if cluster == "fake" else None
            if direct is None:  # a real server wants its credentials: reach it through a backend's proxy
                backend = KubeconfigBackend(kubeconfig, tmp_path / "direct")
                await backend.start()
                direct = ScenarioClient(backend.url)
            await _shared_run(kubeconfig, tmp_path, direct, installed=False)
            await direct.request("POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions",
                                 body=load_manifests(CRD_FILE)[0])
            await _shared_run(kubeconfig, tmp_path, direct, installed=True)
            await direct.close()
            if cluster != "fake":
                await backend.stop()

    if cluster == "fake":
        run(main())
    else:
        asyncio.run(main())


def test_manifest_files(tmp_path: Path) -> None:
    """Documents and Lists flattened, empty documents skipped; a file of manifests is told from a
    scenario; what cannot be read is one message naming the file."""
    path = tmp_path / "m.yaml"
    path.write_text("---\napiVersion: v1\nkind: List\nitems:\n- {apiVersion: v1, kind: ConfigMap, metadata: {name: a}}\n"
                    "---\n---\napiVersion: v1\nkind: Secret\nmetadata: {name: b}\n")
    assert [(m["kind"], m["metadata"]["name"]) for m in load_manifests(path)] == [("ConfigMap", "a"), ("Secret", "b")]
    assert is_manifest_file(path) and is_manifest_file(CRD_FILE)
    assert not is_manifest_file(EXAMPLES / "gang-scheduling.yaml")
    for text, message in [
        (None, f"manifest file '{tmp_path}/none.yaml' does not exist"),
        ("a: [\n", f"manifest file '{tmp_path}/none.yaml': line 2, column 1: not valid YAML: expected the node "
                   "content, but found '<stream end>'"),
        ("apiVersion: v1\nkind: ConfigMap\n", f"manifest file '{tmp_path}/none.yaml': manifest 0: missing metadata.name"),
    ]:
        bad = tmp_path / "none.yaml"
        if text is not None:
            bad.write_text(text)
        with pytest.raises(ManifestError) as info:
            load_manifests(bad)
        assert str(info.value) == message



@pytest.mark.parametrize("cluster", ["fake", "envtest"])
def test_a_crd_being_deleted_is_waited_for_and_made_anew(tmp_path: Path, cluster: str) -> None:
    """An earlier scenario's CRD still being deleted (kube-apiserver deletes its objects first, and
    one holds a finalizer): the create waits, watching it, until it is gone, then makes it again;
    the new CRD is sent after the finalizer is taken off."""
    if cluster == "envtest" and envtest_unavailable():
        pytest.skip(envtest_unavailable() or "")
    make = _fake_cluster if cluster == "fake" else _envtest_cluster

    async def main() -> None:
        async with make(tmp_path) as kubeconfig:
            backend = KubeconfigBackend(kubeconfig, tmp_path / "test")
            await backend.start()
            try:
                async with Scenario(backend) as s:
                    [old] = await s.create_objects(CRD_FILE)
                    held = {**pod_group("held"), "metadata": {"name": "held", "finalizers": ["example.com/hold"]}}
                    await s.create_object(held)
                    await s.client.request("DELETE", CRD_PATH)
                    creating = asyncio.create_task(s.create_objects(CRD_FILE))
                    watch = CRD_PATH.rpartition("/")[0]

                    async def watching() -> None:  # until the create is watching the old CRD go
                        while not any(e.verb == "watch" and e.path == watch for e in backend.journal.entries):
                            await asyncio.sleep(0.05)

                    await asyncio.wait_for(watching(), 60)
                    assert not creating.done()
                    await s.client.request("PATCH", f"/apis/{GROUP}/namespaces/{s.namespace}/podgroups/held",
                                           body={"metadata": {"finalizers": None}},
                                           content_type="application/merge-patch+json")
                    [new] = await creating
                    assert new["metadata"]["uid"] != old["metadata"]["uid"]
                    assert [e.code for e in backend.journal.entries
                            if e.type == "request" and e.verb == "create" and e.path == watch] == [201, 409, 201]
            finally:
                await backend.stop()

    asyncio.run(main())


def test_expect_field_watches_a_custom_object_until_its_field_has_the_value(tmp_path: Path) -> None:
    async def body(s: Scenario) -> None:
        await s.create_objects([*load_manifests(CRD_FILE), pod_group("g", min_member=2)])
        assert (await s.get_object(GROUP, "PodGroup", "g"))["spec"] == {"minMember": 2}
        await s.expect_field(GROUP, "PodGroup", "g", "spec.minMember", 2)
        await s.expect_field(GROUP, "PodGroup", "g", "status.phase", None)

        async def later() -> None:
            await s.advance(3)
            await s.client.request("PATCH", f"/apis/{GROUP}/namespaces/default/podgroups/g/status",
                                   body={"status": {"phase": "Running"}}, content_type="application/merge-patch+json")

        task = asyncio.create_task(later())
        found = await s.expect_field(GROUP, "PodGroup", "g", "status.phase", "Running", within=5)
        assert s.now == 3.0 and (found or {})["status"] == {"phase": "Running"}
        await task
        with pytest.raises(ExpectationFailed) as failed:
            await s.expect_field(GROUP, "PodGroup", "g", "spec.minMember", 3, within=2)
        assert str(failed.value) == ("expected within 2 s (t=3.000..5.000): PodGroup g has spec.minMember 3\n"
                                     "observed at t=5.000: spec.minMember is 2")
        with pytest.raises(ExpectationFailed) as failed:
            await s.expect_field(GROUP, "PodGroup", "nope", "spec.minMember", 3)
        assert str(failed.value) == ("expected within 0 s (t=5.000..5.000): PodGroup nope has spec.minMember 3\n"
                                     "observed at t=5.000: it does not exist")

    with_fake_scenario(body, tmp_path)
