"""NGX010 on values nginx's setters refuse (issue 36): each case's lint finding, and the same
case under real `nginx -t` on the bookworm, trixie and wheel builds (nginx's exit and its first
error's text the oracle). The tables regenerate byte for byte from the committed excerpts of
nginx's sources."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from nginxgen.base.version import Version
from nginxgen.conf.load import load_path
from nginxgen.knowledge.target import Target, parse_library
from nginxgen.lint.run import Selection, lint
from tests.builds import BUILD_NAMES, NEWEST_BUILD_NAMES, STREAM_MODULE_NAMES, Build
from tests.conftest import require_build
from tests.fuzzing.generate_check import build_target
from tests.fuzzing.grammar import nginx_refuses
from tests.paths import REPO, script
from tests.pki import CertificateFactory

GRAMMAR = Selection(select={"NGX00", "NGX010"})

# (lines in a plain-HTTP server, nginx's message; None: nginx accepts the lines)
CASES = [
    ("ssl_session_cache shared:SSL;", 'invalid session cache "shared:SSL"'),
    ("ssl_session_cache shared:SSL:10;", 'session cache "shared:SSL:10" is too small'),
    ("ssl_session_cache shared:SSL:1k;", 'session cache "shared:SSL:1k" is too small'),
    ("ssl_session_cache shared::10m;", 'invalid session cache "shared::10m"'),
    ("ssl_session_cache builtin:abc;", 'invalid session cache "builtin:abc"'),
    ("ssl_session_cache OFF;", 'invalid session cache "OFF"'),  # ngx_strcmp: exact case
    ("ssl_session_cache builtin:1000 shared:SSL:32k;", None),
    ("ssl_session_cache none;", None),
    ("listen 127.0.0.1:8081 sslx;", 'invalid parameter "sslx"'),
    ("listen 127.0.0.1:8081 backlog=abc;", 'invalid backlog "backlog=abc"'),
    ("listen 127.0.0.1:8081 backlog=0;", 'invalid backlog "backlog=0"'),
    ("listen 127.0.0.1:8081 fastopen=abc;", 'invalid fastopen "fastopen=abc"'),
    ("listen 127.0.0.1:8081 rcvbuf=1x;", 'invalid rcvbuf "rcvbuf=1x"'),
    ("listen 127.0.0.1:8081 ipv6only=ok;", 'invalid ipv6only flags "ok"'),
    ("listen 70000;", 'invalid port in "70000" of the "listen" directive'),
    ("listen [::1]:0;", 'invalid port in "[::1]:0" of the "listen" directive'),
    ("listen 127.0.0.1:8082 backlog=511 fastopen=10 rcvbuf=64k sndbuf=1m reuseport bind;", None),
    ("ssl_protocols TLSv1.2 TLSv13;", 'invalid value "TLSv13"'),
    ("ssl_protocols TLSv1.4;", 'invalid value "TLSv1.4"'),
    ("ssl_protocols TLSv1.2,TLSv1.3;", 'invalid value "TLSv1.2,TLSv1.3"'),
    ("ssl_protocols tlsv1.2 TLSV1.3;", None),  # ngx_strcasecmp: any case
    ("proxy_ssl_protocols TLSv13;", 'invalid value "TLSv13"'),
    ("proxy_ssl_protocols TLSv1.4;", 'invalid value "TLSv1.4"'),
    ("proxy_ssl_protocols TLSv1.2,TLSv1.3;", 'invalid value "TLSv1.2,TLSv1.3"'),
    ("proxy_ssl_protocols TLSv1.2 TLSv1.3;", None),
    ("keepalive_timeout 10x;", '"keepalive_timeout" directive invalid value'),
    ("keepalive_timeout 75s abc;", '"keepalive_timeout" directive invalid value'),
    ("keepalive_timeout 75s 5ms;", '"keepalive_timeout" directive invalid value'),
    ("keepalive_timeout 75s 60s;", None),
    ("add_header X y alway;", 'invalid parameter "alway"'),
    ("add_header X y Always;", 'invalid parameter "Always"'),
    ("add_header X y always;", None),
    ("ssl_verify_client maybe;", 'invalid value "maybe"'),
    ("ssl_ocsp maybe;", 'invalid value "maybe"'),
    ("ssl_ocsp off;", None),
    ("gzip_comp_level 10;", "value must be between 1 and 9"),
    ("gzip_comp_level 9;", None),
    ("client_max_body_size 1g;", None),  # an offset: g is read, unlike in sizes
    ("location / { proxy_ssl_verify on; proxy_pass https://127.0.0.1:9; }",
     "no proxy_ssl_trusted_certificate for proxy_ssl_verify"),
    ("proxy_ssl_verify on; location / { proxy_pass https://$host; }",
     "no proxy_ssl_trusted_certificate for proxy_ssl_verify"),
    ("location / { proxy_ssl_verify on; proxy_pass http://127.0.0.1:9; }", None),
    ("location / { proxy_ssl_verify off; proxy_pass https://127.0.0.1:9; }", None),
    ("location / { grpc_ssl_verify on; grpc_pass grpcs://127.0.0.1:9; }",
     "no grpc_ssl_trusted_certificate for grpc_ssl_verify"),
    # a pass whose address takes no URI (issue 44: the generator wrote grpcs://block/)
    ("location / { grpc_pass grpcs://127.0.0.1:9/; }",
     'invalid host in upstream "127.0.0.1:9/"'),
    ("location / { grpc_pass GRPC://localhost/api; }",
     'invalid host in upstream "localhost/api"'),
    ("location / { grpc_pass grpcs://[::1]:9/; }", 'invalid host in upstream "[::1]:9/"'),
    ("location / { grpc_pass 127.0.0.1:9?x; }", 'invalid host in upstream "127.0.0.1:9?x"'),
    ("location / { uwsgi_pass suwsgi://127.0.0.1:9/; }",
     'invalid host in upstream "127.0.0.1:9/"'),
    ("location / { fastcgi_pass 127.0.0.1:9/; }", 'invalid host in upstream "127.0.0.1:9/"'),
    ("location / { grpc_pass grpcs://127.0.0.1:9; }", None),
    ("location / { grpc_pass grpcs://$host/; }", None),  # read per request
    ("location / { grpc_pass unix:/tmp/nginxgen-grpc.sock; }", None),
    ("location / { proxy_pass https://127.0.0.1:9/app?x; }", None),  # proxy_pass takes a URI
]  # fmt: skip


def config(lines: str) -> str:
    return f"events {{}}\nhttp {{\n    server {{\n        listen 127.0.0.1:8080;\n        {lines}\n    }}\n}}\n"


def grammar_errors(text: str, folder: Path, target: Target) -> list[str]:
    conf = folder / "nginx.conf"
    conf.write_text(text)
    findings = lint(load_path(str(conf)), target, GRAMMAR)
    return [f.message for f in findings if f.severity == "error"]


@pytest.mark.parametrize(("lines", "message"), CASES)
def test_lint_names_what_nginx_refuses(lines: str, message: str | None, tmp_path: Path) -> None:
    target = Target(nginx=Version("1.26.3"), library=parse_library("openssl-3.5.9"))
    errors = grammar_errors(config(lines), tmp_path, target)
    assert errors == ([message] if message else []), (lines, errors)


@pytest.mark.parametrize("name", (*BUILD_NAMES, *NEWEST_BUILD_NAMES))
def test_nginx_says_the_same(
    name: str, provisioned: tuple[dict[str, Build], dict[str, str]], tmp_path: Path
) -> None:
    build = require_build(provisioned, name)
    assert not disagreements(build, CASES, config, tmp_path)


def disagreements(
    build: Build, cases: list[tuple[str, str | None]], text_of: Callable[[str], str], folder: Path
) -> list[str]:
    """The cases where nginx -t's first error, lint's errors and the case's message differ."""
    target = build_target(build)
    wrong = []
    for lines, message in cases:
        errors = grammar_errors(text_of(lines), folder, target)
        refused = nginx_refuses(build, folder / "nginx.conf")
        said = refused[0] if refused else None
        if said != message or errors != ([message] if message else []):
            wrong.append(f"{lines!r}: nginx {said!r}, lint {errors}, case {message!r}")
    return wrong


