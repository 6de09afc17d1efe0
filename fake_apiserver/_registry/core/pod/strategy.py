"""The pod strategy (``pkg/registry/core/pod/strategy.go``): what a create, an update and a
``/status`` write of a pod do, as far as schedulers look.

Defaults (:mod:`.defaults`) on every body, the admission plugins (:mod:`.admission`) where the
real server runs them, then validation (:mod:`.validation`). Every write drops the fields of gates
that are off (``DropDisabledPodFields``, :mod:`~fake_apiserver._registry.dropdisabled`).
"""

from __future__ import annotations

from typing import Any

from fake_apiserver._machinery.errors import FieldError
from fake_apiserver._registry.core.pod.admission import admit_default_tolerations, admit_pod, admit_pod_overhead
from fake_apiserver._registry.core.pod.defaults import default_pod, keep_pod_level_resources, qos_class
from fake_apiserver._registry.core.pod.validation import (
    validate_pod_create,
    validate_pod_status_update,
    validate_pod_update,
)
from fake_apiserver._registry.dropdisabled import POD_RULES, drop_disabled_fields
from fake_apiserver._registry.generic import Strategy

__all__ = ["PodStrategy", "SCHEDULING_GATED_MESSAGE"]

Obj = dict[str, Any]


SCHEDULING_GATED_MESSAGE = "Scheduling is blocked due to non-empty scheduling gates"


class PodStrategy(Strategy):
    """``pkg/registry/core/pod/strategy.go`` as far as schedulers look, with the Priority
    admission plugin on create. Every write drops the fields of gates that are off
    (``DropDisabledPodFields``, :mod:`~fake_apiserver._registry.dropdisabled`)."""

    status_keeps_meta = ("ownerReferences",)  # "old kubelets corrupt them" (podStatusStrategy)
    defaults_in = ("spec",)  # default_pod's

    def default(self, obj: Obj) -> None:
        default_pod(obj)

    def admit_create(self, obj: Obj, sent: Obj) -> None:
        admit_default_tolerations(obj)
        admit_pod(obj, self.priority_classes())
        overhead = (sent.get("spec") or {}).get("overhead") if isinstance(sent.get("spec"), dict) else None
        if isinstance(overhead, dict) and isinstance(obj.get("spec"), dict):
            obj["spec"].setdefault("overhead", {})  # Go's non-nil empty map, which the RuntimeClass plugin sees

    def prepare_for_create(self, obj: Obj, now: str) -> None:
        drop_disabled_fields(POD_RULES, obj, None, self.features)
        obj["metadata"]["generation"] = 1
        status: Obj = {"phase": "Pending", "qosClass": qos_class(obj)}
        if obj["spec"].get("schedulingGates"):
            status["conditions"] = [
                {
                    "type": "PodScheduled",
                    "status": "False",
                    "lastProbeTime": None,
                    "lastTransitionTime": now,
                    "reason": "SchedulingGated",
                    "message": SCHEDULING_GATED_MESSAGE,
                }
            ]
        obj["status"] = status

    def validate_create(self, obj: Obj) -> list[FieldError]:
        return validate_pod_create(obj)

    def validate_admission(self, obj: Obj, old: Obj | None) -> None:
        if old is None:
            admit_pod_overhead(obj)
            if obj["spec"].get("overhead") == {}:  # admitted (a RuntimeClass named): encoded without it
                del obj["spec"]["overhead"]

    def grace_period(self, obj: Obj, requested: int | None) -> int | None:
        """The request's period, else ``spec.terminationGracePeriodSeconds``, else 0; 0 for a pod
        no node holds (unscheduled) or that has ended (``Succeeded``/``Failed``)
        (``podStrategy.CheckGracefulDelete``)."""
        period = requested if requested is not None else obj["spec"].get("terminationGracePeriodSeconds") or 0
        if not obj["spec"].get("nodeName") or (obj.get("status") or {}).get("phase") in ("Succeeded", "Failed"):
            period = 0
        return int(period)

    def prepare_for_update(self, new: Obj, old: Obj) -> None:
        """Defaults and admission as on create, so that a PUT of the pod as the client first
        sent it changes nothing: the decoder defaults every body, DefaultTolerationSeconds admits
        updates too, and the Priority plugin keeps the stored ``priority`` and
        ``preemptionPolicy`` when the update leaves them out (``plugin/pkg/admission/priority``)."""
        spec = new.setdefault("spec", {})
        old_spec = old.get("spec") or {}
        for key in ("priority", "preemptionPolicy"):
            if spec.get(key) is None and key in old_spec:
                spec[key] = old_spec[key]
        keep_pod_level_resources(new, old, self.features)
        admit_default_tolerations(new)
        drop_disabled_fields(POD_RULES, new, old, self.features)
        super().prepare_for_update(new, old)

    def validate_update(self, new: Obj, old: Obj) -> list[FieldError]:
        return validate_pod_update(old, new)

    def prepare_for_status_update(self, new: Obj, old: Obj, now: str) -> None:
        super().prepare_for_status_update(new, old, now)
        drop_disabled_fields(POD_RULES, new, old, self.features)
        status = new.setdefault("status", {})
        if not status.get("qosClass"):
            status["qosClass"] = old.get("status", {}).get("qosClass", qos_class(old))
        for cond in status.get("conditions") or []:
            if isinstance(cond, dict):
                # Go encodes PodCondition's zero metav1.Time as null (omitempty cannot omit a
                # struct), so a condition stored without lastProbeTime (an SMP that sent null, as
                # the scheduler's does) reads back with "lastProbeTime": null. Nothing fills in
                # a lastTransitionTime the client did not send: kube-apiserver v1.36 stores a
                # condition written without one with "lastTransitionTime": null.
                cond.setdefault("lastProbeTime", None)
                cond.setdefault("lastTransitionTime", None)

    def validate_status_update(self, new: Obj, old: Obj) -> list[FieldError]:
        return validate_pod_status_update(old, new)
