"""Lines nginx reads with setters of their own, against real `nginx -t`: location's modifier
(trial 8, an Xray example: `location /a b/ {`), rewrite's flag, error_page's codes, expires'
value, error_log's levels, set's variable, the limit modules' zones, proxy_cache_path's and
resolver's parameters, if's condition, access_log's parameters (found writing reproducers for trials 12-15: lint said nothing where
nginx stops). Where nginx refuses the line, NGX010 gives nginx's words at nginx's line; where
it reads it, NGX010 says nothing."""

from __future__ import annotations

from pathlib import Path

import pytest

from nginxgen.base.version import Version
from tests.builds import Build
from tests.conftest import binary_and_tree
from tests.live import nginx_and_lint, nginx_and_lint_agree

MODIFIER = "invalid location modifier"
LOCATIONS = ["/a b/", "= /a", "^~ /a", "~ ^/a", "~* ^/a", "~^/a", "@named", "=/a", "^~/a", "* /a"]
EXPIRES = ["1h", "epoch", "max", "off", "Max", "1x", "-1", "+1d", "@23h30m", "@25h", "@",
           "modified 1h", "modified @1h", "modified epoch", "Modified 1h", "$arg_e",
           "modified $arg_e", "1h 2h"]  # fmt: skip
INVALID, DUPLICATE = "invalid log level", "duplicate log level"
LOG_LEVELS = [("warn", INVALID), ("warning", INVALID), ("Warn", INVALID), ("debug", INVALID),
              ("info notice", DUPLICATE), ("debug_http debug_core", INVALID),
              ("debug_http error", DUPLICATE), ("error debug_http", INVALID),
              ("verbose", INVALID), ("crit crit", DUPLICATE)]  # fmt: skip
LIMIT_REQ_ZONES = ["zone=z:1m rate=5r/s", "zone=z:1m rate=5r/m", "zone=z:1m rate=5",
                   "zone=z rate=1r/s", "zone=z:1q rate=1r/s", "zone=z:16k rate=1r/s",
                   "zone=z:32k rate=1r/s", "zone=z:1m rate=0r/s", "zone=z:1m rate=10r/x",
                   "zone=z:1m rate=r/s", "zone=:1m rate=1r/s", "rate=1r/s zone=z:1m",
                   "zone=z:1m burst=5", "rate=1r/s rate=2r/s"]  # fmt: skip
CACHE_PATHS = ["keys_zone=a:10m", "levels=1:2 keys_zone=a:10m inactive=60m max_size=1g",
               "levels=1:2:2 keys_zone=a:1m use_temp_path=off min_free=100m", "levels= keys_zone=a:1m",
               "levels=1:2:1:2 keys_zone=a:1m", "levels=3 keys_zone=a:1m", "levels=1: keys_zone=a:1m",
               "keys_zone=a:1q", "keys_zone=a", "keys_zone=a:4k", "keys_zone=:1m", "inactive=1day",
               "keys_zone=a:1m max_size=1x", "keys_zone=a:1m use_temp_path=yes", "size=1m",
               "keys_zone=a:1m loader_files=x", "keys_zone=a:1m manager_sleep=1x",
               "keys_zone=a:1m loader_threshold=300ms manager_files=10"]  # fmt: skip
# ipv4= from 1.23.1: before, nginx reads it as an address and resolves it (not judged)
RESOLVERS = ["valid=10s", "valid=10x", "valid=", "ipv6=off", "ipv6=On", "ipv4=off ipv6=off",
             "ipv4=no", "ipv4=off ipv6=off ipv6=on", "ipv4=on"]  # fmt: skip
# `if` conditions: nginx's words are `invalid condition` or `unexpected ... in condition`
CONDITIONS = ["($http_a)", "($http_a = b)", "($http_a != '')", '($http_a = "")', "(-f $uri)",
              "(!-e $uri)", "($http_a ~* ^a)", "( $http_a = b )", "($http_a!=b)", "($http_a = b))",
              "($http_a = )", "($http_a == b)", "(a = b)", "($http_a -f)", "(-z $uri)",
              "($http_a != b c)", "$http_a", "$http_a = b", "($http_a =~ x)", "(!$http_a)",
              "($http_a = b", "(-f)", '("$http_a" = b)', "($http_a= b)", "(-f$uri)", "()",
              "(\n$http_a = b)"]  # fmt: skip
# access_log's parameters: `invalid buffer size`, `invalid flush time`, `invalid compression
# level`, `invalid parameter`, `no buffer is defined`, a buffered log with a variable in its path
ACCESS_LOGS = ["combined buffer=32k", "combined buffer=32x", "combined buffer=", "combined buffer=0",
               "combined flush=5m", "combined buffer=32k flush=5m", "combined buffer=32k flush=5x",
               "combined buffer=1m flush=0", "combined gzip", "combined gzip=5", "combined gzip=10",
               "combined gzip=0", "combined gzip flush=1m", "combined gzipx", "combined if=$http_a",
               "combined foo=1", "combined if=$http_a buffer=32k flush=5m"]  # fmt: skip
