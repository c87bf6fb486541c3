"""Tools that manage nginx files besides the user (managers.toml): how their files are told,
and where a user's change belongs instead."""

from __future__ import annotations

import os
from functools import cache

from nginxgen.base.records import record
from nginxgen.knowledge.data import from_table, toml_file


@record(frozen=True)
class Manager:
    """A tool that manages nginx files besides the user (managers.toml)."""

    key: str
    display: str
    never_write: bool  # it regenerates or hash-checks the file: nginxgen leaves it alone
    override: str  # where a user's change belongs instead
    source: str


@record(frozen=True)
class FolderEvidence:
    """Files that show a folder is a tool's own (managers.toml `folder.evidence`): one of `files`
    (globs relative to the folder) opens with `opens_with`."""

    files: tuple[str, ...]
    opens_with: str  # a regular expression, matched at the file's start


@record(frozen=True)
class ManagedFolder:
    """Files a tool replaces inside a folder of its own (managers.toml `folder`)."""

    names: tuple[str, ...]  # globs of the file names it replaces there
    levels: int  # how far above the file its folder may lie
    evidence: tuple[FolderEvidence, ...]


@record(frozen=True)
class _Recognition:
    """How a manager's files are told (managers.toml): see the table's header."""

    paths: tuple[str, ...]
    headers: tuple[str, ...]
    sha256: frozenset[str]
    folder: ManagedFolder | None


@cache
def _managers() -> tuple[tuple[Manager, _Recognition], ...]:
    out = []
    for key, data in toml_file("managers")["manager"].items():
        folder = None
        if "folder" in data:
            evidence = tuple(from_table(FolderEvidence, e) for e in data["folder"]["evidence"])
            folder = from_table(ManagedFolder, data["folder"], evidence=evidence)
        known = from_table(_Recognition, data, folder=folder)
        out.append((from_table(Manager, data, key=key), known))
    return tuple(out)


def _sha256(data: bytes) -> str:
    """The hex SHA-256 of data, from CPython's own small implementation where it has one:
    importing hashlib loads OpenSSL's libcrypto, about 6 ms of every pre-commit start."""
    try:
        from _sha2 import sha256  # type: ignore[import-not-found]  # Python 3.12 and later
    except ImportError:
        try:
            from _sha256 import sha256  # type: ignore[import-not-found]  # Python 3.11
        except ImportError:
            from hashlib import sha256  # a build without them
    return str(sha256(data).hexdigest())


def star_match(text: str, pattern: str) -> bool:
    """Whether the pattern, whose only wildcard is `*` (any run of characters, `/` too), matches
    the whole text. managers.toml's patterns use nothing else; fnmatch would compile a regular
    expression for each of them in every lint, for a check made once per file."""
    if "*" not in pattern:
        return text == pattern
    first, *middle, last = pattern.split("*")
    if len(text) < len(first) + len(last) or not text.startswith(first) or not text.endswith(last):
        return False
    at, end = len(first), len(text) - len(last)
    for piece in middle:
        found = text.find(piece, at, end)
        if found < 0:
            return False
        at = found + len(piece)
    return True


def _read_head(path: str, size: int) -> str | None:
    try:
        with open(path, "rb") as handle:
            return handle.read(size).decode("utf-8", "surrogateescape")
    except OSError:
        return None


def _folder_is_managed(real: str, folder: ManagedFolder) -> bool:
    """Whether the file lies in a folder (its own, or up to `levels` above) that shows the tool's
    evidence: a suffix alone is no evidence, the folder must hold the tool's own files."""
    if not any(star_match(os.path.basename(real), name) for name in folder.names):
        return False
    import glob  # only for a name the tool replaces: not on every lint's start
    import re

    here = os.path.dirname(real)
    for _ in range(folder.levels + 1):
        for evidence in folder.evidence:
            opening = re.compile(evidence.opens_with)
            for pattern in evidence.files:
                # a handful is enough: the evidence is in every one of the tool's files
                for candidate in sorted(glob.glob(os.path.join(glob.escape(here), pattern)))[:8]:
                    head = _read_head(candidate, 512)
                    if head is not None and opening.match(head):
                        return True
        here = os.path.dirname(here)
    return False


def manager_of(path: str, text: str | None = None) -> Manager | None:
    """The tool that manages this file, on evidence only (managers.toml): where the tool writes
    it (and, for a tool that keeps only its released bytes, with those bytes), its first lines,
    its exact bytes (certbot's released options file wherever it was copied), or a name the tool
    replaces inside a folder that holds the tool's own files (SWAG's `.conf.sample` files);
    None: the user's. `text` is the file as read; None reads it from disk where it exists."""
    real = os.path.realpath(path)
    if text is None:
        text = _read_head(real, 1 << 20)
    head = text[:2048] if text is not None else ""
    digest = None
    if text is not None:
        digest = _sha256(text.encode("utf-8", "surrogateescape"))
    for manager, known in _managers():
        # where the tool keeps only bytes it released, other bytes there are the user's edit
        released = not known.sha256 or text is None or digest in known.sha256
        if released and any(star_match(real, pattern) for pattern in known.paths):
            return manager
        if head and any(marker in head for marker in known.headers):
            return manager
        if digest is not None and digest in known.sha256:
            return manager
        if known.folder is not None and _folder_is_managed(real, known.folder):
            return manager
    return None
