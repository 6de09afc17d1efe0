"""The common built-in kinds created and updated through the fake as through kube-apiserver
v1.37.2: the defaults a create fills in, the 422s of invalid objects and immutable fields.

Each case of :data:`CASES` is a create (``POST`` of ``body``) or, with ``update``, a create
followed by a ``PUT`` of the created object changed by ``update``. ``tests/data/builtin_kinds/
answers.json`` holds what a real kube-apiserver v1.37.2 answered to each (status code and body,
normalised by :func:`normalised`: the server-assigned uid, resourceVersion, creationTimestamp and
managedFields left out, the object's own uid written ``<uid>`` wherever it appears, as in a Job's
generated selector). :func:`test_the_fake_answers_as_recorded` replays every case against the fake
(on a thread, over HTTP); with ``KUBEBUILDER_ASSETS`` naming v1.37 binaries,
:func:`test_a_real_kube_apiserver_answers_alike` posts the corpus to a real server again and
compares its answers with the fake's and with the recording. ``python -m
tests.fake_apiserver._registry.test_builtin_kinds DIR`` (from the checkout) records the answers
afresh from the binaries in ``DIR``.

No controller runs on either side (envtest's control plane has no kube-controller-manager), so a
Deployment gets no ReplicaSet and a Job no pods on the real server either.
"""

from __future__ import annotations

import base64
import copy
import json
import re
import ssl
import subprocess
import sys
import tempfile
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

import pytest
import yaml

from harness._backends.envtest import ASSETS_VARIABLE, ControlPlane, envtest_unavailable, find_assets
from tests.support.paths import TEST_DATA

ANSWERS = TEST_DATA / "builtin_kinds" / "answers.json"
NS = "default"
UID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")

needs_binaries = pytest.mark.skipif(envtest_unavailable() is not None, reason=envtest_unavailable() or "")

Obj = dict[str, Any]


@dataclass(frozen=True)
class Case:
    """A create of ``body`` at ``collection``; with ``update``, then a PUT of the created object
    as ``update`` changes it (the answer compared is the PUT's)."""

    name: str
    collection: str
    body: Obj
    update: Callable[[Obj], None] | None = field(default=None, compare=False)


def _template(labels: dict[str, str], restart: str | None = None) -> Obj:
    spec: Obj = {"containers": [{"name": "c", "image": "nginx:1.27"}]}
    if restart:
        spec["restartPolicy"] = restart
    return {"metadata": {"labels": labels}, "spec": spec}


def _obj(api: str, kind: str, name: str, **fields: Any) -> Obj:
    return {"apiVersion": api, "kind": kind, "metadata": {"name": name}, **fields}


APPS = f"/apis/apps/v1/namespaces/{NS}"
BATCH = f"/apis/batch/v1/namespaces/{NS}"
CORE = f"/api/v1/namespaces/{NS}"
RBAC = "/apis/rbac.authorization.k8s.io/v1"


def _deployment(name: str, **spec: Any) -> Obj:
    return _obj("apps/v1", "Deployment", name, spec={
        "selector": {"matchLabels": {"app": name}}, "template": _template({"app": name}), **spec})


def _job(name: str, **spec: Any) -> Obj:
    return _obj("batch/v1", "Job", name, spec={"template": _template({"app": name}, "Never"), **spec})


def _cronjob(name: str, schedule: str, **spec: Any) -> Obj:
    return _obj("batch/v1", "CronJob", name, spec={
        "schedule": schedule, "jobTemplate": {"spec": {"template": _template({"app": name}, "OnFailure")}}, **spec})


def _secret(name: str, **fields: Any) -> Obj:
    return _obj("v1", "Secret", name, **fields)


def _b64(text: str) -> str:
    return base64.b64encode(text.encode()).decode()


def _set_selector(obj: Obj) -> None:
    obj["spec"]["selector"] = {"matchLabels": {"app": "other"}}
    obj["spec"]["template"]["metadata"]["labels"] = {"app": "other"}


