"""Dotted version numbers (nginx `1.26.3`, OpenSSL `3.5.7`, BoringSSL tags `0.20240913.0`)."""

from __future__ import annotations

import re
from functools import cache, total_ordering

_VERSION_RE = re.compile(r"^\d+(?:\.\d+)*$")


@total_ordering
class Version:
    """A comparable dotted version; missing trailing parts count as zero (`3.5` == `3.5.0`)."""

    __slots__ = ("parts", "text")

    def __init__(self, text: str) -> None:
        text = text.strip()
        if not _VERSION_RE.match(text):
            raise ValueError(f"not a version number: {text!r}")
        self.text = text
        parts = [int(p) for p in text.split(".")]
        while len(parts) > 1 and parts[-1] == 0:
            parts.pop()
        self.parts = tuple(parts)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Version) and self.parts == other.parts

    def __lt__(self, other: Version) -> bool:
        return self.parts < other.parts

    def __hash__(self) -> int:
        return hash(self.parts)

    def __str__(self) -> str:
        return self.text

    def __repr__(self) -> str:
        return f"Version({self.text!r})"


def in_range(version: Version | None, since: str | None, until: str | None) -> bool:
    """True when `since <= version < until`; an unknown version counts as the newest."""
    if version is None:
        return until is None
    if since is not None and version < _bound(since):
        return False
    return not (until is not None and version >= _bound(until))


@cache
def _bound(text: str) -> Version:
    # The knowledge tables hold a few dozen distinct bounds, compared for every statement.
    return Version(text)
