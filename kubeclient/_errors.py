"""The client's errors: an answer's ``Status``, kept whole, or no answer at all.

The policy is kopf's: a non-2xx answer raises an :class:`ApiError` subclass keyed by HTTP code
that keeps the server's ``Status`` object (``code``, ``reason``, ``message``, ``status``); a
transport failure (connection refused or reset, a timeout) raises :class:`TransportError` with
the aiohttp error chained as the cause. The two are apart on purpose: a caller that retries on
a conflict must not retry a request that may never have reached the server the same way.
"""

from __future__ import annotations

from typing import Any

__all__ = [
    "ApiError",
    "BadRequestError",
    "ConflictError",
    "ExpiredError",
    "NotFoundError",
    "TransportError",
    "error_for",
]

Obj = dict[str, Any]


class ApiError(Exception):
    """The API server answered with an error ``Status`` (or a body that is not one)."""

    def __init__(self, code: int, status: Obj) -> None:
        self.code = code
        self.status = status
        self.reason = str(status.get("reason", ""))
        self.message = str(status.get("message", ""))
        super().__init__(f"{code} {self.reason}: {self.message}")


class BadRequestError(ApiError):
    """400."""


class NotFoundError(ApiError):
    """404."""


class ConflictError(ApiError):
    """409 (Conflict or AlreadyExists)."""


class ExpiredError(ApiError):
    """410: the resourceVersion is too old; re-list."""


class TransportError(Exception):
    """No HTTP answer: connection refused or reset, timeout."""


_BY_CODE: dict[int, type[ApiError]] = {400: BadRequestError, 404: NotFoundError, 409: ConflictError, 410: ExpiredError}


def error_for(code: int, status: Obj) -> ApiError:
    """The :class:`ApiError` subclass of ``code`` (:class:`ApiError` itself for the others)."""
    return _BY_CODE.get(code, ApiError)(code, status)
