"""What may appear as a value in a generated config: one place for the rules and the quoting.

A value that reached a template has passed `check_*` here; `quote()` is the only way templates
write values, so a value can never close a directive or a block early.
"""

from __future__ import annotations

import re

from nginxgen.conf.words import quoted

# Characters that would end a directive, open or close a block, start a comment, expand a
# variable or escape out of a quoted string.
_FORBIDDEN = re.compile(r"[;{}\"'#$\\\x00-\x1f\x7f]")
_BARE = re.compile(r"^[A-Za-z0-9._:/@+\-*!?=,\[\]~%^]+$")
_SERVER_NAME = re.compile(
    r"^(?:\*\.)?(?:[A-Za-z0-9_](?:[A-Za-z0-9_-]{0,61}[A-Za-z0-9_])?\.)*"
    r"[A-Za-z0-9_](?:[A-Za-z0-9_-]{0,61}[A-Za-z0-9_])?\.?$"
)


class UnsafeValue(ValueError):
    pass


def check_server_name(name: str) -> str:
    if not name or len(name) > 253 or not _SERVER_NAME.match(name):
        raise UnsafeValue(
            f"{name!r} is not a host name (letters, digits, '-', '.', an optional leading '*.')"
        )
    return name


def check_path(path: str) -> str:
    if not path:
        raise UnsafeValue("empty path")
    bad = _FORBIDDEN.search(path)
    if bad:
        raise UnsafeValue(
            f"{path!r} contains {bad.group()!r}, which cannot appear in an nginx path "
            "(; { } quotes # $ backslash or control characters)"
        )
    return path


def check_token(value: str, what: str) -> str:
    """A value written bare: no whitespace or special characters at all."""
    if not _BARE.match(value):
        raise UnsafeValue(f"{what} {value!r} may only contain letters, digits and ._:/@+-*!?=,")
    return value


def quote(value: object) -> str:
    """Render one directive argument: bare when safe, else double-quoted with escapes."""
    text = str(value)
    if _BARE.match(text):
        return text
    if re.search(r"[\x00-\x1f\x7f$]", text):
        raise UnsafeValue(f"refusing to render {text!r}: control character or '$'")
    return quoted(text)
