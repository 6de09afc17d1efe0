"""CronJobs (``batch/v1``): their defaults, the schedule, the time zone and the job template's
rules.

A CronJob's schedule is parsed as robfig/cron's standard parser does (five fields or a
``@descriptor``), with its error texts; names of months and weekdays are accepted as it accepts
them. A ``timeZone`` is looked up in the system's tz database (:mod:`zoneinfo`), as Go's
``time.LoadLocation`` does (with no database installed, any well-formed name passes). The job
template is checked as a Job's spec is (:func:`~fake_apiserver._registry.batch.job.job_spec_errors`).

Its Table's cells: :func:`print_cron_job`.
"""

from __future__ import annotations

import functools
import re
import zoneinfo
from collections.abc import Mapping
from datetime import datetime
from typing import Any

from fake_apiserver._machinery.errors import FieldError
from fake_apiserver._registry.batch.job import job_spec_errors
from fake_apiserver._registry.core.pod.template import default_pod_template
from fake_apiserver._registry.fieldrules import get_in, go_selector, non_negative_errors
from fake_apiserver._registry.generic import KindRules, Strategy
from fake_apiserver._registry.printing import Cells, age_of, at, container_cells, format_selector, name_of, since

__all__ = ["CronJobStrategy", "KIND", "cron_schedule_errors", "default_cron_job", "print_cron_job"]

Obj = dict[str, Any]

