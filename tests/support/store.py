"""The store on its own, for the tests that drive it without HTTP or an event loop: a clock the
test moves by hand (from the project's epoch), the resourceVersion a new store starts at, a pod
body, and a match of the real server's error messages in full."""

from __future__ import annotations

import re
from datetime import datetime, timezone
from typing import Any

import pytest

from fake_apiserver import StatusError, by_resource
from fake_apiserver._machinery.kindspec import KindSpec

__all__ = ["EPOCH", "PODS", "START", "ManualClock", "pod", "raises"]

EPOCH = datetime(2026, 1, 1, tzinfo=timezone.utc)
START = 7  # a new store's resourceVersion: the four default namespaces, then the two system priority classes


def _spec(group: str, resource: str) -> KindSpec:
    spec = by_resource(group, "v1", resource)
    assert spec is not None
    return spec


PODS = _spec("", "pods")


class ManualClock:
    def __init__(self) -> None:
        self.t = EPOCH

    def now(self) -> datetime:
        return self.t


def pod(name: str, **spec: Any) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name},
            "spec": {"containers": [{"name": "c", "image": "busybox:1"}], **spec}}


def raises(error: type[StatusError], message: str) -> Any:
    return pytest.raises(error, match="^" + re.escape(message) + "$")
