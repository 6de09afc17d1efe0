"""Effects: every write journaled with the object before and after it, and fault rules that match
the effect a write would have, whatever verb or patch type carries it."""

from __future__ import annotations

import json
from typing import Any

import aiohttp
import pytest

from fake_apiserver import EffectPredicate, FakeApiServer, FaultRule, JournalEntry, Match, Respond
from fake_apiserver._storage.effects import binds, changes_condition, condition_of, removes_condition, sets_condition, sets_field
from tests.support.http_api import PODS as POD_PATH, pod, with_server

NOT_READY = {"type": "PodScheduled", "status": "False", "reason": "NotReadyForScheduling", "message": "waiting"}
FOREIGN = {"type": "example.com/Ready", "status": "True", "reason": "Fine", "message": "set by another writer"}


async def _pod(client: aiohttp.ClientSession, name: str) -> dict[str, Any]:
    async with client.get(f"{POD_PATH}/{name}") as r:
        got: dict[str, Any] = await r.json()
        return got


async def _write_conditions(client: aiohttp.ClientSession, name: str, shape: str,
                            conditions: list[dict[str, Any]]) -> int:
    """Write ``status.conditions`` of pod ``name`` as ``conditions`` in one of four request shapes."""
    current = await _pod(client, name)
    path = f"{POD_PATH}/{name}/status"
    if shape == "put":
        current.setdefault("status", {})["conditions"] = conditions
        async with client.put(path, json=current) as r:
            return r.status
    if shape == "json":
        ops: list[dict[str, Any]] = [{"op": "add", "path": "/status/conditions", "value": conditions}]
        body, content_type = json.dumps(ops), "application/json-patch+json"
    elif shape == "merge":
        body, content_type = json.dumps({"status": {"conditions": conditions}}), "application/merge-patch+json"
    else:
        old = {c["type"] for c in (current.get("status") or {}).get("conditions") or []}
        gone = [{"$patch": "delete", "type": t} for t in sorted(old - {c["type"] for c in conditions})]
        body = json.dumps({"status": {"conditions": [*conditions, *gone]}})
        content_type = "application/strategic-merge-patch+json"
    async with client.patch(path, data=body, headers={"Content-Type": content_type}) as r:
        return r.status


def _last_write(server: FakeApiServer, name: str) -> JournalEntry:
    return [e for e in server.journal.requests(name=name) if e.verb in ("patch", "update", "create", "delete")][-1]


SHAPES = ["strategic", "merge", "json", "put"]


@pytest.mark.parametrize("shape", SHAPES)
def test_the_same_condition_written_in_any_shape_has_the_same_effect(shape: str) -> None:
    """A condition set beside another writer's, then removed, by SMP, merge patch, JSON patch or
    PUT: each write is journaled with before and after, and the effects agree."""

    async def body(server: FakeApiServer, client: aiohttp.ClientSession) -> None:
        await client.post(POD_PATH, json=pod("p"))
        assert await _write_conditions(client, "p", "merge", [FOREIGN]) == 200
        assert await _write_conditions(client, "p", shape, [FOREIGN, NOT_READY]) == 200
        entry = _last_write(server, "p")
        assert entry.effect == "applied"
        assert condition_of(entry.before, "PodScheduled") is None
        written = condition_of(entry.after, "PodScheduled")
        assert written is not None and {k: written[k] for k in NOT_READY} == NOT_READY
        assert sets_condition("PodScheduled", reason="NotReadyForScheduling")(entry.before, entry.after)
        assert condition_of(entry.after, FOREIGN["type"]) == condition_of(entry.before, FOREIGN["type"])

        assert await _write_conditions(client, "p", shape, [FOREIGN]) == 200
        cleared = _last_write(server, "p")
        assert removes_condition("PodScheduled", reason="NotReadyForScheduling")(cleared.before, cleared.after)
        assert condition_of(cleared.after, "PodScheduled") is None
        assert condition_of(cleared.after, FOREIGN["type"]) is not None

    with_server(body)


@pytest.mark.parametrize("shape", SHAPES)
def test_a_rule_on_an_effect_refuses_the_write_in_every_shape_and_nothing_is_stored(shape: str) -> None:
    async def body(server: FakeApiServer, client: aiohttp.ClientSession) -> None:
        await client.post(POD_PATH, json=pod("p"))
        rule = server.faults.add(FaultRule(
            Match(resource="pods", name="p", effect=sets_condition("PodScheduled", reason="NotReadyForScheduling")),
            Respond(503), name="refuse-not-ready"))
        assert await _write_conditions(client, "p", shape, [NOT_READY]) == 503
        assert rule.fired == 1
        assert condition_of(await _pod(client, "p"), "PodScheduled") is None
        refused = _last_write(server, "p")
        assert (refused.code, refused.fault, refused.effect) == (503, "refuse-not-ready", "intended")
        assert (condition_of(refused.after, "PodScheduled") or {}).get("reason") == "NotReadyForScheduling"
        assert not refused.applied
        # a write with another effect passes
        other = {**NOT_READY, "reason": "Unschedulable"}
        assert await _write_conditions(client, "p", shape, [other]) == 200
        assert rule.fired == 1

    with_server(body)


