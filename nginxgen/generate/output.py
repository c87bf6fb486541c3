"""Writing generated files without losing anything the user has.

Nothing is written unless every file can be: an existing file that differs stops the run
(`--force` replaces it atomically, `--diff` only shows the difference). Files are only ever
created inside the output folder; a symlink there is replaced, never followed.
"""

from __future__ import annotations

import difflib
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path

from nginxgen.errors import NginxgenError


@dataclass(frozen=True)
class Change:
    name: str
    path: Path
    old: str | None  # None: the file does not exist
    new: str
    stat: tuple[int, int] | None  # (mtime_ns, size) when read, to notice a change before writing


def _inside(out: Path, name: str) -> Path:
    path = out / name
    if Path(name).is_absolute() or ".." in Path(name).parts or path.parent != out:
        raise NginxgenError(f"refusing to write {name!r} outside {out}")
    return path


def _read_existing(path: Path) -> tuple[str | None, tuple[int, int] | None]:
    if path.is_symlink():
        return "", None  # never follow it: treat as differing, so only --force replaces the link
    if not path.exists():
        return None, None
    if not path.is_file():
        raise NginxgenError("exists and is not a regular file", where=str(path))
    try:
        st = path.stat()
        return path.read_text(encoding="utf-8"), (st.st_mtime_ns, st.st_size)
    except (OSError, UnicodeDecodeError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) else "not UTF-8"
        raise NginxgenError(f"cannot read the existing file: {reason}", where=str(path)) from None


def plan_changes(out: Path, files: dict[str, str]) -> list[Change]:
    out = out.absolute()
    changes = []
    for name, text in files.items():
        path = _inside(out, name)
        old, stat = _read_existing(path)
        changes.append(Change(name, path, old, text, stat))
    return changes


def diff(changes: list[Change]) -> str:
    chunks: list[str] = []
    for change in changes:
        if change.old == change.new:
            continue
        chunks.extend(
            difflib.unified_diff(
                (change.old or "").splitlines(keepends=True),
                change.new.splitlines(keepends=True),
                fromfile=str(change.path) if change.old is not None else "/dev/null",
                tofile=str(change.path),
            )
        )
    return "".join(chunks)


def _atomic_write(change: Change) -> None:
    directory = change.path.parent
    fd, tmp = tempfile.mkstemp(prefix=f".{change.name}.", suffix=".tmp", dir=directory)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(change.new)
            handle.flush()
            os.fsync(handle.fileno())
        if change.stat is not None:
            st = change.path.stat()
            if (st.st_mtime_ns, st.st_size) != change.stat:
                raise NginxgenError(
                    "changed while nginxgen was running; nothing replaced", where=str(change.path)
                )
        if change.old is not None and change.path.exists() and not change.path.is_symlink():
            os.chmod(tmp, change.path.stat().st_mode & 0o7777)
        os.replace(tmp, change.path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def write(out: Path, files: dict[str, str], force: bool) -> list[str]:
    """Write the files; return the lines to report (one per file)."""
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise NginxgenError(
            f"cannot create the output folder: {exc.strerror}", where=str(out)
        ) from None
    changes = plan_changes(out, files)
    conflicts = [c for c in changes if c.old is not None and c.old != c.new]
    if conflicts and not force:
        names = ", ".join(str(c.path) for c in conflicts)
        raise NginxgenError(
            f"would overwrite {names}, which differ{'s' if len(conflicts) == 1 else ''}; "
            "nothing written (--diff shows the changes, --force replaces them)",
            where="--out",
        )
    report = []
    for change in changes:
        if change.old == change.new:
            report.append(f"unchanged {change.path}")
            continue
        try:
            _atomic_write(change)
        except PermissionError as exc:
            raise NginxgenError(f"cannot write: {exc.strerror}", where=str(change.path)) from None
        report.append(f"{'replaced' if change.old is not None else 'wrote'} {change.path}")
    return report
