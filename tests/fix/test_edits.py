"""Byte-span edits on the lossless model (issue 13): only the bytes an edit names change."""

from __future__ import annotations

import pytest

from nginxgen.edit.edits import OverlappingEdits, apply, delete, insert, replace_args
from nginxgen.edit.source import Source, SourceStatement

TABS = b"http {\n\t# keep me\n\tssl_protocols TLSv1 TLSv1.2;\t# legacy\n\n\tserver {\n\t\tlisten 443 ssl;\n\t}\n}\n"
CRLF = b"http {\r\n    ssl_ecdh_curve X25519;\r\n    server { listen 443 ssl; ssl_ecdh_curve secp384r1; }\r\n}"


def find(statements: list[SourceStatement] | None, source: Source, name: str) -> SourceStatement:
    for stmt in statements or []:
        if source.value(stmt.name) == name:
            return stmt
        if stmt.block is not None:
            try:
                return find(stmt.block, source, name)
            except LookupError:
                pass
    raise LookupError(name)


def test_replace_arguments_keeps_everything_else() -> None:
    source = Source(TABS)
    stmt = find(source.statements, source, "ssl_protocols")
    out = apply(source.data, [replace_args(source, stmt, ["TLSv1.2", "TLSv1.3"])])
    assert out == TABS.replace(b"TLSv1 TLSv1.2;", b"TLSv1.2 TLSv1.3;")
    assert Source(out).joined() == out


def test_delete_a_line_of_its_own_takes_the_line_and_its_trailing_comment() -> None:
    source = Source(TABS)
    out = apply(source.data, [delete(source, find(source.statements, source, "ssl_protocols"))])
    assert out == b"http {\n\t# keep me\n\n\tserver {\n\t\tlisten 443 ssl;\n\t}\n}\n"


def test_delete_on_a_shared_line_and_crlf() -> None:
    source = Source(CRLF)
    server = find(source.statements, source, "server")
    inner = find(server.block, source, "ssl_ecdh_curve")
    out = apply(source.data, [delete(source, inner)])
    assert out == CRLF.replace(b"ssl_ecdh_curve secp384r1; ", b"")


def test_insert_is_indented_like_siblings_with_the_files_line_endings() -> None:
    source = Source(CRLF)
    http = source.statements[0]
    out = apply(source.data, [insert(source, http, "ssl_session_cache shared:S:10m;", first=True)])
    assert out.startswith(b"http {\r\n    ssl_session_cache shared:S:10m;\r\n    ssl_ecdh_curve")
    tabs = Source(TABS)
    server = find(tabs.statements, tabs, "server")
    out = apply(tabs.data, [insert(tabs, server, "http2 on;")])
    assert out == TABS.replace(b"\t\tlisten 443 ssl;\n", b"\t\tlisten 443 ssl;\n\t\thttp2 on;\n")


def test_insert_is_indented_like_the_line_it_follows() -> None:
    """A block indented unevenly (HedgeDoc's sample: locations at 8 spaces, listens at 4, found
    trying it as a new user): the new line after a listen lines up with that listen."""
    text = b"server {\n        location / { }\n    listen 443 ssl;\n    root /srv;\n}\n"
    source = Source(text)
    server = source.statements[0]
    listen = find(source.statements, source, "listen")
    out = apply(text, [insert(source, server, "http2 on;", after=listen)])
    assert out == text.replace(b"ssl;\n", b"ssl;\n    http2 on;\n")
    last = apply(text, [insert(source, server, "http2 on;")])  # last: like the last line
    assert last == text.replace(b"/srv;\n", b"/srv;\n    http2 on;\n")
    first = apply(text, [insert(source, server, "http2 on;", first=True)])
    assert first == text.replace(b"{\n", b"{\n        http2 on;\n", 1)


@pytest.mark.parametrize(
    ("text", "after_name", "wanted"),
    [
        # certbot leaves gunicorn's example so: the last server's `}` and http's on one line
        (b"http {\n  server {\n    return 404;\n}}\n", "server",
         b"http {\n  server {\n    return 404;\n}\n  include x.conf;\n}\n"),
        # a block on one line: the new line goes inside it, before its `}`
        (b"http { server { } }\n", "server", b"http { server { }\n    include x.conf;\n}\n"),
        (b"http { }\n", None, b"http {\n    include x.conf;\n}\n"),
    ],
)  # fmt: skip
def test_insert_stays_inside_a_block_that_closes_on_the_same_line(
    text: bytes, after_name: str | None, wanted: bytes
) -> None:
    """`generate --into` put its include after http{}'s `}` when that brace shared the line of
    the statement before (found trying gunicorn's certbot-managed example as a new user: nginx
    -t refused, every file put back, exit 3)."""
    source = Source(text)
    http = source.statements[0]
    after = find(source.statements, source, after_name) if after_name else None
    out = apply(text, [insert(source, http, "include x.conf;", after=after)])
    assert out == wanted, out
    again = Source(out)
    assert [again.value(s.name) for s in again.statements[0].block or []][-1] == "include"


def test_a_move_across_files_is_a_delete_and_an_insert() -> None:
    vhost = Source(b"server {\n    listen 443 ssl;\n    ssl_ecdh_curve X25519MLKEM768:X25519;\n}\n")
    main = Source(b"http {\n    include conf.d/*.conf;\n}\n")
    curve = find(vhost.statements, vhost, "ssl_ecdh_curve")
    line = vhost.data[curve.start : curve.end].decode()
    new_vhost = apply(vhost.data, [delete(vhost, curve)])
    new_main = apply(main.data, [insert(main, main.statements[0], line, first=True)])
    assert new_vhost == b"server {\n    listen 443 ssl;\n}\n"
    assert (
        new_main
        == b"http {\n    ssl_ecdh_curve X25519MLKEM768:X25519;\n    include conf.d/*.conf;\n}\n"
    )


def test_overlapping_edits_are_refused() -> None:
    source = Source(TABS)
    stmt = find(source.statements, source, "ssl_protocols")
    with pytest.raises(OverlappingEdits):
        apply(source.data, [replace_args(source, stmt, ["TLSv1.3"]), delete(source, stmt)])


def test_arguments_that_need_quotes_get_them() -> None:
    source = Source(b"http { add_header X a; }\n")
    stmt = find(source.statements, source, "add_header")
    out = apply(
        source.data,
        [
            replace_args(
                source,
                stmt,
                ["Strict-Transport-Security", "max-age=63072000; includeSubDomains", "always"],
            )
        ],
    )
    assert (
        out
        == b'http { add_header Strict-Transport-Security "max-age=63072000; includeSubDomains" always; }\n'
    )
