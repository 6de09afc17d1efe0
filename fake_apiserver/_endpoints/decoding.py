"""Request bodies decoded as the real handlers decode them, and refused in their words.

Bodies come as JSON, YAML or protobuf (``application/vnd.kubernetes.protobuf``, what kubectl's
imperative ``create`` and kube-scheduler's default configuration send): a protobuf body is decoded
by :mod:`~fake_apiserver._machinery.protobuf` into the JSON object a JSON client would have sent, so nothing
after the edge tells them apart. Any other type (CBOR among them) gets the real server's 415. A
body that does not decode gets the decoder's 400 in Go's words (``encoding/json``'s scanner
message, the body summarized as ``summarizeData`` does; gogo-protobuf's errors for protobuf).

What the body means is decided below the edge (:mod:`~fake_apiserver._machinery.decode` for the
options and the kind checks, the store for the object); this module only turns bytes of a
request's content type into that JSON value, so the handlers and a write's preview decode alike.
"""

from __future__ import annotations

import json
from typing import Any, Callable

from fake_apiserver._endpoints.request import BODY_TYPES, RequestInfo, media_type
from fake_apiserver._machinery import goyaml, protobuf
from fake_apiserver._machinery import schema as schemas
from fake_apiserver._machinery.decode import (
    decode_delete_options,
    go_json_type,
    interpret_errors,
    query_values,
    summarize_data,
)
from fake_apiserver._machinery.errors import BadRequest, UnsupportedMediaType
from fake_apiserver._machinery.fieldvalidation import FieldValidation, yaml_duplicates
from fake_apiserver._machinery.jsonutil import go_syntax_error, loads
from fake_apiserver._machinery.kindspec import KindSpec
from fake_apiserver._registry.scheme import resolve_kind

__all__ = ["check_apply_body", "decode_object", "delete_options", "field_validation", "parse_body"]

Obj = dict[str, Any]


def parse_body(info: RequestInfo, expected: str) -> Any:
    """The request body as a JSON value, or the decoder's 400 as the real handler words it
    (``transformDecodeError``: Go's ``encoding/json`` message and ``summarizeData`` of the body).

    A body that is not JSON or YAML is refused with the real server's 415 (its list of types);
    protobuf bodies are decoded by the callers, which know the URL's kind
    (:func:`decode_object`, :func:`delete_options`).
    """
    media = media_type(info.content_type) if info.content_type else "application/json"
    if media not in ("application/json", "application/yaml"):
        raise UnsupportedMediaType(
            f"the body of the request was in an unknown format - accepted media types include: {BODY_TYPES}"
        )
    data = info.body
    if media == "application/yaml":
        import yaml

        try:
            value = goyaml.load(data) if data.strip() else None
        except yaml.YAMLError as e:  # go-yaml words it differently; the frame is the real one
            message = f"error converting YAML to JSON: {str(e).splitlines()[0]}"
            raise BadRequest(
                f"the object provided is unrecognized (must be of type {expected}): {message} ({summarize_data(data)})"
            ) from e
        unsupported = goyaml.unsupported_value(value)
        if unsupported is not None:
            raise BadRequest(f"the object provided is unrecognized (must be of type {expected}): "
                             f"json: unsupported value: {unsupported} ({summarize_data(data)})")
        if value is None and not data.strip():
            value = {}
        return value
    try:  # orjson, else Python's parser (Go's scanner only to word a failure)
        return loads(data, lambda text: _JSON_DECODER.decode(text.decode("utf-8", errors="replace")))
    except (ValueError, RecursionError):
        error = go_syntax_error(data) or "exceeded max depth"  # Python nests less deeply than Go
    raise BadRequest(
        f"the object provided is unrecognized (must be of type {expected}): "
        f"couldn't get version/kind; json parse error: {error} ({summarize_data(data)})"
    )


def _not_json(constant: str) -> Any:
    """``NaN`` and ``Infinity`` are Python's extensions, not JSON: refuse them as Go does."""
    raise ValueError(constant)


# one decoder for every body (``json.loads`` with a hook builds a new one a call)
_JSON_DECODER = json.JSONDecoder(parse_constant=_not_json)


