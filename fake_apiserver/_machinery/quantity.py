"""Resource quantities as ``resource.Quantity`` reads, compares and prints them.

Validation messages quote quantities in their canonical form (``Quantity.String()``): a request
sent as ``"0.3"`` is reported as ``"300m"``, ``"1.5Gi"`` as ``"1536Mi"``. :func:`canonical`
gives that form; :func:`parse` the exact value (a ``Decimal``, so that ``"0.1"`` plus ``"0.2"``
compares equal to ``"300m"``, as Go's inf.Dec arithmetic does).

Go keeps the suffix family a quantity was written in (decimal SI, binary SI or a decimal
exponent) and prints the largest suffix of that family that leaves an integer mantissa; a binary
quantity below 1024 or with a fraction is printed as decimal SI. Go's rounding of values finer
than one nano is not copied: no field the fake reads carries one.

Decoding a quantity field (``Quantity.UnmarshalJSON``, then ``MarshalJSON`` when the object is
stored) is :func:`unmarshal`: ``ParseQuantity``'s error, or the text written back, which is the
text as sent when Go keeps it (``"100m"``) and the canonical form otherwise (``"0.5"`` is stored as
``"500m"``). Its format check and error texts (:data:`FORMAT`, :data:`FORMAT_ERROR`) are the ones
every decoder of the fake gives.
"""

from __future__ import annotations

import functools
import re
from decimal import Decimal
from typing import Any

__all__ = ["FORMAT", "FORMAT_ERROR", "SUFFIX_ERROR", "canonical", "is_quantity", "parse", "unmarshal"]

_DECIMAL = {"n": -9, "u": -6, "m": -3, "": 0, "k": 3, "M": 6, "G": 9, "T": 12, "P": 15, "E": 18}
_BINARY = {"Ki": 1, "Mi": 2, "Gi": 3, "Ti": 4, "Pi": 5, "Ei": 6}
_SUFFIX_BY_EXPONENT = {v: k for k, v in _DECIMAL.items()}
_SUFFIX_BY_POWER = {v: k for k, v in _BINARY.items()}
_FORM = re.compile(r"^([+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+))(Ki|Mi|Gi|Ti|Pi|Ei|[numkMGTPE]|[eE][+-]?[0-9]+|)$")


def _split(raw: Any) -> tuple[Decimal, str, str]:
    """The value, the family (``"decimal"``, ``"binary"``, ``"exponent"``) and the suffix."""
    if isinstance(raw, (int, float)) and not isinstance(raw, bool):
        return Decimal(str(raw)), "decimal", ""
    return _split_text(raw if isinstance(raw, str) else str(raw))


@functools.lru_cache(maxsize=4096)
def _split_text(text: str) -> tuple[Decimal, str, str]:
    """:func:`_split` of a text, remembered: a pod's few quantities are read many times on every
    write (decoding, defaults, validation, QoS), always the same few texts."""
    match = _FORM.match(text.strip())
    if match is None:
        raise ValueError(f"not a quantity: {text!r}")
    number, suffix = Decimal(match.group(1)), match.group(2)
    if suffix in _BINARY:
        return number * (Decimal(1024) ** _BINARY[suffix]), "binary", suffix
    if suffix in _DECIMAL:
        return number.scaleb(_DECIMAL[suffix]), "decimal", suffix
    return number.scaleb(int(suffix[1:])), "exponent", suffix


def is_quantity(raw: Any) -> bool:
    try:
        _split(raw)
    except ValueError:
        return False
    return True


def parse(raw: Any) -> Decimal:
    """The exact value of a quantity (``"100m"`` is 0.1); ``ValueError`` if it is not one."""
    return _split(raw)[0]


def canonical(raw: Any) -> str:
    """``Quantity.String()``: ``"0.3"`` -> ``"300m"``, ``"1000m"`` -> ``"1"``, ``"2048Ki"`` -> ``"2Mi"``."""
    return _canonical_text(raw) if isinstance(raw, str) else _canonical(raw)


@functools.lru_cache(maxsize=4096)
def _canonical_text(text: str) -> str:
    return _canonical(text)


