"""The effective answers of nginxgen/conf/effective.py that need no live server: which location
answers a URI and which add_header lines a response carries."""

from __future__ import annotations

from pathlib import Path

import pytest

from nginxgen.conf.config import build
from nginxgen.conf.effective import header_sent, headers_for, locations_for
from nginxgen.conf.load import load_path

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
    assert [h.args[0] for h in headers_for(config, server, uri)] == [header]


def test_without_always_only_some_statuses(tmp_path: Path) -> None:
    path = tmp_path / "nginx.conf"
    path.write_text(SERVER.format(locations=""))
    config = build(load_path(str(path)))
    (line,) = headers_for(config, config.servers[0], "/")
    assert [s for s in (200, 204, 301, 308, 400, 404, 500) if header_sent(line, s)] == [
        200, 204, 301, 308,
    ]  # fmt: skip
