"""Shared by the tests (no tests here): the requests a kube-scheduler of the v1.35 line sent,
recorded in ``tests/data/scheduler_plugins_k8s_v1.35.4_requests.json``. The build is
sigs.k8s.io/scheduler-plugins' ``cmd/scheduler`` against ``k8s.io/kubernetes`` v1.35.4, unversioned
(``--version``: v0.0.0-master), default profile: kube-scheduler v1.35.4's plugins and framework,
not a release binary (the file's ``provenance`` says so, and from which run). The release build of
kube-scheduler v1.35.4 (``schedharness k8s build 1.35``) sends the same bodies.

``tests/fake_apiserver/clients/test_kube_scheduler.py`` holds a binary to them; the reference
scheduler's tests (``tests/reference_scheduler/test_scenarios.py``) hold the reference's requests to
them, so what the reference claims to copy from kube-scheduler is checked against kube-scheduler,
not against itself.
"""

from __future__ import annotations

import copy
import json
from typing import Any

import jsonpointer

from tests.support.paths import TEST_DATA

DATA = TEST_DATA / "scheduler_plugins_k8s_v1.35.4_requests.json"
RECORDED: dict[str, dict[str, Any]] = json.loads(DATA.read_text())["requests"]


def recorded_body(name: str, sent: Any) -> Any:
    """The recorded body of request ``name`` with its variable values (timestamps, uids) taken
    from ``sent``; a variable that ``sent`` lacks fails here, naming the pointer."""
    request = RECORDED[name]
    body = copy.deepcopy(request["body"])
    for pointer in request["variable"]:
        try:
            value = jsonpointer.resolve_pointer(sent, pointer)
        except jsonpointer.JsonPointerException as e:
            raise AssertionError(f"{name}: the body sent has no {pointer}: {json.dumps(sent)}") from e
        jsonpointer.set_pointer(body, pointer, value)
    return body
