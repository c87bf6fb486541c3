"""An upstream block's `server` parameters against real `nginx -t` (issue 44: Overleaf's toolkit
writes `server host:port resolve;`, which open source nginx reads from 1.27.3 on; Debian 12's
and 13's nginx stop with `invalid parameter "resolve"` and lint said nothing). The parameters
each release reads come from nginx's own handlers (scripts/build_value_tables.py). Each case is
one upstream line in http{} and in stream{}: where nginx refuses it, NGX010 gives nginx's words
at nginx's line; where nginx reads it, NGX010 says nothing."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.builds import Build
from tests.conftest import binary_and_tree
from tests.live import nginx_and_lint, nginx_and_lint_agree

PARAMETERS = [
    "weight=2 max_fails=3 fail_timeout=10s",
    "backup",
    "down",
    "resolve",  # 1.27.3
    "max_conns=10 bogus",
    "weight=2 Backup",  # compared with ngx_strcmp: case counts
    "weight=0",  # a number above 0
    "weight=x max_fails=3",
    "max_fails=-1",
    "max_conns=0 max_fails=0 fail_timeout=30s",
    "fail_timeout=1x",
    "fail_timeout=",
]


def _tree(build: Build, block: str, parameters: str) -> str:
    modules = ""
    if build.root is not None and block == "stream":  # Debian's nginx: a loadable module
        modules = f"load_module {build.root / 'usr/lib/nginx/modules/ngx_stream_module.so'};\n"
    upstream = (
        "resolver 127.0.0.1 valid=10s;\n"
        "upstream app {\n"
        "    zone app 64k;\n"
        "    server 127.0.0.1:8081;\n"
        f"    server localhost:8082 {parameters};\n"
        "}\n"
    )
    use = (
        "server { listen 127.0.0.1:8999; location / { proxy_pass http://app; } }"
        if block == "http"
        else "server { listen 127.0.0.1:8998; proxy_pass app; }"
    )
    head = (
        " ".join(["access_log off;", *build.temp_path_directives, "\n"]) if block == "http" else ""
    )
    return f"{modules}events {{}}\n{block} {{\n{head}{upstream}{use}\n}}\n"


@pytest.mark.parametrize("block", ["http", "stream"])
@pytest.mark.parametrize("parameters", PARAMETERS)
@pytest.mark.parametrize("name", ["bookworm", "trixie", "wheel"])
def test_server_parameters_as_nginx_reads_them(
    name: str,
    parameters: str,
    block: str,
    provisioned: tuple[dict[str, Build], dict[str, str]],
    tmp_path: Path,
) -> None:
    build, nginx_bin, tree = binary_and_tree(provisioned, name, tmp_path)
    conf = tree / "nginx.conf"
    conf.write_text(_tree(build, block, parameters))
    emerg, lines = nginx_and_lint(build, nginx_bin, conf, "NGX010")
    if emerg is None:
        assert lines == [], lines
        return
    said, line = emerg
    assert said.startswith("invalid parameter"), said  # what this test is about
    assert len(lines) == 1 and f":{line}: NGX010 error {said}" in lines[0], (lines, said)


# trial 8 (certbot's test config: `fastcgi_pass php-cgi;` beside `upstream phpcgi`): a pass to a
# name with no port needs an upstream{} of that name
PASSES = [
    ("http", "fastcgi_pass php-cgi;"),
    ("http", "fastcgi_pass PHPCGI;"),  # the block's name, in another letter case
    ("http", "fastcgi_pass 127.0.0.1;"),
    ("http", "fastcgi_pass 127.0.0.1:9000;"),
    ("http", "fastcgi_pass unix:/run/php.sock;"),
    ("http", "fastcgi_pass $pass;"),
    ("http", "uwsgi_pass uwsgi://app;"),
    ("http", "scgi_pass app;"),
    ("http", "memcached_pass [::1];"),
    ("http", "grpc_pass grpcs://app;"),
    ("http", "grpc_pass grpc://phpcgi;"),
    ("stream", "proxy_pass app;"),
    ("stream", "proxy_pass phpcgi;"),
    ("stream", "proxy_pass 127.0.0.1:9000;"),
]


@pytest.mark.parametrize(("block", "line"), PASSES)
@pytest.mark.parametrize("name", ["bookworm", "trixie", "wheel"])
def test_a_pass_without_a_port_as_nginx_reads_it(
    name: str,
    block: str,
    line: str,
    provisioned: tuple[dict[str, Build], dict[str, str]],
    tmp_path: Path,
) -> None:
    build, nginx_bin, tree = binary_and_tree(provisioned, name, tmp_path)
    conf = tree / "nginx.conf"
    upstream = "upstream phpcgi { server 127.0.0.1:9000; }\n"
    if block == "http":
        head = " ".join(build.in_prefix)
        text = (
            f"events {{}}\nhttp {{ {head}\n{upstream}"
            "server { listen 127.0.0.1:8999; set $pass 127.0.0.1:9000;\n"
            f"location / {{ {line} }}\n}}\n}}\n"
        )
    else:
        text = (
            f"{build.load_module('stream')}events {{}}\nstream {{\n{upstream}"
            f"server {{ listen 127.0.0.1:8998;\n{line} }}\n}}\n"
        )
    conf.write_text(text)
    emerg, lines = nginx_and_lint(build, nginx_bin, conf, "NGX010")
    if emerg is None:
        assert lines == [], lines
        return
    said, at = emerg
    assert said.startswith("no port in upstream"), said  # what this test is about
    assert len(lines) == 1 and f":{at}: NGX010 error {said}" in lines[0], (lines, said)


# found writing reproducers for trials 12-15: a balancing method's line takes parameters away
# from the server lines after it (`backup` after hash, ip_hash, random), and an upstream whose
# servers are all backups has none to balance over
SUPPORT, NO_SERVERS = "balancing method does not support", "no servers in upstream"
UPSTREAMS = [
    ("http", "hash $remote_addr; server 127.0.0.1:8081; server 127.0.0.1:8082 backup;", SUPPORT),
    ("http", "ip_hash; server 127.0.0.1:8081; server 127.0.0.1:8082 weight=2 backup;", SUPPORT),
    ("http", "random two; server 127.0.0.1:8081; server 127.0.0.1:8082 backup;", SUPPORT),
    ("http", "least_conn; server 127.0.0.1:8081; server 127.0.0.1:8082 backup;", SUPPORT),
    (
        "http",
        "hash $uri; least_conn; server 127.0.0.1:8081; server 127.0.0.1:8082 backup;",
        SUPPORT,
    ),
    (
        "http",
        "least_conn; hash $uri; server 127.0.0.1:8081; server 127.0.0.1:8082 backup;",
        SUPPORT,
    ),
    ("http", "server 127.0.0.1:8081; server 127.0.0.1:8082 backup; hash $uri;", SUPPORT),
    ("http", "ip_hash; server 127.0.0.1:8081; server 127.0.0.1:8082 down;", SUPPORT),
    ("stream", "hash $remote_addr; server 127.0.0.1:8081; server 127.0.0.1:8082 backup;", SUPPORT),
    ("stream", "random; server 127.0.0.1:8081; server 127.0.0.1:8082 backup;", SUPPORT),
    ("stream", "least_conn; server 127.0.0.1:8081; server 127.0.0.1:8082 backup;", SUPPORT),
    ("http", "server 127.0.0.1:8081 backup; server 127.0.0.1:8082 backup;", NO_SERVERS),
    ("http", "least_conn; server 127.0.0.1:8081 backup;", NO_SERVERS),
    ("http", "server 127.0.0.1:8081 backup; server 127.0.0.1:8082 down;", NO_SERVERS),
    ("stream", "server 127.0.0.1:8081 backup;", NO_SERVERS),
]


@pytest.mark.parametrize(("block", "body", "about"), UPSTREAMS)
@pytest.mark.parametrize("name", ["bookworm", "trixie", "wheel"])
def test_an_upstream_as_nginx_balances_it(
    name: str,
    block: str,
    body: str,
    about: str,
    provisioned: tuple[dict[str, Build], dict[str, str]],
    tmp_path: Path,
) -> None:
    build, nginx_bin, tree = binary_and_tree(provisioned, name, tmp_path)
    use = (
        f"{' '.join(build.in_prefix)}\nserver {{ listen 127.0.0.1:8999; "
        "location / { proxy_pass http://app; } }"
        if block == "http"
        else "server { listen 127.0.0.1:8998; proxy_pass app; }"
    )
    modules = build.load_module("stream") if block == "stream" else ""
    conf = tree / "nginx.conf"
    conf.write_text(f"{modules}events {{}}\n{block} {{\nupstream app {{ {body} }}\n{use}\n}}\n")
    nginx_and_lint_agree(build, nginx_bin, conf, "NGX010", about)