_CONCURRENCY_POLICIES = ["Allow", "Forbid", "Replace"]
_DESCRIPTORS = ("@yearly", "@annually", "@monthly", "@weekly", "@daily", "@midnight", "@hourly")
_MONTHS = {name: i + 1 for i, name in enumerate(
    ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"))}
_DAYS = {name: i for i, name in enumerate(("sun", "mon", "tue", "wed", "thu", "fri", "sat"))}
# minute, hour, day of month, month, day of week: bounds and names
_FIELDS: tuple[tuple[int, int, Mapping[str, int]], ...] = (
    (0, 59, {}), (0, 23, {}), (1, 31, {}), (1, 12, _MONTHS), (0, 6, _DAYS))
_DURATION = re.compile(r"([0-9]*(\.[0-9]*)?(ns|us|µs|ms|s|m|h))+")


class _CronError(ValueError):
    pass


def _atoi(text: str) -> int:
    if not re.fullmatch(r"[+-]?[0-9]+", text):
        raise _CronError(f'failed to parse int from {text}: strconv.Atoi: parsing "{text}": invalid syntax')
    return int(text)


def _value(text: str, names: Mapping[str, int]) -> int:
    return names[text.lower()] if text.lower() in names else _atoi(text)


def _range(expr: str, low: int, high: int, names: Mapping[str, int]) -> None:
    """robfig/cron's ``getRange`` on one comma-separated part of a field."""
    range_and_step = expr.split("/")
    low_and_high = range_and_step[0].split("-")
    single_digit = len(low_and_high) == 1
    if low_and_high[0] in ("*", "?"):
        start, end = low, high
    else:
        start = _value(low_and_high[0], names)
        if len(low_and_high) == 1:
            end = start
        elif len(low_and_high) == 2:
            end = _value(low_and_high[1], names)
        else:
            raise _CronError(f"too many hyphens: {expr}")
    if len(range_and_step) == 2:
        step = _atoi(range_and_step[1])
        if single_digit:
            end = high
        if step <= 0:
            raise _CronError(f"step of range should be a positive number: {expr}")
    elif len(range_and_step) > 2:
        raise _CronError(f"too many slashes: {expr}")
    if start < low:
        raise _CronError(f"beginning of range ({start}) below minimum ({low}): {expr}")
    if end > high:
        raise _CronError(f"end of range ({end}) above maximum ({high}): {expr}")
    if start > end:
        raise _CronError(f"beginning of range ({start}) beyond end of range ({end}): {expr}")


def _parse_schedule(schedule: str) -> None:
    """robfig/cron's ``ParseStandard`` (with ``TZ=``/``CRON_TZ=`` prefixes allowed)."""
    if not schedule:
        raise _CronError("empty spec string")
    if schedule.startswith(("TZ=", "CRON_TZ=")):
        head, _, schedule = schedule.partition(" ")
        zone = head.split("=", 1)[1]
        if not zone or zone.startswith("/") or ".." in zone:  # time.LoadLocation's refusals the fake can tell
            raise _CronError(f"provided bad location {zone}: unknown time zone {zone}")
        schedule = schedule.strip()
    if schedule.startswith("@"):
        if schedule in _DESCRIPTORS:
            return
        if schedule.startswith("@every "):
            duration = schedule[len("@every "):]
            if not _DURATION.fullmatch(duration) or not any(c.isdigit() for c in duration):
                raise _CronError(f'failed to parse duration {schedule}: time: invalid duration "{duration}"')
            return
        raise _CronError(f"unrecognized descriptor: {schedule}")
    fields = schedule.split()
    if len(fields) != 5:
        raise _CronError(f"expected exactly 5 fields, found {len(fields)}: [{' '.join(fields)}]")
    for text, (low, high, names) in zip(fields, _FIELDS):
        for part in text.split(","):
            _range(part, low, high, names)


def cron_schedule_errors(schedule: str, path: str, *, allow_tz: bool = False, time_zone: Any = None) -> list[FieldError]:
    """``validateScheduleFormat``: the parser's error, then the TZ rules."""
    errors: list[FieldError] = []
    try:
        _parse_schedule(schedule)
    except _CronError as e:
        errors.append(FieldError.invalid(path, schedule, str(e)))
    if "TZ" in schedule:
        if allow_tz and time_zone is not None:
            errors.append(FieldError.invalid(path, schedule, "cannot use both timeZone field and TZ or CRON_TZ in schedule"))
        elif not allow_tz:
            errors.append(FieldError.invalid(path, schedule, "cannot use TZ or CRON_TZ in schedule, use timeZone field instead"))
    return errors


_TIME_ZONE_PART = re.compile(r"[A-Za-z.\-_0-9+]{1,14}")


@functools.cache
def _zones() -> frozenset[str]:
    """The tz database's names (Go's ``time.LoadLocation`` reads the same files), read once."""
    return frozenset(zoneinfo.available_timezones() | {"UTC"})


def _time_zone_errors(zone: Any, path: str) -> list[FieldError]:
    """``validateTimeZone`` as far as the name's form goes (the tz database is not consulted)."""
    if zone is None:
        return []
    if zone == "":
        return [FieldError.invalid(path, zone, "timeZone must be nil or non-empty string")]
    for part in str(zone).split("/"):
        if part in (".", "..") or part.startswith("-") or not _TIME_ZONE_PART.fullmatch(part):
            return [FieldError.invalid(path, zone, f"unknown time zone {zone}")]
    if str(zone).lower() == "local":
        return [FieldError.invalid(path, zone, "timeZone must be an explicit time zone as defined in "
                                               "https://www.iana.org/time-zones")]
    if len(_zones()) > 1 and zone not in _zones():
        return [FieldError.invalid(path, zone, f"unknown time zone {zone}")]
    return []


def _cron_spec_errors(obj: Mapping[str, Any], old: Mapping[str, Any] | None) -> list[FieldError]:
    """``validateCronJobSpec``."""
    spec = get_in(obj, "spec") or {}
    old_spec = get_in(old, "spec") if old is not None else None
    errors: list[FieldError] = []
    schedule = str(spec.get("schedule") or "")
    if not schedule:
        errors.append(FieldError.required("spec.schedule"))
    else:
        allow_tz = isinstance(old_spec, Mapping) and "TZ" in str(old_spec.get("schedule") or "")
        errors += cron_schedule_errors(schedule, "spec.schedule", allow_tz=allow_tz, time_zone=spec.get("timeZone"))
    errors += non_negative_errors(obj, "startingDeadlineSeconds")
    if not isinstance(old_spec, Mapping) or old_spec.get("timeZone") != spec.get("timeZone"):
        errors += _time_zone_errors(spec.get("timeZone"), "spec.timeZone")
    policy = spec.get("concurrencyPolicy") or ""
    if not policy:
        errors.append(FieldError.required("spec.concurrencyPolicy"))
    elif policy not in _CONCURRENCY_POLICIES:
        errors.append(FieldError.not_supported("spec.concurrencyPolicy", policy, _CONCURRENCY_POLICIES))
    job_spec = get_in(spec, "jobTemplate", "spec") or {}
    errors += job_spec_errors(job_spec, "spec.jobTemplate.spec")
    if job_spec.get("selector") is not None:
        errors.append(FieldError.invalid("spec.jobTemplate.spec.selector", go_selector(job_spec["selector"]),
                                         "`selector` will be auto-generated"))
    if job_spec.get("manualSelector"):
        errors.append(FieldError.not_supported("spec.jobTemplate.spec.manualSelector", True, ["nil", "false"]))
    return errors + non_negative_errors(obj, "successfulJobsHistoryLimit", "failedJobsHistoryLimit")


def _cron_job_errors(obj: Mapping[str, Any]) -> list[FieldError]:
    return _cron_spec_errors(obj, None)


def _cron_job_create_errors(obj: Mapping[str, Any]) -> list[FieldError]:
    """``ValidateCronJobCreate``: the spec, and a name the controller can suffix (52 characters)."""
    errors = _cron_job_errors(obj)
    name = str(get_in(obj, "metadata", "name") or "")
    if len(name) > 52:
        errors.append(FieldError.invalid("metadata.name", name, "must be no more than 52 characters"))
    return errors


def default_cron_job(obj: Obj) -> None:
    """``SetDefaults_CronJob`` and the job template's pod template defaults (the job template
    itself gets no Job defaults)."""
    spec = obj.get("spec")
    if not isinstance(spec, dict):
        return
    if not spec.get("concurrencyPolicy"):
        spec["concurrencyPolicy"] = "Allow"
    if spec.get("suspend") is None:
        spec["suspend"] = False
    spec.setdefault("successfulJobsHistoryLimit", 3)
    spec.setdefault("failedJobsHistoryLimit", 1)
    job_template = spec.get("jobTemplate")
    if isinstance(job_template, dict):
        if not isinstance(job_template.get("metadata"), dict):
            job_template["metadata"] = {}  # a struct, encoded even when empty
        default_pod_template(get_in(job_template, "spec", "template"))


class CronJobStrategy(Strategy):
    """Defaults on every write; create validation adds the name length rule, update validation
    compares with the stored schedule and time zone."""

    def default(self, obj: Obj) -> None:
        default_cron_job(obj)

    def prepare_for_create(self, obj: Obj, now: str) -> None:
        super().prepare_for_create(obj, now)
        obj["status"] = {}

    def validate_create(self, obj: Obj) -> list[FieldError]:
        return _cron_job_create_errors(obj)

    def validate_update(self, new: Obj, old: Obj) -> list[FieldError]:
        return _cron_spec_errors(new, old)


def _bool_text(value: Any) -> str:
    """``printBoolPtr``."""
    return "<unset>" if value is None else "True" if value else "False"


def print_cron_job(obj: Obj, now: datetime) -> tuple[Cells, list[Obj]]:
    spec: Obj = obj.get("spec") or {}
    last = at(obj, "status", "lastScheduleTime")
    names, images = container_cells(at(spec, "jobTemplate", "spec", "template", "spec"))
    return [name_of(obj), spec.get("schedule", ""), spec.get("timeZone") or "<none>", _bool_text(spec.get("suspend")),
            len(at(obj, "status", "active") or []), since(last, now) if last else "<none>", age_of(obj, now),
            names, images, format_selector(at(spec, "jobTemplate", "spec", "selector"))], []


KIND = KindRules(group="batch", kind="CronJob", strategy=lambda spec, options: CronJobStrategy(spec),
                 printer=print_cron_job)
"""The CronJob's declaration."""