LIMIT_CONN_ZONES = ["zone=c:1m", "zone=c:1", "zone=c", "size=1m", "zone=:1m"]
LINES = [
    *((f"location {location} {{ return 204; }}", MODIFIER) for location in LOCATIONS),
    ("rewrite ^/a /b last;", "invalid parameter"),
    ("rewrite ^/a /b permanent;", "invalid parameter"),
    ("rewrite ^/a /b;", "invalid parameter"),
    ("rewrite ^/a /b lastt;", "invalid parameter"),
    ("rewrite ^/a /b Last;", "invalid parameter"),  # ngx_strcmp: the case counts
    ("error_page 404 500 502 /e;", "value"),
    ("error_page 404 = /e;", "value"),
    ("error_page 403 =200 /e;", "value"),
    ("error_page 599 =0300 @e;", "value"),
    ("error_page 404 299 /e;", "value"),
    ("error_page 600 /e;", "value"),
    ("error_page 499 /e;", "invalid value"),
    ("error_page 4o4 /e;", "invalid value"),
    ("error_page =404 /e;", "invalid value"),
    ("error_page 404 =x /e;", "invalid value"),
    ("error_page 404 =-1 /e;", "invalid value"),
    *((f"expires {value};", '"expires" directive') for value in EXPIRES),
    *((f"error_log /tmp/e.log {levels};", about) for levels, about in LOG_LEVELS),
    ("set $a 1;", "invalid variable name"),
    ("set a 1;", "invalid variable name"),
    ("set ${a} 1;", "invalid variable name"),
    *((f"limit_req_zone $binary_remote_addr {zone};", "") for zone in LIMIT_REQ_ZONES),
    *((f"limit_conn_zone $binary_remote_addr {zone};", "") for zone in LIMIT_CONN_ZONES),
    *((f"proxy_cache_path @TMP@/c {parameters};", "") for parameters in CACHE_PATHS),
    *((f"resolver 127.0.0.1 {parameters};", "") for parameters in RESOLVERS),
    *((f"if {condition} {{ return 404; }}", "") for condition in CONDITIONS),
    *((f"access_log @TMP@/a.log {parameters};", "") for parameters in ACCESS_LOGS),
    ("access_log @TMP@/$host.log combined buffer=32k;", "buffered logs"),
    ("access_log off combined;", "invalid parameter"),
]
# lines of http{}, not of a server
HTTP_LEVEL = ("limit_req_zone", "limit_conn_zone", "proxy_cache_path")


@pytest.mark.parametrize(("line", "about"), LINES)
@pytest.mark.parametrize("name", ["bookworm", "trixie", "wheel"])
def test_the_line_as_nginx_reads_it(
    name: str,
    line: str,
    about: str,
    provisioned: tuple[dict[str, Build], dict[str, str]],
    tmp_path: Path,
) -> None:
    build, nginx_bin, tree = binary_and_tree(provisioned, name, tmp_path)
    conf = tree / "nginx.conf"
    line = line.replace("@TMP@", str(tree))
    http, server = (line, "") if line.startswith(HTTP_LEVEL) else ("", line)
    conf.write_text(
        f"events {{}}\nhttp {{ {' '.join(build.in_prefix)}\n{http}\n"
        f"server {{ listen 127.0.0.1:8999;\nlocation @e {{ return 204; }}\n{server}\n}}\n}}\n"
    )
    if "ipv4=" in line and Version(build.nginx_version) < Version("1.23.1"):
        # an address to this release, which nginx resolves on this machine: lint says nothing
        assert nginx_and_lint(build, nginx_bin, conf, "NGX010")[1] == []
        return
    nginx_and_lint_agree(build, nginx_bin, conf, "NGX010", about)


# two paths of one name (ngx_add_path): a cache path and another, in either order; two temp
# paths may share one
SAME_PATHS = [
    "proxy_cache_path @TMP@/c keys_zone=a:1m;\nproxy_cache_path @TMP@/c keys_zone=b:1m;",
    "proxy_cache_path @TMP@/c keys_zone=a:1m;\nfastcgi_temp_path @TMP@/c;",
    "fastcgi_temp_path @TMP@/c;\nproxy_cache_path @TMP@/c keys_zone=a:1m;",
    "proxy_cache_path @TMP@/c keys_zone=a:1m;\nproxy_cache_path @TMP@/c/ keys_zone=b:1m;",
    "proxy_cache_path c keys_zone=a:1m;\nproxy_cache_path @TMP@/c keys_zone=b:1m;",
    "fastcgi_temp_path @TMP@/c;\nscgi_temp_path @TMP@/c;",
]


