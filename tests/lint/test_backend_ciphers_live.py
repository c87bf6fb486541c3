"""The cipher string of nginx as a TLS client (proxy_ssl_ciphers, grpc_ssl_ciphers, stream's
proxy_ssl_ciphers) against real `nginx -t` on every build: nginx hands it to
SSL_CTX_set_cipher_list() where a pass goes to TLS, and a string that enables nothing (or one
the library refuses) stops nginx there as ssl_ciphers does; beside a plain-text pass the line is
never read. Lint's cipher rules (NGX4) give an error at the line exactly where nginx stops (a
miss the trials' reproducers found: lint judged ssl_ciphers only)."""

from __future__ import annotations

from pathlib import Path

import pytest

from nginxgen.conf.load import load_path
from nginxgen.lint.run import Selection, lint
from tests.builds import ALL_BUILD_NAMES, Build
from tests.conftest import require_build
from tests.fuzzing.generate_check import build_target
from tests.live import first_emerg, nginx_check

STRINGS = [
    "AES128-SHA128",  # a misspelt name: nothing matches
    "DEFAULT:!ALL",
    "TLS_AES_128_GCM_SHA256",  # a TLS 1.3 name only: nothing for SSL_CTX_set_cipher_list
    "ALL:@SECLEVEL=0",  # no security levels in BoringSSL and AWS-LC
    "HIGH:!aNULL",
    "ECDHE+AESGCM",
]
# (the tree's lines around `@LINE@`, the ciphers line's number, whether nginx reads the line)
HTTP = "events {{}}\nhttp {{ {prefix}\n{lines}\n}}\n"
PLACES = {
    "https pass": (
        "@LINE@\nserver { listen 127.0.0.1:18080;\nlocation / { proxy_pass https://127.0.0.1:9; }\n}",
        True,
    ),
    "http pass": (
        "@LINE@\nserver { listen 127.0.0.1:18080;\nlocation / { proxy_pass http://127.0.0.1:9; }\n}",
        False,
    ),
    "variable pass": (
        "server { listen 127.0.0.1:18080;\n@LINE@\nlocation / { proxy_pass http://$arg_b; }\n}",
        True,
    ),
    "grpcs pass": (
        "server { listen 127.0.0.1:18080;\n"
        "location / { @LINE@\ngrpc_pass grpcs://127.0.0.1:9; }\n}",
        True,
    ),
}


def _tree(build: Build, place: str, directive: str, text: str) -> str:
    lines, _ = PLACES[place]
    line = f"{directive} '{text}';"
    return HTTP.format(prefix=" ".join(build.in_prefix), lines=lines.replace("@LINE@", line))


def _stream_tree(build: Build, text: str) -> str:
    return (
        f"{build.load_module('stream')}events {{}}\nstream {{\n"
        "server { listen 127.0.0.1:18081;\nproxy_ssl on;\n"
        f"proxy_ssl_ciphers '{text}';\nproxy_pass 127.0.0.1:9;\n}}\n}}\n"
    )


@pytest.mark.parametrize("name", ALL_BUILD_NAMES)
def test_the_client_cipher_string_as_nginx_reads_it(
    name: str, provisioned: tuple[dict[str, Build], dict[str, str]], tmp_path: Path
) -> None:
    build = require_build(provisioned, name)
    cases = [
        (f"{place} {text!r}", _tree(build, place, directive, text), directive, reads)
        for text in STRINGS
        for place, (_, reads) in PLACES.items()
        for directive in ["grpc_ssl_ciphers" if place == "grpcs pass" else "proxy_ssl_ciphers"]
    ]
    if build.root is not None or build.stream_tls:  # Debian's loadable module, or built in
        cases += [(f"stream {text!r}", _stream_tree(build, text), "proxy_ssl_ciphers", True)
                  for text in STRINGS]  # fmt: skip
    wrong, stopped = [], 0
    for label, text, directive, reads in cases:
        conf = tmp_path / "nginx.conf"
        conf.write_text(text)
        at = next(n for n, line in enumerate(text.splitlines(), 1) if directive in line)
        emerg = first_emerg(nginx_check(build, conf).stderr)
        found = lint(load_path(str(conf)), build_target(build), Selection(select={"NGX4"}))
        errors = [f for f in found if f.severity == "error" and f.line == at]
        cipher_stop = emerg is not None and "SSL_CTX_set_cipher_list" in emerg[0]
        stopped += cipher_stop
        if emerg is not None and not cipher_stop:
            wrong.append(f"{label}: nginx stopped for another reason: {emerg}")
        elif cipher_stop != bool(errors) or (cipher_stop and not reads):
            wrong.append(f"{label}: nginx {emerg}, lint {[f.message for f in errors]}")
    assert not wrong, wrong
    assert stopped >= 2 * len(PLACES)  # at least two strings stop every build where it reads them
