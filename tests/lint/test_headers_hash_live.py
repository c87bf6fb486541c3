"""The proxy and grpc header hashes against real `nginx -t` (issue 44: Authelia's documented
config sets `proxy_set_header Proxy-Authorization` twice, nginx warns `could not build optimal
proxy_headers_hash`, lint said nothing). Each case is one tree: NGX015 has a warning exactly
where nginx prints that warning, with nginx's words, and its emulation of nginx counts as many
builds as nginx prints warnings (a level that inherits its list and hash warns no more); where
nginx stops (`could not build proxy_headers_hash, you should increase ..._bucket_size`) NGX015
has that error. On Debian 12's nginx 1.22.1, Debian 13's 1.26.3 and nginx 1.31.3 (whose
defaults add Proxy-Connection). The table regenerates byte for byte from the committed excerpts
of nginx's sources."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from nginxgen.conf.config import build as build_config
from nginxgen.conf.load import load_path, walk
from nginxgen.lint.rules.ngx015_headers_hash_not_optimal import builds
from tests.builds import Build
from tests.conftest import binary_and_tree
from tests.live import lint_as, nginx_and_lint, nginx_check
from tests.paths import REPO, script

LONG = "X-" + "Long" * 12  # 50 characters: more than the 46 a 64-byte bucket takes
PASS = "proxy_pass http://127.0.0.1:1;"
CASES: dict[str, str] = {
    # name: http{} content
    "two equal long names": (
        "server { listen 127.0.0.1:8999; location / {"
        " proxy_set_header Proxy-Authorization $http_proxy_authorization;"
        f" proxy_set_header Proxy-Authorization $http_authorization; {PASS} }} }}"
    ),
    "two equal long names, no proxy_pass": (
        "server { listen 127.0.0.1:8999; location / {"
        " proxy_set_header X-Forwarded-For $remote_addr;"
        " proxy_set_header x-forwarded-for $remote_addr; } }"
    ),
    "two equal short names": (
        "server { listen 127.0.0.1:8999; location / {"
        f" proxy_set_header X-Real-IP $remote_addr; proxy_set_header X-Real-IP $remote_addr; {PASS} }} }}"
    ),
    "three equal short names": (
        "server { listen 127.0.0.1:8999; location / { proxy_set_header X-Real-IP a;"
        f" proxy_set_header X-Real-IP b; proxy_set_header X-Real-IP c; {PASS} }} }}"
    ),
    "levels inheriting http's list": (
        "proxy_set_header Proxy-Authorization a; proxy_set_header Proxy-Authorization b;\n"
        + "".join(
            f"server {{ listen 127.0.0.1:{8990 + n}; location /a {{ {PASS} }}"
            f" location /b {{ location /b/c {{ {PASS} }} }} }}\n"
            for n in range(3)
        )
    ),
    "a location with a list of its own": (
        "proxy_set_header Proxy-Authorization a; proxy_set_header Proxy-Authorization b;\n"
        "server { listen 127.0.0.1:8999; location /a { proxy_set_header X-A a; } location /b { } }"
    ),
    "many headers at a small max size": (
        "server { listen 127.0.0.1:8999; location / { proxy_headers_hash_max_size 4;"
        + "".join(f" proxy_set_header X-Header-{n} v;" for n in range(12))
        + f" {PASS} }} }}"
    ),
    "a small max size with no lines, two servers": (
        "proxy_headers_hash_max_size 2;\n"
        "server { listen 127.0.0.1:8998; location / { } }\n"
        "server { listen 127.0.0.1:8999; location / { } }"
    ),
    "a small max size with lines in http{}, two servers": (
        "proxy_headers_hash_max_size 2; proxy_set_header X-A a;\n"
        "server { listen 127.0.0.1:8998; location / { } }\n"
        "server { listen 127.0.0.1:8999; location / { } }"
    ),
    "a location with only a small max size (it inherits the built hashes)": (
        "server { listen 127.0.0.1:8999; proxy_set_header X-A a;"
        f" location / {{ proxy_headers_hash_max_size 1; {PASS} }} }}"
    ),
    "a location with a small max size and a pass_header line": (
        "server { listen 127.0.0.1:8999; location / { proxy_headers_hash_max_size 2;"
        f" proxy_pass_header Server; {PASS} }} }}"
    ),
    "a larger bucket": (
        "proxy_headers_hash_bucket_size 128;\n"
        "server { listen 127.0.0.1:8999; location / {"
        f" proxy_set_header Proxy-Authorization a; proxy_set_header Proxy-Authorization b; {PASS} }} }}"
    ),
    "hidden headers at a small max size": (
        "server { listen 127.0.0.1:8999; proxy_headers_hash_max_size 3;"
        + "".join(f" proxy_hide_header X-Hidden-Header-{n};" for n in range(6))
        + f" location / {{ {PASS} }} }}"
    ),
    "a name too long for a bucket": (
        f"server {{ listen 127.0.0.1:8999; location / {{ proxy_set_header {LONG} v; {PASS} }} }}"
    ),
    "a max size of 0": (
        f"server {{ listen 127.0.0.1:8999; proxy_headers_hash_max_size 0; location / {{ {PASS} }} }}"
    ),
    "grpc: two equal long names": (
        "server { listen 127.0.0.1:8999 http2; location / {"
        " grpc_set_header X-Forwarded-Proto a; grpc_set_header X-Forwarded-Proto b;"
        " grpc_pass grpc://127.0.0.1:1; } }"
    ),
    "grpc: a name too long for a bucket": (
        f"server {{ listen 127.0.0.1:8999; location / {{ grpc_set_header {LONG} v; }} }}"
    ),
    "proxy_cache: the cache's list": (
        "proxy_cache_path @TMP@/cache keys_zone=c:1m;\n"
        "proxy_set_header X-Forwarded-Host a; proxy_set_header X-Forwarded-Host b;\n"
        "server { listen 127.0.0.1:8999;"
        f" location /a {{ proxy_cache c; {PASS} }} location /b {{ proxy_cache c; {PASS} }} }}"
    ),
    "proxy_cache: a max size only the cache's list outgrows": (
        "proxy_cache_path @TMP@/cache keys_zone=c:1m;\n"
        "server { listen 127.0.0.1:8999; proxy_headers_hash_max_size 20;"
        f" location /a {{ proxy_cache c; {PASS} }} location /b {{ {PASS} }} }}"
    ),
    "proxy_cache off, proxy_store on": (
        "proxy_cache_path @TMP@/cache keys_zone=c:1m; proxy_cache c;\n"
        "server { listen 127.0.0.1:8999; proxy_headers_hash_max_size 20;"
        f" location /a {{ proxy_cache off; {PASS} }} location /b {{ proxy_store on; {PASS} }} }}"
    ),
}
WARNING = re.compile(r"\[warn\] (could not build optimal (?:proxy|grpc)_headers_hash, .*)$", re.M)


def test_the_header_hash_tables_regenerate_byte_for_byte() -> None:
    """No clone of nginx is needed: the script's parser reads the committed excerpts."""
    tables = script("build_header_hash_tables")
    built = tables.build(tables.EXCERPTS.read_text())
    assert built == (REPO / "nginxgen" / "knowledge" / "nginx_header_hashes.json").read_text()


