"""PATCH bodies: pick the patch type from the Content-Type and apply it to a stored object.

This mirrors apiserver ``pkg/endpoints/handlers/patch.go`` with its default
``fieldValidation=Warn`` (``handlers/rest.go``), which decides the error a client sees:

* The media type is the Content-Type up to its first ``;``, compared exactly. Anything else is
  415 with ``negotiation.NewUnsupportedMediaTypeError``, listing the types ``installer.go``
  registers while the ``CBORServingAndStorage`` gate is off (so ``application/apply-patch+cbor``
  is itself refused that way). Server-side apply is the store's
  (:meth:`~fake_apiserver._storage.store.Store.apply`); an ``application/apply-patch+yaml`` body
  that reaches this module (a ``/scale`` apply, which the fake does not serve) gets a 415 of the
  same shape that says so.
* JSON patch (RFC 6902) runs through the ``jsonpatch`` library. The body is first decoded strictly
  into ``[]jsonPatchOp``: a decode error is 400 ``error decoding patch: <Go json error>``. More
  than 10000 operations is 413. An operation that fails, a failed ``test`` included, is 422
  ``the server rejected our request due to an error in our request``, the library's reason being
  dropped exactly as ``NewGenericServerResponse`` drops evanphx/json-patch's.
* JSON merge patch (RFC 7386) is :func:`merge_patch`, written here because it is ten lines and
  the server's flavour (evanphx/json-patch ``MergePatch``) prunes nulls nested in values it
  stores, which a library following the RFC to the letter would keep. A body that is not an
  object is 400 ``error decoding patch: ...``; ``null`` is 400 ``Invalid JSON Patch``.
* Strategic merge patch is :func:`~fake_apiserver._machinery.strategic.strategic_merge`; a body that is not
  an object is 400 with the bare Go json error.

With a kind's type (``node``), the patched object is then decoded into that type as
``patcher.applyPatch`` does (:func:`~fake_apiserver._machinery.fieldvalidation.check_patched`): a value of
the wrong type is a 422 on ``patch``, and the request's ``fieldValidation`` decides what becomes of
unknown fields and of the patch document's own repeated keys (``json patch duplicate field
"[0].op"`` for a JSON patch). Numbers keep the text they were sent with (a JSON or merge patch's
``1.0`` stays ``1.0``, which an integer field refuses, as evanphx/json-patch keeps it raw).

Go's JSON errors are reproduced, not Python's (:func:`~fake_apiserver._machinery.jsonutil.go_syntax_error`).
"""

from __future__ import annotations

import json
from typing import Any

import jsonpatch
import jsonpointer
import orjson

from fake_apiserver._machinery.jsonutil import json_copy
from fake_apiserver._machinery.errors import (
    BadRequest,
    FieldError,
    Invalid,
    RequestEntityTooLarge,
    UnknownError,
    UnsupportedMediaType,
)
from fake_apiserver._machinery import typed
from fake_apiserver._machinery.fieldvalidation import FieldValidation, check_patched
from fake_apiserver._machinery.gotypes import STRUCT, TypeNode
from fake_apiserver._machinery.jsonutil import go_json_type, go_syntax_error
from fake_apiserver._machinery.strategic import PatchSchema
from fake_apiserver._machinery.strategic import InvalidPatch, strategic_merge

__all__ = ["PATCH_TYPES", "apply_patch", "custom_patch_media_type", "keeps_managed_fields", "merge_patch", "patch_media_type", "strategic_merge"]

JSON_PATCH = "application/json-patch+json"
MERGE_PATCH = "application/merge-patch+json"
STRATEGIC_MERGE_PATCH = "application/strategic-merge-patch+json"
APPLY_PATCH_YAML = "application/apply-patch+yaml"
APPLY_PATCH_CBOR = "application/apply-patch+cbor"

PATCH_TYPES = (JSON_PATCH, MERGE_PATCH, STRATEGIC_MERGE_PATCH, APPLY_PATCH_YAML, APPLY_PATCH_CBOR)

