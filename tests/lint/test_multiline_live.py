"""Statements written over several lines, against real `nginx -t`: what ngx_conf_handler and
a directive's setter say once the statement is read (unknown directive, not allowed here, the
argument count, a value, an unknown log format, a URI part proxy_pass cannot have), nginx names
at the line of its `;`, or of a block's `{`, and lint's finding names that line too, not the
statement's first. So do the errors and warnings of other rules that nginx says from a
directive's handler (an include's file, `is duplicate`, a shared zone, listen options, a module
loaded twice, a regex, a location's place, a network's low bits)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from nginxgen.base.version import Version
from tests.builds import BUILD_NAMES, Build
from tests.conftest import binary_and_tree
from tests.live import lint_as, nginx_and_lint_agree, nginx_check

# (lines of a server, the rule, how nginx's message starts)
STATEMENTS = [
    ("add_header Content-Security-Policy \"default-src 'self';\n    script-src 'self'\"\n    x;",
     "NGX010", 'invalid parameter "x"'),
    ("add_header A\n    b\n    always\n    x;", "NGX009", "invalid number of arguments"),
    ("foo_bar a\n    b\n    c;", "NGX007", 'unknown directive "foo_bar"'),
    ("worker_connections\n    512;", "NGX008", '"worker_connections" directive is not allowed'),
    ("gzip\n    yes;", "NGX010", 'invalid value "yes"'),
    ("keepalive_timeout 10s\n    5x;", "NGX010", '"keepalive_timeout" directive invalid'),
    ("allow\n    10.0.0.300;", "NGX010", 'invalid parameter "10.0.0.300"'),
    ("location /a\n    b/\n{ return 204; }", "NGX010", "invalid location modifier"),
    ("location\n{ return 204; }", "NGX009", "invalid number of arguments"),
    ("server\n{ listen 127.0.0.1:8998; }", "NGX008", '"server" directive is not allowed'),
    ("if ($http_a\n    == b)\n{ return 204; }", "NGX010", 'unexpected "==" in condition'),
    ("location /p {\n    proxy_pass\n        localhost:4433;\n}", "NGX010", "invalid URL prefix"),
    ("access_log @TMP@/a.log\n    nosuch;", "NGX016", 'unknown log format "nosuch"'),
    ("location ~ ^/r {\n    proxy_pass\n        http://127.0.0.1:9/x;\n}", "NGX026",
     '"proxy_pass" cannot have URI part'),
]  # fmt: skip


@pytest.mark.parametrize(("lines", "code", "about"), STATEMENTS)
@pytest.mark.parametrize("name", BUILD_NAMES)
def test_nginx_and_lint_name_the_line_the_statement_ends_on(
    name: str,
    lines: str,
    code: str,
    about: str,
    provisioned: tuple[dict[str, Build], dict[str, str]],
    tmp_path: Path,
) -> None:
    build, nginx_bin, tree = binary_and_tree(provisioned, name, tmp_path)
    conf = tree / "nginx.conf"
    conf.write_text(
        f"events {{}}\nhttp {{ {' '.join(build.in_prefix)}\n"
        f"server {{ listen 127.0.0.1:8999;\n{lines.replace('@TMP@', str(tree))}\n}}\n}}\n"
    )
    nginx_and_lint_agree(build, nginx_bin, conf, code, about)


# http{} level: a path named twice (nginx names the first's line as its setter stood on it, its
# last), an upstream named twice (at the second's `{`)
HTTP_STATEMENTS = [
    ("proxy_cache_path @TMP@/c\n    keys_zone=a:1m;\nproxy_cache_path @TMP@/c\n    keys_zone=b:1m;",
     "the same path name"),
    ("upstream b\n{ server 127.0.0.1:9; }\nupstream b\n{ server 127.0.0.1:9; }",
     'duplicate upstream "b"'),
]  # fmt: skip


@pytest.mark.parametrize(("lines", "about"), HTTP_STATEMENTS)
@pytest.mark.parametrize("name", BUILD_NAMES)
def test_http_level_statements_over_lines(
    name: str,
    lines: str,
    about: str,
    provisioned: tuple[dict[str, Build], dict[str, str]],
    tmp_path: Path,
) -> None:
    build, nginx_bin, tree = binary_and_tree(provisioned, name, tmp_path)
    conf = tree / "nginx.conf"
    conf.write_text(
        f"events {{}}\nhttp {{ {' '.join(build.in_prefix)}\n{lines.replace('@TMP@', str(tree))}\n"
        "server { listen 127.0.0.1:8999; }\n}\n"
    )
    nginx_and_lint_agree(build, nginx_bin, conf, "NGX010", about)


def _http(lines: str) -> str:
    return f"events {{}}\nhttp {{ @HEAD@\n{lines}\n}}\n"


def _server(lines: str) -> str:
    return _http(f"server {{ listen 127.0.0.1:8999;\n{lines}\n}}")


# what a directive's handler says, [emerg] or [warn], in a whole config: (the config, the rule,
# how nginx's message starts, the first release that says it). @HEAD@: the build's lines that
# keep files in the test prefix; @TMP@: the tree; @MODULE@: the build's ngx_stream_module.so
HANDLED = [
    (_http("include\n    @TMP@/nosuch.conf;"), "NGX002", "open()", "1.0"),
    (_http("server_tokens off;\nserver_tokens\n    on;"), "NGX006",
     '"server_tokens" directive is duplicate', "1.0"),
    (_server("location / {\n    root /a;\n    alias\n        /b/;\n}"), "NGX006",
     '"alias" directive is duplicate', "1.0"),
    (_http("ssl_session_cache shared:S:10m;\nserver { listen 127.0.0.1:8999;\n"
           "    ssl_session_cache\n        shared:S:20m;\n}"), "NGX012",
     'the size 20971520 of shared memory zone "S"', "1.0"),
    (_http("limit_req_zone $binary_remote_addr zone=one:1m rate=1r/s;\n"
           "limit_req_zone $remote_addr\n    zone=one:1m rate=1r/s;"), "NGX012",
     'limit_req_zone "one" is already bound', "1.0"),
    (_http("server { listen 127.0.0.1:8999 reuseport; }\n"
           "server { listen\n    127.0.0.1:8999 reuseport; }"), "NGX013",
     "duplicate listen options", "1.0"),
    (_http("server { listen 127.0.0.1:8999 reuseport; }\n"
           "server { listen\n    127.0.0.1:8999 proxy_protocol; }"), "NGX014",
     "protocol options redefined", "1.23.4"),
    ("load_module @MODULE@;\nload_module\n    @MODULE@;\nevents {}\n", "NGX021",
     'module "ngx_stream_module" is already loaded', "1.0"),
    (_server("location ~\n    ^/(a\n{ return 204; }"), "NGX024", "pcre", "1.0"),
    (_http("map $uri $m {\n    ~^/(a\n        1;\n}"), "NGX024", "pcre", "1.0"),
    (_server("location /a { return 204; }\nlocation\n    /a\n{ return 204; }"), "NGX025",
     'duplicate location "/a"', "1.0"),
    (_server("location /a {\n    location\n        /c\n    { return 204; }\n}"), "NGX025",
     'location "/c" is outside location "/a"', "1.0"),
    (_http("types {\n    text/html html;\n    text/plain\n        html;\n}"), "NGX006",
     'duplicate extension "html"', "1.0"),
    (_http("gzip_types text/css\n    text/css;"), "NGX006", 'duplicate MIME type "text/css"',
     "1.0"),
    (_http("upstream u {\n    server 127.0.0.1:9;\n    ip_hash;\n    least_conn\n        ;\n}"),
     "NGX006", "load balancing method redefined", "1.0"),
    (_server("allow\n    10.0.0.1/8;"), "NGX027", "low address bits", "1.0"),
    (_http("geo $g {\n    10.0.0.1/8\n        1;\n}"), "NGX027", "low address bits", "1.0"),
]  # fmt: skip
SAID = re.compile(r"\[(?:emerg|warn)\] (?:\d+#\d+: )?(.*?) in \S+:(\d+)$", re.M)


# the builds whose nginx loads its stream module from a file (Debian's packages): the wheel has
# it compiled in, so it has no module file to load twice
MODULE_FILES = ("bookworm", "trixie")


@pytest.mark.parametrize(
    ("name", "config", "code", "about", "since"),
    [
        pytest.param(name, *case, id=f"{name}-{case[1]} {case[2]}")
        for case in HANDLED
        for name in BUILD_NAMES
        if "@MODULE@" not in case[0] or name in MODULE_FILES
    ],
)
def test_handlers_name_the_line_the_statement_ends_on(
    name: str,
    config: str,
    code: str,
    about: str,
    since: str,
    provisioned: tuple[dict[str, Build], dict[str, str]],
    tmp_path: Path,
) -> None:
    """nginx's lines of the message and lint's lines of the rule's findings are the same
    (where the build does not say it yet, neither says anything)."""
    build, nginx_bin, tree = binary_and_tree(provisioned, name, tmp_path)
    module = str(build.root / "usr/lib/nginx/modules/ngx_stream_module.so") if build.root else ""
    conf = tree / "nginx.conf"
    conf.write_text(
        config.replace("@HEAD@", " ".join(build.in_prefix))
        .replace("@TMP@", str(tree))
        .replace("@MODULE@", module)
    )
    checked = nginx_check(build, conf)
    said = [int(at) for message, at in SAID.findall(checked.stderr) if message.startswith(about)]
    found = lint_as(nginx_bin, conf, code)
    lines = [int(at) for at in re.findall(rf"^\S+?:(\d+): {code} ", found.stdout, re.M)]
    if Version(build.nginx_version) >= Version(since):
        assert said, checked.stderr
    assert lines == said, (checked.stderr, found.stdout)