def test_binding_create_and_delete_carry_their_effects_and_a_rule_can_spare_the_binding() -> None:
    async def body(server: FakeApiServer, client: aiohttp.ClientSession) -> None:
        node = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1"}}
        await client.post("/api/v1/nodes", json=node)
        await client.post(POD_PATH, json=pod("p"))
        created = _last_write(server, "")
        assert created.verb == "create" and created.before is None and created.after["metadata"]["name"] == "p"
        assert await _write_conditions(client, "p", "strategic", [NOT_READY]) == 200
        clear_only = removes_condition("PodScheduled", reason="NotReadyForScheduling") & ~binds()
        rule = server.faults.add(FaultRule(Match(resource="pods", name="p", effect=clear_only), Respond(500)))
        binding = {"apiVersion": "v1", "kind": "Binding", "metadata": {"name": "p"},
                   "target": {"kind": "Node", "name": "n1"}}
        async with client.post(f"{POD_PATH}/p/binding", json=binding) as r:
            assert r.status == 201
        assert rule.fired == 0
        bound = _last_write(server, "p")
        assert (bound.subresource, bound.effect) == ("binding", "applied")
        assert binds()(bound.before, bound.after) and bound.after["spec"]["nodeName"] == "n1"
        assert changes_condition("PodScheduled")(bound.before, bound.after)
        async with client.delete(f"{POD_PATH}/p") as r:
            assert r.status == 200
        marked = _last_write(server, "p")  # a bound pod stays, marked, for its grace period
        assert marked.effect == "applied" and marked.before == bound.after
        assert (marked.after["metadata"]["deletionGracePeriodSeconds"], marked.after["spec"]) == (30, bound.after["spec"])
        async with client.delete(f"{POD_PATH}/p", json={"gracePeriodSeconds": 0}) as r:
            assert r.status == 200
        deleted = _last_write(server, "p")  # marked again with 0, then deleted: one effect, to absent
        assert deleted.effect == "applied" and deleted.before == marked.after and deleted.after is None
        server.faults.remove(rule)

    with_server(body)


def test_a_write_the_server_would_refuse_has_no_preview_so_an_effect_rule_does_not_fire() -> None:
    """Adding a scheduling gate is refused by validation (422): the dry run fails, the rule does
    not fire, and the real refusal is answered."""

    async def body(server: FakeApiServer, client: aiohttp.ClientSession) -> None:
        await client.post(POD_PATH, json=pod("p"))
        rule = server.faults.add(FaultRule(Match(resource="pods", effect=sets_field("spec", "schedulingGates")),
                                           Respond(503)))
        patch = json.dumps({"spec": {"schedulingGates": [{"name": "example.com/a"}]}})
        async with client.patch(f"{POD_PATH}/p", data=patch,
                                headers={"Content-Type": "application/merge-patch+json"}) as r:
            assert r.status == 422
        assert rule.fired == 0
        refused = _last_write(server, "p")
        assert (refused.code, refused.effect, refused.before, refused.after) == (422, "", None, None)

    with_server(body)


def test_a_dry_run_writes_nothing_so_it_has_no_effect_and_no_effect_rule_fires() -> None:
    async def body(server: FakeApiServer, client: aiohttp.ClientSession) -> None:
        await client.post(POD_PATH, json=pod("p"))
        rule = server.faults.add(FaultRule(
            Match(resource="pods", name="p", effect=sets_condition("PodScheduled", reason="NotReadyForScheduling")),
            Respond(503)))
        patch = json.dumps({"status": {"conditions": [NOT_READY]}})
        async with client.patch(f"{POD_PATH}/p/status", params={"dryRun": "All"}, data=patch,
                                headers={"Content-Type": "application/merge-patch+json"}) as r:
            assert r.status == 200
            assert condition_of(await r.json(), "PodScheduled") is not None  # the answer shows what would be
        assert rule.fired == 0
        dry = _last_write(server, "p")
        assert (dry.query, dry.effect, dry.before, dry.after) == ({"dryRun": "All"}, "", None, None)
        assert condition_of(await _pod(client, "p"), "PodScheduled") is None

    with_server(body)


def test_a_delete_preview_honours_its_preconditions() -> None:
    """A delete whose uid precondition does not hold would be refused (409): no preview, so a rule
    on "deletes the pod" does not fire and the server answers the real conflict; the same delete
    without the precondition is refused by the rule."""
    async def body(server: FakeApiServer, client: aiohttp.ClientSession) -> None:
        await client.post(POD_PATH, json=pod("p"))
        deletes = EffectPredicate("deletes the object", lambda before, after: before is not None and after is None)
        rule = server.faults.add(FaultRule(Match(resource="pods", name="p", effect=deletes), Respond(503)))
        stale = {"kind": "DeleteOptions", "apiVersion": "v1", "preconditions": {"uid": "not-the-uid"}}
        async with client.delete(f"{POD_PATH}/p", json=stale) as r:
            assert r.status == 409
        assert rule.fired == 0
        async with client.delete(f"{POD_PATH}/p") as r:
            assert r.status == 503
        assert rule.fired == 1
        assert (await _pod(client, "p"))["metadata"]["name"] == "p"

    with_server(body)
