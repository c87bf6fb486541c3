"""mail{} servers with TLS on and no certificate, against real `nginx -t` (issue 44: `starttls
on;` with no ssl_certificate; nginx stops with `no "ssl_certificate" is defined for the
"starttls" directive in FILE:LINE` and lint said nothing). TLS is on where a listen has `ssl`,
`ssl on` is in effect (until 1.25.1) or starttls is on or only, the server's or mail{}'s; nginx
names the line of the mode. Where nginx refuses it, NGX715 gives nginx's words at nginx's line;
where nginx reads it, NGX715 says nothing. Only Debian's builds have the mail module."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.builds import Build
from tests.conftest import binary_and_tree
from tests.live import nginx_and_lint
from tests.pki import CertificateFactory, Chain

SMTP = "listen 127.0.0.1:2525; protocol smtp; smtp_auth none;"
IMAP = "listen 127.0.0.1:9993 ssl; protocol imap;"
CASES = {  # name: (mail{} lines, the server's lines); {cert} and {key}: a certificate and key
    "starttls": ("", f"{SMTP} starttls on;"),
    "starttls only": ("", f"{SMTP} starttls only;"),
    "listen ssl": ("", IMAP),
    "starttls at mail level": ("starttls on;", SMTP),
    "starttls then listen ssl": ("", f"protocol imap; starttls on; {IMAP.replace('protocol imap;', '')}"),
    "starttls off in the server": ("starttls on;", f"{SMTP} starttls off;"),
    "certificate at mail level": ("ssl_certificate {cert}; ssl_certificate_key {key};", f"{SMTP} starttls on;"),
    "no key": ("ssl_certificate {cert};", IMAP),
    "fewer keys": ("", f"{IMAP} ssl_certificate {{cert}}; ssl_certificate {{cert}}; ssl_certificate_key {{key}};"),
    "ssl on": ("", f"{SMTP} ssl on;"),  # refused as unknown from 1.25.1: then not this rule's
    "no TLS": ("", SMTP),
}  # fmt: skip


@pytest.fixture(scope="module")
def chain(tmp_path_factory: pytest.TempPathFactory) -> Chain:
    return CertificateFactory(tmp_path_factory.mktemp("pki"), "ecdsa").leaf("mail.example")


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("name", ["bookworm", "trixie"])
def test_mail_tls_needs_a_certificate(
    name: str,
    case: str,
    provisioned: tuple[dict[str, Build], dict[str, str]],
    chain: Chain,
    tmp_path: Path,
) -> None:
    build, nginx_bin, tree = binary_and_tree(provisioned, name, tmp_path)
    top, server = (part.format(cert=chain.fullchain, key=chain.key) for part in CASES[case])
    lines_of_server = server.replace("; ", ";\n")  # one line each: nginx names one
    conf = tree / "nginx.conf"
    conf.write_text(
        f"{build.load_module('mail')}events {{}}\nmail {{\nauth_http 127.0.0.1:8888/auth;\n"
        f"{top}\nserver {{\n{lines_of_server}\n}}\n}}\n"
    )
    emerg, lines = nginx_and_lint(build, nginx_bin, conf, "NGX715")
    if emerg is None or "ssl_certificate" not in emerg[0]:
        assert lines == [], (emerg, lines)
        return
    said, line = emerg
    assert len(lines) == 1 and f":{line}: NGX715 error {said}" in lines[0], (lines, said)
