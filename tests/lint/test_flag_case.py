"""A flag written in capitals (`ssl_stapling ON;`) is on: nginx reads `on` and `off` in any
case (ngx_conf_set_flag_slot compares with ngx_strcasecmp), and lint read only `on`, so every
rule that asked whether a flag was on took `ON` for off. Each tree below is linted with its
flags as written and in capitals: the same findings at the same lines, and real `nginx -t` on
Debian 12's and 13's nginx gives the same verdict and warnings for both."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from nginxgen.conf.load import load_path
from tests.builds import Build
from tests.conftest import binary_and_tree
from tests.every_rule import lint_checked
from tests.live import live_target, nginx_check
from tests.pki import CertificateFactory, Chain

# lines whose flag changes what lint finds (each test checks that it does)
TREES = {
    "stapling": "ssl_stapling on;",
    "a server refusing handshakes": "ssl_reject_handshake on;",
    "a verified backend": "location / { proxy_pass https://127.0.0.1:9; proxy_ssl_verify on; }",
    "a backend sent its name": (
        "location / { proxy_pass https://127.0.0.1:9; proxy_ssl_server_name on; }"
    ),
}


@pytest.fixture(scope="module")
def chain(tmp_path_factory: pytest.TempPathFactory) -> Chain:
    return CertificateFactory(tmp_path_factory.mktemp("pki"), "ecdsa").leaf("a.example")


def _tree(build: Build, chain: Chain, lines: str) -> str:
    return (
        f"events {{}}\nhttp {{\n{' '.join(build.in_prefix)}\n"
        "server {\nlisten 127.0.0.1:8443 ssl default_server;\nserver_name a.example;\n"
        f"ssl_certificate {chain.fullchain};\nssl_certificate_key {chain.key};\n"
        'add_header Strict-Transport-Security "max-age=63072000" always;\n'
        f"{lines}\n}}\n}}\n"
    )


def _said(stderr: str) -> list[str]:
    """nginx -t's warnings and errors, without the time stamp and process."""
    return [m.group(1) for m in re.finditer(r"\[(?:warn|emerg)\] \S+ (.*)$", stderr, re.M)]


@pytest.mark.parametrize("case", TREES)
@pytest.mark.parametrize("name", ["bookworm", "trixie"])
def test_a_flag_in_capitals_is_on(
    case: str,
    name: str,
    provisioned: tuple[dict[str, Build], dict[str, str]],
    chain: Chain,
    tmp_path: Path,
) -> None:
    build, _, tree = binary_and_tree(provisioned, name, tmp_path)
    lines = TREES[case]
    seen = []
    for written in ("", lines, lines.replace(" on;", " ON;")):
        conf = tree / "nginx.conf"
        conf.write_text(_tree(build, chain, written))
        done = nginx_check(build, conf)
        found = lint_checked(load_path(str(conf)), live_target(build, conf))
        seen.append((done.returncode, _said(done.stderr), sorted((f.code, f.line) for f in found)))
    (_, _, without), (code, said, lower), (code_up, said_up, upper) = seen
    assert lower != without  # the flag matters to lint
    assert (code_up, said_up) == (code, said)  # nginx reads them alike
    assert upper == lower