def _set_image(obj: Obj) -> None:
    obj["spec"]["template"]["spec"]["containers"][0]["image"] = "nginx:1.28"


def _set_replicas(obj: Obj) -> None:
    obj["spec"]["replicas"] = 3


def _set_data(obj: Obj) -> None:
    obj["data"] = {"k": _b64("changed")}


def _set_type(obj: Obj) -> None:
    obj["type"] = "kubernetes.io/basic-auth"


def _set_parallelism(obj: Obj) -> None:
    obj["spec"]["parallelism"] = 2


def _set_schedule(obj: Obj) -> None:
    obj["spec"]["schedule"] = "*/5 * * * *"


def _set_suspend(obj: Obj) -> None:
    obj["spec"]["suspend"] = True


def _set_completions(obj: Obj) -> None:
    obj["spec"]["completions"] = 4


def _set_mutable(obj: Obj) -> None:
    obj["immutable"] = False


def _set_template_image(obj: Obj) -> None:
    obj["template"]["spec"]["containers"][0]["image"] = "nginx:1.28"


def _set_binary(obj: Obj) -> None:
    obj["binaryData"] = {"b": _b64("3")}


CASES: list[Case] = [
    # -------------------------------------------------------------------------------- apps
    Case("deployment", APPS + "/deployments", _deployment("dep")),
    Case("deployment-recreate", APPS + "/deployments", _deployment("dep-recreate", strategy={"type": "Recreate"})),
    Case("deployment-full", APPS + "/deployments", _deployment(
        "dep-full", replicas=2, minReadySeconds=5, revisionHistoryLimit=3, progressDeadlineSeconds=60,
        strategy={"type": "RollingUpdate", "rollingUpdate": {"maxSurge": 1, "maxUnavailable": "50%"}})),
    Case("deployment-no-selector", APPS + "/deployments", _obj(
        "apps/v1", "Deployment", "dep-nosel", spec={"template": _template({"app": "x"})})),
    Case("deployment-selector-mismatch", APPS + "/deployments", _obj(
        "apps/v1", "Deployment", "dep-mismatch",
        spec={"selector": {"matchLabels": {"app": "a"}}, "template": _template({"app": "b"})})),
    Case("deployment-bad-strategy", APPS + "/deployments", _deployment("dep-badstrategy", strategy={"type": "Blue"})),
    Case("deployment-negative-replicas", APPS + "/deployments", _deployment("dep-neg", replicas=-1)),
    Case("deployment-update-selector", APPS + "/deployments", _deployment("dep-upd-sel"), _set_selector),
    Case("deployment-update-image", APPS + "/deployments", _deployment("dep-upd-img"), _set_image),
    Case("deployment-update-replicas", APPS + "/deployments", _deployment("dep-upd-rep"), _set_replicas),
    Case("deployment-zero-surge-and-unavailable", APPS + "/deployments", _deployment(
        "dep-zero", strategy={"type": "RollingUpdate", "rollingUpdate": {"maxSurge": 0, "maxUnavailable": 0}})),
    Case("deployment-unavailable-over-100", APPS + "/deployments", _deployment(
        "dep-150", strategy={"rollingUpdate": {"maxUnavailable": "150%"}})),
    Case("deployment-recreate-with-rolling-update", APPS + "/deployments", _deployment(
        "dep-recreate-rolling", strategy={"type": "Recreate", "rollingUpdate": {"maxSurge": 1}})),
    Case("deployment-deadline-not-above-min-ready", APPS + "/deployments", _deployment(
        "dep-deadline", minReadySeconds=10, progressDeadlineSeconds=10)),
    Case("deployment-empty-selector", APPS + "/deployments", _obj("apps/v1", "Deployment", "dep-empty", spec={
        "selector": {}, "template": _template({"app": "x"})})),
    Case("deployment-restart-never", APPS + "/deployments", _obj("apps/v1", "Deployment", "dep-never", spec={
        "selector": {"matchLabels": {"app": "n"}}, "template": _template({"app": "n"}, "Never")})),
    Case("deployment-container-without-image", APPS + "/deployments", _obj("apps/v1", "Deployment", "dep-noimg", spec={
        "selector": {"matchLabels": {"app": "i"}}, "template": {
            "metadata": {"labels": {"app": "i"}}, "spec": {"containers": [{"name": "c"}]}}})),
    Case("deployment-bad-template-label", APPS + "/deployments", _obj("apps/v1", "Deployment", "dep-badlabel", spec={
        "selector": {"matchLabels": {"app": "i"}}, "template": _template({"app": "i", "bad key!": "v"})})),
    Case("daemonset", APPS + "/daemonsets", _obj("apps/v1", "DaemonSet", "ds", spec={
        "selector": {"matchLabels": {"app": "ds"}}, "template": _template({"app": "ds"})})),
    Case("daemonset-no-selector", APPS + "/daemonsets", _obj("apps/v1", "DaemonSet", "ds-nosel", spec={
        "template": _template({"app": "ds"})})),
    Case("daemonset-update-selector", APPS + "/daemonsets", _obj("apps/v1", "DaemonSet", "ds-upd", spec={
        "selector": {"matchLabels": {"app": "ds"}}, "template": _template({"app": "ds"})}), _set_selector),
    Case("daemonset-update-template", APPS + "/daemonsets", _obj("apps/v1", "DaemonSet", "ds-upd-tpl", spec={
        "selector": {"matchLabels": {"app": "ds"}}, "template": _template({"app": "ds"})}), _set_image),
    Case("daemonset-empty-selector", APPS + "/daemonsets", _obj("apps/v1", "DaemonSet", "ds-empty", spec={
        "selector": {}, "template": _template({"app": "ds"})})),
    Case("statefulset-update-replicas", APPS + "/statefulsets", _obj("apps/v1", "StatefulSet", "sts-upd", spec={
        "selector": {"matchLabels": {"app": "sts"}}, "template": _template({"app": "sts"})}), _set_replicas),
    Case("replicaset-update-selector", APPS + "/replicasets", _obj("apps/v1", "ReplicaSet", "rs-upd", spec={
        "selector": {"matchLabels": {"app": "rs"}}, "template": _template({"app": "rs"})}), _set_selector),
    Case("daemonset-duplicate-containers", APPS + "/daemonsets", _obj("apps/v1", "DaemonSet", "ds-dup", spec={
        "selector": {"matchLabels": {"app": "ds"}}, "template": {"metadata": {"labels": {"app": "ds"}}, "spec": {
            "containers": [{"name": "c", "image": "a"}, {"name": "c", "image": "b"}]}}})),
    Case("statefulset-no-containers", APPS + "/statefulsets", _obj("apps/v1", "StatefulSet", "sts-empty", spec={
        "selector": {"matchLabels": {"app": "s"}}, "template": {"metadata": {"labels": {"app": "s"}}, "spec": {}}})),
    Case("statefulset", APPS + "/statefulsets", _obj("apps/v1", "StatefulSet", "sts", spec={
        "selector": {"matchLabels": {"app": "sts"}}, "serviceName": "sts", "template": _template({"app": "sts"})})),
    Case("statefulset-mismatch", APPS + "/statefulsets", _obj("apps/v1", "StatefulSet", "sts-mismatch", spec={
        "selector": {"matchLabels": {"app": "a"}}, "template": _template({"app": "b"})})),
    Case("replicaset", APPS + "/replicasets", _obj("apps/v1", "ReplicaSet", "rs", spec={
        "selector": {"matchLabels": {"app": "rs"}}, "template": _template({"app": "rs"})})),
    Case("controllerrevision", APPS + "/controllerrevisions", _obj(
        "apps/v1", "ControllerRevision", "rev", revision=1, data={"spec": {"a": 1}})),
    # ------------------------------------------------------------------------------- batch
    Case("job", BATCH + "/jobs", _job("job")),
    Case("job-indexed", BATCH + "/jobs", _job("job-indexed", completionMode="Indexed", completions=3, parallelism=2)),
    Case("job-bad-completion-mode", BATCH + "/jobs", _job("job-badmode", completionMode="Sometimes")),
    Case("job-restart-always", BATCH + "/jobs", _obj("batch/v1", "Job", "job-always", spec={
        "template": _template({"app": "a"})})),
    Case("job-selector-without-manual", BATCH + "/jobs", _job("job-sel", selector={"matchLabels": {"app": "job-sel"}})),
    Case("job-update-template", BATCH + "/jobs", _job("job-upd-tpl"), _set_image),
    Case("job-update-parallelism", BATCH + "/jobs", _job("job-upd-par"), _set_parallelism),
    Case("job-bad-container-name", BATCH + "/jobs", _obj("batch/v1", "Job", "job-cname", spec={"template": {
        "spec": {"containers": [{"name": "C_1", "image": "x"}], "restartPolicy": "Never"}}})),
    Case("job-own-labels", BATCH + "/jobs", {**_job("job-labels"), "metadata": {"name": "job-labels",
                                                                               "labels": {"team": "a"}}}),
    Case("job-manual-selector", BATCH + "/jobs", _job("job-manual", manualSelector=True,
                                                      selector={"matchLabels": {"app": "job-manual"}})),
    Case("job-manual-selector-mismatch", BATCH + "/jobs", _job("job-manual-bad", manualSelector=True,
                                                               selector={"matchLabels": {"app": "other"}})),
    Case("job-indexed-without-completions", BATCH + "/jobs", _job("job-idx-nc", completionMode="Indexed",
                                                                  parallelism=2)),
    Case("job-negative-counts", BATCH + "/jobs", _job("job-neg", backoffLimit=-1, parallelism=-2,
                                                      activeDeadlineSeconds=-3)),
    Case("job-bad-replacement-policy", BATCH + "/jobs", _job("job-repl", podReplacementPolicy="Sometimes")),
    Case("job-update-suspend", BATCH + "/jobs", _job("job-upd-susp"), _set_suspend),
    Case("job-update-completions", BATCH + "/jobs", _job("job-upd-comp"), _set_completions),
    Case("cronjob", BATCH + "/cronjobs", _cronjob("cron", "*/1 * * * *")),
    Case("cronjob-above-maximum", BATCH + "/cronjobs", _cronjob("cron-max", "61 * * * *")),
    Case("cronjob-every", BATCH + "/cronjobs", _cronjob("cron-every", "@every 5m")),
    Case("cronjob-unknown-descriptor", BATCH + "/cronjobs", _cronjob("cron-desc", "@sometimes")),
    Case("cronjob-tz-in-schedule", BATCH + "/cronjobs", _cronjob("cron-tz", "CRON_TZ=UTC 0 * * * *")),
    Case("cronjob-names", BATCH + "/cronjobs", _cronjob("cron-names", "0 0 * JAN-mar MON,fri")),
    Case("cronjob-zero-step", BATCH + "/cronjobs", _cronjob("cron-step", "*/0 * * * *")),
    Case("cronjob-bad-number", BATCH + "/cronjobs", _cronjob("cron-num", "x * * * *")),
    Case("cronjob-time-zone", BATCH + "/cronjobs", _cronjob("cron-zone", "0 * * * *", timeZone="Europe/Berlin")),
    Case("cronjob-unknown-time-zone", BATCH + "/cronjobs", _cronjob("cron-nozone", "0 * * * *",
                                                                    timeZone="Mars/Olympus")),
    Case("cronjob-template-selector", BATCH + "/cronjobs", _obj("batch/v1", "CronJob", "cron-sel", spec={
        "schedule": "@daily", "jobTemplate": {"spec": {"selector": {"matchLabels": {"a": "b"}},
                                                       "template": _template({"a": "b"}, "Never")}}})),
    Case("cronjob-template-without-image", BATCH + "/cronjobs", _obj("batch/v1", "CronJob", "cron-noimg", spec={
        "schedule": "@daily", "jobTemplate": {"spec": {"template": {"spec": {
            "containers": [{"name": "c"}], "restartPolicy": "Never"}}}}})),
    Case("cronjob-long-name", BATCH + "/cronjobs", _cronjob("c" * 53, "@daily")),
    Case("cronjob-bad-schedule", BATCH + "/cronjobs", _cronjob("cron-bad", "every minute")),
    Case("cronjob-bad-policy", BATCH + "/cronjobs", _cronjob("cron-policy", "@hourly", concurrencyPolicy="Sometimes")),
    Case("cronjob-update-schedule", BATCH + "/cronjobs", _cronjob("cron-upd", "@daily"), _set_schedule),
    # -------------------------------------------------------------------------------- core
    Case("secret-data", CORE + "/secrets", _secret("sec-data", data={"k": _b64("v")})),
    Case("secret-string-data", CORE + "/secrets", _secret(
        "sec-string", data={"a": _b64("from-data"), "b": _b64("kept")}, stringData={"a": "from-string", "c": "new"})),
    Case("secret-tls-missing-key", CORE + "/secrets", _secret(
        "sec-tls", type="kubernetes.io/tls", data={"tls.crt": _b64("cert")})),
    Case("secret-tls", CORE + "/secrets", _secret(
        "sec-tls-ok", type="kubernetes.io/tls", data={"tls.crt": _b64("cert"), "tls.key": _b64("key")})),
    Case("secret-dockerconfigjson-missing", CORE + "/secrets", _secret(
        "sec-docker", type="kubernetes.io/dockerconfigjson", data={"x": _b64("y")})),
    Case("secret-basic-auth-empty", CORE + "/secrets", _secret("sec-basic", type="kubernetes.io/basic-auth")),
    Case("secret-sa-token-without-annotation", CORE + "/secrets", _secret(
        "sec-sa", type="kubernetes.io/service-account-token")),
    Case("secret-dockercfg-bad-json", CORE + "/secrets", _secret(
        "sec-dockercfg", type="kubernetes.io/dockercfg", data={".dockercfg": _b64("nope")})),
    Case("secret-dockerconfigjson-trailing-comma", CORE + "/secrets", _secret(
        "sec-dcj-comma", type="kubernetes.io/dockerconfigjson", data={".dockerconfigjson": _b64('{"auths":{},}')})),
    Case("secret-dockerconfigjson-array", CORE + "/secrets", _secret(
        "sec-dcj-array", type="kubernetes.io/dockerconfigjson", data={".dockerconfigjson": _b64("[1]")})),
    Case("secret-dockerconfigjson-null", CORE + "/secrets", _secret(
        "sec-dcj-null", type="kubernetes.io/dockerconfigjson", data={".dockerconfigjson": _b64("null")})),
    Case("secret-ssh-auth-empty", CORE + "/secrets", _secret(
        "sec-ssh", type="kubernetes.io/ssh-auth", data={"ssh-privatekey": ""})),
    Case("secret-update-mutable-again", CORE + "/secrets", _secret("sec-mut", data={"k": _b64("v")}, immutable=True),
         _set_mutable),
    Case("secret-bad-base64", CORE + "/secrets", _secret("sec-b64", data={"k": "not base64!"})),
    Case("secret-bad-key", CORE + "/secrets", _secret("sec-key", data={"a/b": _b64("v")})),
    Case("secret-update-immutable", CORE + "/secrets", _secret("sec-imm", data={"k": _b64("v")}, immutable=True),
         _set_data),
    Case("secret-update-type", CORE + "/secrets", _secret("sec-type", data={"k": _b64("v")}), _set_type),
    Case("serviceaccount", CORE + "/serviceaccounts", _obj("v1", "ServiceAccount", "sa")),
    Case("configmap", CORE + "/configmaps", _obj("v1", "ConfigMap", "cm", data={"a": "1"}, binaryData={"b": _b64("2")})),
    Case("configmap-update-immutable", CORE + "/configmaps", _obj("v1", "ConfigMap", "cm-imm", data={"a": "1"},
                                                                  immutable=True),
         lambda obj: obj.update(data={"a": "2"})),
    Case("configmap-update-binary-immutable", CORE + "/configmaps", _obj(
        "v1", "ConfigMap", "cm-imm-bin", binaryData={"b": _b64("2")}, immutable=True), _set_binary),
    Case("podtemplate-update-image", CORE + "/podtemplates", _obj(
        "v1", "PodTemplate", "pt-upd", template=_template({"app": "pt"})), _set_template_image),
    Case("replicationcontroller", CORE + "/replicationcontrollers", _obj("v1", "ReplicationController", "rc", spec={
        "selector": {"app": "rc"}, "template": _template({"app": "rc"})})),
    Case("replicationcontroller-no-selector", CORE + "/replicationcontrollers", _obj(
        "v1", "ReplicationController", "rc-nosel", spec={"template": _template({"app": "rc"})})),
    Case("replicationcontroller-restart-never", CORE + "/replicationcontrollers", _obj(
        "v1", "ReplicationController", "rc-never", spec={"selector": {"app": "n"}, "template": _template({"app": "n"}, "Never")})),
    Case("replicationcontroller-without-image", CORE + "/replicationcontrollers", _obj(
        "v1", "ReplicationController", "rc-noimg", spec={"template": {"metadata": {"labels": {"app": "r"}}, "spec": {
            "containers": [{"name": "c"}]}}})),
    Case("podtemplate-no-containers", CORE + "/podtemplates", _obj("v1", "PodTemplate", "pt-empty", template={
        "metadata": {"labels": {"app": "pt"}}, "spec": {}})),
    Case("podtemplate", CORE + "/podtemplates", _obj("v1", "PodTemplate", "pt", template=_template({"app": "pt"}))),
    Case("limitrange", CORE + "/limitranges", _obj("v1", "LimitRange", "lr", spec={"limits": [
        {"type": "Container", "default": {"cpu": "500m"}, "defaultRequest": {"cpu": "100m"}, "max": {"cpu": "2"}}]})),
    Case("resourcequota", CORE + "/resourcequotas", _obj("v1", "ResourceQuota", "rq", spec={
        "hard": {"pods": "100", "requests.cpu": "40"}})),
    Case("endpoints", CORE + "/endpoints", _obj("v1", "Endpoints", "ep", subsets=[
        {"addresses": [{"ip": "10.1.2.3"}], "ports": [{"port": 80}]}])),
    # ------------------------------------------------------------------------ other groups
    Case("endpointslice", f"/apis/discovery.k8s.io/v1/namespaces/{NS}/endpointslices", _obj(
        "discovery.k8s.io/v1", "EndpointSlice", "eps", addressType="IPv4",
        endpoints=[{"addresses": ["10.1.2.3"]}], ports=[{"port": 80}])),
    Case("hpa", f"/apis/autoscaling/v2/namespaces/{NS}/horizontalpodautoscalers", _obj(
        "autoscaling/v2", "HorizontalPodAutoscaler", "hpa", spec={
            "scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "dep"}, "maxReplicas": 5,
            "metrics": [{"type": "Resource", "resource": {"name": "cpu",
                                                          "target": {"type": "Utilization", "averageUtilization": 80}}}]})),
    Case("networkpolicy", f"/apis/networking.k8s.io/v1/namespaces/{NS}/networkpolicies", _obj(
        "networking.k8s.io/v1", "NetworkPolicy", "np", spec={
            "podSelector": {"matchLabels": {"app": "x"}}, "ingress": [{"ports": [{"port": 80}]}]})),
    Case("ingress", f"/apis/networking.k8s.io/v1/namespaces/{NS}/ingresses", _obj(
        "networking.k8s.io/v1", "Ingress", "ing", spec={"rules": [{"host": "example.com", "http": {"paths": [
            {"path": "/", "pathType": "Prefix", "backend": {"service": {"name": "svc", "port": {"number": 80}}}}]}}]})),
    Case("ingressclass", "/apis/networking.k8s.io/v1/ingressclasses", _obj(
        "networking.k8s.io/v1", "IngressClass", "ic", spec={"controller": "example.com/ingress"})),
    Case("role", RBAC + f"/namespaces/{NS}/roles", _obj("rbac.authorization.k8s.io/v1", "Role", "role", rules=[
        {"apiGroups": [""], "resources": ["pods"], "verbs": ["get", "list"]}])),
    Case("rolebinding", RBAC + f"/namespaces/{NS}/rolebindings", _obj(
        "rbac.authorization.k8s.io/v1", "RoleBinding", "rb",
        roleRef={"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": "role"},
        subjects=[{"kind": "ServiceAccount", "name": "sa", "namespace": NS}])),
    Case("clusterrole", RBAC + "/clusterroles", _obj("rbac.authorization.k8s.io/v1", "ClusterRole", "bk-cr", rules=[
        {"apiGroups": ["apps"], "resources": ["deployments"], "verbs": ["*"]}])),
    Case("clusterrolebinding", RBAC + "/clusterrolebindings", _obj(
        "rbac.authorization.k8s.io/v1", "ClusterRoleBinding", "bk-crb",
        roleRef={"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "bk-cr"},
        subjects=[{"kind": "User", "name": "alice", "apiGroup": "rbac.authorization.k8s.io"}])),
    Case("runtimeclass", "/apis/node.k8s.io/v1/runtimeclasses", _obj("node.k8s.io/v1", "RuntimeClass", "rc",
                                                                     handler="runc")),
    Case("priorityclass", "/apis/scheduling.k8s.io/v1/priorityclasses", _obj(
        "scheduling.k8s.io/v1", "PriorityClass", "bk-pc", value=1000, description="test")),
    Case("lease", f"/apis/coordination.k8s.io/v1/namespaces/{NS}/leases", _obj(
        "coordination.k8s.io/v1", "Lease", "lease", spec={"holderIdentity": "me", "leaseDurationSeconds": 15})),
    Case("poddisruptionbudget", f"/apis/policy/v1/namespaces/{NS}/poddisruptionbudgets", _obj(
        "policy/v1", "PodDisruptionBudget", "pdb", spec={"minAvailable": 1, "selector": {"matchLabels": {"app": "x"}}})),
    Case("volumeattributesclass", "/apis/storage.k8s.io/v1/volumeattributesclasses", _obj(
        "storage.k8s.io/v1", "VolumeAttributesClass", "vac", driverName="csi.example.com",
        parameters={"iops": "1000"})),
    Case("validatingwebhookconfiguration", "/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations",
         _obj("admissionregistration.k8s.io/v1", "ValidatingWebhookConfiguration", "vwc")),
]
"""The corpus, in the order it is posted (later cases name objects earlier ones made)."""


KNOWN_DIFFERENCES: dict[str, str] = {}
"""Cases where the fake still answers otherwise, each with what it lacks (rules of kinds outside
the modules this corpus was built for). The replay asserts they still differ, so that one fixed
leaves this list."""


def normalised(code: int, body: Any) -> Obj:
    """An answer without what differs between servers and runs: resourceVersion,
    creationTimestamp and managedFields left out, and every uid (the object's own, and the one a
    refused Job's selector names) written ``<uid>``."""
    body = json.loads(UID.sub("<uid>", json.dumps(body)))
    meta = body.get("metadata") if isinstance(body, dict) else None
    if isinstance(meta, dict) and body.get("kind") != "Status":
        for key in ("resourceVersion", "creationTimestamp", "managedFields"):
            meta.pop(key, None)
    return {"code": code, "body": body}


class Client:
    """Just enough of a client for a kubeconfig's server (the fake's plain HTTP, or the real
    server's TLS with a bearer token): JSON in, code and JSON out."""

    def __init__(self, kubeconfig: Path) -> None:
        config = yaml.safe_load(kubeconfig.read_text())
        cluster, user = config["clusters"][0]["cluster"], config["users"][0]["user"]
        self.url = cluster["server"]
        self.token = user.get("token")
        ca = cluster.get("certificate-authority-data")
        self.context = ssl.create_default_context(cadata=base64.b64decode(ca).decode()) if ca else None

    def call(self, method: str, path: str, body: Any = None) -> tuple[int, Any]:
        data = None if body is None else json.dumps(body).encode()
        headers = {"Content-Type": "application/json", "Accept": "application/json"}
        if self.token:
            headers["Authorization"] = f"Bearer {self.token}"
        request = urllib.request.Request(self.url + path, data=data, method=method, headers=headers)
        try:
            with urllib.request.urlopen(request, context=self.context, timeout=60) as response:
                return response.status, json.loads(response.read())
        except urllib.error.HTTPError as e:
            return e.code, json.loads(e.read())


def answer(client: Client, case: Case) -> Obj:
    """The normalised answer to ``case``: its create's, or for an update case its PUT's."""
    code, created = client.call("POST", case.collection, case.body)
    if case.update is None:
        return normalised(code, created)
    assert code == 201, (case.name, created)
    changed = copy.deepcopy(created)
    case.update(changed)
    code, updated = client.call("PUT", f"{case.collection}/{case.body['metadata']['name']}", changed)
    return normalised(code, updated)


def answers(client: Client) -> dict[str, Obj]:
    return {case.name: answer(client, case) for case in CASES}


def _recorded() -> dict[str, Obj]:
    recorded: dict[str, Obj] = json.loads(ANSWERS.read_text())
    return recorded


def _differences(ours: dict[str, Obj], real: dict[str, Obj]) -> list[str]:
    return [name for name in real if ours.get(name) != real[name]]


def test_the_corpus_is_recorded_whole() -> None:
    assert sorted(_recorded()) == sorted(case.name for case in CASES)


def test_the_fake_answers_as_recorded(threaded_server: Any) -> None:
    ours = answers(Client(threaded_server.kubeconfig))
    recorded = _recorded()
    differ = _differences(ours, recorded)
    print(f"built-in kinds: {len(CASES) - len(differ)} of {len(CASES)} cases agree")
    for name in differ:
        if name not in KNOWN_DIFFERENCES:
            assert ours[name] == recorded[name], name
    assert sorted(differ) == sorted(KNOWN_DIFFERENCES)


def _v137() -> Path:
    assets = find_assets()
    version = subprocess.run([str(assets / "kube-apiserver"), "--version"], capture_output=True, text=True,
                             timeout=60, check=False).stdout.strip()
    if not version.startswith("Kubernetes v1.37."):
        pytest.skip(f"the recorded answers are kube-apiserver v1.37's; {ASSETS_VARIABLE} holds {version}")
    return assets


@needs_binaries
def test_a_real_kube_apiserver_answers_alike(tmp_path: Path, threaded_server: Any) -> None:
    with ControlPlane(assets=_v137(), logdir=tmp_path) as control_plane:
        assert control_plane.kubeconfig_path is not None
        real = answers(Client(control_plane.kubeconfig_path))
    assert real == _recorded()
    ours = answers(Client(threaded_server.kubeconfig))
    assert sorted(_differences(ours, real)) == sorted(KNOWN_DIFFERENCES)


def _record(assets: Path) -> None:
    with tempfile.TemporaryDirectory() as logdir, ControlPlane(assets=assets, logdir=Path(logdir)) as control_plane:
        assert control_plane.kubeconfig_path is not None
        recorded = answers(Client(control_plane.kubeconfig_path))
    ANSWERS.parent.mkdir(parents=True, exist_ok=True)
    ANSWERS.write_text(json.dumps(recorded, indent=1, sort_keys=True) + "\n")


if __name__ == "__main__":  # python -m tests.fake_apiserver._registry.test_builtin_kinds DIR: record from DIR
    _record(find_assets(sys.argv[1] if len(sys.argv) > 1 else None))
