"""Asking a real kube-apiserver, for the differential tests: the fake must answer as it does.

:func:`kube_apiserver_answers` starts etcd and kube-apiserver (``KUBEBUILDER_ASSETS``; the test is
skipped without them) and records what they answered the first time; :func:`json_caller` is the
plain client such a test sends its requests with, to the fake or to the real server alike.
"""

from __future__ import annotations

import json
import ssl
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any, Callable, TypeVar

import pytest

from harness._backends.envtest import ControlPlane, envtest_unavailable, find_assets

__all__ = ["Call", "json_caller", "kube_apiserver_answers"]

T = TypeVar("T")

Call = Callable[[str, str, Any, str], list[Any]]


def kube_apiserver_answers(tmp_path: Path, recorded: Path, run: Callable[[str, str, ssl.SSLContext], T]) -> T:
    """What a real kube-apiserver (``KUBEBUILDER_ASSETS``; the test is skipped without one) answers
    to ``run`` (called with its URL, token and TLS context). The answers are written to
    ``recorded`` when that file does not exist yet (a differential test's first capture); the
    caller checks them against the recording."""
    reason = envtest_unavailable()
    if reason:
        pytest.skip(reason)
    with ControlPlane(assets=find_assets(), logdir=tmp_path) as plane:
        answers = run(*plane.access())
    if not recorded.exists():
        recorded.parent.mkdir(parents=True, exist_ok=True)
        recorded.write_text(json.dumps(answers, indent=1) + "\n")
    return answers


def json_caller(server: str, token: str | None = None, context: ssl.SSLContext | None = None) -> Call:
    """A differential test's client: ``call(method, path, body, content_type)`` answers ``[code,
    body]``, the JSON or the text of a non-JSON answer."""

    def call(method: str, path: str, body: Any, content_type: str) -> list[Any]:
        headers = {"Content-Type": content_type or "application/json"}
        if token:
            headers["Authorization"] = f"Bearer {token}"
        data = json.dumps(body).encode() if body is not None else None
        request = urllib.request.Request(server + path, method=method, data=data, headers=headers)
        try:
            with urllib.request.urlopen(request, context=context, timeout=30) as answer:
                return [answer.status, json.loads(answer.read())]
        except urllib.error.HTTPError as e:
            text = e.read()
            try:
                return [e.code, json.loads(text)]
            except ValueError:
                return [e.code, text.decode()]
    return call
