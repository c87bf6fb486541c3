"""The one unified diff every `--diff` prints (`lint --fix/--unsafe-fixes --diff`, `generate --out
DIR --diff`, `generate --into DIR --diff`), written so that `patch -p0` (GNU patch 2.7 or later)
and `git apply -p0` both apply it and leave byte for byte what the run without `--diff` writes.

What each choice answers (GNU diff manual, "Detailed Unified" and "Incomplete Lines"; git-apply(1),
git-diff(1) "generating patches with -p"):

- Each file has a git-style header without a/ b/ prefixes (`diff --git NAME NAME`): a new file
  (`new file mode 100644`, `--- /dev/null`), a new symlink (`new file mode 120000`, its target as
  the one line) and a file emptied but kept are then said, not guessed; GNU patch reads these
  headers since 2.7. Without prefixes, `-p0` is the same for both tools.
- Lines are split at "\\n" only, as both tools split them (not at the other ends str.splitlines
  knows); a CR stays in its line, so CRLF files keep CRLF. A last line without a newline is
  followed by `\\ No newline at end of file`, without which the tools refuse the diff or add the
  newline.
- Both tools refuse absolute names and names with `..`. Names are relative to the working folder
  when every file lies inside it; otherwise to the deepest existing folder holding them all, which
  a first comment line names (both tools skip text before the first header). Folders are resolved
  (git apply will not write beyond a symlinked folder); a symlinked file is named by its target,
  where the write goes.
- A name with a space, a quote, a backslash or a control character is written in git's C-style
  quotes, which both tools read.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterable

from nginxgen.base.records import record

NO_NEWLINE = "\\ No newline at end of file\n"
CONTEXT = 3  # lines of context around each change, as diff -u and git diff give


@record(frozen=True)
class FileDiff:
    """One file's change. `old` None: nothing is there yet. `old_link`: `old` is the target of a
    symlink that the write replaces (never follows); `new_link`: `new` is the target of a new
    symlink, not a file's text."""

    path: str  # absolute, or relative to the working folder
    old: str | None
    new: str
    old_link: bool = False
    new_link: bool = False


def unified(files: Iterable[FileDiff]) -> str:
    """The diff of the files that change (the others are left out); empty when none does."""
    changed = [f for f in files if (f.old, f.old_link) != (f.new, f.new_link)]
    if not changed:
        return ""
    names, base = _names([f.path for f in changed], os.getcwd())
    chunks: list[str] = []
    if base is not None:
        chunks.append(_base_note(base))
    for file, name in zip(changed, names, strict=True):
        chunks.extend(_file(file, _quote(name)))
    return "".join(chunks)


def show(text: str) -> int:
    """Print a diff as its bytes (a config's bytes that are not UTF-8, read with surrogateescape,
    go out as they came in, so the diff still applies); return the exit code of every `--diff`:
    1 when it shows a change, 0 when there is none, as `diff` itself and `ruff --diff`."""
    sys.stdout.flush()
    sys.stdout.buffer.write(text.encode("utf-8", "surrogateescape"))
    sys.stdout.buffer.flush()
    return 1 if text else 0


def _file(file: FileDiff, name: str) -> list[str]:
    if file.old is None:
        return _created(file.new, file.new_link, name)
    if file.old_link != file.new_link:
        # a symlink replaced by a file, or a file by a symlink: git's type change, a deletion
        # and a creation of the same name
        return _deleted(file.old, file.old_link, name) + _created(file.new, file.new_link, name)
    header = [f"diff --git {name} {name}\n", f"--- {name}\n", f"+++ {name}\n"]
    return header + _hunks(_lines(file.old), _lines(file.new))


def _created(text: str, link: bool, name: str) -> list[str]:
    out = [f"diff --git {name} {name}\n", f"new file mode {_mode(link)}\n"]
    if not text:  # an empty file: the header alone creates it
        return out
    return [*out, "--- /dev/null\n", f"+++ {name}\n", *_hunks([], _lines(text))]


def _deleted(text: str, link: bool, name: str) -> list[str]:
    out = [f"diff --git {name} {name}\n", f"deleted file mode {_mode(link)}\n"]
    if not text:
        return out
    return [*out, f"--- {name}\n", "+++ /dev/null\n", *_hunks(_lines(text), [])]


def _mode(link: bool) -> str:
    return "120000" if link else "100644"


def _lines(text: str) -> list[str]:
    """The lines as diff and patch see them: ended by "\\n" only, the last one maybe without."""
    lines = text.split("\n")
    last = lines.pop()
    return [line + "\n" for line in lines] + ([last] if last else [])


def _hunks(old: list[str], new: list[str]) -> list[str]:
    from difflib import SequenceMatcher

    out: list[str] = []
    matcher = SequenceMatcher(None, old, new, autojunk=False)
    for group in matcher.get_grouped_opcodes(CONTEXT):
        first, last = group[0], group[-1]
        out.append(f"@@ -{_range(first[1], last[2])} +{_range(first[3], last[4])} @@\n")
        for tag, i1, i2, j1, j2 in group:
            if tag == "equal":
                out.extend(_marked(" ", old[i1:i2]))
                continue
            out.extend(_marked("-", old[i1:i2]))
            out.extend(_marked("+", new[j1:j2]))
    return out


def _marked(sign: str, lines: list[str]) -> list[str]:
    out = [sign + line for line in lines]
    if lines and not lines[-1].endswith("\n"):
        out[-1] += "\n" + NO_NEWLINE
    return out


def _range(start: int, stop: int) -> str:
    """A hunk's line range (GNU diff manual, "Detailed Unified"): an empty range names the line
    before it."""
    length = stop - start
    if length == 1:
        return str(start + 1)
    return f"{start + 1 if length else start},{length}"


def _names(paths: list[str], cwd: str) -> tuple[list[str], str | None]:
    """The names to print, and the folder they are relative to when it is not `cwd`."""
    real = [
        os.path.join(os.path.realpath(os.path.dirname(os.path.abspath(p))), os.path.basename(p))
        for p in paths
    ]
    here = os.path.realpath(cwd)
    if all(os.path.commonpath([p, here]) == here for p in real):
        return [os.path.relpath(p, here) for p in real], None
    base = os.path.commonpath(real)
    while not os.path.isdir(base):  # a new folder (generate --out) is created by the tools
        base = os.path.dirname(base)
    return [os.path.relpath(p, base) for p in real], base


def _base_note(base: str) -> str:
    import shlex

    where = shlex.quote(base)
    return (
        f"# nginxgen: the names below are relative to {base}; apply there: "
        f"patch -p0 -d {where} < FILE, or git -C {where} apply -p0 FILE\n"
    )


_ESCAPES = {"\a": "a", "\b": "b", "\t": "t", "\n": "n", "\v": "v", "\f": "f", "\r": "r"}


def _quote(name: str) -> str:
    """git's C-style quoting (git-diff(1), "core.quotePath"), also for a space: GNU patch splits
    an unquoted git header at it."""
    if not any(c in ' "\\' or c < " " or c == "\x7f" for c in name):
        return name
    out = []
    for c in name:
        if c in '"\\':
            out.append("\\" + c)
        elif c in _ESCAPES:
            out.append("\\" + _ESCAPES[c])
        elif c < " " or c == "\x7f":
            out.append(f"\\{ord(c):03o}")
        else:
            out.append(c)
    return '"' + "".join(out) + '"'
