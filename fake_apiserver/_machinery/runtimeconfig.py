"""The API server's ``--runtime-config``: which API group versions and resources it serves.

A real kube-apiserver serves each API group version that its release enables by default (GA
versions, and the few betas a release keeps on) and no other, unless ``--runtime-config`` turns
one on (``scheduling.k8s.io/v1beta1=true``) or off. :class:`RuntimeConfig` is one server's
setting: the flag's value parsed, checked and merged onto the release's defaults as kube-apiserver
does it, with its messages:

- the flag (``component-base/cli/flag/configuration_map.go``): items separated by commas, each
  ``key=value`` split at the first ``=``, both trimmed; an item without ``=`` has the value ``""``
  (which means true); a key given twice keeps its last value;
- completion (``pkg/controlplane/apiserver/options/options.go``): ``v1``, ``v1/*``, ``api/v1`` and
  ``api/v1/*`` become the core group's ``/v1``; ``api/legacy`` is dropped;
- validation, in kube-apiserver's order (``validateAPIPriorityAndFairness``, then
  ``APIEnablementOptions.Validate``): turning off the API of priority and fairness
  (``flowcontrol.apiserver.k8s.io/v1``, ``api/ga`` or ``api/all`` set to false before one of them
  is set to true) conflicts with ``--enable-priority-and-fairness``; ``api/all=false`` alone is
  refused; a key that is neither ``api/all|ga|beta|alpha`` nor ``group/version[/resource]`` is an
  invalid key; groups the server does not have are unknown api groups (sorted, joined by commas);
- the merge (``apiserver/pkg/server/resourceconfig/helpers.go``): ``api/all``, ``api/ga``,
  ``api/beta`` and ``api/alpha``, in that order, take exactly ``true`` or ``false`` and turn every
  matching version on or off (clearing the preferences of its resources); then each
  ``group/version`` (a version the group lacks is refused; the value is Go's ``ParseBool``, ``""``
  meaning true), then each ``group/version/resource`` (lowercase plural), which win.

Go walks the keys of the second and third steps in map order, which is random: when two keys are
wrong the real server reports either. The fake walks them in the order given.

What the release has, and enables by default, comes in as data (the kind table's discovery data):
:class:`Registry`. This module only applies the rules.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

__all__ = ["Registry", "RuntimeConfig", "RuntimeConfigError", "parse_runtime_config"]

_MATCHERS = {  # in the order kube-apiserver applies them
    "api/all": re.compile(r".*"),
    "api/ga": re.compile(r"^v\d+$"),
    "api/beta": re.compile(r"^v\d+beta\d+$"),
    "api/alpha": re.compile(r"^v\d+alpha\d+$"),
}
_CORE_ALIASES = ("v1", "v1/*", "api/v1", "api/v1/*")
_APF_KEYS = ("flowcontrol.apiserver.k8s.io/v1", "api/ga", "api/all")  # in the order of precedence
_GO_TRUE = ("1", "t", "T", "true", "TRUE", "True")
_GO_FALSE = ("0", "f", "F", "false", "FALSE", "False")


class RuntimeConfigError(ValueError):
    """kube-apiserver would refuse this ``--runtime-config`` and not start; the message is its own."""


GroupVersion = tuple[str, str]
GroupVersionResource = tuple[str, str, str]


@dataclass(frozen=True)
class Registry:
    """What a release's kube-apiserver has: every group version it can serve (each group's
    versions in priority order), the versions on by default, and the resources of those versions
    that are off by default."""

    versions: Mapping[str, Sequence[str]]
    enabled: frozenset[GroupVersion]
    disabled_resources: frozenset[GroupVersionResource] = frozenset()


def parse_runtime_config(values: str | Iterable[str]) -> dict[str, str]:
    """The flag's map, from one value or from the flag given several times."""
    out: dict[str, str] = {}
    for value in [values] if isinstance(values, str) else values:
        for item in value.split(","):
            item = item.strip()
            if not item:
                continue
            key, sep, val = item.partition("=")
            out[key.strip()] = val.strip() if sep else ""
    return out


def _complete(overrides: Mapping[str, str]) -> dict[str, str]:
    out: dict[str, str] = {}
    for key, value in overrides.items():
        if key == "api/legacy":
            continue
        out["/v1" if key in _CORE_ALIASES else key] = value
    return out


def _parse_group_version(text: str) -> GroupVersion | None:
    """apimachinery's ``schema.ParseGroupVersion`` of ``group/version`` (None when it fails)."""
    if text in ("", "/"):
        return ("", "")
    if text.count("/") != 1:
        return None
    group, version = text.split("/")
    return group, version


