"""The all-or-none file writer every command that writes uses (generate, generate --into,
lint --fix, report): nothing the user has is overwritten, half-written or lost.

Nothing is written unless every file can be: an existing file that differs stops the run
(`--force` replaces the differing files, all or none; `--diff` only shows the difference), a
read-only file is never replaced, and a file changed after nginxgen read it stops the run. Files
are only ever created inside the output folder; a symlink there is replaced, never followed.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from nginxgen.base.errors import NginxgenError
from nginxgen.base.records import record


@record(frozen=True)
class Change:
    name: str
    path: Path
    old: str | None  # None: the file does not exist
    new: str
    stat: tuple[int, int] | None  # (mtime_ns, size) when read, to notice a change before writing
    mode: int | None = None  # permission bits when read: kept on replacement, 0o200 = writable
    link: str | None = None  # a new symlink pointing here instead of a file (`new` unused)


def _inside(out: Path, name: str) -> Path:
    path = out / name
    if Path(name).is_absolute() or ".." in Path(name).parts or path.parent != out:
        raise NginxgenError(f"refusing to write {name!r} outside {out}")
    return path


def _read_existing(path: Path) -> tuple[str | None, tuple[int, int] | None, int | None]:
    if path.is_symlink():
        # never follow it: treat as differing, so only --force replaces the link
        return "", None, None
    if not path.exists():
        return None, None, None
    if not path.is_file():
        raise NginxgenError("exists and is not a regular file", where=str(path))
    try:
        st = path.stat()
        # bytes, not read_text: its newline translation turned CRLF into LF, so a file that
        # differed only in its line ends looked unchanged, its diff did not apply, and a failed
        # write put it back with LF
        text = path.read_bytes().decode("utf-8")
        return text, (st.st_mtime_ns, st.st_size), st.st_mode & 0o7777
    except (OSError, UnicodeDecodeError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) else "not UTF-8"
        raise NginxgenError(f"cannot read the existing file: {reason}", where=str(path)) from None


def plan_changes(
    out: Path, files: dict[str, str], private: frozenset[str] = frozenset()
) -> list[Change]:
    """The change of each file; a new file named in `private` (a private key) is created
    readable by its owner only."""
    out = out.absolute()
    changes = []
    for name, text in files.items():
        path = _inside(out, name)
        old, stat, mode = _read_existing(path)
        if mode is None and name in private:
            mode = 0o600
        changes.append(Change(name, path, old, text, stat, mode))
    return changes


def diff(changes: list[Change]) -> str:
    """The diff of planned changes (nginxgen.files.diff): a symlink that a write would replace,
    never follow, shows as that symlink going and the file coming."""
    from nginxgen.files.diff import FileDiff, unified

    def one(change: Change) -> FileDiff:
        if change.old is not None and change.stat is None and change.path.is_symlink():
            return FileDiff(str(change.path), os.readlink(change.path), change.new, old_link=True)
        new = change.new if change.link is None else change.link
        return FileDiff(str(change.path), change.old, new, new_link=change.link is not None)

    return unified(one(c) for c in changes)


def _stage(change: Change) -> Path:
    """Write the new text beside its file (same folder, so the rename is atomic); the caller
    syncs before renaming. Plain os calls: a fix of a few thousand files spends most of its
    writing here, and a text wrapper and a second path lookup for chmod cost a third more."""
    if change.link is not None:
        staged = change.path.with_name(f".{change.name}.{os.getpid()}.link")
        os.symlink(change.link, staged)
        return staged
    # surrogateescape: a fixed config keeps bytes that were not UTF-8 as they were
    data = change.new.encode("utf-8", "surrogateescape")
    # Keep the mode of the file replaced; a new file gets what open() would give it.
    mode = change.mode if change.mode is not None else 0o666 & ~_umask()
    tmp = change.path.with_name(f".{change.name}.{os.getpid()}.tmp")
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:  # left by an earlier process that had our pid: a fresh name
        fd, name = tempfile.mkstemp(prefix=f".{change.name}.", suffix=".tmp", dir=tmp.parent)
        tmp = Path(name)
    try:
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view) :]
            os.fchmod(fd, mode)
        finally:
            os.close(fd)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    return tmp


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def _unchanged_since_read(change: Change) -> bool:
    if change.old is None:
        return not os.path.lexists(change.path)
    if change.stat is None:  # a symlink we never followed
        return change.path.is_symlink()
    try:
        st = change.path.stat()
    except FileNotFoundError:
        return False
    return (st.st_mtime_ns, st.st_size) == change.stat


def replace_all(pending: list[Change], ready: dict[Path, Path] | None = None) -> None:
    """All files or none: stage every file first, check none changed since it was read, then
    rename them in; if a rename fails, put back the files already replaced (from the old text
    held in memory; a symlink that was replaced, never followed, from a hard link of it).
    `ready`: files already staged and synced with their change's new text (EarlyStaging), by
    path; the ones not used are removed."""
    ready = dict(ready or {})
    staged: list[tuple[Change, Path]] = []
    touched: list[tuple[Change, Path | None]] = []  # renamed or being renamed, oldest first
    renamed: set[int] = set()
    try:
        _stage_all(pending, ready, staged)
        for change in pending:
            if not _unchanged_since_read(change):
                raise NginxgenError(
                    "changed while nginxgen was running; nothing written", where=str(change.path)
                )
        for change, tmp in staged:
            backup = None
            if change.old is not None and change.stat is None:  # a symlink, never followed
                backup = tmp.with_suffix(".bak")
                os.link(change.path, backup, follow_symlinks=False)
            touched.append((change, backup))
            os.replace(tmp, change.path)
            renamed.add(id(change))
    except BaseException:
        _put_back(touched)
        raise
    finally:
        _remove_leftovers(staged, renamed, touched, ready)


def _stage_all(
    pending: list[Change], ready: dict[Path, Path], staged: list[tuple[Change, Path]]
) -> None:
    """Each change's staged file (the one in `ready`, taken out of it, else a new one), added to
    `staged` as it is made (what a failure leaves is removed), all on disk before any rename."""
    fresh = False
    for change in pending:
        early = ready.pop(change.path, None)
        fresh = fresh or early is None
        staged.append((change, early if early is not None else _stage(change)))
    if fresh:
        # Every staged file is on disk before any rename. One sync for all of them: a
        # thousand-vhost fix spent more time in a thousand fsync calls than in linting.
        os.sync()


def _put_back(touched: list[tuple[Change, Path | None]]) -> None:
    """The files already replaced (or being replaced) as they were, newest first."""
    for change, backup in reversed(touched):
        if change.old is None:
            change.path.unlink(missing_ok=True)
        elif backup is not None:
            os.replace(backup, change.path)
        else:  # creating files costs; only a failed write pays it twice
            os.replace(_stage(Change(change.name, change.path, None, change.old, None,
                                     change.mode)), change.path)  # fmt: skip


def _remove_leftovers(
    staged: list[tuple[Change, Path]],
    renamed: set[int],
    touched: list[tuple[Change, Path | None]],
    ready: dict[Path, Path],
) -> None:
    """The staged files not renamed in, the symlinks' backups and the unused early files."""
    for change, tmp in staged:
        if id(change) not in renamed:
            tmp.unlink(missing_ok=True)
    for _, backup in touched:
        if backup is not None:
            backup.unlink(missing_ok=True)
    for tmp in ready.values():
        tmp.unlink(missing_ok=True)