def _canonical(raw: Any) -> str:
    value, family, _ = _split(raw)
    if value == 0:
        return "0"
    if family == "binary" and abs(value) >= 1024 and value == value.to_integral_value():
        power, mantissa = 0, value
        while power < 6 and mantissa % 1024 == 0:
            mantissa, power = mantissa / 1024, power + 1
        return f"{int(mantissa)}{_SUFFIX_BY_POWER.get(power, '')}"
    # The mantissa is an integer and the exponent the largest multiple of 3 that keeps it one.
    exponent = -9
    mantissa = value.scaleb(9)
    mantissa = mantissa.to_integral_value(rounding="ROUND_CEILING")
    while mantissa % 1000 == 0 and (family == "exponent" or exponent < 18):
        mantissa, exponent = mantissa / 1000, exponent + 3
    if family == "exponent":
        return f"{int(mantissa)}e{exponent}" if exponent else str(int(mantissa))
    return f"{int(mantissa)}{_SUFFIX_BY_EXPONENT[exponent]}"


FORMAT = re.compile(r"^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$")
"""``resource.ParseQuantity``'s format check (``apimachinery/pkg/api/resource/quantity.go``)."""
FORMAT_ERROR = f"quantities must match the regular expression '{FORMAT.pattern}'"
"""``ParseQuantity``'s error for a text that fails :data:`FORMAT`."""
SUFFIX_ERROR = "unable to parse quantity's suffix"
"""``ParseQuantity``'s error for a text of the right form with an unknown suffix."""

# quantity text -> (its error, "" when it parses; its stored form): requests repeat a few
_UNMARSHALLED: dict[str, tuple[str, str]] = {}


def unmarshal(text: str) -> tuple[str, str]:
    """``resource.ParseQuantity``'s error for a quantity's text ("" when it parses), and what
    ``MarshalJSON`` writes back (``Quantity.String()``: ``"0.5"`` is stored as ``"500m"``, ``1.5``
    as ``"1500m"``). Remembered: every write decodes a pod's few quantities."""
    known = _UNMARSHALLED.get(text)
    if known is None:
        if not FORMAT.match(text):
            known = (FORMAT_ERROR, "")
        elif not is_quantity(text):
            known = (SUFFIX_ERROR, "")
        else:
            known = ("", text if _kept_as_written(text) else canonical(text))
        if len(_UNMARSHALLED) >= 4096:
            _UNMARSHALLED.clear()
        _UNMARSHALLED[text] = known
    return known


_PARTS = re.compile(r"^[+-]?([0-9]*)(?:\.([0-9]*))?(.*)$")


def _kept_as_written(text: str) -> bool:
    """Whether ``ParseQuantity`` keeps a quantity's text as its string ("if the number is in
    canonical form, reuse the string"): an integer mantissa that fits int64, at a scale that is a
    multiple of 3 not ending in ``000`` nor starting with ``0`` (``"+1"``, ``"1E3"``, ``"100m"``
    stay as written; ``"1000"`` is written back ``"1k"``), or a binary suffix that is a multiple of
    2^10 over a value not divisible by 8 (``"500Mi"``; ``"2048Mi"`` becomes ``"2Gi"``)."""
    match = _PARTS.match(text)
    if match is None:
        return False
    num, denom, suffix = match.group(1), match.group(2) or "", match.group(3)
    shifted = num + denom
    if not shifted or len(shifted) > 18:
        return False
    if suffix in _BINARY:
        exponent = 10 * _BINARY[suffix]
        return (not denom and 15 - len(num) - int(exponent * 3 / 10) - 1 >= 0 and int(num) << exponent < 2**63
                and int(num) & 7 != 0)
    if suffix in _DECIMAL:
        exponent = _DECIMAL[suffix]
    elif suffix[:1] in ("e", "E") and suffix[1:].lstrip("+-").isdigit():
        exponent = int(suffix[1:])
    else:
        return False
    scale = exponent - len(denom)
    return (scale >= -9 and int(shifted) < 2**63 and scale % 3 == 0 and not shifted.endswith("000")
            and shifted[0] != "0")