def _go_bool(value: str) -> bool | None:
    if value in _GO_TRUE:
        return True
    if value in _GO_FALSE:
        return False
    return None


def _validate(overrides: Mapping[str, str], registry: Registry) -> list[str]:
    """kube-apiserver's checks before it starts, in its order."""
    errors: list[str] = []
    text = ",".join(f"{k}={v}" for k, v in sorted(overrides.items()))  # ConfigurationMap.String
    for key in _APF_KEYS:
        if f"{key}=false" in text:
            errors.append(f"--runtime-config={key}=false conflicts with --enable-priority-and-fairness=true")
            break
        if f"{key}=true" in text:
            break
    if overrides.get("api/all") == "false" and len(overrides) == 1:
        return [*errors, "invalid runtime-config with only api/all=false"]
    unknown: set[str] = set()
    for key in overrides:
        if key in _MATCHERS:
            continue
        tokens = key.split("/")
        gv = _parse_group_version("/".join(tokens[:2])) if len(tokens) in (2, 3) else None
        if gv is None:
            return [*errors, f"runtime-config invalid key {key}"]
        if gv[0] not in registry.versions:
            unknown.add(f"{gv[0]}/{gv[1]}" if gv[0] else gv[1])
    if unknown:
        errors.append(f"unknown api groups {','.join(sorted(unknown))}")
    return errors


@dataclass
class RuntimeConfig:
    """One server's ``--runtime-config`` on its release's defaults: :meth:`enabled` answers
    ``ResourceConfig.ResourceEnabled``. :class:`RuntimeConfigError` when kube-apiserver would
    not start with it."""

    registry: Registry
    overrides: Mapping[str, str] = field(default_factory=dict)
    _versions: dict[GroupVersion, bool] = field(init=False, repr=False)
    _resources: dict[GroupVersionResource, bool] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        overrides = _complete(self.overrides)
        errors = _validate(overrides, self.registry)
        if errors:
            raise RuntimeConfigError(errors[0] if len(errors) == 1 else f"[{', '.join(errors)}]")
        every = [(g, v) for g, versions in self.registry.versions.items() for v in versions]
        self._versions = {gv: gv in self.registry.enabled for gv in every}
        self._resources = {gvr: False for gvr in self.registry.disabled_resources}
        for key, matcher in _MATCHERS.items():
            if key not in overrides:
                continue
            value = overrides[key]
            if value not in ("true", "false"):
                raise RuntimeConfigError(f"invalid value {key}={value}")
            for gv in every:
                if matcher.match(gv[1]):
                    self._versions[gv] = value == "true"
                    self._clear_resources(gv)
        versions: list[tuple[GroupVersion, bool]] = []
        resources: list[tuple[GroupVersionResource, bool]] = []
        for key, value in overrides.items():
            if key in _MATCHERS:
                continue
            tokens = key.split("/")
            parsed = _parse_group_version("/".join(tokens[:2]))
            if parsed is None:
                raise RuntimeConfigError(f"invalid key {key}")
            gv = parsed
            group, version = gv
            if group not in self.registry.versions:
                continue  # another server's group (an aggregated API)
            if version not in self.registry.versions[group]:
                raise RuntimeConfigError(f"group version {group + '/' if group else ''}{version} that has not been registered")
            on = True if value == "" else _go_bool(value)
            if on is None:
                raise RuntimeConfigError(f'invalid value of {key}: {value}, err: strconv.ParseBool: parsing "{value}": '
                                         "invalid syntax")
            if len(tokens) == 2:
                versions.append((gv, on))
            else:
                if tokens[2].lower() != tokens[2]:
                    raise RuntimeConfigError(f"invalid key {key}: group/version/resource and resource is always "
                                             f'lowercase plural, not "{tokens[2]}"')
                resources.append(((group, version, tokens[2]), on))
        for gv, on in versions:
            self._versions[gv] = on
            self._clear_resources(gv)
        for gvr, on in resources:
            self._resources[gvr] = on

    def _clear_resources(self, gv: GroupVersion) -> None:
        for gvr in [r for r in self._resources if r[:2] == gv]:
            del self._resources[gvr]

    def enabled(self, group: str, version: str, resource: str) -> bool:
        """Whether the server serves ``resource`` at ``group/version`` (a resource's own setting
        wins over its version's)."""
        explicit = self._resources.get((group, version, resource))
        if explicit is not None:
            return explicit
        return self._versions.get((group, version), False)

    def changed(self) -> bool:
        """Whether the flag changes anything from the release's defaults."""
        return bool(self.overrides)