_MAX_JSON_PATCH_OPERATIONS = 10000
_UNKNOWN_FORMAT = "the body of the request was in an unknown format - accepted media types include: "
# installer.go registers apply-patch+cbor only with the CBORServingAndStorage gate, which is off.
_ACCEPTED = ", ".join(PATCH_TYPES[:4])
_NO_APPLY = (
    f"{_UNKNOWN_FORMAT}{', '.join(PATCH_TYPES[:3])} (server-side apply of a Scale, {APPLY_PATCH_YAML}, "
    "is not supported by this fake API server)"
)


def apply_patch(
    original: dict[str, Any],
    patch_body: bytes,
    content_type: str,
    schema: PatchSchema,
    *,
    kind: str,
    group: str,
    name: str,
    node: TypeNode | None = None,
    validation: FieldValidation | None = None,
) -> dict[str, Any]:
    """Return a new object: ``original`` with the patch applied. ``original`` is never mutated.

    ``schema`` drives strategic merge lists. ``kind``, ``group`` and ``name`` identify the object for
    the caller's benefit; the real server's patch errors name none of them (they use an empty
    ``GroupKind``), so neither do these. With ``node`` (the kind's type), the result is decoded
    into it, unknown fields handled as ``validation`` says (none: dropped silently).
    """
    media_type = patch_media_type(content_type)
    if media_type == APPLY_PATCH_YAML:
        raise UnsupportedMediaType(_NO_APPLY)
    strict = validation is not None and validation.checks
    patch: Any = None
    if media_type == JSON_PATCH:
        result, errors = _json_patch(original, patch_body, strict)
    elif media_type == MERGE_PATCH:
        patch, members = _decode_map(patch_body, "error decoding patch: ")
        if patch is None:
            raise BadRequest("Invalid JSON Patch")
        errors = _repeated_keys(patch_body, members, "") if strict else []
        result = merge_patch(original, patch)
        if node is not None:
            result = _merged_order(result, patch)
    else:
        patch, members = _decode_map(patch_body, "")
        errors = _repeated_keys(patch_body, members, "") if strict else []
        if node is not None and isinstance(patch, dict):
            _check_order_directives(node, patch)
        result = strategic_merge(original, patch or {}, schema)
    if node is None:
        return result
    return check_patched(node, media_type == STRATEGIC_MERGE_PATCH, result, patch or {}, errors, validation,
                         reach=patch or {} if media_type != JSON_PATCH else None)


# Without an escape (a backslash), a key is spelt as it reads: a body holding none of these texts
# names no ``managedFields``, ``metadata``, ``$patch`` or ``$retainKeys``.
_SPELLS_A_REPLACEMENT = (b"\\", b"managedFields", b'"metadata"', b"$patch", b"$retainKeys")


def keeps_managed_fields(patch_body: bytes, content_type: str) -> bool:
    """Whether a merge or strategic merge patch surely leaves ``metadata.managedFields`` as they
    are: it names no ``managedFields`` key, replaces neither the object nor its ``metadata``
    (``$patch``, ``$retainKeys``, ``metadata: null``). Such a patch can be applied to the object
    without them, and they put back after, which spares copying and merging them (a pod's are
    most of its maps). False when unsure: a JSON patch, a body that is no object. A body that
    starts as an object but does not parse may get True: applying it fails before any write."""
    if patch_media_type(content_type) not in (MERGE_PATCH, STRATEGIC_MERGE_PATCH):
        return False
    if patch_body.lstrip()[:1] == b"{" and not any(text in patch_body for text in _SPELLS_A_REPLACEMENT):
        return True  # an object none of whose keys is one of those (kube-scheduler's status patch)
    try:
        patch = orjson.loads(patch_body)
    except orjson.JSONDecodeError:
        return False
    if type(patch) is not dict or "$patch" in patch or "$retainKeys" in patch:
        return False
    if "metadata" not in patch:
        return True
    meta = patch["metadata"]
    return type(meta) is dict and not any("managedFields" in key or key.startswith("$") for key in meta)


def _sorted(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _sorted(value[k]) for k in sorted(value)}
    if isinstance(value, list):
        return [_sorted(v) for v in value]
    return value


def _merged_order(result: Any, patch: Any) -> Any:
    """The key order of evanphx/json-patch's merged document, which the typed decode then reads
    (and so reports unknown fields in): Go maps, sorted, for the root, every object the patch
    reaches and everything the patch brings; the objects it does not reach as they were."""
    if not isinstance(result, dict) or not isinstance(patch, dict):
        return _sorted(result)
    out: dict[str, Any] = {}
    for key in sorted(result):
        value = result[key]
        out[key] = _merged_order(value, patch[key]) if key in patch else value
    return out


