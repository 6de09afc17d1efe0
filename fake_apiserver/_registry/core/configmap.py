"""ConfigMaps (core/v1): their keys (``IsConfigMapKey``, which Secrets share) and the
``immutable`` flag, which keeps a stored object's data as it is (Secrets share it too).

Its Table's cells: :func:`print_config_map`."""

from __future__ import annotations

import re
from collections.abc import Mapping
from datetime import datetime
from typing import Any

from fake_apiserver._machinery.errors import FieldError
from fake_apiserver._machinery.names import nbytes
from fake_apiserver._registry.fieldrules import invalid_each
from fake_apiserver._registry.generic import KindRules
from fake_apiserver._registry.printing import Cells, age_of, name_of

__all__ = ["KIND", "config_key_messages", "immutable_data_errors", "print_config_map"]

Obj = dict[str, Any]


_CONFIG_KEY_FMT = "[-._a-zA-Z0-9]+"


_CONFIG_KEY_ERROR = ("a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. "
                     f"'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '{_CONFIG_KEY_FMT}')")


def config_key_messages(key: str) -> list[str]:
    """``IsConfigMapKey``."""
    messages = []
    if nbytes(key) > 253:
        messages.append("must be no more than 253 bytes")
    if not re.fullmatch(_CONFIG_KEY_FMT, key):
        messages.append(_CONFIG_KEY_ERROR)
    if key in (".", ".."):
        messages.append(f"must not be '{key}'")
    elif key.startswith(".."):
        messages.append("must not start with '..'")
    return messages


def _config_map_errors(obj: Mapping[str, Any]) -> list[FieldError]:
    errors: list[FieldError] = []
    data, binary = obj.get("data") or {}, obj.get("binaryData") or {}
    for key in data:
        errors += invalid_each(f"data[{key}]", key, config_key_messages(key))
    for key in binary:
        errors += invalid_each(f"binaryData[{key}]", key, config_key_messages(key))
        if key in data:
            errors.append(FieldError.invalid(f"data[{key}]", key, "duplicate of key present in binaryData"))
    return errors


_IMMUTABLE_SET = "field is immutable when `immutable` is set"


def immutable_data_errors(new: Mapping[str, Any], old: Mapping[str, Any], keys: tuple[str, ...]) -> list[FieldError]:
    """An object stored with ``immutable: true`` keeps that flag and its data."""
    if old.get("immutable") is not True:
        return []
    errors = [] if new.get("immutable") is True else [FieldError.forbidden("immutable", _IMMUTABLE_SET)]
    for key in keys:
        if (new.get(key) or {}) != (old.get(key) or {}):
            errors.append(FieldError.forbidden(key, _IMMUTABLE_SET))
    return errors


def _config_map_update_errors(new: Mapping[str, Any], old: Mapping[str, Any]) -> list[FieldError]:
    return immutable_data_errors(new, old, ("data", "binaryData"))


def print_config_map(obj: Obj, now: datetime) -> tuple[Cells, list[Obj]]:
    return [name_of(obj), len(obj.get("data") or {}) + len(obj.get("binaryData") or {}), age_of(obj, now)], []


KIND = KindRules(group="", kind="ConfigMap",
                 generate_name_checked_on_update=True, create=_config_map_errors, update=_config_map_update_errors,
                 printer=print_config_map)
"""The ConfigMap's declaration."""
