"""`nginxgen lsp` with a real LSP client over JSON-RPC (pytest-lsp) (issue 28): diagnostics on
the right range, code actions whose edits leave the bytes `lint --unsafe-fixes` leaves, hover
that names the deciding server, definitions, symbols, and the target from the client's
options."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import pytest_lsp
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient

from tests.helpers import hovers
from tests.paths import REPO

DEFAULT = "server {\n    listen 443 ssl default_server;\n    server_name a.example;\n    ssl_reject_handshake on;\n}\n"
VHOST = (
    "server {\n"
    "    listen 443 ssl;\n"
    "    server_name b.example;\n"
    "    ssl_certificate b.crt;\n"
    "    ssl_certificate_key b.key;\n"
    "    ssl_ecdh_curve X25519MLKEM768:X25519;  # PQ first\n"
    '    add_header Strict-Transport-Security "max-age=63072000";\n'
    "    location / {\n        root /srv/b;\n    }\n"
    "}\n"
)
MAIN = "events {}\nhttp {\n    ssl_protocols TLSv1.2 TLSv1.3;\n    include conf.d/*.conf;\n}\n"
OPTIONS = {"nginxVersion": "1.26.3", "tlsLibrary": "openssl-3.5.7"}


def tree(root: Path) -> Path:
    (root / "conf.d").mkdir(parents=True)
    (root / "nginx.conf").write_text(MAIN)
    (root / "conf.d" / "a.conf").write_text(DEFAULT)
    (root / "conf.d" / "b.conf").write_text(VHOST)
    return root


@pytest_lsp.fixture(
    config=ClientServerConfig(server_command=[sys.executable, "-m", "nginxgen", "lsp"]),
)
async def lsp(lsp_client: LanguageClient, tmp_path: Path):  # type: ignore[no-untyped-def]
    tree(tmp_path / "etc")
    await lsp_client.initialize_session(
        types.InitializeParams(
            capabilities=types.ClientCapabilities(),
            root_uri=(tmp_path / "etc").as_uri(),
            initialization_options=OPTIONS,
        )
    )
    yield
    await lsp_client.shutdown_session()


async def open_file(client: LanguageClient, path: Path) -> list[types.Diagnostic]:
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(
            types.TextDocumentItem(path.as_uri(), "nginx", 1, path.read_text())
        )
    )
    while True:
        await client.wait_for_notification(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
        if path.as_uri() in client.diagnostics:
            return client.diagnostics[path.as_uri()]


def apply(text: str, edits: list[types.TextEdit]) -> str:
    """Apply LSP text edits (UTF-16 positions) to a text, as an editor does."""
    lines = text.splitlines(keepends=True) or [""]

    def index(pos: types.Position) -> int:
        before = sum(len(line) for line in lines[: pos.line])
        line = lines[pos.line] if pos.line < len(lines) else ""
        units = 0
        for i, char in enumerate(line):
            if units >= pos.character:
                return before + i
            units += 2 if ord(char) > 0xFFFF else 1
        return before + len(line.rstrip("\n")) if pos.line < len(lines) else len(text)

    spans = sorted(
        ((index(e.range.start), index(e.range.end), e.new_text) for e in edits), reverse=True
    )
    for start, end, new in spans:
        text = text[:start] + new + text[end:]
    return text


def unsafe_fixed(root: Path, copy: Path) -> dict[str, str]:
    """What `nginxgen lint --unsafe-fixes` leaves in a copy of the tree."""
    shutil.copytree(root, copy)
    subprocess.run(
        [sys.executable, "-m", "nginxgen", "lint", "--nginx-version", "1.26.3", "--tls-library",
         "openssl-3.5.7", "--unsafe-fixes", str(copy / "nginx.conf")],
        capture_output=True, check=False, cwd=REPO,
    )  # fmt: skip
    return {str(p.relative_to(copy)): p.read_text() for p in sorted(copy.rglob("*.conf"))}


@pytest.mark.asyncio
async def test_diagnostics_land_on_the_line(lsp: LanguageClient, tmp_path: Path) -> None:
    vhost = tmp_path / "etc" / "conf.d" / "b.conf"
    diagnostics = await open_file(lsp, vhost)
    by_code = {d.code: d for d in diagnostics}
    curve = by_code["NGX101"]
    assert curve.range.start == types.Position(5, 0)
    assert curve.range.end == types.Position(
        5, len("    ssl_ecdh_curve X25519MLKEM768:X25519;  # PQ first")
    )
    assert curve.severity == types.DiagnosticSeverity.Warning and curve.source == "nginxgen"
    assert "server a.example" in curve.message
    assert by_code["NGX702"].range.start.line == 6


@pytest.mark.asyncio
async def test_a_change_is_judged_as_typed(lsp: LanguageClient, tmp_path: Path) -> None:
    vhost = tmp_path / "etc" / "conf.d" / "b.conf"
    await open_file(lsp, vhost)
    typed = VHOST.replace("add_header", "add_heder")  # not saved
    lsp.text_document_did_change(
        types.DidChangeTextDocumentParams(
            types.VersionedTextDocumentIdentifier(version=2, uri=vhost.as_uri()),
            [types.TextDocumentContentChangeWholeDocument(typed)],
        )
    )
    while True:
        await lsp.wait_for_notification(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
        codes = {d.code for d in lsp.diagnostics[vhost.as_uri()]}
        if "NGX007" in codes:
            break
    unknown = next(d for d in lsp.diagnostics[vhost.as_uri()] if d.code == "NGX007")
    assert unknown.message == 'unknown directive "add_heder"' and unknown.range.start.line == 6


@pytest.mark.asyncio
async def test_fix_all_action_leaves_what_lint_unsafe_fixes_leaves(
    lsp: LanguageClient, tmp_path: Path
) -> None:
    root = tmp_path / "etc"
    vhost = root / "conf.d" / "b.conf"
    await open_file(lsp, vhost)
    expected = unsafe_fixed(root, tmp_path / "copy")
    actions = await lsp.text_document_code_action_async(
        types.CodeActionParams(
            types.TextDocumentIdentifier(vhost.as_uri()),
            types.Range(types.Position(0, 0), types.Position(0, 0)),
            types.CodeActionContext(diagnostics=[]),
        )
    )
    (fix_all,) = [
        a
        for a in actions or []
        if isinstance(a, types.CodeAction)
        and "unsafe" in a.title
        and a.kind == types.CodeActionKind.SourceFixAll
    ]
    assert fix_all.edit is not None and fix_all.edit.changes is not None
    after = {str(p.relative_to(root)): p.read_text() for p in sorted(root.rglob("*.conf"))}
    for uri, edits in fix_all.edit.changes.items():
        path = Path(uri.removeprefix("file://"))
        after[str(path.relative_to(root))] = apply(path.read_text(), edits)
    assert after == expected
    assert after["conf.d/b.conf"] != VHOST  # something was fixed


@pytest.mark.asyncio
async def test_a_quickfix_is_the_findings_own_fix(lsp: LanguageClient, tmp_path: Path) -> None:
    vhost = tmp_path / "etc" / "conf.d" / "b.conf"
    await open_file(lsp, vhost)
    actions = await lsp.text_document_code_action_async(
        types.CodeActionParams(
            types.TextDocumentIdentifier(vhost.as_uri()),
            types.Range(types.Position(6, 0), types.Position(6, 10)),
            types.CodeActionContext(diagnostics=[]),
        )
    )
    (hsts,) = [
        a for a in actions or [] if isinstance(a, types.CodeAction) and a.title.startswith("NGX702")
    ]
    assert hsts.title.endswith("(unsafe)")
    assert hsts.edit is not None and hsts.edit.changes is not None
    fixed = apply(VHOST, hsts.edit.changes[vhost.as_uri()])
    assert fixed == VHOST.replace('"max-age=63072000";', '"max-age=63072000" always;')


@pytest.mark.asyncio
async def test_hover_names_the_deciding_server(lsp: LanguageClient, tmp_path: Path) -> None:
    vhost = tmp_path / "etc" / "conf.d" / "b.conf"
    await open_file(lsp, vhost)
    hover = await lsp.text_document_hover_async(
        types.HoverParams(types.TextDocumentIdentifier(vhost.as_uri()), types.Position(5, 8))
    )
    assert hover is not None and isinstance(hover.contents, types.MarkupContent)
    text = hover.contents.value
    assert "ignored on *:443: server a.example" in text and "is the default server" in text
    assert "NGX101" in text  # the rule's text for the finding on that line
    default = tmp_path / "etc" / "conf.d" / "a.conf"
    await open_file(lsp, default)
    hover = await lsp.text_document_hover_async(
        types.HoverParams(types.TextDocumentIdentifier(default.as_uri()), types.Position(3, 8))
    )
    assert hover is not None and isinstance(hover.contents, types.MarkupContent)
    assert "applies to server a.example" in hover.contents.value


@pytest.mark.asyncio
async def test_definition_and_symbols(lsp: LanguageClient, tmp_path: Path) -> None:
    main = tmp_path / "etc" / "nginx.conf"
    await open_file(lsp, main)
    found = await lsp.text_document_definition_async(
        types.DefinitionParams(types.TextDocumentIdentifier(main.as_uri()), types.Position(3, 6))
    )
    targets = sorted(Path(loc.uri.removeprefix("file://")).name for loc in found or [])  # type: ignore[union-attr]
    assert targets == ["a.conf", "b.conf"]
    vhost = tmp_path / "etc" / "conf.d" / "b.conf"
    await open_file(lsp, vhost)
    symbols = await lsp.text_document_document_symbol_async(
        types.DocumentSymbolParams(types.TextDocumentIdentifier(vhost.as_uri()))
    )
    (server,) = symbols or []
    assert isinstance(server, types.DocumentSymbol)
    assert server.name == "server b.example" and [c.name for c in server.children or []] == [
        "location /"
    ]


@pytest.mark.asyncio
async def test_the_target_comes_from_the_clients_settings(
    lsp: LanguageClient, tmp_path: Path
) -> None:
    vhost = tmp_path / "etc" / "conf.d" / "b.conf"
    vhost.write_text(VHOST.replace("    location /", "    http2 on;\n    location /"))
    codes = {d.code for d in await open_file(lsp, vhost)}
    assert "NGX301" not in codes  # nginx 1.26.3 has `http2 on`
    lsp.workspace_did_change_configuration(
        types.DidChangeConfigurationParams(
            {"nginxgen": {"nginxVersion": "1.22.1", "tlsLibrary": "openssl-3.0"}}
        )
    )
    while True:
        await lsp.wait_for_notification(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
        if "NGX301" in {d.code for d in lsp.diagnostics[vhost.as_uri()]}:
            break


def test_edits_leave_nothing_behind(tmp_path: Path) -> None:
    """Every didChange handled leaves no state in the server beyond the open text: pygls 2.1
    kept one future per notification (21 MB over 10,000 edits in bench/lsp.py)."""
    from nginxgen.lsp.server import create

    server = create()
    sent: list[bytes] = []
    server.protocol.set_writer(type("Writer", (), {"write": staticmethod(sent.append)})())

    def message(method: str, params: dict[str, object], msg_id: int | None = None) -> None:
        data = {"jsonrpc": "2.0", "method": method, "params": params}
        if msg_id is not None:
            data["id"] = msg_id
        server.protocol.handle_message(server.protocol.structure_message(data))

    root = tree(tmp_path / "etc")
    uri = (root / "conf.d" / "b.conf").as_uri()
    message(
        "initialize",
        {"capabilities": {}, "rootUri": root.as_uri(), "initializationOptions": OPTIONS},
        msg_id=1,
    )
    message(
        "textDocument/didOpen",
        {"textDocument": {"uri": uri, "languageId": "nginx", "version": 1, "text": VHOST}},
    )
    for version in range(2, 52):
        text = VHOST.replace("/srv/b", f"/srv/b{version}")
        change = {
            "textDocument": {"uri": uri, "version": version},
            "contentChanges": [{"text": text}],
        }
        message("textDocument/didChange", change)
    published = [m for m in sent if b"publishDiagnostics" in m]
    assert len(published) == 51
    assert server.protocol._request_futures == {}


@pytest.mark.asyncio
async def test_a_copied_tree_is_read_from_the_copy(lsp: LanguageClient, tmp_path: Path) -> None:
    """A tree that says `include /etc/nginx/conf.d/*.conf;` from a folder that is not
    /etc/nginx is a copy (issue 35): the editor gets the copy's findings, and its log says so."""
    root = tmp_path / "etc"
    (root / "nginx.conf").write_text(MAIN.replace("conf.d/*.conf", "/etc/nginx/conf.d/*.conf"))
    diagnostics = await open_file(lsp, root / "conf.d" / "b.conf")
    curve = next(d for d in diagnostics if d.code == "NGX101")
    assert "server a.example" in curve.message  # a.conf, read from the copy, is the default
    logged = [m.message for m in lsp.log_messages]
    assert f"nginxgen: reading /etc/nginx from {root}: the main file's includes name" in "\n".join(
        logged
    ), logged