def decode_object(info: RequestInfo, group: str, version: str, kind: str,
                  release: str = schemas.KUBERNETES_VERSION,
                  served: Callable[[str, str, str], bool] | None = None) -> Obj:
    """:func:`parse_body`, then the kind and version checks of decoding into the URL's type
    (:func:`~fake_apiserver._machinery.decode.interpret_errors`, :func:`~fake_apiserver._registry.scheme.resolve_kind`);
    a protobuf body is decoded and checked by :func:`~fake_apiserver._machinery.protobuf.decode_object`
    with the Go types of the server's ``release``; ``served`` as for :func:`resolve_kind`."""
    if info.content_type and media_type(info.content_type) == protobuf.CONTENT_TYPE:
        return protobuf.decode_object(info.body, group, version, kind, release)
    body = parse_body(info, kind)
    if info.content_type and media_type(info.content_type) == "application/yaml":
        body = _yaml_key_order(body)
    interpret_errors(kind, body, info.body)
    obj: Obj = {} if body is None else body
    resolve_kind(group, version, kind, obj, info.body, served)
    return obj


def _yaml_key_order(value: Any) -> Any:
    """A YAML body as the decoder reads it: ``yaml.YAMLToJSON`` goes through Go maps, so every
    object's keys come sorted (which orders unknown-field errors)."""
    if isinstance(value, dict):
        return {k: _yaml_key_order(value[k]) for k in sorted(value, key=str)}
    if isinstance(value, list):
        return [_yaml_key_order(v) for v in value]
    return value


def field_validation(info: RequestInfo, warnings: list[str]) -> FieldValidation:
    """A write's ``fieldValidation`` (its value already checked with the write options), the body
    text in which repeated keys are found (a JSON body; a patch's own, read by the patch), and a
    YAML body's repeated keys, which the YAML decoder reports first."""
    values = query_values(info.query, "fieldValidation")
    fields = FieldValidation.of(values[0] if values else "", warnings=warnings)
    if info.verb != "patch":
        media = media_type(info.content_type) if info.content_type else "application/json"
        if media == "application/json":
            fields.body = info.body
        elif media == "application/yaml" and fields.checks:
            repeated = yaml_duplicates(info.body)
            if repeated:
                fields.leading.append(repeated)
    return fields


def check_apply_body(data: bytes, spec: KindSpec) -> None:
    """What ``applyPatcher`` refuses before it applies (an apply to a missing object too, which it
    would create): a body that is no YAML or JSON object (``error decoding YAML: ...``; go-yaml's
    own words for a YAML syntax error differ from PyYAML's, which this gives), and an object of
    another type than the URL's (``versionCheckManager``: ``invalid object type: <gvk>``). The
    store applies it (:meth:`~fake_apiserver._storage.store.Store.apply`)."""
    import yaml

    try:
        value = goyaml.load(data) if data.strip() else None
    except yaml.YAMLError as e:
        raise BadRequest(f"error decoding YAML: error converting YAML to JSON: yaml: {str(e).splitlines()[0]}") from e
    if value is not None and not isinstance(value, dict):
        raise BadRequest("error decoding YAML: error unmarshaling JSON: while decoding JSON: json: cannot unmarshal "
                         f"{go_json_type(value)} into Go value of type map[string]interface {{}}")
    obj = value or {}
    api_version, kind = str(obj.get("apiVersion") or ""), str(obj.get("kind") or "")
    group, _, version = api_version.rpartition("/")
    if (group, version, kind) != (spec.group, spec.version, spec.kind):
        raise BadRequest(f"invalid object type: {group}/{version}, Kind={kind}")


def delete_options(info: RequestInfo) -> Obj:
    """The request's ``DeleteOptions``: its body, or else its query parameters, as the delete
    handler decodes them, then ``ValidateDeleteOptions`` (a 422 on ``DeleteOptions``); see
    :func:`~fake_apiserver._machinery.decode.decode_delete_options`."""
    body: Any = None
    if info.body:
        media = media_type(info.content_type) if info.content_type else "application/json"
        if media == "application/json":
            try:
                body = _JSON_DECODER.decode(info.body.decode("utf-8", errors="replace"))
            except (ValueError, RecursionError):
                error = go_syntax_error(info.body) or "exceeded max depth"
                raise BadRequest(f"couldn't get version/kind; json parse error: {error}") from None
        elif media == protobuf.CONTENT_TYPE:  # client-go's typed Delete sends its content type
            body = protobuf.decode_delete_options(info.body)
        else:
            body = parse_body(info, "DeleteOptions")
    return decode_delete_options(body, info.body, info.query)
