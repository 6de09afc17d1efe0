"""Protobuf request bodies (``application/vnd.kubernetes.protobuf``), decoded to the JSON a JSON
client would have sent.

kubectl's imperative ``create`` and kube-scheduler with its default configuration send protobuf:
the magic ``k8s\\x00`` and a ``runtime.Unknown`` message (``typeMeta{apiVersion, kind}``, ``raw``,
``contentEncoding``, ``contentType``) whose ``raw`` is the object's message. The real server
unmarshals ``raw`` into the Go struct of the envelope's kind (``copyKindDefaults`` fills a missing
kind or version from the URL's) and converts it to the URL's type; this module does the same with
the bytes and returns the JSON object Go's ``encoding/json`` would write from that struct
(:mod:`~fake_apiserver._machinery.protobuf_wire`), so that everything after the edge (defaulting,
validation, the store, the journal) sees what a JSON client sends.

Errors are the real handler's, each framed as it frames JSON ones (``transformDecodeError``): an
envelope that cannot be read is ``the object provided is unrecognized (must be of type Pod):
<error> (<hex of the body>)``, an object that cannot be read or a kind that is not the URL's
``Pod in version "v1" cannot be handled as a Pod: <error>``, a DELETE's ``DeleteOptions`` body the
bare error. Captured from kube-apiserver v1.36. A kind the fake has no message for (one it
neither serves nor lists in the generator's extra kinds) counts as unregistered, as on the JSON
path (:func:`~fake_apiserver._registry.scheme.resolve_kind`).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from fake_apiserver._machinery.decode import SCHEME_NAME, internal_type, summarize_data
from fake_apiserver._machinery.errors import BadRequest
from fake_apiserver._machinery.jsonutil import loads
from fake_apiserver._machinery.schema import KUBERNETES_VERSION
from fake_apiserver._machinery.protobuf_wire import (
    ProtobufError,
    data_file,
    field_of_tag,
    format_duration,
    read_length,
    read_message,
    read_varint,
    skip_field,
    tables,
    to_go_json,
)

__all__ = [
    "CONTENT_TYPE",
    "ProtobufError",
    "body_json",
    "data_file",
    "decode_delete_options",
    "decode_object",
    "format_duration",
    "to_json",
]

Obj = dict[str, Any]

CONTENT_TYPE = "application/vnd.kubernetes.protobuf"
MAGIC = b"k8s\x00"

_DELETE_OPTIONS = "io.k8s.apimachinery.pkg.apis.meta.v1.DeleteOptions"
_UNKNOWN = "io.k8s.apimachinery.pkg.runtime.Unknown"


@dataclass(frozen=True)
class _Envelope:
    api_version: str
    kind: str
    raw_start: int
    raw_end: int


def _envelope(data: bytes, release: str = KUBERNETES_VERSION) -> _Envelope:
    """``runtime.Unknown`` after the magic, as the protobuf serializer's ``Decode`` reads it;
    ``ProtobufError`` in its words."""
    if not data:
        raise ProtobufError("empty data")
    if data[:4] != MAGIC:
        raise ProtobufError(f"provided data does not appear to be a protobuf message, expected prefix "
                            f"[{' '.join(str(b) for b in MAGIC)}]")
    if len(data) == 4:
        raise ProtobufError("empty body")
    unknown = tables(release).messages[_UNKNOWN]
    type_meta_field, raw_field = unknown.by_number[1], unknown.by_number[2]
    type_meta = type_meta_field.message
    assert type_meta is not None
    meta: list[Any] = [None] * type_meta.size
    raw_start = raw_end = 0
    pos, end = 4, len(data)
    while pos < end:
        start = pos
        tag, pos = read_varint(data, pos, end)
        field = field_of_tag(unknown, tag)
        if field is None:
            pos = skip_field(data, start, end)
            continue
        if tag & 7 != 2:
            raise ProtobufError(f"proto: wrong wireType = {tag & 7} for field {field.go_name}")
        pos, post = read_length(data, pos, end)
        if field is type_meta_field:
            read_message(type_meta, data, pos, post, meta)
        elif field is raw_field:
            raw_start, raw_end = pos, post
        pos = post
    return _Envelope(meta[type_meta.slot(1)] or "", meta[type_meta.slot(2)] or "", raw_start, raw_end)


def _group_version_kind(envelope: _Envelope, group: str, version: str, kind: str) -> tuple[str, str, str]:
    """``unk.GroupVersionKind()`` then ``copyKindDefaults`` from the URL's type: a missing kind is
    the URL's, a missing version takes the URL's group and version; an apiVersion that does not
    parse counts as absent."""
    body_kind = envelope.kind or kind
    api_version = envelope.api_version
    if api_version.count("/") > 1:
        body_group, body_version = "", ""
    else:
        body_group, _, body_version = api_version.rpartition("/")
    if not body_version:
        body_group, body_version = group, version
    return body_group, body_version, body_kind


def decode_object(data: bytes, group: str, version: str, kind: str, release: str = KUBERNETES_VERSION) -> Obj:
    """A create or update body for ``group/version, Kind=kind`` sent to a server of ``release``:
    the JSON object, with the URL's ``kind`` and ``apiVersion``; ``BadRequest`` with the real
    server's message otherwise."""
    try:
        envelope = _envelope(data, release)
    except ProtobufError as e:
        raise BadRequest(f"the object provided is unrecognized (must be of type {kind}): {e} "
                         f"({summarize_data(data)})") from None
    body_group, body_version, body_kind = _group_version_kind(envelope, group, version, kind)
    gv = f"{body_group}/{body_version}" if body_group else body_version
    prefix = f"{body_kind} in version {json.dumps(body_version)} cannot be handled as a {kind}: "
    message = tables(release).kinds.get((body_group, body_version, body_kind))
    if message is None:
        raise BadRequest(prefix + f'no kind "{body_kind}" is registered for version "{gv}" in scheme "{SCHEME_NAME}"')
    values: list[Any] = [None] * message.size
    try:
        read_message(message, data, envelope.raw_start, envelope.raw_end, values)
        obj = to_go_json(message, values)
    except ProtobufError as e:
        raise BadRequest(prefix + str(e)) from None
    if (body_group, body_version, body_kind) != (group, version, kind):
        if internal_type(body_group, body_kind) != internal_type(group, kind):
            raise BadRequest(prefix + f"converting ({body_version}.{body_kind}) to "
                             f"({internal_type(group, kind)}): unknown conversion")
        expected_gv = f"{group}/{version}" if group else version
        raise BadRequest(f"the API version in the data ({gv}) does not match the expected API version ({expected_gv})")
    return {"kind": kind, "apiVersion": gv, **obj}


