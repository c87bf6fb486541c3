"""Pinned downloads (issue 23): every file provisioning fetches is named in scripts/pins.json by
exact name, size and sha256, with the places to fetch it from in order, and fetched and verified
by nginxgen.files.pinned (the browser page's build fetches its own pins the same way)."""

from __future__ import annotations

import json
from pathlib import Path

from nginxgen.files.pinned import DownloadError, fetch_pinned

__all__ = ["PINS", "DownloadError", "fetch_group", "fetch_pinned", "pinned"]

PINS = Path(__file__).resolve().parent / "pins.json"


def pinned(group: str) -> list[dict[str, object]]:
    """The pinned files of one group (a build, a library, chromium)."""
    groups: dict[str, list[dict[str, object]]] = json.loads(PINS.read_text())["groups"]
    if group not in groups:
        raise DownloadError(f"{PINS.name} pins nothing for {group!r}")
    return groups[group]


def fetch_group(group: str, folder: Path) -> list[Path]:
    """Every pinned file of a group, verified, in folder (other files there are removed, so that
    what is unpacked from it is exactly the pinned set)."""
    paths = [fetch_pinned(entry, folder) for entry in pinned(group)]
    for stale in set(folder.iterdir()) - set(paths):
        if stale.is_file():
            stale.unlink()
    return paths