def test_the_settings_file_applies_in_the_editor_as_on_the_command_line(tmp_path: Path) -> None:
    """.nginxgen.toml (target, ignore, min-severity) is read by the language server through
    lint's own resolver: the editor shows what `nginxgen lint` run in that folder reports."""
    import json

    from nginxgen.lsp.workspace import Session

    etc = tree(tmp_path / "etc")
    (etc / ".nginxgen.toml").write_text(
        'nginx-version = "1.22.1"\ntls-library = "openssl-3.0"\nignore = ["NGX701"]\n'
    )
    checked = Session().check(str(etc / "conf.d" / "b.conf"))
    assert str(checked.target.nginx) == "1.22.1"
    codes = {f.code for f in checked.findings}
    assert "NGX701" not in codes and "NGX201" in codes  # no ML-KEM on OpenSSL 3.0
    cli = subprocess.run(
        [sys.executable, "-m", "nginxgen", "lint", "--format", "json", "nginx.conf"],
        cwd=etc,
        capture_output=True,
        text=True,
        check=False,
    )
    shown = json.loads(cli.stdout)["findings"]
    assert [(f.file, f.line, f.code, f.message) for f in checked.findings] == [
        (
            str(etc / f["file"]) if not f["file"].startswith("/") else f["file"],
            f["line"],
            f["code"],
            f["message"],
        )
        for f in shown
    ]


def test_hover_says_who_decides_in_stream_too(tmp_path: Path) -> None:
    """The hover reads NameModel, the one answer lint and the probe read: a stream{} vhost's
    ssl_ecdh_curve is ignored for its default server's (the hover knew http{} only)."""
    conf = tmp_path / "nginx.conf"
    conf.write_text(
        "events {}\nstream {\n"
        "    server { listen 9443 ssl default_server; ssl_certificate a.crt;"
        " ssl_certificate_key a.key;\n"
        "        ssl_ecdh_curve X25519; proxy_pass 127.0.0.1:1; }\n"
        "    server { listen 9443 ssl; server_name b.example; ssl_certificate b.crt;"
        " ssl_certificate_key b.key;\n"
        "        ssl_ecdh_curve X25519MLKEM768;\n"
        "        proxy_pass 127.0.0.1:1; }\n"
        "}\n"
    )
    shown, default = hovers(conf, (6, 4), ("1.31.3", "openssl-3.5.7"))
    assert "ignored on *:9443" in shown and "(in effect: X25519)" in shown, shown
    assert "decides for every name on *:9443" in default
