"""The lossless models of a loaded tree's files, and the way from a loaded statement (file,
line, name, arguments) to the lossless statement behind it. Shared by the linter's fixes and by
`generate --into`: both edit statements the loader found."""

from __future__ import annotations

from nginxgen.edit.source import Source, Statement

TYPE_CHECKING = False
if TYPE_CHECKING:
    from nginxgen.conf.load import Stmt


class TreeSources:
    def __init__(self, texts: dict[str, str]) -> None:
        self.texts = texts  # file -> text as the loader read it (not for stdin or dumps)
        self._sources: dict[str, Source | None] = {}
        self._indexes: dict[str, dict[tuple[int, str], list[Statement]]] = {}

    def source(self, file: str) -> Source | None:
        """The lossless model of a file (None: stdin or a dump, not editable)."""
        if file not in self._sources:
            text = self.texts.get(file)
            self._sources[file] = (
                Source(text.encode("utf-8", errors="surrogateescape")) if text is not None else None
            )
        return self._sources[file]

    def locate(self, stmt: Stmt) -> tuple[Source, Statement] | None:
        """The lossless statement behind a loaded one: same file, line, name and arguments
        (None when no single statement is)."""
        source = self.source(stmt.file)
        if source is None:
            return None
        index = self._indexes.get(stmt.file)
        if index is None:  # built once per file: fleets have thousands of findings
            index = {}
            pending = list(source.statements)
            while pending:
                candidate = pending.pop()
                if candidate.block is not None:
                    pending.extend(candidate.block)
                key = (candidate.name.line, source.value(candidate.name))
                index.setdefault(key, []).append(candidate)
            self._indexes[stmt.file] = index
        found = [
            candidate
            for candidate in index.get((stmt.line, stmt.directive), [])
            if [source.value(a) for a in candidate.args] == stmt.args
        ]
        # Two equal statements on one line cannot be told apart from the loader's (file, line,
        # name, arguments): no edit rather than one on the wrong statement.
        return (source, found[0]) if len(found) == 1 else None