def _json_patch_order(result: dict[str, Any], operations: list[Any]) -> dict[str, Any]:
    """The key order of evanphx/json-patch's patched document: the root and every object on an
    operation's ``path`` or ``from`` are read into Go maps (sorted when written back); the rest,
    values the operations insert included, keeps its order."""
    marked = {id(result)}
    for op in operations:
        for key in ("path", "from"):
            pointer = op.get(key) if isinstance(op, dict) else None
            if not isinstance(pointer, str) or not pointer.startswith("/"):
                continue
            node: Any = result
            for token in pointer.split("/")[1:-1]:
                token = token.replace("~1", "/").replace("~0", "~")
                if isinstance(node, dict) and token in node:
                    node = node[token]
                elif isinstance(node, list) and token.isdigit() and int(token) < len(node):
                    node = node[int(token)]
                else:
                    break
                if isinstance(node, dict):
                    marked.add(id(node))

    def rebuild(value: Any) -> Any:
        if isinstance(value, dict):
            keys = sorted(value) if id(value) in marked else list(value)
            return {k: rebuild(value[k]) for k in keys}
        if isinstance(value, list):
            return [rebuild(v) for v in value]
        return value

    ordered: dict[str, Any] = rebuild(result)
    return ordered


def _repeated_keys(body: bytes, members: int, prefix: str) -> list[str]:
    """The strict errors of decoding a patch into ``map[string]interface{}``: every repeated key
    (``duplicate field "metadata.labels.a"``), found only when the body's keys outnumber the
    ``members`` of the parsed objects."""
    if typed.count_keys(body) == members:
        return []
    errors: list[str] = []
    typed.repeated_keys(typed.loads_pairs(body), "", errors)
    return [prefix + e for e in dict.fromkeys(errors)]


def patch_media_type(content_type: str) -> str:
    """The patch type as ``PatchResource`` reads it (the Content-Type up to its first ``;``,
    untrimmed), or its 415 for a type it does not take. go-restful's route check comes first
    and refuses most of those with its own ``415: Unsupported Media Type`` (the edge's job)."""
    semicolon = content_type.find(";")
    media_type = content_type[:semicolon] if semicolon > 0 else content_type
    if media_type not in PATCH_TYPES[:4]:
        raise UnsupportedMediaType(_UNKNOWN_FORMAT + _ACCEPTED)
    return media_type


def custom_patch_media_type(content_type: str) -> str:
    """:func:`patch_media_type` for a custom resource, which takes no strategic merge patch (its
    kind has no Go type to read patch strategies from): the 415 lists the types it takes."""
    media_type = patch_media_type(content_type)
    if media_type == STRATEGIC_MERGE_PATCH:
        raise UnsupportedMediaType(_UNKNOWN_FORMAT + ", ".join((JSON_PATCH, MERGE_PATCH, APPLY_PATCH_YAML)))
    return media_type


def merge_patch(original: Any, patch: Any) -> Any:
    """RFC 7386 as evanphx/json-patch applies it: objects merge key by key, ``null`` deletes, any
    other value replaces, and a stored value keeps no ``null`` object members. Returns new values;
    the inputs are untouched, and ``original``'s key order is kept with new keys last."""
    if not isinstance(patch, dict):
        return _copy(patch, drop_nulls=True)
    base = original if isinstance(original, dict) else {}
    result: dict[str, Any] = {}
    for key, value in base.items():
        if key not in patch:
            result[key] = _copy(value)
        elif patch[key] is not None:
            result[key] = merge_patch(value, patch[key])
    for key, value in patch.items():
        if key not in base and value is not None:
            result[key] = merge_patch(None, value)
    return result


def _copy(value: Any, *, drop_nulls: bool = False) -> Any:
    if isinstance(value, dict):
        return {k: _copy(v, drop_nulls=drop_nulls) for k, v in value.items() if not (drop_nulls and v is None)}
    if isinstance(value, list):
        return [_copy(v, drop_nulls=drop_nulls) for v in value]
    return value


