"""The lossless models of a loaded tree's files, and the way from a loaded statement to the
lossless statement behind it. Shared by the linter's fixes and by `generate --into`: both edit
statements the loader found."""

from __future__ import annotations

from nginxgen.edit.source import Source, SourceStatement, from_spans

TYPE_CHECKING = False
if TYPE_CHECKING:
    from nginxgen.conf.load import Stmt


class TreeSources:
    def __init__(
        self, texts: dict[str, str], spans: dict[str, list[tuple[int, int]]] | None = None
    ) -> None:
        self.texts = texts  # file -> text as the loader read it (not for stdin or dumps)
        self.spans = spans or {}  # file -> the loader's token spans of that text
        self._sources: dict[str, Source | None] = {}
        self._by_start: dict[str, dict[int, SourceStatement]] = {}
        self._indexes: dict[str, dict[tuple[int, str], list[SourceStatement]]] = {}

    def source(self, file: str) -> Source | None:
        """The lossless model of a file (None: stdin or a dump, not editable), made from the
        loader's reading of it (its spans) where the loader kept it."""
        if file not in self._sources:
            text = self.texts.get(file)
            if text is None:
                self._sources[file] = None
            else:
                data = text.encode("utf-8", errors="surrogateescape")
                spans = self.spans.get(file)
                self._sources[file] = Source(data, from_spans(text, data, spans) if spans else None)
        return self._sources[file]

    def locate(self, stmt: Stmt) -> tuple[Source, SourceStatement] | None:
        """The lossless statement behind a loaded one: the one whose name starts where the
        loader read it (both are one reading of the file); else (the loader kept no offsets)
        same file, line, name and arguments."""
        source = self.source(stmt.file)
        if source is None:
            return None
        if stmt.start is not None:
            by_start = self._by_start.get(stmt.file)
            if by_start is None:
                by_start = {c.name.start: c for c in _every(source.statements)}
                self._by_start[stmt.file] = by_start
            found = by_start.get(_byte_offset(self.texts[stmt.file], stmt.start))
            return (source, found) if found is not None else None
        index = self._indexes.get(stmt.file)
        if index is None:  # built once per file: fleets have thousands of findings
            index = {}
            for candidate in _every(source.statements):
                key = (candidate.name.line, source.value(candidate.name))
                index.setdefault(key, []).append(candidate)
            self._indexes[stmt.file] = index
        found_all = [
            candidate
            for candidate in index.get((stmt.line, stmt.directive), [])
            if [source.value(a) for a in candidate.args] == stmt.args
        ]
        # Two equal statements on one line cannot be told apart from the loader's (file, line,
        # name, arguments): no edit rather than one on the wrong statement.
        return (source, found_all[0]) if len(found_all) == 1 else None


def _every(statements: list[SourceStatement]) -> list[SourceStatement]:
    """Every statement, blocks' contents included (a stack: blocks may nest thousands deep)."""
    out: list[SourceStatement] = []
    pending = list(statements)
    while pending:
        candidate = pending.pop()
        out.append(candidate)
        if candidate.block is not None:
            pending.extend(candidate.block)
    return out


def _byte_offset(text: str, start: int) -> int:
    if text.isascii():
        return start
    return len(text[:start].encode("utf-8", errors="surrogateescape"))