def replace_read(originals: dict[str, str | None], texts: dict[str, str]) -> list[Change]:
    """Changes for files read earlier (`originals`; None: a file to create): each read again
    and refused when it changed meanwhile or is read-only. A symlink is replaced at its target.
    The caller passes them to replace_all."""
    return [_read_again(file, originals[file], new) for file, new in texts.items()]


def _read_again(file: str, old: str | None, new: str) -> Change:
    target = os.path.realpath(file)
    if old is None:
        if os.path.lexists(file):
            raise NginxgenError("appeared while nginxgen was running; nothing written", where=file)
        return Change(os.path.basename(file), Path(file), None, new, None)
    try:
        with open(target, "rb") as handle:
            now = handle.read().decode("utf-8", "surrogateescape")
        st = os.stat(target)
    except OSError as exc:
        raise NginxgenError(f"cannot read it again: {exc.strerror}", where=file) from None
    if now != old:
        raise NginxgenError("changed while nginxgen was running; nothing written", where=file)
    if not st.st_mode & 0o200:
        raise NginxgenError(
            "is read-only, so nginxgen leaves it alone; nothing written", where=file
        )
    stat = (st.st_mtime_ns, st.st_size)
    return Change(os.path.basename(target), Path(target), now, new, stat, st.st_mode & 0o7777)


# What EarlyStaging's child reports per file: (file, target, stat, mode, staged file)
Staged = tuple[str, str, tuple[int, int] | None, int | None, str]


def _remove(records: list[Staged]) -> None:
    for *_, tmp in records:
        os.unlink(tmp)


