"""Jobs (``batch/v1``): their defaults, the generated selector and labels, spec rules and the
immutable fields.

A Job that does not ask for a manual selector gets one naming its own uid
(``batch.kubernetes.io/controller-uid``), and its template gets that label, the legacy
``controller-uid``, and the job name under ``batch.kubernetes.io/job-name`` and ``job-name``. The
real strategy does this in ``PrepareForCreate``, where the uid is already filled in
(``FillObjectMetaSystemFields`` runs before ``BeforeCreate``); the fake's store gives the uid only
after ``prepare_for_create``, so the selector is generated at the start of :meth:`JobStrategy.
validate_create` instead, on the same object before any rule reads it. ``SetDefaults_Job`` gives a
Job with no labels its template's labels map itself (the same Go map), so the labels generated
into the template show on the Job as well; the fake shares the dict the same way.

A changed Job template is refused as "field is immutable" with the internal ``PodTemplateSpec``
as Go's ``encoding/json`` writes it: its metadata by JSON tags, its spec, a struct without tags,
as every field of the internal type in declaration order under its Go name
(:func:`go_pod_template`). The field lists of the internal ``PodSpec``, ``Container``,
``ResourceRequirements`` and ``PodSecurityContext`` are data read off kube-apiserver v1.37.2's
answer; a value nested deeper (a probe, a volume) is written as its JSON, which the real server
would again write under Go names, so only templates made of those four types print exactly.

Its Table's cells: :func:`print_job` (``printJob``).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from datetime import datetime
from typing import Any

from fake_apiserver._machinery.equality import semantic_omitzero
from fake_apiserver._machinery.errors import FieldError, GoJSON
from fake_apiserver._registry.core.pod.template import default_pod_template, pod_template_errors
from fake_apiserver._registry.fieldrules import (
    get_in,
    go_selector,
    immutable_errors,
    selector_matches,
    template_mismatch,
)
from fake_apiserver._registry.generic import FieldLabels, KindRules, Strategy
from fake_apiserver._registry.printing import (
    Cells,
    age_of,
    at,
    condition,
    container_cells,
    count_of,
    format_selector,
    human_duration,
    name_of,
    parse_time,
)

__all__ = ["CONTROLLER_UID", "JOB_NAME", "JobStrategy", "KIND", "LEGACY_CONTROLLER_UID", "LEGACY_JOB_NAME",
           "default_job", "go_pod_template", "job_spec_errors", "print_job"]

Obj = dict[str, Any]

CONTROLLER_UID = "batch.kubernetes.io/controller-uid"
JOB_NAME = "batch.kubernetes.io/job-name"
LEGACY_CONTROLLER_UID = "controller-uid"
LEGACY_JOB_NAME = "job-name"

_COMPLETION_MODES = ["NonIndexed", "Indexed"]
_REPLACEMENT_POLICIES = ["Failed", "TerminatingOrFailed"]  # sets.List: sorted
_MAX_INDEXED_PARALLELISM = 100000


def default_job(obj: Obj) -> None:
    """``SetDefaults_Job`` (batch/v1, JobPodReplacementPolicy on) and the template's defaults."""
    spec = obj.get("spec")
    if not isinstance(spec, dict):
        return
    if spec.get("completions") is None and spec.get("parallelism") is None:
        spec["completions"] = 1
    if spec.get("parallelism") is None:
        spec["parallelism"] = 1
    if spec.get("backoffLimit") is None:
        spec["backoffLimit"] = 2**31 - 1 if spec.get("backoffLimitPerIndex") is not None else 6
    template = spec.get("template")
    labels = get_in(template, "metadata", "labels")
    if isinstance(labels, dict) and not obj["metadata"].get("labels"):
        obj["metadata"]["labels"] = labels  # the template's map itself, as in Go
    if spec.get("completionMode") is None:
        spec["completionMode"] = "NonIndexed"
    if spec.get("suspend") is None:
        spec["suspend"] = False
    if spec.get("podReplacementPolicy") is None:
        spec["podReplacementPolicy"] = "Failed" if spec.get("podFailurePolicy") is not None else "TerminatingOrFailed"
    if spec.get("manualSelector") is None:
        spec["manualSelector"] = False
    default_pod_template(template)


def _generate_selector(obj: Obj) -> None:
    """``generateSelector``: the template's job name and uid labels (those the client left out),
    and the selector's controller-uid label."""
    spec = obj["spec"]
    template = spec.setdefault("template", {})
    meta = template.get("metadata")
    if not isinstance(meta, dict):
        meta = template["metadata"] = {}
    labels = meta.get("labels")
    if not isinstance(labels, dict):
        labels = meta["labels"] = {}
    name, uid = obj["metadata"].get("name") or "", obj["metadata"]["uid"]
    for key, value in ((LEGACY_JOB_NAME, name), (JOB_NAME, name), (LEGACY_CONTROLLER_UID, uid), (CONTROLLER_UID, uid)):
        labels.setdefault(key, value)
    selector = spec.get("selector")
    if not isinstance(selector, dict):
        selector = spec["selector"] = {}
    match = selector.get("matchLabels")
    if not isinstance(match, dict):
        match = selector["matchLabels"] = {}
    match.setdefault(CONTROLLER_UID, uid)


