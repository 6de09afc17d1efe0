"""What the tests of the registry's validation share: a kind's spec looked up by kind, the
name-check messages the rules quote, and field errors as the real server renders them."""

from __future__ import annotations

import re

from fake_apiserver._machinery.errors import FieldError
from fake_apiserver._machinery.kindspec import KindSpec
from fake_apiserver._machinery.names import is_dns1123_label, is_dns1123_subdomain, is_label_value, is_qualified_name
from fake_apiserver._registry.kinds import by_kind

__all__ = ["LABEL_RULE", "NAME_RULE", "PODS", "SUBDOMAIN_RULE", "VALUE_RULE", "exact", "kind", "rendered"]

def kind(group: str, name: str) -> KindSpec:
    spec = by_kind(group, name)
    assert spec is not None
    return spec


PODS = kind("", "Pod")

# The name-check messages, exact and pinned in tests/fake_apiserver/_machinery/test_names.py; here
# only their use is checked.
NAME_RULE = is_qualified_name("bad name")[0]
SUBDOMAIN_RULE = is_dns1123_subdomain("A")[0]
LABEL_RULE = is_dns1123_label("A")[0]
VALUE_RULE = is_label_value("-x")[0]


def exact(text: str) -> str:
    return "^" + re.escape(text) + "$"


def rendered(errors: list[FieldError]) -> list[str]:
    return [e.render() for e in errors]