def _tree(build: Build, http: str, tmp: Path) -> str:
    temp = "".join(f"{line}\n" for line in build.temp_path_directives)
    return f"events {{}}\nhttp {{\naccess_log off;\n{temp}{http.replace('@TMP@', str(tmp))}\n}}\n"


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("name", ["bookworm", "trixie", "wheel"])
def test_header_hashes_as_nginx_builds_them(
    case: str,
    name: str,
    provisioned: tuple[dict[str, Build], dict[str, str]],
    tmp_path: Path,
) -> None:
    build, nginx_bin, tree = binary_and_tree(provisioned, name, tmp_path)
    (tree / "temp").mkdir()
    conf = tree / "nginx.conf"
    conf.write_text(_tree(build, CASES[case], tree))
    emerg, lines = nginx_and_lint(build, nginx_bin, conf, "NGX015")
    warned = WARNING.findall(nginx_check(build, conf).stderr)
    loaded = load_path(str(conf))
    emulated = list(builds(build_config(loaded), build.nginx_version, walk(loaded.statements)))
    warnings = [line for line in lines if " NGX015 warning " in line]
    errors = [line for line in lines if " NGX015 error " in line]
    assert [b.outcome.message for b in emulated if b.outcome.kind == "warn"] == warned, lines
    assert set(warned) == {_said(line) for line in warnings}, lines
    if emerg is None:
        assert errors == [], lines
    else:
        assert len(errors) == 1, (emerg, lines)
        assert f"NGX015 error {emerg[0]}: " in errors[0], (emerg, lines)
    if case.startswith("two equal long names") or case == "proxy_cache: the cache's list":
        assert len(warnings) == 1 and "twice" in warnings[0], lines


def _said(line: str) -> str:
    """nginx's words in a finding's line: up to the parenthesis lint adds."""
    return line.split(" NGX015 warning ", 1)[1].split(" (nginx -t warns", 1)[0]


@pytest.mark.parametrize("name", ["bookworm", "wheel"])
def test_the_bucket_size_the_fix_names_is_enough(
    name: str, provisioned: tuple[dict[str, Build], dict[str, str]], tmp_path: Path
) -> None:
    """A name too long for a bucket: the size NGX015's fix names makes nginx -t pass, and
    lint silent."""
    build, nginx_bin, tree = binary_and_tree(provisioned, name, tmp_path)
    (tree / "temp").mkdir()
    conf = tree / "nginx.conf"
    http = CASES["a name too long for a bucket"]
    conf.write_text(_tree(build, http, tree))
    found = lint_as(nginx_bin, conf, "NGX015").stdout
    size = re.search(r"fix: raise proxy_headers_hash_bucket_size to (\d+)", found)
    assert size is not None, found
    conf.write_text(_tree(build, f"proxy_headers_hash_bucket_size {size.group(1)};\n{http}", tree))
    emerg, lines = nginx_and_lint(build, nginx_bin, conf, "NGX015")
    assert emerg is None and lines == [], (emerg, lines)