class EarlyStaging:
    """Files read again (replace_read) and staged beside their targets by a forked child,
    started as soon as their new texts are known and taken by the write that follows. The fix
    loop starts one before its last, checking pass: creating a few thousand files waits on the
    disk (0.05 to 0.9 s for 2,000 on a VM, docs/benchmarks.md), and that wait then overlaps the
    pass's parsing instead of following it. A process, not a thread: a thread that makes a
    dozen system calls per file waits for the parsing thread's GIL after each one, and took
    longer than staging afterwards. What the write does not take is removed; without fork
    (Windows) nothing is staged early."""

    def __init__(self, originals: dict[str, str | None], texts: dict[str, str]) -> None:
        from nginxgen.base.forks import in_child

        self.texts = dict(texts)
        self._originals = {file: originals[file] for file in texts}
        staged: list[Staged] = []  # the child's, removed there when nobody takes them
        self._child = in_child(
            lambda: _stage_ahead(self._originals, self.texts, staged), lambda: _remove(staged)
        )

    def _collect(self) -> list[Staged]:
        """The child's records; empty when it failed (after removing what it did stage)."""
        import marshal

        collect, self._child = self._child, None
        data = collect() if collect is not None else None
        if data is None:  # the child died before it reported
            return []
        failed, records = marshal.loads(data)
        if failed or len(records) != len(self.texts):
            _remove(records)
            return []
        return list(records)

    def take(
        self, originals: dict[str, str | None], texts: dict[str, str]
    ) -> tuple[list[Change], dict[Path, Path]]:
        """The changes for `texts` and the staged files that hold exactly their new text; when
        the files differ from what was staged, or staging failed, everything is read again."""
        records = self._collect()
        if not records or list(texts) != list(self.texts):
            _remove(records)
            return replace_read(originals, texts), {}
        changes: list[Change] = []
        ready: dict[Path, Path] = {}
        for file, target, stat, mode, tmp in records:
            new = texts[file]
            path = Path(target)
            changes.append(Change(path.name, path, originals[file], new, stat, mode))
            if new == self.texts[file]:
                ready[path] = Path(tmp)
            else:  # a later pass changed it again
                os.unlink(tmp)
        return changes, ready

    def discard(self) -> None:
        _remove(self._collect())


def _stage_ahead(
    originals: dict[str, str | None], texts: dict[str, str], records: list[Staged]
) -> bytes:
    """EarlyStaging's child: read each file again and stage its new text (into `records`), then
    report; a file that cannot be staged ends it (the write reads everything again and says
    why)."""
    import marshal

    failed = False
    try:
        for file, new in texts.items():
            change = _read_again(file, originals[file], new)
            records.append((file, str(change.path), change.stat, change.mode, str(_stage(change))))
    except Exception:
        failed = True
    if records and not failed:
        os.sync()  # on disk before the parent renames them in, as replace_all's own staging
    return marshal.dumps((failed, records))


def put_back(changes: list[Change]) -> None:
    """Undo changes replace_all carried out: files created (and symlinks) go, files replaced
    get their old text back (all or none again)."""
    back: list[Change] = []
    for change in changes:
        if change.old is None:
            change.path.unlink(missing_ok=True)
            continue
        st = change.path.stat()
        back.append(
            Change(change.name, change.path, change.new, change.old,
                   (st.st_mtime_ns, st.st_size), change.mode)
        )  # fmt: skip
    replace_all(back)


def _read_only(change: Change) -> bool:
    return change.mode is not None and not change.mode & 0o200


def write(
    out: Path, files: dict[str, str], force: bool, private: frozenset[str] = frozenset()
) -> list[str]:
    """Write the files; return the lines to report (one per file)."""
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise NginxgenError(
            f"cannot create the output folder: {exc.strerror}", where=str(out)
        ) from None
    return apply(plan_changes(out, files, private), force)


def apply(changes: list[Change], force: bool) -> list[str]:
    """Carry out planned changes: new files, and with `force` differing ones, all or none."""
    conflicts = [c for c in changes if c.old is not None and c.old != c.new]
    if conflicts and not force:
        names = ", ".join(str(c.path) for c in conflicts)
        raise NginxgenError(
            f"would overwrite {names}, which differ{'s' if len(conflicts) == 1 else ''}; "
            "nothing written (--diff shows the changes, --force replaces them)",
            where="--out",
        )
    locked = [c for c in conflicts if _read_only(c)]
    if locked:
        raise NginxgenError(
            "is read-only, so nginxgen leaves it alone even with --force; nothing written "
            "(make it writable to let it be replaced)",
            where=str(locked[0].path),
        )
    pending = [c for c in changes if c.old != c.new]
    try:
        replace_all(pending)
    except PermissionError as exc:
        where = exc.filename or (str(pending[0].path.parent) if pending else "--out")
        raise NginxgenError(f"cannot write: {exc.strerror}", where=str(where)) from None
    return [
        f"unchanged {c.path}"
        if c.old == c.new
        else f"{'replaced' if c.old is not None else 'wrote'} {c.path}"
        for c in changes
    ]


def write_named_file(path: Path, text: str) -> None:
    """One output file the user named on the command line (a report page): written whole or
    not at all, replacing a regular file there atomically and keeping its mode."""
    if path.is_symlink():
        raise NginxgenError("is a symlink; nginxgen does not write through it", where=str(path))
    old, stat, mode = _read_existing(path)
    if not path.parent.is_dir():
        raise NginxgenError("its folder does not exist", where=str(path))
    replace_all([Change(path.name, path, old, text, stat, mode)])
