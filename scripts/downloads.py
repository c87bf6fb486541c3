"""Pinned downloads (issue 23): every file provisioning fetches is named in scripts/pins.json by
exact name, size and sha256, with the places to fetch it from in order. A file is fetched once
into the cache and verified before use; a cached file that verifies is used without any network
request. When no place serves the pinned bytes, one line names the file, every place tried and
the checksum expected."""

from __future__ import annotations

import hashlib
import json
import os
import urllib.error
import urllib.request
from pathlib import Path

PINS = Path(__file__).resolve().parent / "pins.json"


class DownloadError(Exception):
    pass


def pinned(group: str) -> list[dict[str, object]]:
    """The pinned files of one group (a build, a library, chromium)."""
    groups: dict[str, list[dict[str, object]]] = json.loads(PINS.read_text())["groups"]
    if group not in groups:
        raise DownloadError(f"{PINS.name} pins nothing for {group!r}")
    return groups[group]


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as stream:
        for block in iter(lambda: stream.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def fetch_pinned(entry: dict[str, object], folder: Path) -> Path:
    """folder/<name> holding exactly the pinned bytes: from the cache when it verifies, else from
    the first place that serves them."""
    name, sha256, size = str(entry["name"]), str(entry["sha256"]), int(str(entry["size"]))
    target = folder / name
    if target.is_file() and target.stat().st_size == size and _sha256(target) == sha256:
        return target
    folder.mkdir(parents=True, exist_ok=True)
    partial = target.with_name(name + ".part")
    tried = []
    for url in entry["urls"]:  # type: ignore[attr-defined]
        try:
            with (
                urllib.request.urlopen(str(url), timeout=120) as response,
                partial.open("wb") as out,
            ):
                while block := response.read(1 << 20):
                    out.write(block)
        except (urllib.error.URLError, OSError, ValueError) as error:
            tried.append(f"{url} ({getattr(error, 'reason', error)})")
            continue
        got = _sha256(partial)
        if got != sha256:
            tried.append(f"{url} (sha256 {got})")
            continue
        os.replace(partial, target)
        return target
    partial.unlink(missing_ok=True)
    raise DownloadError(f"{name}: expected sha256 {sha256}; tried {'; '.join(tried)}")


def fetch_group(group: str, folder: Path) -> list[Path]:
    """Every pinned file of a group, verified, in folder (other files there are removed, so that
    what is unpacked from it is exactly the pinned set)."""
    paths = [fetch_pinned(entry, folder) for entry in pinned(group)]
    for stale in set(folder.iterdir()) - set(paths):
        if stale.is_file():
            stale.unlink()
    return paths