def _has_label(labels: Mapping[str, Any], key: str, expected: str) -> list[FieldError]:
    """``ValidateHasLabel`` on the template's metadata."""
    path = f"spec.template.metadata.labels[{key}]"
    if key not in labels:
        return [FieldError.required(path, f"must be '{expected}'")]
    if labels[key] != expected:
        return [FieldError.invalid(path, dict(labels), f"must be '{expected}'")]
    return []


def _generated_selector_errors(obj: Mapping[str, Any]) -> list[FieldError]:
    """``validateGeneratedSelector`` (with the prefixed labels a new Job carries)."""
    spec = get_in(obj, "spec") or {}
    selector = spec.get("selector")
    if spec.get("manualSelector") or not isinstance(selector, Mapping):
        return []
    name, uid = str(get_in(obj, "metadata", "name") or ""), str(get_in(obj, "metadata", "uid") or "")
    labels = get_in(spec, "template", "metadata", "labels") or {}
    errors = _has_label(labels, LEGACY_CONTROLLER_UID, uid) + _has_label(labels, LEGACY_JOB_NAME, name)
    errors += _has_label(labels, CONTROLLER_UID, uid) + _has_label(labels, JOB_NAME, name)
    expected = {CONTROLLER_UID: uid, JOB_NAME: name, LEGACY_CONTROLLER_UID: uid, LEGACY_JOB_NAME: name}
    if not selector_matches(selector, expected):
        errors.append(FieldError.invalid("spec.selector", go_selector(selector), "`selector` not auto-generated"))
    return errors


def job_spec_errors(spec: Mapping[str, Any], path: str) -> list[FieldError]:
    """``validateJobSpec``: counts, the completion mode, the replacement policy and the
    template's restart policy (``path`` is the spec's)."""
    errors: list[FieldError] = []
    for key in ("parallelism", "completions", "activeDeadlineSeconds", "backoffLimit", "ttlSecondsAfterFinished",
                "backoffLimitPerIndex", "maxFailedIndexes"):
        value = spec.get(key)
        if isinstance(value, int) and not isinstance(value, bool) and value < 0:
            errors.append(FieldError.invalid(f"{path}.{key}", value, "must be greater than or equal to 0"))
    if spec.get("maxFailedIndexes") is not None and spec.get("backoffLimitPerIndex") is None:
        errors.append(FieldError.required(f"{path}.backoffLimitPerIndex", "when maxFailedIndexes is specified"))
    mode = spec.get("completionMode")
    if mode is not None and mode not in _COMPLETION_MODES:
        errors.append(FieldError.not_supported(f"{path}.completionMode", mode, _COMPLETION_MODES))
    if mode == "Indexed":
        if spec.get("completions") is None:
            errors.append(FieldError.required(f"{path}.completions", "when completion mode is Indexed"))
        parallelism = spec.get("parallelism")
        if isinstance(parallelism, int) and parallelism > _MAX_INDEXED_PARALLELISM:
            errors.append(FieldError.invalid(f"{path}.parallelism", parallelism,
                                             f"must be less than or equal to {_MAX_INDEXED_PARALLELISM} "
                                             "when completion mode is Indexed"))
    elif mode in (None, "NonIndexed"):
        for key in ("backoffLimitPerIndex", "maxFailedIndexes"):
            if spec.get(key) is not None:
                errors.append(FieldError.invalid(f"{path}.{key}", spec[key], "requires indexed completion mode"))
    policy = spec.get("podReplacementPolicy")
    if policy is not None:
        if spec.get("podFailurePolicy") is not None:
            if policy != "Failed":
                errors.append(FieldError.not_supported(f"{path}.podReplacementPolicy", policy, ["Failed"]))
        elif policy not in _REPLACEMENT_POLICIES:
            errors.append(FieldError.not_supported(f"{path}.podReplacementPolicy", policy, _REPLACEMENT_POLICIES))
    errors += pod_template_errors(spec.get("template"), f"{path}.template")
    restart = get_in(spec, "template", "spec", "restartPolicy")
    at = f"{path}.template.spec.restartPolicy"
    if restart in (None, "", "Always"):
        errors.append(FieldError.required(at, 'valid values: "OnFailure", "Never"'))
    elif restart not in ("OnFailure", "Never"):
        errors.append(FieldError.not_supported(at, restart, ["OnFailure", "Never"]))
    elif spec.get("podFailurePolicy") is not None and restart != "Never":
        errors.append(FieldError.invalid(at, restart, 'only "Never" is supported when podFailurePolicy is specified'))
    return errors


