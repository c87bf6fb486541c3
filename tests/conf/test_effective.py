"""The effective answers of nginxgen/conf/effective.py that need no live server: which location
answers a URI, which add_header lines a response carries (replace, merge, off, by nginx
version; tests/conf/test_headers_live.py holds the same cases against nginx 1.31.3), whether the
workers share ticket keys; and the library's default groups the per-name model falls back on."""

from __future__ import annotations

from pathlib import Path

import pytest

from nginxgen.conf.config import build
from nginxgen.conf.effective import Effective
from nginxgen.conf.load import load_path
from nginxgen.conf.responses import header_sent, locations_for
from nginxgen.knowledge import tls_groups
from nginxgen.knowledge.target import resolve

SERVER = """events {{}}
http {{
    add_header X-Http 1;
    server {{
        listen 443 ssl;
        add_header Strict-Transport-Security "max-age=63072000";
        {locations}
    }}
}}
"""
LOCATIONS = """
        location / { }
        location = /exact { add_header X-Exact 1; }
        location ^~ /static/ { add_header X-Static 1; }
        location ~* \\.PNG$ { add_header X-Image 1; }
        location /app/ { location /app/admin/ { add_header X-Admin 1; } }
"""


@pytest.mark.parametrize(
    ("uri", "chain", "header"),
    [
        ("/", ["/"], "Strict-Transport-Security"),
        ("/exact", ["= /exact"], "X-Exact"),
        ("/static/a.png", ["^~ /static/"], "X-Static"),  # ^~ stops the regexes
        ("/img/a.png", ["~* \\.PNG$"], "X-Image"),  # a regex beats the longest prefix
        ("/app/admin/x", ["/app/", "/app/admin/"], "X-Admin"),  # nested, innermost wins
        ("/app/x", ["/app/"], "Strict-Transport-Security"),  # no add_header: the server's
    ],
)
def test_the_location_and_its_headers(
    uri: str, chain: list[str], header: str, tmp_path: Path
) -> None:
    path = tmp_path / "nginx.conf"
    path.write_text(SERVER.format(locations=LOCATIONS))
    config = build(load_path(str(path)))
    (server,) = config.servers
    assert [" ".join(loc.stmt.args) for loc in locations_for(server, uri)] == chain
    headers = Effective(config, resolve("1.26.3", "openssl-3.5.9")).responses.headers(server, uri)
    assert [h.args[0] for h in headers.lines] == [header]


def test_without_always_only_some_statuses(tmp_path: Path) -> None:
    path = tmp_path / "nginx.conf"
    path.write_text(SERVER.format(locations='add_header X-Empty "" always;'))
    config = build(load_path(str(path)))
    headers = Effective(config, resolve("1.26.3", "openssl-3.5.9")).responses.headers(
        config.servers[0], "/"
    )
    hsts, empty = headers.lines
    assert [s for s in (200, 204, 301, 308, 400, 404, 500) if header_sent(hsts, s)] == [
        200, 204, 301, 308,
    ]  # fmt: skip
    assert not header_sent(empty, 200)  # an empty value adds no field
    assert headers.sent(404) == []


INHERIT = """events {{}}
http {{
    add_header X-Http 1;
    {http}
    server {{
        listen 443 ssl;
        add_header Strict-Transport-Security "max-age=63072000" always;
        {server}
        location /static/ {{ }}
        location /own/ {{ add_header X-Own 1; }}
        location /merge/ {{ add_header_inherit merge; add_header X-Merge 1; }}
        location /off/ {{ add_header_inherit off; }}
        location /on/ {{ add_header_inherit on; add_header X-On 1; }}
        location /outer/ {{ add_header X-Outer 1; location /outer/inner/ {{ }} }}
    }}
}}
"""


@pytest.mark.parametrize(
    ("http", "server", "uri", "new", "old"),
    [
        # (http{} lines, server lines, URI, headers on 1.31.3, headers on 1.26.3)
        ("", "", "/static/", ["Strict-Transport-Security"], ["Strict-Transport-Security"]),
        ("", "", "/own/", ["X-Own"], ["X-Own"]),  # replaced
        # merge: the level's own lines, then the inherited ones (ngx_http_headers_merge_conf)
        ("", "", "/merge/", ["X-Merge", "Strict-Transport-Security"], ["X-Merge"]),
        ("", "", "/off/", [], ["Strict-Transport-Security"]),  # off, no line of its own
        ("", "", "/on/", ["X-On"], ["X-On"]),
        ("", "", "/outer/inner/", ["X-Outer"], ["X-Outer"]),  # the enclosing location's
        # issue 37: off in the server reaches `location /static/ { }`, which then sends nothing
        ("", "add_header_inherit off;", "/static/", [], ["Strict-Transport-Security"]),
        ("", "add_header_inherit off;", "/", ["Strict-Transport-Security"], ["Strict-Transport-Security"]),
        ("", "add_header_inherit off;", "/outer/inner/", [], ["X-Outer"]),
        # merge in http{} is inherited by every level below: each adds its own to the outer ones
        ("add_header_inherit merge;", "", "/", ["Strict-Transport-Security", "X-Http"], ["Strict-Transport-Security"]),
        ("add_header_inherit merge;", "", "/outer/inner/", ["X-Outer", "Strict-Transport-Security", "X-Http"], ["X-Outer"]),
        ("add_header_inherit merge;", "", "/on/", ["X-On"], ["X-On"]),  # on again: replaced
        # the server's own `return` answers with the server's lines, whatever the URI
        ("", "return 200;", "/own/", ["Strict-Transport-Security"], ["Strict-Transport-Security"]),
    ],
)  # fmt: skip
def test_add_header_inheritance(
    http: str, server: str, uri: str, new: list[str], old: list[str], tmp_path: Path
) -> None:
    path = tmp_path / "nginx.conf"
    path.write_text(INHERIT.format(http=http, server=server))
    config = build(load_path(str(path)))
    (site,) = config.servers
    for version, expected in (("1.31.3", new), ("1.26.3", old)):  # before 1.29.3: no directive
        headers = Effective(config, resolve(version, "openssl-3.3.7")).responses.headers(site, uri)
        assert [h.args[0] for h in headers.lines] == expected, version


