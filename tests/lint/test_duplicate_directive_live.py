"""NGX006 on directives outside TLS that nginx refuses twice (issue 44: try_files, root and
proxy_pass twice passed lint and failed `nginx -t`), and on repeats nginx accepts (a second
proxy_redirect, mirror, limit_req of another zone), against real `nginx -t` of each build."""

from __future__ import annotations

from pathlib import Path

import pytest

from nginxgen.conf.load import load_path
from nginxgen.knowledge.target import resolve
from nginxgen.lint.run import Selection, lint
from tests.builds import BUILD_NAMES, Build
from tests.conftest import require_build
from tests.directive_probe import nginx_t

AROUND = """events {{}}
http {{
    limit_req_zone $binary_remote_addr zone=a:1m rate=1r/s;
    limit_req_zone $binary_remote_addr zone=b:1m rate=1r/s;
    server {{
        listen 127.0.0.1:8080;
        {server}
        location / {{
            {location}
        }}
    }}
}}
"""
REFUSED = {
    "try_files": ("", "try_files $uri =404; try_files $uri =404;"),
    "root": ("root /srv/a; root /srv/b;", ""),
    "proxy_pass": ("", "proxy_pass http://127.0.0.1:9; proxy_pass http://127.0.0.1:9;"),
    "alias": ("", "alias /srv/a/; alias /srv/b/;"),
    "proxy_cache_key": ("", "proxy_cache_key $uri; proxy_cache_key $host;"),
}
ACCEPTED = {
    "proxy_redirect": ("", "proxy_redirect /a /b; proxy_redirect /c /d;"),
    "mirror": ("", "mirror /m1; mirror /m2;"),
    "limit_req": ("", "limit_req zone=a; limit_req zone=b;"),
    "index": ("index a.html; index b.html;", ""),
}


def _ngx006(text: str, folder: Path, build: Build) -> list[str]:
    conf = folder / "lint.conf"
    conf.write_text(text)
    target = resolve(build.nginx_version, build.tls_library)
    found = lint(load_path(str(conf)), target, Selection(select={"NGX006"}))
    return [f.message for f in found]


@pytest.mark.parametrize("name", BUILD_NAMES)
def test_lint_refuses_what_nginx_refuses_twice(
    name: str, provisioned: tuple[dict[str, Build], dict[str, str]], tmp_path: Path
) -> None:
    build = require_build(provisioned, name)
    for directive, (server, location) in {**REFUSED, **ACCEPTED}.items():
        text = AROUND.format(server=server, location=location)
        said = nginx_t(build, text, tmp_path)
        found = _ngx006(text, tmp_path, build)
        if directive in REFUSED:
            assert said == f'"{directive}" directive is duplicate', (directive, said)
            assert len(found) == 1 and found[0].startswith(f'"{directive}" directive is dup')
        else:
            assert said == "", (directive, said)
            assert found == [], (directive, found)