def _job_errors(obj: Mapping[str, Any]) -> list[FieldError]:
    """``ValidateJob``: the generated selector, the spec, the selector and the template's labels."""
    spec = get_in(obj, "spec") or {}
    errors = _generated_selector_errors(obj) + job_spec_errors(spec, "spec")
    selector = spec.get("selector")
    if not isinstance(selector, Mapping):
        errors.append(FieldError.required("spec.selector"))
    labels = get_in(spec, "template", "metadata", "labels") or {}
    if isinstance(selector, Mapping) and not selector_matches(selector, labels):
        errors.append(template_mismatch(labels))
    return errors


def _job_update_errors(new: Mapping[str, Any], old: Mapping[str, Any]) -> list[FieldError]:
    """``ValidateJobSpecUpdate``'s immutable fields (the template only while the Job runs
    unsuspended)."""
    spec, old_spec = get_in(new, "spec") or {}, get_in(old, "spec") or {}
    errors: list[FieldError] = []
    completions = spec.get("completions")
    if completions != old_spec.get("completions"):  # validateCompletions
        if spec.get("completionMode") != "Indexed":
            errors.append(FieldError.invalid("spec.completions", completions, "field is immutable"))
        elif completions is not None and completions != spec.get("parallelism"):
            errors.append(FieldError.invalid("spec.completions", completions,
                                             "can only be modified in tandem with spec.parallelism"))
    if semantic_omitzero(spec.get("selector")) != semantic_omitzero(old_spec.get("selector")):
        errors.append(FieldError.invalid("spec.selector", go_selector(spec.get("selector")), "field is immutable"))
    if not old_spec.get("suspend") and \
            semantic_omitzero(spec.get("template")) != semantic_omitzero(old_spec.get("template")):
        errors.append(FieldError.invalid("spec.template", go_pod_template(spec.get("template")), "field is immutable"))
    for key in ("completionMode", "podFailurePolicy", "backoffLimitPerIndex", "managedBy", "successPolicy"):
        errors += immutable_errors(spec.get(key), old_spec.get(key), f"spec.{key}")
    return errors


class JobStrategy(Strategy):
    """Defaults on every write; the generated selector on create (see the module docstring)."""

    def default(self, obj: Obj) -> None:
        default_job(obj)

    def prepare_for_create(self, obj: Obj, now: str) -> None:
        super().prepare_for_create(obj, now)
        obj["status"] = {}

    def validate_create(self, obj: Obj) -> list[FieldError]:
        if isinstance(obj.get("spec"), dict) and not obj["spec"].get("manualSelector"):
            _generate_selector(obj)
        return super().validate_create(obj)


# --------------------------------------------------------- the internal template as Go prints it


def _layout(text: str) -> tuple[tuple[str, str], ...]:
    return tuple((name, kind) for name, _, kind in (item.partition(":") for item in text.split()))


# Go name:kind, in declaration order (v1.37.2); S a string, B a bool, P a pointer, slice or map
# (null when unset), [T] a slice of struct T, T a struct, *T a pointer to struct T
_LAYOUTS: dict[str, tuple[tuple[str, str], ...]] = {
    "PodSpec": _layout(
        "Volumes:P InitContainers:[Container] Containers:[Container] EphemeralContainers:P RestartPolicy:S "
        "TerminationGracePeriodSeconds:P ActiveDeadlineSeconds:P DNSPolicy:S NodeSelector:P ServiceAccountName:S "
        "DeprecatedServiceAccount:S AutomountServiceAccountToken:P NodeName:S HostNetwork:B HostPID:B HostIPC:B "
        "ShareProcessNamespace:P SecurityContext:*PodSecurityContext ImagePullSecrets:P Hostname:S Subdomain:S "
        "Affinity:P SchedulerName:S Tolerations:P HostAliases:P PriorityClassName:S Priority:P DNSConfig:P "
        "ReadinessGates:P RuntimeClassName:P EnableServiceLinks:P PreemptionPolicy:P Overhead:P "
        "TopologySpreadConstraints:P SetHostnameAsFQDN:P OS:P HostUsers:P SchedulingGates:P ResourceClaims:P "
        "Resources:P HostnameOverride:P SchedulingGroup:P EvictionResponders:P"),
    "Container": _layout(
        "Name:S Image:S Command:P Args:P WorkingDir:S Ports:P EnvFrom:P Env:P Resources:ResourceRequirements "
        "ResizePolicy:P RestartPolicy:P RestartPolicyRules:P VolumeMounts:P VolumeDevices:P LivenessProbe:P "
        "ReadinessProbe:P StartupProbe:P Lifecycle:P TerminationMessagePath:S TerminationMessagePolicy:S "
        "ImagePullPolicy:S SecurityContext:P Stdin:B StdinOnce:B TTY:B"),
    "ResourceRequirements": _layout("Limits:P Requests:P Claims:P"),
    "PodSecurityContext": _layout(
        "SELinuxOptions:P WindowsOptions:P RunAsUser:P RunAsGroup:P RunAsNonRoot:P SupplementalGroups:P "
        "SupplementalGroupsPolicy:P FSGroup:P Sysctls:P FSGroupChangePolicy:P SeccompProfile:P AppArmorProfile:P "
        "SELinuxChangePolicy:P"),
}
_JSON_NAMES = {"DNSPolicy": "dnsPolicy", "HostPID": "hostPID", "HostIPC": "hostIPC", "DNSConfig": "dnsConfig",
               "OS": "os", "TTY": "tty", "DeprecatedServiceAccount": "serviceAccount",
               "SELinuxOptions": "seLinuxOptions", "FSGroup": "fsGroup", "FSGroupChangePolicy": "fsGroupChangePolicy",
               "SELinuxChangePolicy": "seLinuxChangePolicy"}