def test_what_drops_a_line(tmp_path: Path) -> None:
    """Each outer line that does not reach a response names the line that drops it: the
    replacing add_header, the add_header_inherit off of that level, or the location that
    inherits off."""
    path = tmp_path / "nginx.conf"
    path.write_text(INHERIT.format(http="", server="add_header_inherit off;"))
    config = build(load_path(str(path)))
    (site,) = config.servers
    effective = Effective(config, resolve("1.31.3", "openssl-3.3.7"))
    causes = {}
    for loc, headers in effective.responses.location_headers(site):
        (hsts,) = headers.dropped_named("strict-transport-security") or [None]
        causes[" ".join(loc.stmt.args)] = hsts and (hsts.cause.directive, hsts.cause.line)
    assert causes == {
        "/static/": ("location", 9),
        "/own/": ("add_header", 10),
        "/merge/": None,  # merged: sent
        "/off/": ("add_header_inherit", 12),
        "/on/": ("add_header", 13),
        "/outer/": ("add_header", 14),
        "/outer/inner/": ("add_header", 14),  # dropped by the enclosing location's line
    }
    (x_http,) = effective.responses.headers_in(site, ()).dropped
    assert (x_http.cause.directive, x_http.cause.line) == ("add_header_inherit", 8)


@pytest.mark.parametrize(
    ("main", "library", "shared"),
    [
        ("", "boringssl", True),  # nginx's default: one worker
        ("worker_processes 1;", "aws-lc-5.12.0", True),
        ("worker_processes auto;", "boringssl", False),  # each worker makes its own keys
        ("worker_processes 4;", "aws-lc-5.12.0", False),
        ("worker_processes 4;", "openssl-3.0.22", True),  # made in the master, before the fork
        ("worker_processes 4;", "openssl-3.5.9", True),
    ],
)
def test_workers_share_ticket_keys(tmp_path: Path, main: str, library: str, shared: bool) -> None:
    path = tmp_path / "nginx.conf"
    path.write_text(main + "\n" + SERVER.format(locations=""))
    config = build(load_path(str(path)))
    effective = Effective(config, resolve("1.26.3", library))
    assert effective.sessions.ticket_keys_shared(config.servers[0]) is shared
    assert not effective.sessions.ticket_keys_managed(config.servers[0])  # so NGX602 still warns


def test_ticket_keys_in_a_shared_cache_are_shared_by_any_library(tmp_path: Path) -> None:
    path = tmp_path / "nginx.conf"
    text = SERVER.format(locations="ssl_session_cache shared:S:1m;")
    path.write_text("worker_processes 4;\n" + text)
    config = build(load_path(str(path)))
    assert Effective(config, resolve("1.26.3", "boringssl")).sessions.ticket_keys_shared(
        config.servers[0]
    )
    assert not Effective(config, resolve("1.22.1", "boringssl")).sessions.ticket_keys_shared(
        config.servers[0]
    )  # nginx keeps the keys in the cache from 1.23.2


@pytest.mark.parametrize(
    ("library", "groups"),
    [
        ("openssl-3.0.22", {"x25519", "secp256r1", "x448", "secp521r1", "secp384r1"}),
        ("openssl-3.5.9", {"X25519MLKEM768", "x25519", "secp256r1", "x448", "secp384r1"}),
        ("aws-lc-5.12.0", {"X25519MLKEM768", "SecP384r1MLKEM1024", "x25519", "secp384r1"}),
        ("openssl-1.1.1", None),  # before the first entry: not known
        ("boringssl", None),  # no version: the default changed over the releases
        ("libressl-4.3.0", None),  # not checked on a build
    ],
)
def test_the_librarys_default_groups(library: str, groups: set[str] | None) -> None:
    found = tls_groups.default_groups(resolve("1.26.3", library).library)
    if groups is None:
        assert found is None
    else:
        assert found is not None and groups <= found
        assert ("ffdhe4096" in found) == library.startswith("openssl-3.0")  # dropped in 3.5