@pytest.mark.parametrize("name", (*BUILD_NAMES, *NEWEST_BUILD_NAMES))
def test_listen_parameters_follow_the_release(
    name: str, provisioned: tuple[dict[str, Build], dict[str, str]], tmp_path: Path
) -> None:
    """quic is a listen parameter from nginx 1.25.0 on: 1.22 says "invalid parameter"; later
    releases know the word (a build without HTTP/3 then refuses it for another reason)."""
    build = require_build(provisioned, name)
    text = config("listen 127.0.0.1:8443 quic;")
    errors = grammar_errors(text, tmp_path, build_target(build))
    refused = nginx_refuses(build, tmp_path / "nginx.conf")
    if Version(build.nginx_version) < Version("1.25.0"):
        assert errors == ['invalid parameter "quic"'] and refused is not None
        assert refused[0] == errors[0]
    else:
        assert errors == []
        assert refused is None or "invalid parameter" not in refused[0], refused


def test_no_fix_is_written_on_a_line_nginx_refuses(tmp_path: Path) -> None:
    """The issue's repro: --unsafe-fixes added TLSv1.3 to a line nginx refuses for TLSv13."""
    conf = tmp_path / "site.conf"
    text = config("ssl_protocols TLSv1.2 TLSv13;")
    conf.write_text(text)
    done = subprocess.run(
        [sys.executable, "-m", "nginxgen", "lint", str(conf), "--fix", "--unsafe-fixes",
         "--nginx-version", "1.26.3", "--tls-library", "openssl-3.5.9"],
        capture_output=True, text=True, check=False, timeout=60,
    )  # fmt: skip
    assert conf.read_text() == text
    assert 'NGX010 error invalid value "TLSv13"' in done.stdout, done.stdout
    assert "NGX409" in done.stdout  # the fix that was built there before is still reported


