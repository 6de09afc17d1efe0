"""CEL syntax errors, as the real server words them, from the CEL project's own parser.

A DRA selector's ``cel.expression`` is compiled by kube-apiserver on every create; one that does not
parse is refused with ``compilation failed: `` and the parser's report (the ANTLR grammar shared by
cel-go and cel-cpp: position, ``Syntax error: ...`` and the caret under the source line).
``cel-expr-python`` wraps cel-cpp, whose parser reports the same positions and words; this module
only runs that parser and strips the wrapper's status decoration.

The optional syntax (``.?field``, ``[?key]``) is enabled, as it is on the server. Type errors (an
undeclared variable, an unknown field of ``device``, an expression that is not a bool) are
:mod:`.dracel`'s business, in the selectors' own environment.
"""

from __future__ import annotations

import functools
import re

from cel_expr_python import cel
from cel_expr_python.ext import ext_optional

__all__ = ["report", "syntax_error"]

# The real message for an empty expression: cel-go reports column 0 and no source line, where
# cel-cpp reports column 1 (captured from kube-apiserver v1.36, see
# tests/fake_apiserver/_registry/test_claimspec.py).
_EMPTY = ("compilation failed: ERROR: <input>:1:0: Syntax error: mismatched input '<EOF>' expecting "
          "{'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, "
          "IDENTIFIER}")
_STATUS_PREFIX = "INVALID_ARGUMENT: "
_STATUS_SUFFIX = " [INVALID_ARGUMENT]"
# cel-cpp adds a report without a position ("<input>:4294967295:0: <<nil>> parsetree") after
# some syntax errors; cel-go has no such report.
_NO_POSITION = re.compile(r"\nERROR: <input>:4294967295:[^\n]*")


@functools.cache
def _env() -> cel.Env:
    return cel.NewEnv(extensions=[ext_optional.ExtOptional()])


def report(error: RuntimeError) -> str:
    """cel-cpp's report of a failed compile, without the wrapper's status decoration."""
    return str(error).removeprefix(_STATUS_PREFIX).removesuffix(_STATUS_SUFFIX)


@functools.lru_cache(maxsize=1024)
def syntax_error(expression: str) -> str | None:
    """The real server's message for an expression that does not parse, else None."""
    if expression == "":
        return _EMPTY
    try:
        _env().compile(expression, disable_check=True)
    except RuntimeError as error:
        return "compilation failed: " + _NO_POSITION.sub("", report(error))
    return None
