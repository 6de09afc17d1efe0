"""A server-side apply read by the journal and the fault rules as the write it is, on the virtual
loop as ``test_effects.py`` does: journaled with its effect, refused by a rule on the effect it
would have, previewed as it would be served, and a dry run storing nothing. The apply comes as a
person writes it, in YAML.
"""

from __future__ import annotations

import copy
import json
from typing import Any

import aiohttp
import yaml

from fake_apiserver import FakeApiServer, FaultRule, JournalEntry, Match, Respond
from fake_apiserver._server.faults import body_contains
from fake_apiserver._storage.effects import condition_of, sets_condition, sets_field
from tests.support.http_api import PODS as POD_PATH, pod, with_server

__all__: list[str] = []

APPLY = "application/apply-patch+yaml"
READY = {"type": "example.com/Ready", "status": "True", "reason": "Applied"}

Obj = dict[str, Any]


# --- the journal and fault rules -----------------------------------------------------------

NOT_READY = {"type": "PodScheduled", "status": "False", "reason": "NotReadyForScheduling", "message": "waiting"}


def _status_apply(conditions: list[Obj]) -> str:
    """A pod status apply as a person writes it: YAML, not JSON."""
    return yaml.safe_dump({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"},
                           "status": {"conditions": conditions}}, sort_keys=False)


async def _apply(http: aiohttp.ClientSession, path: str, body: str, manager: str = "m",
                 **query: str) -> tuple[int, Obj]:
    async with http.patch(path, params={"fieldManager": manager, **query}, data=body,
                          headers={"Content-Type": APPLY}) as r:
        answer: Obj = await r.json()
        return r.status, answer


async def read_pod(http: aiohttp.ClientSession, name: str) -> Obj:
    async with http.get(f"{POD_PATH}/{name}") as r:
        got: Obj = await r.json()
        return got


def last_write(server: FakeApiServer, name: str) -> JournalEntry:
    return [e for e in server.journal.requests(name=name) if e.verb in ("patch", "update", "create", "delete")][-1]


def _without_rv(obj: Obj) -> Obj:
    out = copy.deepcopy(obj)
    out["metadata"].pop("resourceVersion")
    return out


def test_an_apply_is_journaled_with_its_effect() -> None:
    async def body(server: FakeApiServer, http: aiohttp.ClientSession) -> None:
        await http.post(POD_PATH, json=pod("p"))
        code, answer = await _apply(http, f"{POD_PATH}/p/status", _status_apply([READY]))
        assert code == 200
        entry = last_write(server, "p")
        assert (entry.verb, entry.subresource, entry.content_type, entry.effect) == (
            "patch", "status", APPLY, "applied")
        assert entry.body == {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"},
                              "status": {"conditions": [READY]}}  # the YAML as the value it stands for
        assert condition_of(entry.before, READY["type"]) is None
        assert entry.after == answer
        assert sets_condition(READY["type"], reason="Applied")(entry.before, entry.after)

        cm = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "cm"}, "data": {"a": "1"}}
        code, created = await _apply(http, "/api/v1/namespaces/default/configmaps/cm", json.dumps(cm))
        entry = last_write(server, "cm")
        assert created["data"] == {"a": "1"}
        assert (entry.verb, entry.code, entry.effect, entry.before, entry.after) == ("patch", code, "applied", None, created)

    with_server(body)


def test_a_rule_on_an_effect_refuses_the_status_apply_that_would_set_it_and_lets_others_through() -> None:
    async def body(server: FakeApiServer, http: aiohttp.ClientSession) -> None:
        await http.post(POD_PATH, json=pod("p"))
        rule = server.faults.add(FaultRule(
            Match(resource="pods", subresource="status", effect=sets_condition("PodScheduled", reason="NotReadyForScheduling")),
            Respond(503), name="refuse-not-ready"))
        code, _ = await _apply(http, f"{POD_PATH}/p/status", _status_apply([NOT_READY]))
        assert (code, rule.fired) == (503, 1)
        refused = last_write(server, "p")
        assert (refused.code, refused.fault, refused.effect) == (503, "refuse-not-ready", "intended")
        intended = condition_of(refused.after, "PodScheduled") or {}
        assert {k: intended.get(k) for k in NOT_READY} == NOT_READY
        stored = await read_pod(http, "p")
        assert condition_of(stored, "PodScheduled") is None
        assert "m" not in [m["manager"] for m in stored["metadata"]["managedFields"]]  # nor an owner recorded

        code, answer = await _apply(http, f"{POD_PATH}/p/status", _status_apply([{**NOT_READY, "reason": "Unschedulable"}]))
        assert (code, rule.fired) == (200, 1)
        assert (condition_of(answer, "PodScheduled") or {}).get("reason") == "Unschedulable"
        code, _ = await _apply(http, f"{POD_PATH}/p/status", _status_apply([READY]), manager="other")
        assert (code, rule.fired) == (200, 1)
        assert last_write(server, "p").effect == "applied"

    with_server(body)


