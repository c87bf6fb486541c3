"""Two lines one block may not hold (knowledge block_conflicts): mail's `ssl on` beside
`starttls on`, as nginx's own IMAP proxy example has them (found trying it as a new user). On
Debian 12's nginx 1.22.1 nginx -t stops at the later of the two with its own message; lint says
the same at the same line, and NGX302's fix no longer says to move `ssl` onto the listens."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.builds import Build
from tests.conftest import require_build
from tests.directive_probe import nginx_t_at
from tests.live import lint_as, nginx_bin_script
from tests.pki import CertificateFactory, Chain


def _mail(build: Build, first: str, second: str, chain: Chain) -> str:
    assert build.root is not None
    module = build.root / "usr/lib/nginx/modules/ngx_mail_module.so"
    return (
        f"load_module {module};\nevents {{}}\nmail {{\n    auth_http 127.0.0.1:9000/auth;\n"
        f"    {first}\n    {second}\n"
        f"    ssl_certificate {chain.fullchain};\n    ssl_certificate_key {chain.key};\n"
        "    server {\n        listen 127.0.0.1:9143;\n        protocol imap;\n    }\n}\n"
    )


@pytest.mark.parametrize(
    ("first", "second", "message"),
    [
        ("starttls on;", "ssl on;", '"starttls" directive conflicts with "ssl on"'),
        ("ssl on;", "starttls only;", '"ssl" directive conflicts with "starttls"'),
        ("ssl off;", "starttls on;", ""),
    ],
)
def test_ssl_beside_starttls(
    first: str,
    second: str,
    message: str,
    provisioned: tuple[dict[str, Build], dict[str, str]],
    tmp_path: Path,
) -> None:
    build = require_build(provisioned, "bookworm")
    chain = CertificateFactory(tmp_path / "pki").leaf("mail.example")
    text = _mail(build, first, second, chain)
    said, line = nginx_t_at(build, text, tmp_path)
    assert said == message
    nginx_bin = nginx_bin_script(build, None, tmp_path / "nginx-bin")
    found = lint_as(nginx_bin, tmp_path / "nginx.conf", "NGX010,NGX302")
    if message:
        assert line == 6
        assert f"nginx.conf:6: NGX010 error {message}" in found.stdout
        ssl, starttls = sorted((first, second), key=lambda line: not line.startswith("ssl"))
        fix = f"fix: remove one of `{ssl}` and `{starttls}`"
        assert found.stdout.count(fix) == 2, found.stdout  # NGX010's and NGX302's
        assert "listen 443 ssl" not in found.stdout
    else:
        assert "NGX010" not in found.stdout


def test_a_mail_address_listened_on_twice(
    provisioned: tuple[dict[str, Build], dict[str, str]], tmp_path: Path
) -> None:
    """Two mail servers on one address:port (nauthilus' example, found trying it as a new
    user): nginx -t stops at the second listen; lint says the same there."""
    build = require_build(provisioned, "bookworm")
    chain = CertificateFactory(tmp_path / "pki").leaf("mail.example")
    text = _mail(build, "starttls on;", "smtp_auth plain;", chain).replace(
        "        protocol imap;\n    }\n",
        "        protocol imap;\n    }\n    server {\n        listen 127.0.0.1:9143;\n"
        "        protocol imap;\n    }\n",
    )
    said, line = nginx_t_at(build, text, tmp_path)
    assert said == 'duplicate "127.0.0.1:9143" address and port pair', said
    found = lint_as(
        nginx_bin_script(build, None, tmp_path / "nginx-bin"), tmp_path / "nginx.conf", "NGX010"
    )
    assert f"nginx.conf:{line}: NGX010 error {said}" in found.stdout, found.stdout


STREAM_TWICE = """{load}events {{}}
stream {{
    server {{
        listen {first};
        proxy_pass 127.0.0.1:9;
    }}
    server {{
        listen {second};
        proxy_pass 127.0.0.1:10;
    }}
}}
"""


@pytest.mark.parametrize(
    ("first", "second", "address"),
    [
        ("8443", "8443", "0.0.0.0:8443"),  # nginx names the address as it parsed it
        ("8443", "0.0.0.0:8443", "0.0.0.0:8443"),
        ("127.0.0.1:8443", "127.0.0.1:8443", "127.0.0.1:8443"),
        ("[::1]:8443", "[::1]:8443", "[::1]:8443"),
        ("8443", "8443 udp", None),  # a UDP socket is apart from a TCP one
        ("127.0.0.1:8443", "8443", None),  # two addresses: bound apart
    ],
)
@pytest.mark.parametrize("name", ["bookworm", "trixie"])
def test_a_stream_address_listened_on_twice(
    first: str,
    second: str,
    address: str | None,
    name: str,
    provisioned: tuple[dict[str, Build], dict[str, str]],
    tmp_path: Path,
) -> None:
    """Two stream servers on one address:port (trial 20, Signal-TLS-Proxy's layout): before
    nginx 1.25.5 (Debian 12's 1.22.1) nginx -t stops at the second listen, as for mail, and
    lint said nothing; from 1.25.5 (Debian 13's 1.26.3) the servers share the address by name,
    and nginx -t passes."""
    build = require_build(provisioned, name)
    text = STREAM_TWICE.format(load=build.load_module("stream"), first=first, second=second)
    said, line = nginx_t_at(build, text, tmp_path)
    duplicate = address is not None and name == "bookworm"
    assert said == (f'duplicate "{address}" address and port pair' if duplicate else ""), said
    found = lint_as(
        nginx_bin_script(build, None, tmp_path / "nginx-bin"), tmp_path / "nginx.conf", "NGX010"
    )
    if duplicate:
        assert f"nginx.conf:{line}: NGX010 error {said}" in found.stdout, found.stdout
    else:
        assert "NGX010" not in found.stdout, found.stdout
