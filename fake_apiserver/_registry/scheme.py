"""The scheme: which kinds the server knows, and a body decoded as the kind its URL names.

kube-apiserver's scheme registers every kind it decodes; a body of another kind than the URL's
fails conversion or lookup with the message the handlers give. Here the served rows of the kind
table (:mod:`~fake_apiserver._registry.kinds`) are the scheme (the body of a subresource with a
kind of its own is a served kind too: a Binding, the legacy ``bindings`` resource's). A patch
result is decoded the same way (:func:`reconcile_patched_kind`).
"""

from __future__ import annotations

import json
from typing import Any, Callable

from fake_apiserver._machinery.decode import SCHEME_NAME, internal_type, interpret_errors, raw_body
from fake_apiserver._machinery.errors import BadRequest, FieldError, Invalid
from fake_apiserver._machinery.schema import definition_name
from fake_apiserver._registry.kinds import KINDS

__all__ = ["reconcile_patched_kind", "resolve_kind"]

Obj = dict[str, Any]


def resolve_kind(group: str, version: str, kind: str, body: Obj, data: bytes | None = None,
                 served: Callable[[str, str, str], bool] | None = None) -> None:
    """Decode ``body`` as the URL's ``group/version, Kind=kind``, the way the real handlers do.

    The JSON serializer fills a missing ``kind`` and ``apiVersion`` from the URL's type
    (``gvkWithDefaults`` in ``apimachinery/pkg/runtime/serializer/json/json.go``), so a body
    without them is accepted. A body of another served kind fails conversion to the URL's internal
    type, one of a kind the scheme does not know fails lookup, and each is wrapped by
    ``transformDecodeError`` (``apiserver/pkg/endpoints/handlers/rest.go``). Kinds outside the
    fake's table count as unregistered (a real server knows more, e.g. Deployments, and would
    report a conversion error for those instead). ``body`` gets the URL's ``kind`` and
    ``apiVersion``; ``data`` is the raw body that some errors quote (compact JSON of ``body`` for
    in-process callers). ``served`` tells whether a server serves a group-version-kind beyond
    the table (a custom resource's other versions).
    """
    expected_gv = f"{group}/{version}" if group else version
    if body.get("kind") == kind and body.get("apiVersion") == expected_gv:
        return  # the common case, already what the URL says
    interpret_errors(kind, body, data)
    api_version = body.get("apiVersion") or ""
    body_group, _, body_version = api_version.rpartition("/")
    body_kind = body.get("kind") or kind
    if not body_version and not body_group:
        body_group, body_version = group, version
    elif not body_version and body_group == group:
        body_version = version
    if not body_version:
        raise BadRequest(
            f'{body_kind} in version "" cannot be handled as a {kind}: '
            f"Object 'apiVersion' is missing in '{raw_body(body, data).decode('utf-8', errors='replace')}'"
        )
    gv = f"{body_group}/{body_version}" if body_group else body_version
    if (body_group, body_version, body_kind) != (group, version, kind):
        known = any(
            (k.group, k.version, k.kind) == (body_group, body_version, body_kind) for k in KINDS
        ) or (served is not None and served(body_group, body_version, body_kind))
        prefix = f"{body_kind} in version {json.dumps(body_version)} cannot be handled as a {kind}: "
        if not known:
            raise BadRequest(
                prefix + f'no kind "{body_kind}" is registered for version "{gv}" in scheme "{SCHEME_NAME}"'
            )
        if internal_type(body_group, body_kind) != internal_type(group, kind):
            raise BadRequest(
                prefix + f"converting ({body_version}.{body_kind}) to ({internal_type(group, kind)}): unknown conversion"
            )
        raise BadRequest(
            f"the API version in the data ({gv}) does not match the expected API version ({expected_gv})"
        )
    body["kind"] = kind
    body["apiVersion"] = expected_gv


def reconcile_patched_kind(result: dict[str, Any], *, group: str, version: str, kind: str) -> None:
    """Decode a patch result's ``kind`` and ``apiVersion`` as the patcher does, in place.

    The patcher decodes the patched JSON with the stored version as the default, so a ``kind``
    patched away comes back, and a version the scheme converts from (another version of the same
    kind) is converted; anything else fails the decode, which the patcher reports as
    ``errors.NewInvalid(schema.GroupKind{}, "", ...)`` on the field ``patch`` with the patched JSON
    as the value and the decoder's error, without the "cannot be handled as" prefix, as the detail.
    """
    expected_gv = f"{group}/{version}" if group else version
    if not result.get("kind"):
        result["kind"] = kind
    if result.get("kind") == kind and result.get("apiVersion") == expected_gv:
        return
    body_group, _, body_version = str(result.get("apiVersion") or "").rpartition("/")
    if result.get("kind") == kind and body_group == group and _has_version(group, body_version, kind):
        result["apiVersion"] = expected_gv  # converted from the other version of the kind
        return
    shown = json.dumps(result, separators=(",", ":"), ensure_ascii=False)
    try:
        resolve_kind(group, version, kind, dict(result), shown.encode())
    except BadRequest as exc:
        message = str(exc.message)
        marker = f" cannot be handled as a {kind}: "
        if marker not in message:  # the API version differs but converts: the patch applies
            result["kind"], result["apiVersion"] = kind, expected_gv
            return
        raise Invalid.of("", "", "", [FieldError.invalid("patch", shown, message.split(marker, 1)[1])]) from exc


def _has_version(group: str, version: str, kind: str) -> bool:
    """Whether the release's schemas know ``kind`` at ``group/version``."""
    try:
        definition_name(group, version, kind)
    except KeyError:
        return False
    return True