@pytest.mark.parametrize("lines", SAME_PATHS)
@pytest.mark.parametrize("name", ["bookworm", "trixie", "wheel"])
def test_two_paths_of_one_name(
    name: str, lines: str, provisioned: tuple[dict[str, Build], dict[str, str]], tmp_path: Path
) -> None:
    build, nginx_bin, tree = binary_and_tree(provisioned, name, tmp_path)
    conf = tree / "nginx.conf"
    # the build's own temp folders, but for the two this test sets
    kept = [d for d in build.in_prefix if d.split()[0] not in lines]
    conf.write_text(
        f"events {{}}\nhttp {{ {' '.join(kept)}\n{lines.replace('@TMP@', str(tree))}\n"
        "server { listen 127.0.0.1:8999; }\n}\n"
    )
    nginx_and_lint_agree(build, nginx_bin, conf, "NGX010", "")


# two access_log lines of one file (http{}'s, then a server's): only two buffered ones with
# another buffer size, flush time or gzip level are refused
TWO_LOGS = [
    ("buffer=32k", "buffer=64k", ""), ("buffer=32k", "buffer=32k", ""), ("", "buffer=32k", ""),
    ("buffer=32k", "", ""), ("gzip", "buffer=64k", ""), ("gzip", "gzip=1 buffer=64k", ""),
    ("buffer=32k flush=1s", "buffer=32k", ""), ("buffer=32k flush=1s", "flush=1000ms buffer=32k", ""),
    ("buffer=32k", "buffer=64k", "./"),  # another name to nginx, which compares names as written
]  # fmt: skip


@pytest.mark.parametrize(("first", "second", "folder"), TWO_LOGS)
@pytest.mark.parametrize("name", ["bookworm", "trixie", "wheel"])
def test_two_buffered_logs_of_one_file(
    name: str,
    first: str,
    second: str,
    folder: str,
    provisioned: tuple[dict[str, Build], dict[str, str]],
    tmp_path: Path,
) -> None:
    build, nginx_bin, tree = binary_and_tree(provisioned, name, tmp_path)
    conf = tree / "nginx.conf"
    conf.write_text(
        f"events {{}}\nhttp {{ {' '.join(build.in_prefix)}\n"
        f"access_log {tree}/a.log combined {first};\n"
        f"server {{ listen 127.0.0.1:8999;\n    access_log {tree}/{folder}a.log combined\n"
        f"        {second};\n}}\n}}\n"
    )
    nginx_and_lint_agree(build, nginx_bin, conf, "NGX010", "")


# a proxy's buffers as each server and location merges them: (http{} lines, location lines)
BUFFERS = [("proxy_busy_buffers_size 64k;", ""), ("proxy_buffers 1 4k;", ""),
           ("proxy_buffer_size 16k;", ""), ("proxy_buffer_size 16k; proxy_buffers 8 16k;", ""),
           ("proxy_busy_buffers_size 2k;", ""), ("proxy_temp_file_write_size 2k;", ""),
           ("proxy_max_temp_file_size 2k;", ""), ("proxy_max_temp_file_size 0;", ""),
           ("", "proxy_busy_buffers_size 64k;"),
           ("fastcgi_buffers 4 4k; fastcgi_busy_buffers_size 12k;", ""),
           ("fastcgi_buffers 4 4k; fastcgi_busy_buffers_size 13k;", ""),
           ("proxy_buffers 16 4k; proxy_busy_buffers_size 60k;", ""),
           ("uwsgi_buffer_size 64k;", ""), ("", "scgi_buffer_size 8k;"),
           ("proxy_buffer_size 16k;", "proxy_buffers 8 16k;")]  # fmt: skip


@pytest.mark.parametrize(("http", "location"), BUFFERS)
@pytest.mark.parametrize("name", ["bookworm", "trixie", "wheel"])
def test_a_proxys_buffers(
    name: str,
    http: str,
    location: str,
    provisioned: tuple[dict[str, Build], dict[str, str]],
    tmp_path: Path,
) -> None:
    build, nginx_bin, tree = binary_and_tree(provisioned, name, tmp_path)
    conf = tree / "nginx.conf"
    conf.write_text(
        f"events {{}}\nhttp {{ {' '.join(build.in_prefix)}\n{http}\n"
        f"server {{ listen 127.0.0.1:8999;\nlocation / {{ {location}\n"
        "proxy_pass http://127.0.0.1:9; }\n}\n}\n"
    )
    nginx_and_lint_agree(build, nginx_bin, conf, "NGX010", "")