def test_a_body_rule_reads_an_apply_written_in_yaml() -> None:
    async def body(server: FakeApiServer, http: aiohttp.ClientSession) -> None:
        await http.post(POD_PATH, json=pod("p"))
        rule = server.faults.add(FaultRule(
            Match(resource="pods", content_type=APPLY, body=body_contains({"status": {"conditions": [{"reason": "Applied"}]}})),
            Respond(409), times=1))
        assert (await _apply(http, f"{POD_PATH}/p/status", _status_apply([READY])))[0] == 409
        assert (await _apply(http, f"{POD_PATH}/p/status", _status_apply([READY])))[0] == 200
        assert (rule.matched, rule.fired) == (2, 1)

    with_server(body)


def test_a_dry_run_apply_stores_nothing_and_a_refused_apply_is_previewed_as_served() -> None:
    """``dryRun=All`` answers what the apply would store and stores nothing (no effect, no rule
    on an effect fires); the preview a rule read for the apply it refused is what serving the
    same apply then stores, as for any status write."""

    async def body(server: FakeApiServer, http: aiohttp.ClientSession) -> None:
        await http.post(POD_PATH, json=pod("p"))
        before = await read_pod(http, "p")
        rule = server.faults.add(FaultRule(
            Match(resource="pods", subresource="status", effect=sets_condition("PodScheduled", reason="NotReadyForScheduling")),
            Respond(503), times=1, name="once"))
        code, dry = await _apply(http, f"{POD_PATH}/p/status", _status_apply([NOT_READY]), dryRun="All")
        assert (code, rule.fired) == (200, 0)
        assert (condition_of(dry, "PodScheduled") or {}).get("reason") == "NotReadyForScheduling"
        entry = last_write(server, "p")
        assert (entry.query, entry.effect, entry.before, entry.after) == (
            {"dryRun": "All", "fieldManager": "m"}, "", None, None)
        assert await read_pod(http, "p") == before

        code, _ = await _apply(http, f"{POD_PATH}/p/status", _status_apply([NOT_READY]))
        assert (code, rule.fired) == (503, 1)
        intended = last_write(server, "p")
        code, answer = await _apply(http, f"{POD_PATH}/p/status", _status_apply([NOT_READY]))
        assert code == 200
        applied = last_write(server, "p")
        assert (intended.effect, applied.effect) == ("intended", "applied")
        assert intended.before == applied.before == before
        assert _without_rv(intended.after) == _without_rv(applied.after) == _without_rv(answer) == _without_rv(dry)

    with_server(body)


def test_a_rule_on_an_effect_refuses_an_apply_that_creates() -> None:
    async def body(server: FakeApiServer, http: aiohttp.ClientSession) -> None:
        rule = server.faults.add(FaultRule(Match(resource="configmaps", effect=sets_field("data", "a")), Respond(503)))
        cm = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "cm"}, "data": {"a": "1"}}
        code, _ = await _apply(http, "/api/v1/namespaces/default/configmaps/cm", json.dumps(cm))
        assert (code, rule.fired) == (503, 1)

    with_server(body)


def test_an_apply_that_creates_answers_created() -> None:
    """Captured from kube-apiserver v1.37.2: the same ConfigMap apply twice answers 201, then 200."""

    async def body(server: FakeApiServer, http: aiohttp.ClientSession) -> None:
        cm = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "cm"}, "data": {"a": "1"}}
        codes = [(await _apply(http, "/api/v1/namespaces/default/configmaps/cm", json.dumps(cm)))[0] for _ in range(2)]
        assert codes == [201, 200]

    with_server(body)