def _replace_as_add(document: Any, operation: Any) -> Any:
    """evanphx/json-patch v4 (kube-apiserver's) reads a missing member of an object as null
    rather than an error, so a ``replace`` of a member the object lacks adds it (kube-apiserver
    v1.37.2 answers 200); an RFC 6902 library refuses it, so such a ``replace`` is sent as ``add``."""
    if not isinstance(operation, dict) or operation.get("op") != "replace" or not isinstance(operation.get("path"), str):
        return operation
    try:
        pointer = jsonpointer.JsonPointer(operation["path"])
    except jsonpointer.JsonPointerException:
        return operation
    if not pointer.parts:
        return operation
    try:
        parent = jsonpointer.JsonPointer.from_parts(pointer.parts[:-1]).resolve(document)
    except jsonpointer.JsonPointerException:
        return operation
    if isinstance(parent, dict) and pointer.parts[-1] not in parent:
        return {**operation, "op": "add"}
    return operation


def _json_patch(original: dict[str, Any], body: bytes, strict: bool) -> tuple[dict[str, Any], list[str]]:
    """The patched object, and with ``strict`` the strict errors of decoding the operations into
    ``[]jsonPatchOp`` (``json patch unknown field "[0].x"``, ``json patch duplicate field
    "[0].op"``)."""
    operations = _decode(body, _OPS_TARGET, "error decoding patch: ") or []
    errors = [f"json patch {e}" for e in _ops_strict_errors(body)] if strict else []
    if len(operations) > _MAX_JSON_PATCH_OPERATIONS:
        raise RequestEntityTooLarge(
            "Request entity too large: The allowed maximum operations in a JSON patch is "
            f"{_MAX_JSON_PATCH_OPERATIONS}, got {len(operations)}"
        )
    try:
        result: Any = json_copy(original)
        for operation in operations:
            result = jsonpatch.JsonPatch([_replace_as_add(result, operation)]).apply(result, in_place=True)
    except (jsonpatch.JsonPatchException, jsonpointer.JsonPointerException) as exc:
        raise InvalidPatch() from exc
    if not isinstance(result, dict):
        # runtime.DecodeInto cannot read a kind out of a non-object; patch.go wraps that as Invalid.
        encoded = json.dumps(result, separators=(",", ":"), ensure_ascii=False)
        detail = (
            f"couldn't get version/kind; json parse error: json: cannot unmarshal {_json_kind(result)} into Go "
            'value of type struct { APIVersion string "json:\\"apiVersion,omitempty\\""; '
            'Kind string "json:\\"kind,omitempty\\"" }'
        )
        raise Invalid.of("", "", "", [FieldError.invalid("patch", encoded, detail)])
    return _json_patch_order(result, operations), errors


_OP_FIELDS = ("op", "path", "from", "value")


def _ops_strict_errors(body: bytes) -> list[str]:
    """``UnmarshalStrict`` of the operations: fields a ``jsonPatchOp`` lacks, fields repeated,
    and keys repeated inside an operation's ``value``, in document order."""
    errors: list[str] = []
    ops = typed.loads_pairs(body)
    for i, op in enumerate(ops if isinstance(ops, list) else ()):
        members = op.items() if isinstance(op, dict) else op if isinstance(op, list) else ()
        seen: set[str] = set()
        for key, value in members:
            if key not in _OP_FIELDS:
                errors.append(f'unknown field "[{i}].{key}"')
                continue
            if key in seen:
                errors.append(f'duplicate field "[{i}].{key}"')
            seen.add(key)
            if key == "value":
                typed.repeated_keys(value, f"[{i}].value", errors)
    return list(dict.fromkeys(errors))


_MAP_TARGET = "map[string]interface {}"
_OPS_TARGET = "[]handlers.jsonPatchOp"


def _decode_map(body: bytes, prefix: str) -> tuple[Any, int]:
    """A merge or strategic merge patch decoded into ``map[string]interface{}`` (:func:`_decode`),
    and the members of its objects. Read by orjson when every number in it is an integer Go's
    int64 holds: orjson then reads it as :func:`_decode` does. Any other body (a fraction, an
    exponent, a bigger integer, a lone surrogate's escape, a byte order mark, an error) goes the
    way of :func:`_decode`."""
    try:
        value = orjson.loads(body)
    except orjson.JSONDecodeError:
        pass
    else:
        if type(value) is dict:
            members = _members_if_integers(value)
            if members >= 0:
                return value, members
    value = _decode(body, _MAP_TARGET, prefix)
    return value, typed.count_members(value)


