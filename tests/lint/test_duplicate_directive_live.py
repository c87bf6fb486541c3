"""NGX006 on directives outside TLS that nginx refuses twice (issue 44: try_files, root and
proxy_pass twice passed lint and failed `nginx -t`), and on repeats nginx accepts (a second
proxy_redirect, mirror, limit_req of another zone), against real `nginx -t` of each build."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from nginxgen.conf.load import load_path
from nginxgen.knowledge.target import resolve
from nginxgen.lint.run import Selection, lint
from tests.builds import BUILD_NAMES, Build
from tests.conftest import binary_and_tree, require_build
from tests.directive_probe import nginx_t
from tests.live import nginx_check

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


TYPES = {
    "nginx.conf": """events {}
http {
    include mime.types;
    types { application/wasm wasm; include more.types; text/html HTML htm; }
    server {
        listen 127.0.0.1:8080;
        types { text/javascript js mjs; }
        types { application/javascript JS; }
        location / { types { text/plain txt js; } }
    }
}
""",
    "mime.types": "types { text/html html; }\n",
    "more.types": "application/wasm wasm;\n",
}


@pytest.mark.parametrize("name", BUILD_NAMES)
def test_a_duplicate_extension_is_nginx_s_warning(
    name: str, provisioned: tuple[dict[str, Build], dict[str, str]], tmp_path: Path
) -> None:
    """An extension twice in one block's types (the Nextcloud documentation's sample adds wasm
    beside Debian's mime.types, found trying it as a new user): nginx's [warn], file and line
    for each, counted across types{} blocks and includes but not across levels."""
    build, _, tree = binary_and_tree(provisioned, name, tmp_path)
    for file, text in TYPES.items():
        (tree / file).write_text(text.replace("http {\n", f"http {{ {' '.join(build.in_prefix)}\n"))
    checked = nginx_check(build, tree / "nginx.conf")
    assert "test is successful" in checked.stderr, checked.stderr
    warned = re.findall(
        r"\[warn\] .*?(duplicate extension .*) in (\S+):(\d+)$", checked.stderr, re.M
    )
    target = resolve(build.nginx_version, build.tls_library)
    found = lint(load_path(str(tree / "nginx.conf")), target, Selection(select={"NGX006"}))
    assert len(warned) == 3, checked.stderr
    assert sorted(
        (f.message.split(": nginx keeps")[0], f.file, str(f.line)) for f in found
    ) == sorted(warned)


# found writing reproducers for trials 12-15: two balancing methods in one upstream{}, and
# (before nginx 1.29.7) a method after keepalive, which then keeps no connection
UPSTREAMS = [
    "upstream a { keepalive 16; least_conn; server 127.0.0.1:8081; }",
    "upstream a { hash $uri; ip_hash; random; server 127.0.0.1:8081; }",
    "upstream a { least_conn; keepalive 8; server 127.0.0.1:8081; }",
    "upstream a { keepalive 8; server 127.0.0.1:8081; hash $uri consistent; }",
]


@pytest.mark.parametrize("upstream", UPSTREAMS)
@pytest.mark.parametrize("name", BUILD_NAMES)
def test_a_redefined_method_is_nginx_s_warning(
    name: str, upstream: str, provisioned: tuple[dict[str, Build], dict[str, str]], tmp_path: Path
) -> None:
    build, _, tree = binary_and_tree(provisioned, name, tmp_path)
    conf = tree / "nginx.conf"
    conf.write_text(
        f"events {{}}\nhttp {{ {' '.join(build.in_prefix)}\n"
        + upstream.replace("; ", ";\n")
        + "\nserver { listen 127.0.0.1:8999; location / { proxy_pass http://a; } }\n}\n"
    )
    checked = nginx_check(build, conf)
    assert "test is successful" in checked.stderr, checked.stderr
    warned = re.findall(r"\[warn\] .*?(load balancing method redefined) in \S+:(\d+)$",
                        checked.stderr, re.M)  # fmt: skip
    target = resolve(build.nginx_version, build.tls_library)
    found = lint(load_path(str(conf)), target, Selection(select={"NGX006"}))
    assert sorted((f.message.split(": ")[0], str(f.line)) for f in found) == sorted(warned)
    assert all(f.severity.value == "warning" for f in found), found