_META_ORDER = ("name", "generateName", "namespace", "selfLink", "uid", "resourceVersion", "generation",
               "creationTimestamp", "deletionTimestamp", "deletionGracePeriodSeconds", "labels", "annotations",
               "ownerReferences", "finalizers")


def _plain(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def _go_value(value: Any, kind: str) -> str:
    if kind == "S":
        return _plain(value if isinstance(value, str) else "")
    if kind == "B":
        return "true" if value is True else "false"
    if kind == "P" or value is None and (kind.startswith("*") or kind.startswith("[")):
        return "null" if value is None else _plain(value)
    if kind.startswith("["):
        items = value if isinstance(value, list) else []
        return "[" + ",".join(_go_struct(item, kind[1:-1]) for item in items) + "]"
    return _go_struct(value, kind.lstrip("*"))


def _go_struct(value: Any, name: str) -> str:
    value = value if isinstance(value, Mapping) else {}
    fields = []
    for go_name, kind in _LAYOUTS[name]:
        json_name = _JSON_NAMES.get(go_name, go_name[:1].lower() + go_name[1:])
        fields.append(f'"{go_name}":{_go_value(value.get(json_name), kind)}')
    return "{" + ",".join(fields) + "}"


def go_pod_template(template: Any) -> GoJSON:
    """The internal ``PodTemplateSpec`` of a template as ``encoding/json`` writes it."""
    template = template if isinstance(template, Mapping) else {}
    meta = template.get("metadata") if isinstance(template.get("metadata"), Mapping) else {}
    fields = [f'"{key}":{_plain(meta[key])}' for key in _META_ORDER if meta.get(key) not in (None, "", {}, [], 0)]
    fields.append(f'"Spec":{_go_struct(template.get("spec"), "PodSpec")}')
    text = "{" + ",".join(fields) + "}"
    return GoJSON(text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026"))


def print_job(obj: Obj, now: datetime) -> tuple[Cells, list[Obj]]:
    """``printJob``: STATUS from the conditions, COMPLETIONS ``succeeded/completions`` (or ``/1``,
    ``of <parallelism>``), DURATION from start to completion (or to now)."""
    spec: Obj = obj.get("spec") or {}
    status: Obj = obj.get("status") or {}
    succeeded = count_of(status.get("succeeded"))
    if spec.get("completions") is not None:
        completions = f"{succeeded}/{count_of(spec['completions'])}"
    elif count_of(spec.get("parallelism")) > 1:
        completions = f"{succeeded}/1 of {count_of(spec['parallelism'])}"
    else:
        completions = f"{succeeded}/1"
    start, end = parse_time(status.get("startTime")), parse_time(status.get("completionTime"))
    duration = "" if start is None else human_duration(((end or now) - start).total_seconds())

    def holds(type_: str) -> bool:
        found = condition(obj, type_)
        return found is not None and found.get("status") == "True"

    if holds("Complete"):
        state = "Complete"
    elif holds("Failed"):
        state = "Failed"
    elif at(obj, "metadata", "deletionTimestamp"):
        state = "Terminating"
    elif holds("Suspended"):
        state = "Suspended"
    elif holds("FailureTarget"):
        state = "FailureTarget"
    else:
        state = "Running"
    names, images = container_cells(at(spec, "template", "spec"))
    return [name_of(obj), state, completions, duration, age_of(obj, now), names, images,
            format_selector(spec.get("selector"))], []


KIND = KindRules(group="batch", kind="Job", create=_job_errors, update=_job_update_errors,
                 strategy=lambda spec, options: JobStrategy(spec),
                 field_labels=FieldLabels(("status.successful",), errors="kind"), printer=print_job)
"""The Job's declaration."""
