"""A fix held back as unsafe because the target was assumed says why in the text output, as ruff
says why a fix is unsafe (issue 44): `listen ... http2` -> `http2 on;` is right from nginx 1.25.1
on, and Debian 12's nginx 1.22.1 refuses the fixed file (`unknown directive "http2"`)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from nginxgen.shell.cli import main
from tests.builds import Build
from tests.conftest import require_build
from tests.live import nginx_check, prepare_prefix
from tests.pki import CertificateFactory

SITE = """events {{}}
http {{
    server {{
        listen 127.0.0.1:8443 ssl http2;
        server_name a.test;
        ssl_certificate {cert};
        ssl_certificate_key {key};
    }}
}}
"""
REASON = (
    "    unsafe fix: nginx 1.30.4 was assumed, and this fix is right only for some nginx "
    "releases (--unsafe-fixes applies it; --nginx-version, --tls-library, --nginx-bin or the "
    "settings file's target make it safe)"
)


def _tree(tmp_path: Path) -> Path:
    chain = CertificateFactory(tmp_path / "certs").leaf("a.test")
    conf = tmp_path / "nginx.conf"
    conf.write_text(SITE.format(cert=chain.fullchain, key=chain.key))
    return conf


def test_a_held_back_fix_says_why(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    conf = _tree(tmp_path)
    before = conf.read_text()
    assert main(["lint", "--fix", "--select", "NGX302", str(conf)]) == 1
    out = capsys.readouterr().out.splitlines()
    at = next(n for n, line in enumerate(out) if " NGX302 " in line)
    assert out[at + 1].startswith("    fix: ")
    assert out[at + 2] == REASON
    assert conf.read_text() == before  # held back: nothing written
    # a target that is given: the same fix is safe, applied, and no reason is printed
    assert main(["lint", "--select", "NGX302", "--nginx-version", "1.26.3", str(conf)]) == 1
    assert "unsafe fix:" not in capsys.readouterr().out


def test_the_reason_is_true_on_debian_12(
    provisioned: tuple[dict[str, Build], dict[str, str]], tmp_path: Path
) -> None:
    """What --unsafe-fixes writes under the assumed target breaks Debian 12's nginx -t, which
    passed before: the hold was right."""
    build = require_build(provisioned, "bookworm")
    conf = _tree(tmp_path)
    prepare_prefix(conf, build)
    assert nginx_check(build, conf).returncode == 0
    subprocess.run(
        [sys.executable, "-m", "nginxgen", "lint", "--unsafe-fixes", "--select", "NGX302", conf],
        capture_output=True,
        check=False,
        env={"NGINXGEN_NGINX": "none", "PATH": "/usr/bin:/bin"},
    )
    assert "http2 on;" in conf.read_text()
    assert 'unknown directive "http2"' in nginx_check(build, conf).stderr
