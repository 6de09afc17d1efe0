"""``fieldValidation``: what a write does with fields its type lacks, and how it says so.

Every create, update and patch takes ``?fieldValidation=Strict|Warn|Ignore`` (``Warn`` when absent,
``fieldValidation()`` in apiserver ``handlers/rest.go``; any other value is the options' 422, see
:func:`~fake_apiserver._machinery.decode.validate_write_options`). Unknown and duplicate fields of a body
are then:

* ``Strict``: a 400 from the decoder, ``Pod in version "v1" cannot be handled as a Pod: strict
  decoding error: unknown field "spec.containerz", duplicate field "metadata.name"``; for a patch,
  the handler's 422 on ``patch`` whose value is the patched JSON (a JSON or merge patch) or the
  patch as Go prints a map (a strategic merge patch): ``patch: Invalid value: "map[spec:map[
  containerz:1]]": strict decoding error: unknown field "spec.containerz"``;
* ``Warn``: dropped, one ``Warning: 299 - "unknown field \\"spec.containerz\\""`` response header
  each, in the order found, even when the request then fails for another reason;
* ``Ignore``: dropped silently.

A field of the wrong type fails whatever the directive: 400 for a body, 422 on ``patch`` for a
patch result. The decoding itself is :mod:`~fake_apiserver._machinery.typed`; this module holds the policy
and the words, and :class:`FieldValidation` carries one request's directive, body text and
warnings from the edge to the store and back (the edge renders the warnings with
:func:`warning_headers`).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Callable

from fake_apiserver._machinery import typed
from fake_apiserver._machinery.errors import BadRequest, FieldError, Invalid, StatusError
from fake_apiserver._machinery.gotypes import TypeNode
from fake_apiserver._machinery.strategic import go_value

__all__ = [
    "IGNORE",
    "STRICT",
    "WARN",
    "FieldValidation",
    "check_patched",
    "decode_body",
    "warning_headers",
    "yaml_duplicates",
]

STRICT, WARN, IGNORE = "Strict", "Warn", "Ignore"

# parseYAMLWarnings: a YAML strict error is one error holding one line per duplicate key
_YAML_PREFIXES = ("yaml: unmarshal errors:\n", "error converting YAML to JSON: yaml: unmarshal errors:\n")

# apiserver filters/warning.go: past this many runes every warning is cut to _ITEM_RUNES
_TOTAL_RUNES = 4 * 1024
_ITEM_RUNES = 256


@dataclass
class FieldValidation:
    """One write's field validation: the directive, the body's JSON text when it came as JSON
    (repeated keys are found in it), strict errors found before decoding (a YAML body's repeated
    keys) and the warnings the response will carry."""

    directive: str = WARN
    body: bytes | None = None
    leading: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)

    @classmethod
    def of(cls, value: str | None, **kw: Any) -> FieldValidation:
        """The directive a (valid) query value asks for: ``Warn`` when absent or empty."""
        return cls(value or WARN, **kw)

    @property
    def checks(self) -> bool:
        """Whether unknown and duplicate fields are looked for at all (not under ``Ignore``)."""
        return self.directive != IGNORE

    def settle(self, errors: list[str], wrap: Callable[[str], StatusError]) -> None:
        """``errors`` as the directive wants them: raised (through ``wrap``, which turns the
        ``strict decoding error: ...`` text into the error to raise) or added as warnings."""
        if not errors or not self.checks:
            return
        if self.directive == STRICT:
            raise wrap("strict decoding error: " + ", ".join(errors))
        for error in errors:
            self.warnings.extend(_yaml_warnings(error))


def _yaml_warnings(error: str) -> list[str]:
    for prefix in _YAML_PREFIXES:
        if error.startswith(prefix):
            return [line.strip() for line in error[len(prefix):].split("\n")]
    return [error]


def decode_body(node: TypeNode, kind: str, version: str, body: dict[str, Any],
                validation: FieldValidation | None, *, written: bool = False) -> dict[str, Any]:
    """A create or update body decoded into its type, as the handler's decoder does, with
    ``transformDecodeError``'s 400 for a bad one; unknown and duplicate fields per ``validation``
    (none: dropped silently, as for an in-process caller). ``written``: as :func:`typed.decode`
    takes it (the Go struct's unset fields as its encoder writes them)."""
    def wrap(error: str) -> BadRequest:
        return BadRequest(f"{kind} in version {json.dumps(version)} cannot be handled as a {kind}: {error}")

    strict = validation is not None and validation.checks
    try:
        obj, errors = typed.decode(node, body, raw=validation.body if validation else None, strict=strict,
                                   written=written)
    except typed.DecodeError as e:
        raise wrap(str(e)) from None
    if validation is not None:
        validation.settle(validation.leading + errors, wrap)
    return obj


def check_patched(node: TypeNode, strategic: bool, patched: dict[str, Any], patch: Any,
                  patch_errors: list[str], validation: FieldValidation | None, *, reach: Any = None) -> dict[str, Any]:
    """The result of a patch decoded into its type, as ``patcher.applyPatch`` does: a strategic
    merge patch through the unstructured converter, a JSON or merge patch through the JSON decoder;
    a bad result, and strict errors under ``Strict``, are the 422 ``patch: Invalid value: ...``.
    ``patch_errors`` are the patch document's own strict errors (its repeated keys), which come
    first. ``reach`` (a strategic or merge patch's map) limits the work to what the patch reaches:
    the rest is the stored object's, decoded when it was written."""
    def wrap(error: str) -> Invalid:
        if strategic:
            shown = go_value(patch)  # fmt.Sprintf("%+v", patchMap)
        else:
            shown = json.dumps(patched, separators=(",", ":"), ensure_ascii=False)
        cause = FieldError.invalid("patch", shown, error)
        return Invalid(f' "" is invalid: {cause.render()}', details={"causes": [cause.cause()]}, errors=[cause])

    strict = validation is not None and validation.checks
    try:
        if strategic:
            obj, errors = typed.convert(node, patched, strict=strict, patch=reach)
        else:
            obj, errors = typed.decode(node, patched, strict=strict, patch=reach)
    except typed.DecodeError as e:
        raise wrap(str(e)) from None
    if validation is not None:
        validation.settle(patch_errors + errors, wrap)
    return obj


def yaml_duplicates(data: bytes) -> str | None:
    """The strict error ``yaml.YAMLToJSONStrict`` gives for a YAML body whose mappings repeat a
    key (``yaml: unmarshal errors:`` and a ``line N: key "k" already set in map`` line each), or
    None. Read from the body's node tree, which keeps every key and its line."""
    import yaml

    try:
        root = yaml.compose(data, Loader=yaml.SafeLoader)
    except yaml.YAMLError:
        return None  # the body's own parse reports it
    lines: list[str] = []

    def walk(node: Any) -> None:
        if isinstance(node, yaml.MappingNode):
            seen: set[Any] = set()
            for key, value in node.value:
                if isinstance(key, yaml.ScalarNode):
                    if key.value in seen:
                        lines.append(f"line {key.start_mark.line + 1}: key {json.dumps(key.value)} already set in map")
                    seen.add(key.value)
                walk(value)
        elif isinstance(node, yaml.SequenceNode):
            for item in node.value:
                walk(item)

    walk(root)
    return "yaml: unmarshal errors:\n  " + "\n  ".join(lines) if lines else None


def _quoted(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def warning_headers(texts: list[str]) -> list[str]:
    """The ``Warning`` header values for a response (apiserver's warning recorder): ``299 -
    "<text>"`` each, repeated texts once, texts with control characters dropped; past 4096 runes
    in all, every text is cut to 256 runes."""
    kept: list[str] = []
    for text in texts:
        if text and text not in kept and not any(ord(c) < 0x20 or 0x7F <= ord(c) < 0xA0 for c in text):
            kept.append(text)
    written = 0
    for i, text in enumerate(kept):
        written += len(text)
        if written > _TOTAL_RUNES:  # replay what was written so far cut short, then add while room is left
            cut = [t[:_ITEM_RUNES] for t in kept[: i + 1]]
            written = sum(len(t) for t in cut)
            for later in kept[i + 1:]:
                if written >= _TOTAL_RUNES:
                    break
                cut.append(later[:_ITEM_RUNES])
                written += len(cut[-1])
            kept = cut
            break
    return [f"299 - {_quoted(text)}" for text in kept]
