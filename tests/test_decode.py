"""Request decoding: the handlers' texts for bodies and list options that are wrong."""

from __future__ import annotations

import pytest

from fake_apiserver import _decode
from fake_apiserver._decode import go_json_type, parse_resource_version, summarize_data
from fake_apiserver._errors import Invalid
from fake_apiserver._kinds import by_resource


def test_public_names() -> None:
    assert _decode.__all__ == [
        "go_json_type", "interpret_errors", "parse_resource_version", "resolve_kind", "summarize_data",
        "validate_list_options",
    ]


@pytest.mark.parametrize(("value", "name"), [({}, "object"), ([], "array"), ("x", "string"), (True, "bool"),
                                             (1, "number"), (1.5, "number")])
def test_go_json_type(value: object, name: str) -> None:
    assert go_json_type(value) == name


def test_summarize_data_quotes_text_or_hex() -> None:
    assert summarize_data(b"") == "<empty>"
    assert summarize_data(b'{"a":1}') == '{"a":1}'
    assert summarize_data(b"{" + b"x" * 40) == "{" + "x" * 29 + " ..."
    assert summarize_data(b"\x01\x02") == "0102"


def test_parse_resource_version() -> None:
    pods = by_resource("", "v1", "pods")
    assert pods is not None
    assert parse_resource_version(pods, "") == 0
    assert parse_resource_version(pods, "42") == 42
    with pytest.raises(Invalid, match=r'^pods "" is invalid: resourceVersion: Invalid value: "x": '
                                      r'strconv\.ParseUint: parsing "x": invalid syntax$'):
        parse_resource_version(pods, "x")
