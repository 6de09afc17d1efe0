"""Name and label syntax checks: Go's exact reasons."""

from __future__ import annotations

import pytest

from fake_apiserver._machinery.names import (
    is_dns1035_label,
    is_dns1123_label,
    is_dns1123_subdomain,
    is_label_value,
    is_qualified_name,
)

NAME_RULE = (
    "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an "
    "alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is "
    "'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"
)
SUBDOMAIN_RULE = (
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must "
    "start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is "
    "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"
)
LABEL_RULE = (
    "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and "
    "end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is "
    "'[a-z0-9]([-a-z0-9]*[a-z0-9])?')"
)
VALUE_RULE = (
    "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must "
    "start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used "
    "for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"
)


def test_lengths_are_counted_in_bytes_as_go_does() -> None:
    """Go's ``len`` of a string is its UTF-8 bytes: 32 two-byte characters are too long for a
    label value (63 bytes), 31 are not (the value still fails the pattern)."""
    assert is_label_value("\u00e9" * 32) == ["must be no more than 63 bytes", VALUE_RULE]
    assert is_label_value("\u00e9" * 31) == [VALUE_RULE]


@pytest.mark.parametrize(
    ("value", "messages"),
    [
        ("example.com/gate", []),
        ("MyName", []),
        ("bad name", [NAME_RULE]),
        ("/x", ["prefix part must be non-empty"]),
        ("x/", ["name part must be non-empty", NAME_RULE]),
        ("EXAMPLE.com/x", ["prefix part " + SUBDOMAIN_RULE]),
        ("a" * 64, ["name part must be no more than 63 bytes"]),
        ("a/b/c", ["a valid label key must consist of alphanumeric characters, '-', '_' or '.', and must start "
                   "and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex "
                   "used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS "
                   "subdomain prefix and '/' (e.g. 'example.com/MyName')"]),
        ("ok\n", [NAME_RULE]),  # Go's "$" does not match before a trailing newline
    ],
)
def test_is_qualified_name(value: str, messages: list[str]) -> None:
    assert is_qualified_name(value) == messages


def test_other_name_formats() -> None:
    assert is_label_value("") == []
    assert is_label_value("-x") == [VALUE_RULE]
    assert is_label_value("a" * 64) == ["must be no more than 63 bytes"]
    assert is_dns1123_subdomain("a.b-c") == []
    assert is_dns1123_subdomain("A") == [SUBDOMAIN_RULE]
    assert is_dns1123_label("a.b") == ["must not contain dots"]
    assert is_dns1123_label("A") == [LABEL_RULE]
    assert is_dns1035_label("1a") == [
        "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic "
        "character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for "
        "validation is '[a-z]([-a-z0-9]*[a-z0-9])?')"
    ]
