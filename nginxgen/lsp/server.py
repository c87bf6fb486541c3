"""The language server: LSP 3.17 over stdio (pygls), on top of Session.

Diagnostics on open, change and save for every open file of the tree the edited file belongs
to; code actions from the fix engine (each finding's fix, labelled safe or unsafe as `lint
--fix` labels it, and fix-all actions that apply exactly what `lint --fix` and `lint
--unsafe-fixes` would); hover with the line's effective value (which server decides) and the
rule's text; go to definition for includes and certificate files; document symbols for servers
and locations.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from concurrent.futures import Future
from typing import Any

from lsprotocol import types
from pygls.lsp.server import LanguageServer
from pygls.protocol import LanguageServerProtocol
from pygls.uris import from_fs_path, to_fs_path

from nginxgen.base.errors import NginxgenError
from nginxgen.conf.load import LoadError
from nginxgen.edit.edits import Edit
from nginxgen.lint.findings import Applicability, Finding, Severity
from nginxgen.lsp.positions import Lines
from nginxgen.lsp.workspace import Checked, Session, Symbol

SEVERITY = {
    Severity.ERROR: types.DiagnosticSeverity.Error,
    Severity.WARNING: types.DiagnosticSeverity.Warning,
    Severity.INFO: types.DiagnosticSeverity.Information,
}


class Protocol(LanguageServerProtocol):
    """pygls 2.1 keeps the future of every notification whose handler is one of its own
    generators (didOpen, didChange, didSave, didClose) in `_request_futures` under a fresh id
    and never removes it: about 2 KB per keystroke batch, 21 MB over 10,000 edits (bench/lsp.py).
    A finished handler's future is dropped here; a request's is dropped by pygls as before."""

    def _execute_handler(
        self,
        msg_id: Any,
        handler: Callable[..., Any],
        callback: Callable[[Future[Any]], None],
        args: tuple[Any, ...] | None = None,
        kwargs: dict[str, Any] | None = None,
    ) -> None:
        super()._execute_handler(msg_id, handler, callback, args, kwargs)
        future = self._request_futures.get(msg_id)
        if future is not None:
            future.add_done_callback(lambda done: self._forget(msg_id, done))

    def _forget(self, msg_id: Any, done: Future[Any]) -> None:
        if self._request_futures.get(msg_id) is done:
            del self._request_futures[msg_id]


class NginxgenServer(LanguageServer):
    def __init__(self) -> None:
        from nginxgen import __version__

        super().__init__("nginxgen", __version__, protocol_cls=Protocol)
        self.session = Session()
        self.published: set[str] = set()  # files whose diagnostics the client holds
        self.said: set[str] = set()  # the notes already logged (each once per session)

    def path(self, uri: str) -> str:
        return os.path.abspath(to_fs_path(uri) or uri)

    def text(self, checked: Checked, path: str) -> str:
        for file, text in checked.loaded.texts.items():
            if os.path.abspath(file) == path:
                return text
        return self.session.open.get(path, "")

    def check(self, path: str) -> Checked | None:
        try:
            checked = self.session.check(path)
        except (LoadError, NginxgenError) as exc:
            self.window_log_message(
                types.LogMessageParams(types.MessageType.Error, f"nginxgen: {exc}")
            )
            return None
        for note in self.session.notes(checked):
            if note not in self.said:
                self.said.add(note)
                self.window_log_message(
                    types.LogMessageParams(types.MessageType.Info, f"nginxgen: {note}")
                )
        return checked

    def publish(self, path: str) -> None:
        """Diagnostics for every open file of the tree, and none where none remain."""
        checked = self.check(path)
        if checked is None:
            return
        by_file: dict[str, list[Finding]] = {}
        for finding in checked.findings:
            by_file.setdefault(os.path.abspath(finding.file), []).append(finding)
        files = {os.path.abspath(f) for f in checked.loaded.files} & {*self.session.open, path}
        for file in sorted(
            files | (self.published & {os.path.abspath(f) for f in checked.loaded.files})
        ):
            lines = Lines(self.text(checked, file))
            diagnostics = [_diagnostic(f, lines) for f in by_file.get(file, [])]
            uri = from_fs_path(file) or file
            self.text_document_publish_diagnostics(
                types.PublishDiagnosticsParams(uri=uri, diagnostics=diagnostics)
            )
            if diagnostics:
                self.published.add(file)
            else:
                self.published.discard(file)


def _diagnostic(finding: Finding, lines: Lines) -> types.Diagnostic:
    start, end = lines.line_range(finding.line)
    return types.Diagnostic(
        range=_range(start, end),
        message=finding.message,
        severity=SEVERITY[finding.severity],
        code=finding.code,
        source="nginxgen",
        data={"autofix": finding.autofix},
    )


def _range(start: tuple[int, int], end: tuple[int, int]) -> types.Range:
    return types.Range(types.Position(*start), types.Position(*end))


def _workspace_edit(
    server: NginxgenServer, checked: Checked, edits: Iterable[tuple[str, Edit]]
) -> types.WorkspaceEdit:
    changes: dict[str, list[types.TextEdit]] = {}
    for file, edit in edits:
        path = os.path.abspath(file)
        lines = Lines(server.text(checked, path))
        new = edit.replacement.decode("utf-8", "surrogateescape")
        rng = _range(lines.position(edit.start), lines.position(edit.end))
        changes.setdefault(from_fs_path(path) or path, []).append(types.TextEdit(rng, new))
    return types.WorkspaceEdit(changes=changes)


def _whole_files(changed: dict[str, tuple[str, str]]) -> types.WorkspaceEdit:
    changes = {}
    for file, (before, after) in changed.items():
        end = Lines(before).end()
        uri = from_fs_path(os.path.abspath(file)) or file
        changes[uri] = [types.TextEdit(_range((0, 0), end), after)]
    return types.WorkspaceEdit(changes=changes)


def _symbol(symbol: Symbol) -> types.DocumentSymbol:
    rng = _range((symbol.first - 1, 0), (max(symbol.last - 1, symbol.first - 1), 0))
    return types.DocumentSymbol(
        name=symbol.name,
        detail=symbol.detail or None,
        kind=types.SymbolKind.Class
        if symbol.name.startswith("server")
        else types.SymbolKind.Namespace,
        range=rng,
        selection_range=_range((symbol.first - 1, 0), (symbol.first - 1, 0)),
        children=[_symbol(c) for c in symbol.children],
    )


async def _initialized(ls: NginxgenServer, params: types.InitializedParams) -> None:
    """The client's `nginxgen` settings, asked for once it is ready, when it answers such asks."""
    caps = ls.client_capabilities.workspace
    if caps is None or not caps.configuration:
        return
    try:
        found = await ls.workspace_configuration_async(
            types.ConfigurationParams([types.ConfigurationItem(section="nginxgen")])
        )
    except Exception:  # a client that says it answers and does not: keep the options
        found = []
    if found and isinstance(found[0], dict):
        ls.session.configure(found[0])
        for path in list(ls.session.open):
            ls.publish(path)


