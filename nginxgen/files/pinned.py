"""Pinned downloads (issue 23): a file named by exact name, size and sha256, with the places to
fetch it from in order, fetched once into a folder and verified before use; a cached file that
verifies is used without any network request. When no place serves the pinned bytes, one line
names the file, every place tried and the checksum expected. Provisioning (scripts/downloads.py)
and the browser page's build (nginxgen.web) fetch through here."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping


class DownloadError(Exception):
    pass


def sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as stream:
        for block in iter(lambda: stream.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def fetch_pinned(entry: Mapping[str, object], folder: Path, offline: bool = False) -> Path:
    """folder/<name> holding exactly the pinned bytes: from the cache when it verifies, else from
    the first place that serves them (`offline`: never; a file not cached is an error)."""
    import urllib.error
    import urllib.request

    name, sha256, size = str(entry["name"]), str(entry["sha256"]), int(str(entry["size"]))
    target = folder / name
    if target.is_file() and target.stat().st_size == size and sha256_of(target) == sha256:
        return target
    if offline:
        raise DownloadError(f"{name}: not in {folder} with sha256 {sha256} (and offline)")
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
        got = sha256_of(partial)
        if got != sha256:
            tried.append(f"{url} (sha256 {got})")
            continue
        os.replace(partial, target)
        return target
    partial.unlink(missing_ok=True)
    raise DownloadError(f"{name}: expected sha256 {sha256}; tried {'; '.join(tried)}")
