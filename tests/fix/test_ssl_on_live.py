"""`ssl on;` servers (the form before nginx 1.25.1; issue 44): TLS servers for every TLS rule, and
the fix that moves `ssl` onto the server's listens, checked with real `nginx -t`: Debian 12's
1.22.1 reads `ssl on;` (deprecated), 1.26.3 and 1.31.3 refuse it (`unknown directive "ssl"`), and
every one of them reads the fixed file."""

from __future__ import annotations

from pathlib import Path

import pytest

from nginxgen.base.version import Version
from nginxgen.shell.cli import main
from tests.builds import BUILD_NAMES, Build
from tests.conftest import require_build
from tests.live import nginx_check, prepare_prefix
from tests.pki import CertificateFactory

SITE = """worker_processes auto;
events {{}}
http {{
    server {{
        listen 127.0.0.1:8443;
        server_name a.test;
        ssl on;
        ssl_certificate {cert};
        ssl_certificate_key {key};
    }}
{other}}}
"""
PLAIN = "    server {\n        listen 127.0.0.1:8443 default_server;\n        return 204;\n    }\n"


def _tree(folder: Path, other: str = "") -> Path:
    chain = CertificateFactory(folder / "certs").leaf("a.test")
    conf = folder / "nginx.conf"
    conf.write_text(SITE.format(cert=chain.fullchain, key=chain.key, other=other))
    return conf


@pytest.mark.parametrize("name", BUILD_NAMES)
def test_ssl_on_is_tls_and_its_fix_passes_nginx_t(
    name: str,
    provisioned: tuple[dict[str, Build], dict[str, str]],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    build = require_build(provisioned, name)
    conf = _tree(tmp_path)
    prepare_prefix(conf, build)
    before = nginx_check(build, conf)
    removed = Version(build.nginx_version) >= Version("1.25.1")
    assert ('unknown directive "ssl"' in before.stderr) == removed, before.stderr
    assert main(["lint", *build.target_flags, str(conf)]) == 1
    out = capsys.readouterr().out
    # a TLS server: the TLS rules judge it (no HSTS, no session cache)
    assert " NGX701 " in out and " NGX601 " in out, out
    assert (" NGX301 error" if removed else " NGX302 warning") in out
    main(["lint", "--fix", "--select", "NGX301,NGX302", *build.target_flags, str(conf)])
    capsys.readouterr()
    text = conf.read_text()
    assert "ssl on;" not in text and "listen 127.0.0.1:8443 ssl;" in text, text
    after = nginx_check(build, conf)
    assert after.returncode == 0, after.stderr


def test_ssl_on_beside_a_plain_default_server_is_an_unsafe_fix(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The address's plain default server decided before: `ssl` on a listen would make the
    whole address TLS, so --fix leaves it."""
    conf = _tree(tmp_path, PLAIN)
    before = conf.read_text()
    target = ["--nginx-version", "1.22.1", "--tls-library", "openssl-3.0.22"]
    main(["lint", "--fix", "--select", "NGX302", *target, str(conf)])
    assert conf.read_text() == before
    assert "1 more fixable with --unsafe-fixes" in capsys.readouterr().out
