"""What a scenario reads of the request journal: the scheduler's requests and writes, when its
watch was handed an object, and the failure messages that show the journal.

:class:`JournalReading` is the half of :class:`~harness._scenario.scenario.Scenario` that judges on
the journal rather than on the API's state: every method here reads the backend's journal from the
scenario's start, leaves out the scenario's own requests (unless asked), and refuses, with
:class:`~harness._backends.backend.Unsupported`, where the scheduler under test does not talk
through the backend. The steps and expectations that act on the API are the other half.
"""

from __future__ import annotations

import asyncio
from typing import Any, Callable, Iterable

from fake_apiserver import Journal, JournalEntry
from harness._backends.backend import Backend, BackendError, Slack, Unsupported
from harness._backends.scenario_client import resolve_kind
from harness._scenario.expectations import Expectation, ExpectationFailed, touches
from harness._scenario.writes import Write, delivered, writes_of

__all__ = ["JournalReading", "seconds_text"]

Obj = dict[str, Any]


def seconds_text(seconds: float) -> str:
    """A number of seconds as failure messages write it (``5``, ``0.5``)."""
    return f"{seconds:g}"


class JournalReading:
    """Reading the journal since a scenario started (see the module docstring)."""

    backend: Backend
    namespace: str
    sees_scheduler: bool
    poll: float
    own_requests: set[int]
    start_seq: int
    start_time: float

    @property
    def now(self) -> float:
        """Seconds on the backend's clock (virtual seconds under a virtual loop)."""
        return self.backend.clock.time()

    def writes(self, name: str, kind: str = "pods", *, include_own: bool = False) -> list[Write]:
        """The writes of one object since the scenario started (any verb and subresource, with
        their effects: :mod:`harness._scenario.writes`), the scheduler's only unless ``include_own``."""
        journal = self._journal("read writes")
        if not include_own:
            self._require_scheduler_traffic("read the scheduler's writes")
        spec = resolve_kind(kind)
        entries = [e for e in journal.entries[self.start_seq:] if include_own or e.seq not in self.own_requests]
        return writes_of(entries, spec.group_resource, self.namespace if spec.namespaced else "", name)

    def delivered(self, kind: str, name: str, rv: int | str = 0, *, since: float | None = None,
                  deleted: bool = False) -> float | None:
        """When the scheduler's watch was handed ``name`` at resourceVersion ``rv`` or later, no
        earlier than ``since`` (default: the scenario's start; ``deleted``: its deletion)
        (:func:`harness._scenario.writes.delivered`); ``None`` if not yet."""
        journal = self._journal("tell when the scheduler saw an object")
        self._require_scheduler_traffic("tell when the scheduler saw an object")
        spec = resolve_kind(kind)
        # the scheduler's watches were opened before the scenario started: read the whole journal
        return delivered(journal.entries, self.own_requests, spec.group_resource,
                         self.namespace if spec.namespaced else "", name, int(rv),
                         self.start_time if since is None else since, deleted=deleted)

    async def seen(self, kind: str, obj: Obj | str, within: float = 30.0, *, since: float | None = None,
                   deleted: bool = False) -> float:
        """Wait until the scheduler has been handed ``obj`` (as a step returned it, or a name:
        any version since ``since``; ``deleted``: its deletion) and return when: the start of a
        window "after the scheduler saw it". Fails after ``within`` s."""
        __tracebackhide__ = True  # a failure points at the scenario's line
        meta = obj.get("metadata") or {} if isinstance(obj, dict) else {"name": obj}
        name, rv = str(meta.get("name", "")), str(meta.get("resourceVersion", "0"))
        start = self.now
        while (at := self.delivered(kind, name, 0 if deleted else rv, since=since, deleted=deleted)) is None:
            if self.now - start >= within:
                what = "the deletion of " if deleted else ""
                raise ExpectationFailed(
                    f"expected the scheduler's watch to be handed {what}{kind} {name} (resourceVersion {rv} or later) "
                    f"within {seconds_text(within)} s of t={start:.3f}; it was not (no LIST or GET of {kind} either)")
            await asyncio.sleep(self.poll)
        return at

    @property
    def slack(self) -> Slack:
        """How early or late a scheduler's write may land (:class:`~harness._backends.backend.Slack`)."""
        return self.backend.slack

    def requests(
        self, verb: str | None = None, resource: str | None = None, *, subresource: str | None = None,
        name: str | None = None, namespace: str | None = None, where: Callable[[JournalEntry], bool] | None = None,
        include_own: bool = False,
    ) -> list[JournalEntry]:
        """Journal requests since the scenario started matching every given field.

        ``resource`` is ``pods``, ``resource.group``, or a plain name matching it in every group
        (``events`` matches core and events.k8s.io events). ``subresource=""`` means none.
        """
        journal = self._journal("count requests")
        if not include_own:
            self._require_scheduler_traffic("count the scheduler's requests")
        out = []
        for entry in journal.entries[self.start_seq:]:
            if entry.type != "request" or (not include_own and entry.seq in self.own_requests):
                continue
            if verb is not None and entry.verb != verb:
                continue
            if resource is not None and resource not in (entry.resource, entry.resource.partition(".")[0]):
                continue
            if subresource is not None and entry.subresource != subresource:
                continue
            if name is not None and entry.name != name:
                continue
            if namespace is not None and entry.namespace != namespace:
                continue
            if where is not None and not where(entry):
                continue
            out.append(entry)
        return out

    def expect_requests(
        self, n: int, verb: str | None = None, resource: str | None = None, *, subresource: str | None = None,
        name: str | None = None, namespace: str | None = None, where: Callable[[JournalEntry], bool] | None = None,
        include_own: bool = False,
    ) -> list[JournalEntry]:
        """Exactly ``n`` journal requests (not the scenario's own) match; return them."""
        __tracebackhide__ = True  # a failure points at the scenario's line
        found = self.requests(verb, resource, subresource=subresource, name=name, namespace=namespace,
                              where=where, include_own=include_own)
        if len(found) == n:
            return found
        fields = [f"{k}={v}" for k, v in (("verb", verb), ("resource", resource), ("subresource", subresource),
                                           ("namespace", namespace), ("name", name)) if v is not None]
        if where is not None:
            fields.append(f"where={getattr(where, '__name__', 'predicate')}")
        who = "" if include_own else " (the scenario's own requests left out)"
        journal = self._journal("count requests")
        lines = [f"expected exactly {n} request{'s' if n != 1 else ''} matching {' '.join(fields) or 'anything'}"
                 f"{who} since t={self.start_time:.3f}, found {len(found)} at t={self.now:.3f}"]
        if found:
            lines += ["matching requests:", journal.format(found)]
        pods = (name,) if name and (resource or "pods").startswith("pods") else ()
        lines += self._journal_slice(pods, self.start_time)
        raise ExpectationFailed("\n".join(lines))

    # ------------------------------------------------------------------ failure messages

    def _require_scheduler_traffic(self, what: str) -> None:
        if not self.sees_scheduler:
            raise Unsupported(
                f"cannot {what}: the scheduler under test does not talk through the {self.backend.name} "
                "backend's proxy (the cluster's own kube-scheduler); run one out of the cluster with "
                "--scheduler reference or cmd:... to check this")

    def _journal(self, what: str) -> Journal:
        journal = self.backend.journal
        if journal is None:
            raise BackendError(f"the {self.backend.name} backend keeps no request journal: cannot {what}")
        return journal

    def _failure(self, expected: str, observed: str, expectation: Expectation, start: float) -> str:
        return "\n".join([expected, observed, *self._journal_slice(expectation.pods, start)])

    def _journal_slice(self, pods: Iterable[str], start: float) -> list[str]:
        """Requests touching ``pods`` (or all requests since ``start`` when none is named)."""
        journal = self.backend.journal
        if journal is None:
            return ["(no request journal: the backend does not record one)"]
        pods = tuple(pods)
        entries = journal.entries[self.start_seq:]
        if pods:
            rows = [e for e in entries if e.type == "request" and touches(e, pods, self.namespace)]
            header = f"journal, requests touching pod {', '.join(pods)} up to t={self.now:.3f}:"
        else:
            rows = [e for e in entries if e.type == "request" and e.time >= start]
            header = f"journal, requests from t={start:.3f} to t={self.now:.3f}:"
        return [header, journal.format(rows) if rows else "(none)"]
