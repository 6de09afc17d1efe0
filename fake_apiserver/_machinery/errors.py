"""Typed API errors that render as Kubernetes ``Status`` objects.

Policy: a rule raises the error where it lives (the store, a patch, admission); the aiohttp edge
renders it once with :meth:`StatusError.to_status`. Messages follow apimachinery's
``pkg/api/errors`` formats word for word, because clients (kubectl, client-go, schedulers) show and
sometimes parse them. A cause from another library is chained with ``raise ... from``.

Field errors follow ``apimachinery/pkg/util/validation/field``: ``FieldError.render()`` is Go's
``Error()`` (``<field>: <body>``) and ``FieldError.body()`` is ``ErrorBody()``, which is what a
``Status`` cause carries as its message.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

__all__ = [
    "AlreadyExists",
    "BadRequest",
    "Conflict",
    "Expired",
    "FieldError",
    "Forbidden",
    "GenericServerResponse",
    "GoJSON",
    "Gone",
    "InternalError",
    "Invalid",
    "MethodNotAllowed",
    "NotAcceptable",
    "NotFound",
    "RequestEntityTooLarge",
    "ServiceUnavailable",
    "StatusError",
    "Timeout",
    "TooManyRequests",
    "Unauthorized",
    "UnknownError",
    "UnsupportedMediaType",
    "qualified_kind",
    "qualified_resource",
]

_OMIT = object()


def qualified_resource(resource: str, group: str) -> str:
    """``pods`` for the core group, ``resourceclaims.resource.k8s.io`` otherwise (GroupResource.String)."""
    return f"{resource}.{group}" if group else resource


def qualified_kind(kind: str, group: str) -> str:
    """``Pod`` for the core group, ``ResourceClaim.resource.k8s.io`` otherwise (GroupKind.String)."""
    return f"{kind}.{group}" if group else kind


@dataclass(frozen=True)
class GoJSON:
    """A bad value already rendered as Go's ``json.Marshal`` gives it (a struct's fields in
    declaration order, which a dict sorted by key cannot give)."""

    text: str


def _go_quote(value: Any) -> str:
    """Render a bad value the way field.Error does (``%q`` for strings, ``%#v``-like otherwise)."""
    if isinstance(value, GoJSON):
        return value.text
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "null"
    if isinstance(value, (int, float)):
        return str(value)
    return json.dumps(value, sort_keys=True, separators=(",", ":"))


_FIELD_TYPES = {
    "FieldValueNotFound": "Not found",
    "FieldValueRequired": "Required value",
    "FieldValueDuplicate": "Duplicate value",
    "FieldValueInvalid": "Invalid value",
    "FieldValueNotSupported": "Unsupported value",
    "FieldValueForbidden": "Forbidden",
    "FieldValueTooLong": "Too long",
    "FieldValueTooMany": "Too many",
    "InternalError": "Internal error",
    "FieldValueTypeInvalid": "Invalid value",
}
_NO_VALUE_TYPES = {"FieldValueRequired", "FieldValueForbidden", "FieldValueTooLong", "InternalError"}


@dataclass(frozen=True)
class FieldError:
    """One ``field.Error``: a type (``FieldValueForbidden``...), a path, a bad value and a detail."""

    type: str
    field: str
    detail: str = ""
    bad_value: Any = _OMIT

    @classmethod
    def required(cls, path: str, detail: str = "") -> FieldError:
        return cls("FieldValueRequired", path, detail)

    @classmethod
    def forbidden(cls, path: str, detail: str) -> FieldError:
        return cls("FieldValueForbidden", path, detail)

    @classmethod
    def invalid(cls, path: str, value: Any, detail: str) -> FieldError:
        return cls("FieldValueInvalid", path, detail, value)

    @classmethod
    def duplicate(cls, path: str, value: Any) -> FieldError:
        return cls("FieldValueDuplicate", path, "", value)

    @classmethod
    def not_supported(cls, path: str, value: Any, supported: list[str]) -> FieldError:
        detail = "supported values: " + ", ".join(json.dumps(s) for s in supported)
        return cls("FieldValueNotSupported", path, detail, value)

    @classmethod
    def too_long(cls, path: str, limit: int) -> FieldError:
        return cls("FieldValueTooLong", path, f"may not be more than {limit} bytes")

    def body(self) -> str:
        """Go's ``ErrorBody()``: the message without the field path."""
        name = _FIELD_TYPES.get(self.type, self.type)
        if self.type in _NO_VALUE_TYPES or self.bad_value is _OMIT:
            text = name
        else:
            text = f"{name}: {_go_quote(self.bad_value)}"
        if self.detail:
            text += f": {self.detail}"
        return text

    def render(self) -> str:
        """Go's ``Error()``: ``<field>: <body>``."""
        return f"{self.field}: {self.body()}"

    def cause(self) -> dict[str, str]:
        return {"reason": self.type, "message": self.body(), "field": self.field}


class StatusError(Exception):
    """An API error: an HTTP code, a ``Status`` reason, a message and optional details."""

    code = 500
    reason = "InternalError"

    def __init__(
        self,
        message: str,
        *,
        details: dict[str, Any] | None = None,
        headers: dict[str, str] | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.details = details
        self.headers = dict(headers or {})

    def to_status(self) -> dict[str, Any]:
        status: dict[str, Any] = {
            "kind": "Status",
            "apiVersion": "v1",
            "metadata": {},
            "status": "Failure",
            "message": self.message,
            "reason": self.reason,
        }
        if self.details:
            status["details"] = self.details
        status["code"] = self.code
        return status

    @staticmethod
    def _details(name: str, group: str, kind: str) -> dict[str, Any]:
        details: dict[str, Any] = {}
        if name:
            details["name"] = name
        if group:
            details["group"] = group
        details["kind"] = kind
        return details


class GenericServerResponse(StatusError):
    """A ``Status`` that ``NewGenericServerResponse`` builds (the router's errors, a failed JSON
    patch): its ``details`` is an empty object rather than absent. Mixed in before the error of
    the code: ``class RouteNotFound(GenericServerResponse, NotFound)``."""

    def to_status(self) -> dict[str, Any]:
        status = super().to_status()
        code = status.pop("code")
        status["details"] = {}
        status["code"] = code
        return status


class BadRequest(StatusError):
    code = 400
    reason = "BadRequest"


class Unauthorized(StatusError):
    code = 401
    reason = "Unauthorized"


class Forbidden(StatusError):
    code = 403
    reason = "Forbidden"


class NotFound(StatusError):
    code = 404
    reason = "NotFound"

    @classmethod
    def of(cls, resource: str, group: str, name: str) -> NotFound:
        return cls(
            f"{qualified_resource(resource, group)} {json.dumps(name)} not found",
            details=cls._details(name, group, resource),
        )


class MethodNotAllowed(StatusError):
    code = 405
    reason = "MethodNotAllowed"


class NotAcceptable(StatusError):
    code = 406
    reason = "NotAcceptable"


class AlreadyExists(StatusError):
    code = 409
    reason = "AlreadyExists"

    @classmethod
    def of(cls, resource: str, group: str, name: str) -> AlreadyExists:
        return cls(
            f"{qualified_resource(resource, group)} {json.dumps(name)} already exists",
            details=cls._details(name, group, resource),
        )


OPTIMISTIC_LOCK_MESSAGE = (
    "the object has been modified; please apply your changes to the latest version and try again"
)


class Conflict(StatusError):
    code = 409
    reason = "Conflict"

    @classmethod
    def of(cls, resource: str, group: str, name: str, why: str = OPTIMISTIC_LOCK_MESSAGE) -> Conflict:
        return cls(
            f"Operation cannot be fulfilled on {qualified_resource(resource, group)} {json.dumps(name)}: {why}",
            details=cls._details(name, group, resource),
        )


class Gone(StatusError):
    code = 410
    reason = "Gone"


class Expired(StatusError):
    code = 410
    reason = "Expired"


class RequestEntityTooLarge(StatusError):
    code = 413
    reason = "RequestEntityTooLarge"


class UnsupportedMediaType(StatusError):
    code = 415
    reason = "UnsupportedMediaType"


class Invalid(StatusError):
    code = 422
    reason = "Invalid"

    def __init__(
        self,
        message: str,
        *,
        details: dict[str, Any] | None = None,
        errors: list[FieldError] | None = None,
    ) -> None:
        super().__init__(message, details=details)
        self.errors = list(errors or [])

    @classmethod
    def of(cls, kind: str, group: str, name: str, errors: list[FieldError]) -> Invalid:
        """``errors.NewInvalid``: ``Pod "p" is invalid: <aggregate>``, one cause per field error."""
        rendered = [e.render() for e in errors]
        aggregate = rendered[0] if len(rendered) == 1 else "[" + ", ".join(rendered) + "]"
        details = cls._details(name, group, kind)
        details["causes"] = [e.cause() for e in errors]
        return cls(
            f"{qualified_kind(kind, group)} {json.dumps(name)} is invalid: {aggregate}",
            details=details,
            errors=errors,
        )


class TooManyRequests(StatusError):
    code = 429
    reason = "TooManyRequests"


class InternalError(StatusError):
    code = 500
    reason = "InternalError"


class ServiceUnavailable(StatusError):
    code = 503
    reason = "ServiceUnavailable"


class Timeout(StatusError):
    code = 504
    reason = "Timeout"


class UnknownError(StatusError):
    """What ``ErrorToAPIStatus`` makes of an error that is not a ``Status`` (a plain Go error):
    500 with reason ``StatusReasonUnknown``, which is ``""`` and so left out of the JSON, and the
    error's text as the message."""

    code = 500
    reason = ""

    def to_status(self) -> dict[str, Any]:
        status = super().to_status()
        del status["reason"]
        return status


# Lookup for fault rules and tests that build an error from a code.
BY_CODE: dict[int, type[StatusError]] = {
    cls.code: cls
    for cls in (
        BadRequest,
        Unauthorized,
        Forbidden,
        NotFound,
        MethodNotAllowed,
        NotAcceptable,
        Conflict,
        Expired,
        RequestEntityTooLarge,
        UnsupportedMediaType,
        Invalid,
        TooManyRequests,
        InternalError,
        ServiceUnavailable,
        Timeout,
    )
}
