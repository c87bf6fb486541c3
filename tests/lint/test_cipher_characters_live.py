"""A character in ssl_ciphers that is no word, separator or command (trial 14, allanian/docker:
nano's `$` at the end of a cut line). BoringSSL and AWS-LC stop there (INVALID_COMMAND) and
nginx -t fails; OpenSSL skips it and reads on. NGX410 says so where nginx stops, and lint's
cipher rules say no error where it passes. `[a|b]` groups are BoringSSL's and AWS-LC's syntax,
and no character OpenSSL reads."""

from __future__ import annotations

from pathlib import Path

import pytest

from nginxgen.conf.load import load_path
from nginxgen.lint.run import Selection, lint
from tests.builds import ALL_BUILD_NAMES, Build
from tests.conftest import require_build
from tests.fuzzing.generate_check import build_target
from tests.live import first_emerg, nginx_check
from tests.pki import CertificateFactory

STRINGS = [
    "ECDHE-ECDSA-AES128-GCM-SHA256:AB$C",
    "HIGH:%X",
    "HIGH:A/B",
    "HIGH:A_B",  # word characters: no stop
    "HIGH:A.B",
    # BoringSSL's and AWS-LC's equal-preference groups: taken there, INVALID_COMMAND on OpenSSL
    # (trial 21: NGX408 said the string enabled nothing on BoringSSL, where nginx -t passed)
    "[ECDHE-ECDSA-AES128-GCM-SHA256|ECDHE-RSA-AES128-GCM-SHA256]:ECDHE-RSA-AES256-GCM-SHA384",
    "[ECDHE-ECDSA-AES128-GCM-SHA256|ECDHE-RSA-AES128-GCM-SHA256",  # never closed
    "[NO-SUCH-SUITE|NOR-THIS-ONE]",  # a group that enables nothing
]


@pytest.mark.parametrize("name", ALL_BUILD_NAMES)
def test_a_stray_character_in_the_cipher_string(
    name: str, provisioned: tuple[dict[str, Build], dict[str, str]], tmp_path: Path
) -> None:
    build = require_build(provisioned, name)
    chain = CertificateFactory(tmp_path / "pki").leaf("a.example")
    wrong = []
    for text in STRINGS:
        conf = tmp_path / "nginx.conf"
        conf.write_text(
            f"events {{}}\nhttp {{ {' '.join(build.in_prefix)}\n"
            "server { listen 127.0.0.1:18443 ssl;\n"
            f"ssl_certificate {chain.fullchain}; ssl_certificate_key {chain.key};\n"
            f"ssl_ciphers '{text}';\n}}\n}}\n"
        )
        emerg = first_emerg(nginx_check(build, conf).stderr)
        found = lint(load_path(str(conf)), build_target(build), Selection(select={"NGX4"}))
        errors = [f for f in found if f.severity == "error" and f.line == 5]
        if (emerg is not None) != bool(errors) or (emerg and "cipher" not in emerg[0]):
            wrong.append(f"{text!r}: nginx {emerg}, lint {[f.message for f in errors]}")
    assert not wrong, wrong
