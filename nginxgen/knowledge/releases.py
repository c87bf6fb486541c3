"""Releases of nginx and of the TLS libraries (releases.json, written by
scripts/build_releases.py with its sources): the branches and patch levels that exist."""

from __future__ import annotations

from functools import cache

from nginxgen.base.records import record
from nginxgen.base.version import Version
from nginxgen.knowledge.data import json_file


@record(frozen=True)
class Releases:
    """The known releases of nginx or of one TLS library (releases.json, with its sources)."""

    display: str
    branches: dict[tuple[int, int], tuple[int, int]]  # (major, minor) -> (first, newest patch)
    maintained: int | None  # how many of the newest branches still get releases; None: all
    minors_ahead: int | None  # how far past the newest minor a new release may be; None: any

    def newest(self) -> Version:
        branch = max(self.branches)
        return Version(f"{branch[0]}.{branch[1]}.{self.branches[branch][1]}")

    def has(self, parts: tuple[int, ...]) -> bool:
        span = self.branches.get(parts[:2]) if len(parts) == 3 else None
        return span is not None and span[0] <= parts[2] <= span[1]


@cache
def releases(product: str) -> Releases | None:
    """nginx's releases, or a library kind's; None for a library without release numbers."""
    entry = json_file("releases").get(product)
    if entry is None:
        return None
    branches = {}
    for name, span in entry["branches"].items():
        major, minor = (int(p) for p in name.split("."))
        branches[(major, minor)] = (span[0], span[1]) if isinstance(span, list) else (0, span)
    return Releases(entry["display"], branches, entry.get("maintained"), entry.get("minors_ahead"))
