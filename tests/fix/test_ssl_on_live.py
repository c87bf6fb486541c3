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


def test_ssl_on_beside_a_plain_default_server_changes_nothing(
    provisioned: tuple[dict[str, Build], dict[str, str]],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """`ssl on;` in a server that is not the default of its address made nothing TLS there: the
    default server decides (FreshRSS's config, found trying it as a new user, was called an
    NGX715 error and --unsafe-fixes made its plain port TLS, which nginx -t then refused).
    No TLS rule judges that listen; the fix drops the line and leaves the listen plain; a
    listen the server is the default of gets the parameter."""
    build = require_build(provisioned, "bookworm")
    conf = _tree(tmp_path, PLAIN)
    text = conf.read_text().replace(
        "        listen 127.0.0.1:8443;\n",
        "        listen 127.0.0.1:8443;\n        listen 127.0.0.1:8444;\n",
    )
    conf.write_text(text)
    prepare_prefix(conf, build)
    assert nginx_check(build, conf).returncode == 0
    main(["lint", *build.target_flags, str(conf)])
    out = capsys.readouterr().out
    assert " NGX715 " not in out and " error " not in out, out
    assert "127.0.0.1:8443" not in out, out  # a plain address: no TLS finding names it
    main(["lint", "--fix", "--select", "NGX302", *build.target_flags, str(conf)])
    capsys.readouterr()
    fixed = conf.read_text()
    assert "ssl on;" not in fixed, fixed
    assert "listen 127.0.0.1:8443;" in fixed and "listen 127.0.0.1:8444 ssl;" in fixed, fixed
    after = nginx_check(build, conf)
    assert after.returncode == 0, after.stderr


@pytest.mark.parametrize("name", ["bookworm", "trixie"])
def test_ssl_on_beside_a_tls_default_server_gets_the_parameter(
    name: str,
    provisioned: tuple[dict[str, Build], dict[str, str]],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Trial 16 (kobo-docker): `ssl on;` in a server that is not the default of an address
    another server's `listen ... ssl` makes TLS. The address stays TLS whatever that line says;
    the fix drops it and writes `ssl` on the server's listen (before, the listen stayed bare and
    nginx 1.26.3 warned `protocol options redefined`). nginx -t passes the fixed file without a
    warning."""
    build = require_build(provisioned, name)
    tls_default = PLAIN.replace("default_server;", "ssl default_server;").replace(
        "return 204;", "ssl_reject_handshake on;"
    )
    conf = _tree(tmp_path, tls_default)
    prepare_prefix(conf, build)
    main(["lint", "--fix", "--select", "NGX301,NGX302", *build.target_flags, str(conf)])
    capsys.readouterr()
    fixed = conf.read_text()
    assert "ssl on;" not in fixed and "listen 127.0.0.1:8443 ssl;" in fixed, fixed
    after = nginx_check(build, conf)
    assert after.returncode == 0 and "[warn]" not in after.stderr, after.stderr