def test_the_value_tables_regenerate_byte_for_byte() -> None:
    """No clone of nginx is needed: the script's parser reads the committed excerpts."""
    tables = script("build_value_tables")
    built = tables.build(tables.EXCERPTS.read_text())
    assert built == (REPO / "nginxgen" / "knowledge" / "nginx_values.json").read_text()
    assert '"TLSv1.3"' in built and '"optional_no_ca"' in built


# (stream{} lines, nginx's message): a server with `proxy_ssl on` sets its backend's TLS up
# when nginx merges it, and refuses verification without trusted certificates, as http{}'s
# passes (trial 20: lint said nothing, nginx -t failed on every build)
STREAM_CASES = [
    ("server { listen 127.0.0.1:8443; proxy_pass 127.0.0.1:9; proxy_ssl on; "
     "proxy_ssl_verify on; }", "no proxy_ssl_trusted_certificate for proxy_ssl_verify"),
    ("proxy_ssl_verify on; server { listen 127.0.0.1:8443; proxy_pass 127.0.0.1:9; "
     "proxy_ssl on; }", "no proxy_ssl_trusted_certificate for proxy_ssl_verify"),
    ("proxy_ssl_verify on; proxy_ssl_trusted_certificate {ca}; server { listen "
     "127.0.0.1:8443; proxy_pass 127.0.0.1:9; proxy_ssl on; }", None),
    ("server { listen 127.0.0.1:8443; proxy_pass 127.0.0.1:9; proxy_ssl_verify on; }", None),
    ("proxy_ssl on; server { listen 127.0.0.1:8443; proxy_pass 127.0.0.1:9; "
     "proxy_ssl_verify off; }", None),
]  # fmt: skip


@pytest.mark.parametrize("name", STREAM_MODULE_NAMES)
def test_stream_backend_verification_needs_trusted_certificates(
    name: str, provisioned: tuple[dict[str, Build], dict[str, str]], tmp_path: Path
) -> None:
    build = require_build(provisioned, name)
    ca = CertificateFactory(tmp_path / "pki").leaf("backend.example").fullchain

    def stream(lines: str) -> str:
        body = lines.replace("{ca}", str(ca))
        return f"{build.load_module('stream')}events {{}}\nstream {{\n    {body}\n}}\n"

    assert not disagreements(build, STREAM_CASES, stream, tmp_path)