def _configuration(ls: NginxgenServer, params: types.DidChangeConfigurationParams) -> None:
    ls.session.configure(params.settings)
    for path in list(ls.session.open):
        ls.publish(path)


def _changed(ls: NginxgenServer, params: object) -> None:
    """didOpen, didChange, didSave: the file's text as the editor holds it, and diagnostics."""
    uri = params.text_document.uri  # type: ignore[attr-defined]
    path = ls.path(uri)
    ls.session.open[path] = ls.workspace.get_text_document(uri).source
    ls.publish(path)


def _closed(ls: NginxgenServer, params: types.DidCloseTextDocumentParams) -> None:
    path = ls.path(params.text_document.uri)
    ls.session.open.pop(path, None)
    ls.published.discard(path)
    ls.text_document_publish_diagnostics(
        types.PublishDiagnosticsParams(uri=params.text_document.uri, diagnostics=[])
    )


def _code_action(ls: NginxgenServer, params: types.CodeActionParams) -> list[types.CodeAction]:
    """The fix of each finding on the lines asked for, then fix-all as `lint --fix` and
    `lint --unsafe-fixes` would apply it."""
    path = ls.path(params.text_document.uri)
    checked = ls.check(path)
    if checked is None:
        return []
    first, last = params.range.start.line + 1, params.range.end.line + 1
    return [*_quick_fixes(ls, checked, path, first, last), *_fix_all(ls, path)]


