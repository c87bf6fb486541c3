"""The entries of map, geo, split_clients and types blocks, MIME type lists, locations and
their proxy_pass against real `nginx -t` (found before trial 10, each a classic a user's nginx -t
shows: a map key given twice, a map value naming an unknown variable, a geo network
given twice, split_clients over 100%, a map key too long for its hash, a regex with a `(` never
closed, `gzip_types text/html`, `http2_push` (obsolete), a location twice or outside its parent, root beside alias, a
proxy_pass URI in a regex location drew nothing). Each case is the content of http{}; every [emerg] and [warn] nginx -t
prints is a finding of one of CODES (NGX024: a regex) that starts with nginx's words, at the line nginx names (where it names one),
and those rules find nothing else."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from nginxgen.conf.load import load_path
from nginxgen.lint.run import Selection, lint
from tests.builds import Build
from tests.conftest import require_build
from tests.fuzzing.generate_check import build_target
from tests.live import nginx_check

LONG = "/an/old/site/that/moved/a/long/time/ago/page-" + "x" * 10
GEO_LINES = ("10.0.0.0/33 1;", "::1/129 1;", "10.0.0.0-10.0.0.255 1;", "300.0.0.0/8 1;", "abc 1;",
             "10.0.0.0/8;", "10.0.0.0/8 1 2;", "proxy 10.0.0.1/40;", "255.255.255.255 1;",
             "010.0.0.0/8 1;", "10.0.0.0/8 1;\n    delete 10.0.0.0/8;", "ranges;\n    1.0.0.0-1.0.0.9 1;",
             "proxy_recursive;\n    proxy 10.0.0.1;", "2001:db8::1/32 1;")  # fmt: skip
ACCESS_LINES = ("allow 10.0.0.0/33;", "deny abc;", "allow 255.255.255.255;", "allow 010.0.0.0/8;",
                "deny ::1/128;", "allow all;", "allow 10.0.0.1/8;")  # fmt: skip
CASES: dict[str, str] = {
    "map key twice": "map $uri $a {\n    /x 1;\n    /y 2;\n    /x 3;\n}",
    "map key twice, letter case and a backslash": "map $uri $a {\n    Foo 1;\n    \\foo 2;\n}",
    "map hostnames: .name stands for name": (
        "map $host $a {\n    hostnames;\n    .example.com 1;\n    example.com 2;\n}"
    ),
    "map default twice": "map $uri $a {\n    default 1;\n    default 2;\n}",
    # trial 14 (zxd0079/item): `off` stands alone among a location's proxy_redirect lines
    "proxy_redirect off, then another": "server { listen 127.0.0.1:8081;\n"
    "location / { proxy_pass http://127.0.0.1:9; proxy_redirect off;\n"
    "proxy_redirect http:// https://; } }",
    "proxy_redirect, then off": "server { listen 127.0.0.1:8081;\n"
    "location / { proxy_pass http://127.0.0.1:9; proxy_redirect default;\n"
    "proxy_redirect off; } }",
    "proxy_redirect twice": "server { listen 127.0.0.1:8081;\n"
    "location / { proxy_pass http://127.0.0.1:9; proxy_redirect http://a/ /;\n"
    "proxy_redirect http://b/ /; } }",
    "proxy_cookie_path off, then another": "server { listen 127.0.0.1:8081;\n"
    "location / { proxy_pass http://127.0.0.1:9; proxy_cookie_path off;\n"
    "proxy_cookie_path /a /b; } }",
    "map value with an unknown variable": "map $uri $a {\n    /x $nosuch;\n}",
    "map default with an unknown variable": "map $uri $a {\n    default x$nosuch;\n}",
    "map value naming a variable": "map $uri $a {\n    /x $uri;\n    default $host-x;\n}",
    "map regex keys and captures": "map $uri $a {\n    ~^/(?<p>.*)$ $p;\n    ~*^/X 2;\n}",
    "map key too long for its hash": f"map $uri $a {{\n    /short 1;\n    {LONG} 2;\n}}",
    "map key long, with a larger bucket": (
        f"map_hash_bucket_size 128;\nmap $uri $a {{\n    {LONG} 2;\n}}"
    ),
    "map with too many keys": "map $uri $a {\n"
    + "".join(f"    /some/path/k{i:05} 1;\n" for i in range(9000))
    + "}",
    "types extension too long": "types {\n    text/html html;\n    text/x-long "
    + "e" * 60
    + ";\n}",
    "geo network twice": "geo $g {\n    10.0.0.0/8 a;\n    192.0.2.1 b;\n    10.0.0.0/8 c;\n}",
    "geo default twice and low bits": (
        "geo $g {\n    default a;\n    10.1.2.3/16 b;\n    default c;\n    10.1.0.0/16 d;\n}"
    ),
    "geo the same network in IPv6": "geo $g {\n    ::1 a;\n    ::1/128 b;\n}",
    "geo a deleted network again": "geo $g {\n    10.0.0.0/8 a;\n    delete 10.0.0.0/8;\n"
    "    10.0.0.0/8 b;\n}",
    "geo a network never given deleted": "geo $g {\n    10.0.0.0/8 a;\n    delete 10.1.0.0/16;\n}",
    "geo a network deleted twice": "geo $g {\n    10.0.0.0/8 a;\n    delete 10.0.0.0/8;\n"
    "    delete 10.0.0.0/8;\n}",
    "geo a network deleted before it is given": "geo $g {\n    delete 10.0.0.0/8;\n"
    "    10.0.0.0/8 a;\n}",
    "geo the default deleted": "geo $g {\n    default a;\n    delete 0.0.0.0/0;\n}",
    "geo a network deleted with low bits": "geo $g {\n    10.0.0.0/8 a;\n    delete 10.1.2.3/8;\n}",
    "geo ranges twice": "geo $g {\n    ranges;\n    10.0.0.1-10.0.0.9 a;\n"
    "    10.0.0.1-10.0.0.9 b;\n}",
    "split_clients over 100%": "split_clients $uri $s {\n    60% a;\n    50.5% b;\n    * c;\n}",
    "split_clients at 100%": "split_clients $uri $s {\n    50% a;\n    50% b;\n}",
    "split_clients three decimals": "split_clients $uri $s {\n    50.125% a;\n    * b;\n}",
    "regex: location": "server {\n    listen 127.0.0.1:8081;\n    location ~ ^/(api|app {}\n}",
    "regex: location, a class and a closing parenthesis": (
        "server {\n    listen 127.0.0.1:8081;\n    location ~* ^/[a-z(]+\\)x {}\n}"
    ),
    "regex: rewrite": "server {\n    listen 127.0.0.1:8081;\n    rewrite ^/a)b /c;\n}",
    "regex: if": 'server {\n    listen 127.0.0.1:8081;\n    if ($uri ~ "a[") { return 204; }\n}',
    "regex: if, balanced": (
        "server {\n    listen 127.0.0.1:8081;\n    if ($uri ~* (a|b)) { return 204; }\n}"
    ),
    "regex: map key": "map $uri $a {\n    ~^/(?<p>x 1;\n}",
    "regex: server_name": "server {\n    listen 127.0.0.1:8081;\n    server_name ~^(www\\.)?(.+$;\n}",
    "allow, deny and set_real_ip_from with low bits": "server {\n    listen 127.0.0.1:8081;\n"
    "    allow 10.0.0.1/8;\n    allow 10.0.0.0/8;\n    deny 2001:db8::1/32;\n"
    "    set_real_ip_from 192.168.1.10/24;\n    allow 192.0.2.1;\n}",
    "obsolete HTTP/2 directives": "http2_idle_timeout 3m;\nhttp2_max_field_size 8k;\n"
    "server {\n    listen 127.0.0.1:8081;\n    http2_push_preload on;\n"
    "    location / {\n        http2_push /style.css;\n    }\n}",
    "gzip_types: text/html and a type twice": "gzip_types text/html text/css;\n"
    "gzip_types TEXT/CSS application/json;",
    "ssi_types": "ssi_types text/plain text/PLAIN;",
    "location twice": "server {\n    listen 127.0.0.1:8081;\n    location /a {}\n"
    "    location = /a {}\n    location ^~ /a {}\n}",
    "exact location twice": "server {\n    listen 127.0.0.1:8081;\n    location = /a {}\n"
    "    location =/a {}\n}",
    "regex and named locations twice": "server {\n    listen 127.0.0.1:8081;\n"
    "    location ~ /a {}\n    location ~ /a {}\n    location @n {}\n    location @n {}\n}",
    "location outside its parent": "server {\n    listen 127.0.0.1:8081;\n"
    "    location /a/ {\n        location /a/b {}\n        location /b {}\n    }\n}",
    "location outside a regex parent": "server {\n    listen 127.0.0.1:8081;\n"
    "    location ~ ^/a {\n        location ^/a/b {}\n        location ~ x {}\n"
    "        location /c {}\n    }\n}",
    "location in an exact one": "server {\n    listen 127.0.0.1:8081;\n"
    "    location = /a {\n        location /a/b {}\n    }\n}",
    "named location nested": "server {\n    listen 127.0.0.1:8081;\n"
    "    location /a {\n        location @x {}\n    }\n}",
    "root, then alias": "server {\n    listen 127.0.0.1:8081;\n"
    "    location /a/ {\n        root /x;\n        alias /y/;\n    }\n}",
    "alias, then root": "server {\n    listen 127.0.0.1:8081;\n"
    "    location /a/ {\n        alias /y/;\n        root /x;\n    }\n}",
    "proxy_pass URI in a regex location": "server {\n    listen 127.0.0.1:8081;\n"
    "    location ~ /a {\n        proxy_pass http://127.0.0.1:9/;\n    }\n}",
    "proxy_pass unix URI in a named location": "server {\n    listen 127.0.0.1:8081;\n"
    "    location @a {\n        proxy_pass http://unix:/tmp/s.sock:/x;\n    }\n}",
    "proxy_pass URI in if": "server {\n    listen 127.0.0.1:8081;\n    location /a/ {\n"
    "        if ($uri) {\n            proxy_pass http://127.0.0.1:9?x=1;\n        }\n    }\n}",
    "proxy_pass URI in limit_except": "server {\n    listen 127.0.0.1:8081;\n"
    "    location /a/ {\n        limit_except GET {\n            proxy_pass http://[::1]:9/x;\n"
    "        }\n    }\n}",
    "proxy_pass without URI, or with variables": "server {\n    listen 127.0.0.1:8081;\n"
    "    location ~ /a {\n        proxy_pass http://unix:/tmp/s.sock;\n    }\n"
    "    location @b {\n        proxy_pass http://127.0.0.1:9$request_uri;\n    }\n"
    "    location /c/ {\n        proxy_pass http://127.0.0.1:9/x/;\n    }\n}",
    **{
        f"proxy_pass {url}": "server {\n    listen 127.0.0.1:8081;\n    location / {\n"
        f"        proxy_pass {url};\n    }}\n}}"
        for url in (
            "localhost:4433",
            "https://",
            "http://127.0.0.1:99999",
            "http://[::1:8080",
            "http://:80",
            "HTTP://127.0.0.1:8/x",
            "http://[::1]:8080/x",
            "http://unix:/tmp/x.sock",
        )
    },
    # networks nginx cannot read (ngx_ptocidr): allow's, deny's and geo's
    **{f"geo {line}": f"geo $g {{\n    {line}\n}}" for line in GEO_LINES},
    **{
        f"access {line}": f"server {{\n    listen 127.0.0.1:8081;\n    {line}\n}}"
        for line in ACCESS_LINES
    },
    "upstream twice, in two cases": "upstream b {\n    server 127.0.0.1:1;\n}\n"
    "upstream B {\n    server 127.0.0.1:2;\n}",
    "upstream without a server": "upstream b {\n    keepalive 2;\n}",
    "regex: a named capture, a comment and classes": (
        "server {\n    listen 127.0.0.1:8081;\n"
        "    location ~ ^/(?<x>[]a(]+)(?#c(d)[[:alpha:]]\\Q(\\E$ {}\n}"
    ),
}
CODES = {
    "NGX010",
    "NGX302",
    "NGX006",
    "NGX011",
    "NGX022",
    "NGX023",
    "NGX024",
    "NGX025",
    "NGX026",
    "NGX027",
}
SAID = re.compile(r"\[(emerg|warn)\] (?:\d+#\d+: )?(.*?)(?: in (\S+):(\d+))?$", re.M)


@pytest.mark.parametrize("name", ["bookworm", "trixie", "wheel"])
def test_value_blocks_as_nginx_reads_them(
    name: str, provisioned: tuple[dict[str, Build], dict[str, str]], tmp_path: Path
) -> None:
    build = require_build(provisioned, name)
    wrong: list[str] = []
    for case, body in CASES.items():
        conf = tmp_path / "nginx.conf"
        head = " ".join(build.in_prefix)
        conf.write_text(
            f"events {{}}\nhttp {{\n{head}\n{body}\n"
            "server { listen 127.0.0.1:8080; return 204; }\n}\n"
        )
        checked = nginx_check(build, conf)
        said = {(m, int(line) if line else None) for _, m, _, line in SAID.findall(checked.stderr)}
        found = [
            f
            for f in lint(load_path(str(conf)), build_target(build), Selection(select=CODES))
            if f.code in CODES
        ]
        matched: set[int] = set()
        for message, line in sorted(said, key=str):
            # a regex's failure is in the words of the build's PCRE (1 or 2): NGX024 says it
            compiled = "_compile() failed" in message
            hits = [
                i
                for i, f in enumerate(found)
                if (f.code == "NGX024" if compiled else f.message.startswith(message))
                and (line is None or f.line == line)
            ]
            if not hits:
                wrong.append(f"{case}: nginx says {message!r} at {line}, lint {found}")
            matched.update(hits)
        extra = [f for i, f in enumerate(found) if i not in matched]
        if extra:
            wrong.append(f"{case}: lint says more than nginx ({checked.stderr!r}): {extra}")
    assert not wrong, "\n".join(wrong)
