"""Shared memory zones against real `nginx -t` (issue 44: a fastcgi_cache naming a zone no
fastcgi_cache_path declares, found trying Tuleap's config as a new user). Each case is one tree:
nginx's first [emerg] is the message NGX012 gives, at the line nginx names (for an unknown cache
nginx names the end of http{}, NGX012 the line that uses it; a zone nothing declares has no line
at all); a tree nginx accepts draws nothing. On Debian 12's nginx 1.22.1, Debian 13's 1.26.3 and
1.28.3 with OpenSSL 4.0."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.builds import Build
from tests.conftest import binary_and_tree
from tests.live import nginx_and_lint

CACHE = "@TMP@/cache"
CASES: dict[str, tuple[str, str, str]] = {
    # name: (http{} content, stream{} content, the line nginx names: "use", "end" or "")
    "one name in http and stream": (
        "ssl_session_cache shared:SSL:10m;",
        "ssl_session_cache shared:SSL:10m;",
        "use",
    ),
    "two sizes": (
        "ssl_session_cache shared:SSL:10m;\n"
        "server { listen 127.0.0.1:8999; ssl_session_cache shared:SSL:20m; }",
        "",
        "use",
    ),
    "another module's zone": (
        f"proxy_cache_path {CACHE} keys_zone=php:10m;\n"
        "server { listen 127.0.0.1:8999; location / { fastcgi_cache php; } }",
        "",
        "use",
    ),
    "a limit zone twice": (
        "limit_req_zone $binary_remote_addr zone=one:10m rate=1r/s;\n"
        "limit_req_zone $binary_remote_addr zone=one:10m rate=1r/s;",
        "",
        "use",
    ),
    "a keys zone twice": (
        f"proxy_cache_path {CACHE} keys_zone=php:10m;\nproxy_cache_path {CACHE}2 keys_zone=php:10m;",
        "",
        "use",
    ),
    "a cache nothing declares": (
        "server { listen 127.0.0.1:8999; location / { fastcgi_cache php; } }",
        "",
        "end",
    ),
    "a limit zone nothing declares": (
        "server { listen 127.0.0.1:8999; location / { limit_req zone=one; } }",
        "",
        "",
    ),
    "a stream limit zone nothing declares": (
        "",
        "server { listen 127.0.0.1:8998; limit_conn perip 1; proxy_pass 127.0.0.1:1; }",
        "",
    ),
    "uses before their declarations": (
        "server { listen 127.0.0.1:8999; location / { limit_req zone=one; "
        "fastcgi_cache php; limit_conn c 1; fastcgi_pass 127.0.0.1:9000; } }\n"
        "limit_req_zone $binary_remote_addr zone=one:10m rate=1r/s;\n"
        "limit_conn_zone $binary_remote_addr zone=c:10m;\n"
        f"fastcgi_cache_path {CACHE} keys_zone=php:10m;\n"
        "ssl_session_cache shared:SSL:10m;\n"
        "upstream a { zone backends 64k; server 127.0.0.1:1; }\n"
        "upstream b { zone backends; server 127.0.0.1:2; }",
        "ssl_session_cache shared:STREAM:10m;",
        "",
    ),
}
TEMP = ("client_body", "proxy", "fastcgi", "uwsgi", "scgi")


def _tree(build: Build, http: str, stream: str, tmp: Path) -> str:
    modules = ""
    if build.root is not None:  # Debian's nginx: stream{} is a loadable module
        modules = f"load_module {build.root / 'usr/lib/nginx/modules/ngx_stream_module.so'};\n"
    temp = "".join(f"{name}_temp_path {tmp}/{name};\n" for name in TEMP)  # not /var/lib/nginx
    text = f"{modules}events {{}}\nhttp {{\naccess_log off;\n{temp}{http.replace('@TMP@', str(tmp))}\n}}\n"
    if stream:
        text += f"stream {{\n{stream}\n}}\n"
    return text


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("name", ["bookworm", "trixie", "openssl40"])
def test_zones_as_nginx_reads_them(
    case: str,
    name: str,
    provisioned: tuple[dict[str, Build], dict[str, str]],
    tmp_path: Path,
) -> None:
    build, nginx_bin, tree = binary_and_tree(provisioned, name, tmp_path)
    http, stream, named = CASES[case]
    conf = tree / "nginx.conf"
    conf.write_text(_tree(build, http, stream, tree))
    emerg, lines = nginx_and_lint(build, nginx_bin, conf, "NGX012")
    if emerg is None:
        assert lines == [], lines
        return
    said, line = emerg
    assert len(lines) == 1, lines
    assert f"NGX012 error {said}" in lines[0]
    assert (line is not None) == bool(named)
    text = conf.read_text().splitlines()
    at = int(lines[0].split(":")[1])
    if named == "use":
        assert at == line, (lines, said)
    else:  # nginx names the end of http{} or nothing: lint names the line that uses the zone
        assert re.search(r"\b(fastcgi_cache|limit_req|limit_conn) ", text[at - 1]), text[at - 1]
        if named == "end":
            assert line is not None and text[line - 1] == "}"