def _quick_fixes(
    ls: NginxgenServer, checked: Checked, path: str, first: int, last: int
) -> list[types.CodeAction]:
    actions = []
    for finding in checked.findings:
        if os.path.abspath(finding.file) != path or not first <= finding.line <= last:
            continue
        if finding.edits and finding.autofix:
            actions.append(
                types.CodeAction(
                    title=f"{finding.code}: {finding.fix} ({finding.autofix})",
                    kind=types.CodeActionKind.QuickFix,
                    edit=_workspace_edit(ls, checked, finding.edits),
                    is_preferred=finding.autofix is Applicability.SAFE,
                )
            )
    return actions


def _fix_all(ls: NginxgenServer, path: str) -> list[types.CodeAction]:
    actions = []
    for unsafe in (False, True):
        changed = ls.session.fix_all(path, unsafe)
        if changed:
            label = "with --unsafe-fixes" if unsafe else "safe fixes, as lint --fix"
            actions.append(
                types.CodeAction(
                    title=f"nginxgen: fix all ({label})",
                    kind=types.CodeActionKind.SourceFixAll,
                    edit=_whole_files(changed),
                )
            )
    return actions


def _hover(ls: NginxgenServer, params: types.HoverParams) -> types.Hover | None:
    path = ls.path(params.text_document.uri)
    checked = ls.check(path)
    text = ls.session.hover(checked, path, params.position.line + 1) if checked else None
    if text is None:
        return None
    return types.Hover(types.MarkupContent(types.MarkupKind.Markdown, text))


def _definition(ls: NginxgenServer, params: types.DefinitionParams) -> list[types.Location]:
    path = ls.path(params.text_document.uri)
    checked = ls.check(path)
    files = ls.session.definition(checked, path, params.position.line + 1) if checked else []
    start = _range((0, 0), (0, 0))
    return [types.Location(from_fs_path(f) or f, start) for f in files]


def _symbols(ls: NginxgenServer, params: types.DocumentSymbolParams) -> list[types.DocumentSymbol]:
    path = ls.path(params.text_document.uri)
    checked = ls.check(path)
    return [_symbol(s) for s in ls.session.symbols(checked, path)] if checked else []


# Each LSP method the server answers: its handler, and the options it announces.
FEATURES: tuple[tuple[str, Any, Callable[..., Any]], ...] = (
    (types.INITIALIZED, None, _initialized),
    (types.WORKSPACE_DID_CHANGE_CONFIGURATION, None, _configuration),
    (types.TEXT_DOCUMENT_DID_OPEN, None, _changed),
    (types.TEXT_DOCUMENT_DID_CHANGE, None, _changed),
    (types.TEXT_DOCUMENT_DID_SAVE, None, _changed),
    (types.TEXT_DOCUMENT_DID_CLOSE, None, _closed),
    (
        types.TEXT_DOCUMENT_CODE_ACTION,
        types.CodeActionOptions(
            code_action_kinds=[types.CodeActionKind.QuickFix, types.CodeActionKind.SourceFixAll]
        ),
        _code_action,
    ),
    (types.TEXT_DOCUMENT_HOVER, None, _hover),
    (types.TEXT_DOCUMENT_DEFINITION, None, _definition),
    (types.TEXT_DOCUMENT_DOCUMENT_SYMBOL, None, _symbols),
)


def create() -> NginxgenServer:
    server = NginxgenServer()
    for method, options, handler in FEATURES:
        server.feature(method, options)(handler)
    return server


def main(argv: list[str]) -> int:
    """`nginxgen lsp [--stdio]`: serve on stdin/stdout until the client says exit."""
    unknown = [a for a in argv if a != "--stdio"]
    if unknown:
        raise NginxgenError(f"nginxgen lsp takes only --stdio, not {unknown[0]!r}")
    create().start_io()
    return 0