_INT64 = range(-(2**63), 2**63)


def _members_if_integers(value: Any) -> int:
    """The members of every object in ``value``, or -1 when it holds a float or an integer past int64."""
    count = 0
    todo = [value]
    while todo:
        item = todo.pop()
        kind = type(item)
        if kind is dict:
            count += len(item)
            todo.extend(item.values())
        elif kind is list:
            todo.extend(item)
        elif kind is float or (kind is int and item not in _INT64):
            return -1
    return count


def _decode(body: bytes, target: str, prefix: str) -> Any:
    """Decode ``body`` the way the handler does, into ``target``; 400 with Go's message otherwise."""
    text = body.decode("utf-8", errors="replace")
    value: Any = None
    error: str | None = None
    try:
        # Fast path: a body Python's decoder takes is valid JSON for Go too, unless it relies on
        # Python's NaN/Infinity extension; only a body that fails is scanned for Go's message.
        if b"NaN" in body or b"Infinity" in body or text.startswith("\ufeff"):  # json.loads refuses a BOM
            raise ValueError
        value = _PATCH_DECODER.decode(text)
    except (ValueError, RecursionError):
        error = go_syntax_error(body)
    if error is None:
        try:
            if value is None and body.strip() not in (b"null",):
                value = _PATCH_DECODER.decode(text)
            if target == _OPS_TARGET:
                # Object members as pairs: Go meets duplicate keys in document order.
                error = _ops_type_error(json.loads(text, object_pairs_hook=_Members))
            elif value is not None and not isinstance(value, dict):
                error = f"json: cannot unmarshal {_json_kind(value)} into Go value of type {target}"
        except RecursionError:  # Python nests less deeply than Go's 10000
            error = "exceeded max depth"
    if error is not None:
        raise BadRequest(prefix + error)
    return value


class _Members(list[tuple[str, Any]]):
    """A JSON object as the list of its members, duplicates kept."""


def _go_int(text: str) -> int | float:
    """``UnmarshalCaseSensitivePreserveInts``: an integer is int64 if it fits, float64 otherwise."""
    number = int(text)
    return number if -(2**63) <= number < 2**63 else float(text)


# one decoder for every patch (``json.loads`` with hooks builds a new one a call)
_PATCH_DECODER = json.JSONDecoder(parse_int=_go_int, parse_float=typed.Number)


def _ops_type_error(value: Any) -> str | None:
    """The first ``json.UnmarshalTypeError`` that decoding into ``[]jsonPatchOp`` would give."""
    if value is None:
        return None
    if not isinstance(value, list) or isinstance(value, _Members):
        return f"json: cannot unmarshal {_json_kind(value)} into Go value of type {_OPS_TARGET}"
    for op in value:
        if op is None:
            continue
        if not isinstance(op, _Members):
            return f"json: cannot unmarshal {_json_kind(op)} into Go value of type handlers.jsonPatchOp"
        for field, member in op:
            if field in ("op", "path", "from") and member is not None and not isinstance(member, str):
                kind = _json_kind(member)
                return f"json: cannot unmarshal {kind} into Go struct field jsonPatchOp.{field} of type string"
    return None


def _json_kind(value: Any) -> str:
    return go_json_type(value, _Members)


def _check_order_directives(node: TypeNode, patch: dict[str, Any]) -> None:
    """``mergePatchIntoOriginal``: a ``$setElementOrder/<field>`` directive in a struct looks the
    field up in the Go struct, and a field the struct lacks fails the patch with a plain error
    (a 500 without a reason). Maps and list elements are not looked into (Go ignores there)."""
    if node.kind != STRUCT:
        return
    for key, value in patch.items():
        if key.startswith("$setElementOrder/"):
            name = key.partition("/")[2]
            if name not in node.fields:
                raise UnknownError(f'unable to find api field in struct {node.name} for the json field "{name}"')
        elif isinstance(value, dict) and key in node.fields:
            _check_order_directives(node.fields[key].node, value)


