"""Byte-span edits anchored on statements of the lossless model, never on a text search.

Each edit replaces one span of one file's bytes. They are made against the file as it was read
and applied back to front, so one edit's offsets do not move another's; two edits whose spans
overlap are refused (the caller applies one now, the other in a later pass).
"""

from __future__ import annotations

from itertools import pairwise

from nginxgen.base.records import record
from nginxgen.conf.words import word
from nginxgen.edit.source import Source, SourceStatement


class OverlappingEdits(Exception):
    pass


@record(frozen=True)
class Edit:
    start: int
    end: int
    replacement: bytes


def _encode(text: str) -> bytes:
    return text.encode("utf-8", errors="surrogateescape")


def replace_args(source: Source, stmt: SourceStatement, args: list[str]) -> Edit:
    """The statement's arguments become `args`; its name, `;` and everything around stay, and
    an argument that stays where it was keeps its own spelling (quotes included)."""
    pieces = []
    for index, arg in enumerate(args):
        if index < len(stmt.args) and source.value(stmt.args[index]) == arg:
            pieces.append(source.text(stmt.args[index]))
        else:
            pieces.append(_encode(word(arg)))
    new = b" ".join(pieces)
    if stmt.args:
        return Edit(stmt.args[0].start, stmt.args[-1].end, new)
    return Edit(stmt.name.end, stmt.name.end, b" " + new if new else b"")


def delete(source: Source, stmt: SourceStatement) -> Edit:
    """Remove the statement; when it stands alone on its line(s), the whole line(s) with it (and
    a comment trailing it there), so no blank line is left. Comments on other lines stay."""
    data = source.data
    end = stmt.trailing.end if stmt.trailing is not None else stmt.end
    rest_end = data.find(b"\n", end)
    rest = data[end : rest_end if rest_end >= 0 else len(data)]
    if stmt.indent is not None and not rest.strip(b" \t\r"):
        start = stmt.start - len(stmt.indent)
        stop = rest_end + 1 if rest_end >= 0 else len(data)
        return Edit(start, stop, b"")
    # shares its line: take the statement and the blanks after it
    stop = end
    while stop < len(data) and data[stop : stop + 1] in (b" ", b"\t"):
        stop += 1
    return Edit(stmt.start, stop, b"")


def _child_indent(source: Source, owner: SourceStatement | None) -> bytes:
    siblings = owner.block if owner is not None else source.statements
    for sibling in siblings or []:
        if sibling.indent is not None:
            return sibling.indent
    base = owner.indent if owner is not None and owner.indent is not None else b""
    if owner is None:
        return b""
    return base + (b"\t" if base.startswith(b"\t") else b"    ")


def _line_end(source: Source, position: int) -> int:
    """The offset of the line ending after `position` (the file's end when there is none)."""
    found = source.data.find(b"\n", position)
    if found < 0:
        return len(source.data)
    return found - 1 if source.data[found - 1 : found] == b"\r" else found


def insert(
    source: Source,
    owner: SourceStatement | None,
    line: str,
    after: SourceStatement | None = None,
    first: bool = False,
) -> Edit:
    """A new line `line` (a whole directive, `;` included) in `owner`'s block (None: the file's
    top level): after the sibling `after`, first, or last. Indented like the line it follows
    (a block whose lines are indented unevenly keeps each run as it is), else like the first of
    its siblings, with the file's own line endings."""
    text = _encode(line)
    siblings = owner.block if owner is not None else source.statements
    if after is None and not first and siblings:
        after = siblings[-1]
    indent = _child_indent(source, owner)
    if after is not None and after.indent is not None:
        indent = after.indent
    if after is not None:
        end = after.trailing.end if after.trailing is not None else after.end
        return _at_line_end(source, owner, end, indent, text)
    if owner is not None and owner.open is not None:
        return _at_line_end(source, owner, owner.open.end, indent, text)
    return Edit(0, 0, indent + text + source.newline)  # first at the top of the file


def _at_line_end(
    source: Source, owner: SourceStatement | None, position: int, indent: bytes, text: bytes
) -> Edit:
    """A new line of `text`, indented by `indent`, at the end of the line of `position`; where
    the owner's `}` closes on that line (`}}`, `http { }`), before that brace instead, which
    then goes on a line of its own."""
    added = source.newline + indent + text
    at = _line_end(source, position)
    close = owner.close if owner is not None else None
    if close is None or at <= close.start:
        return Edit(at, at, added)
    assert owner is not None  # a close brace is an owner's
    gap = source.data[position : close.start]
    if not gap.strip():  # only blanks before the brace: it goes on a line of its own
        return Edit(position, close.start, added + source.newline + (owner.indent or b""))
    # more of the block follows on the line: it goes on the next, indented like the new line
    blanks = len(gap) - len(gap.lstrip(b" \t"))
    return Edit(position, position + blanks, added + source.newline + indent)


def apply(data: bytes, edits: list[Edit]) -> bytes:
    """All edits at once, back to front; OverlappingEdits when two spans overlap (or start at
    the same byte: their order would be a guess)."""
    ordered = sorted(edits, key=lambda e: (e.start, e.end))
    for left, right in pairwise(ordered):
        if right.start < left.end or right.start == left.start:
            raise OverlappingEdits(f"bytes {left.start}-{left.end} and {right.start}-{right.end}")
    out = data
    for edit in reversed(ordered):
        out = out[: edit.start] + edit.replacement + out[edit.end :]
    return out