def decode_delete_options(data: bytes, release: str = KUBERNETES_VERSION) -> Obj:
    """A DELETE's body as the JSON object the delete handler's checks read
    (:func:`~fake_apiserver._machinery.decode.decode_delete_options`): ``metav1.DeleteOptions`` under any
    group-version. Decoding errors are bare (the delete handler does not frame them); a body of
    another kind is returned as just its ``apiVersion`` and ``kind``, for those checks to refuse
    in the meta scheme's words. An ``apiVersion`` that does not parse counts as absent, as
    ``runtime.Unknown.GroupVersionKind()`` has it."""
    try:
        envelope = _envelope(data, release)
        api_version = envelope.api_version if envelope.api_version.count("/") <= 1 else ""
        head = {"kind": envelope.kind, "apiVersion": api_version} if api_version else {"kind": envelope.kind}
        if envelope.kind not in ("", "DeleteOptions"):
            return head
        message = tables(release).messages[_DELETE_OPTIONS]
        values: list[Any] = [None] * message.size
        read_message(message, data, envelope.raw_start, envelope.raw_end, values)
        return {**head, "kind": "DeleteOptions", **to_go_json(message, values)}
    except ProtobufError as e:
        raise BadRequest(str(e)) from None


def body_json(body: bytes, content_type: str) -> Any:
    """A request body as a JSON value for what records or matches requests (the journal, fault
    rules, the fault proxy): a protobuf body decoded by its own envelope's kind, any other parsed
    as JSON; ``ValueError`` when it cannot be read either way."""
    if content_type.split(";", 1)[0].strip().lower() == CONTENT_TYPE:
        decoded = to_json(body)
        if decoded is None:
            raise ValueError("not a protobuf body of a kind this server decodes")
        return decoded
    return loads(body)  # the standard library reads what orjson does not (UTF-16, NaN, big integers)


def to_json(data: bytes) -> Any:
    """The body as JSON by its own envelope's kind, for a record (the journal), or None when it
    cannot be read. Read with the newest release's facts, so the record keeps every field the
    client sent."""
    try:
        envelope = _envelope(data)
        group, _, version = envelope.api_version.rpartition("/")
        if envelope.kind == "DeleteOptions":
            message = tables().messages[_DELETE_OPTIONS]
        else:
            message = tables().kinds[(group, version, envelope.kind)]
        values: list[Any] = [None] * message.size
        read_message(message, data, envelope.raw_start, envelope.raw_end, values)
        return {"kind": envelope.kind, "apiVersion": envelope.api_version, **to_go_json(message, values)}
    except (ProtobufError, KeyError):
        return None

