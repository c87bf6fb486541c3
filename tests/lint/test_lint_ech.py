"""The Encrypted Client Hello rules that read key files and certificates (NGX751, NGX752), on key
files made by OpenSSL 4.0.3's own `openssl ech`, and what the real builds without ECH say of
`ssl_ech_file` (the rules NGX007 and NGX505 say the same). The nginx side of each rule (which
file nginx refuses, which public name loses the retries) was seen on nginx 1.30.4 built against
OpenSSL 4.0.3 (scripts/ech_nginx_proof.py, docs/live-verification.md); no CI build has both."""

from __future__ import annotations

from pathlib import Path

import pytest

from nginxgen.conf.load import load_path
from nginxgen.knowledge import directives, ech, libraries
from nginxgen.knowledge.target import resolve
from nginxgen.lint.findings import Finding
from tests.builds import Build
from tests.conftest import require_build
from tests.every_rule import lint_checked
from tests.helpers import CertPair, make_cert
from tests.knowledge.test_tls_libraries_live import nginx_t

ECH = ("1.30.4", "openssl-4.0.3")
REJECT = "server { listen 443 ssl default_server; ssl_reject_handshake on; }\n"
HSTS = 'add_header Strict-Transport-Security "max-age=63072000" always;'


@pytest.fixture(scope="module")
def openssl40(provisioned: tuple[dict[str, Build], dict[str, str]]) -> Build:
    return require_build(provisioned, "openssl40")


@pytest.fixture
def key(openssl40: Build, tmp_path: Path) -> Path:
    """A key file as OpenSSL 4.0.3 writes it, public name public.example."""
    path = tmp_path / "ech.pem"
    done = openssl40.openssl("ech", "-public_name", "public.example", "-out", str(path))
    assert done.returncode == 0, done.stderr
    return path


def server(name: str, folder: Path, cert_name: str | None = None) -> str:
    pair = make_cert(folder / "certs", cert_name or name)
    return (
        f"server {{ listen 443 ssl; server_name {name}; ssl_certificate {pair.cert}; "
        f"ssl_certificate_key {pair.key}; {HSTS} }}\n"
    )


def findings(folder: Path, key: Path, *servers: str) -> list[Finding]:
    conf = folder / "nginx.conf"
    conf.write_text(
        "events {}\nhttp {\nssl_session_cache shared:S:1m; ssl_protocols TLSv1.2 TLSv1.3;\n"
        f"ssl_ech_file {key};\n" + "".join(servers) + "}\n"
    )
    return [f for f in lint_checked(load_path(str(conf)), resolve(*ECH))
            if f.code.startswith("NGX75")]  # fmt: skip


def test_a_key_file_from_openssl_passes(key: Path, tmp_path: Path) -> None:
    assert findings(tmp_path, key, REJECT, server("public.example", tmp_path)) == []


@pytest.mark.parametrize(
    ("cut", "said"),
    [
        # the ECHCONFIG block alone: nginx -t succeeds and nothing is decrypted
        (lambda t: t[t.index("-----BEGIN ECHCONFIG") :], "an ECHCONFIG but no PRIVATE KEY"),
        # the PRIVATE KEY alone: nginx -t fails
        (lambda t: t[: t.index("-----BEGIN ECHCONFIG")], "nginx -t fails"),
        # a base64 line of the ECHCONFIG cut short
        (lambda t: t.replace("-----END ECHCONFIG", "AAAA\n-----END ECHCONFIG"), "does not parse"),
    ],
)  # fmt: skip
def test_a_key_file_that_does_not_work(key: Path, tmp_path: Path, cut: object, said: str) -> None:
    key.write_text(cut(key.read_text()))  # type: ignore[operator]
    (found,) = findings(tmp_path, key, REJECT, server("public.example", tmp_path))
    assert found.code == "NGX751" and said in found.message, found.message


def test_a_key_of_another_ech_config(key: Path, openssl40: Build, tmp_path: Path) -> None:
    other = tmp_path / "other.pem"
    openssl40.openssl("ech", "-public_name", "public.example", "-out", str(other))
    text, theirs = key.read_text(), other.read_text()
    mine = text[: text.index("-----BEGIN ECHCONFIG")]
    key.write_text(mine + theirs[theirs.index("-----BEGIN ECHCONFIG") :])
    (found,) = findings(tmp_path, key, REJECT, server("public.example", tmp_path))
    assert found.code == "NGX751" and "not the one its ECHCONFIG publishes" in found.message


def test_the_public_name_refused_by_the_default_server(key: Path, tmp_path: Path) -> None:
    (found,) = findings(tmp_path, key, REJECT, server("a.example", tmp_path))
    assert found.code == "NGX752"
    assert "the public name public.example is refused on *:443" in found.message


def test_the_public_name_with_a_certificate_for_another_name(key: Path, tmp_path: Path) -> None:
    default = server("public.example", tmp_path, cert_name="a.example").replace(
        "listen 443 ssl;", "listen 443 ssl default_server;"
    )
    (found,) = findings(tmp_path, key, default)
    assert found.code == "NGX752" and "whose certificate does not cover it" in found.message


def test_a_wildcard_certificate_covers_the_public_name(key: Path, tmp_path: Path) -> None:
    wildcard = server("public.example", tmp_path, cert_name="*.example")
    assert findings(tmp_path, key, REJECT, wildcard) == []


def test_stream_servers_are_judged_alike(key: Path, tmp_path: Path) -> None:
    """stream{}: its default server's key files decide too (scripts/ech_nginx_proof.py,
    stream-default-decides): a public name its default server's certificate does not cover
    (NGX752), and TLS 1.3 off there (NGX412)."""
    other = make_cert(tmp_path / "certs", "a.example")
    conf = tmp_path / "nginx.conf"

    def codes(protocols: str, pair: CertPair) -> list[str]:
        conf.write_text(
            "events {}\nhttp { server { listen 80; } }\nstream {\n"
            f"ssl_protocols {protocols}; ssl_ech_file {key};\n"
            "server { listen 5443 ssl default_server; server_name public.example; "
            f"ssl_certificate {pair.cert}; ssl_certificate_key {pair.key}; "
            "proxy_pass 127.0.0.1:1; }\n}\n"
        )
        found = lint_checked(load_path(str(conf)), resolve(*ECH))
        return sorted(f.code for f in found if f.code in ("NGX412", "NGX752"))

    assert codes("TLSv1.2 TLSv1.3", other) == ["NGX752"]
    assert codes("TLSv1.2", other) == ["NGX412", "NGX752"]
    assert codes("TLSv1.2 TLSv1.3", make_cert(tmp_path / "certs", "public.example")) == []


def test_builds_without_ech_say_what_the_rules_say(
    provisioned: tuple[dict[str, Build], dict[str, str]], key: Path, tmp_path: Path
) -> None:
    """The wheel (nginx 1.31.3, OpenSSL 3.3.7) knows the directive and ignores it with the
    warning the knowledge quotes (NGX505); nginx 1.28.3 does not know it (NGX007)."""
    wheel = require_build(provisioned, "wheel")
    for folder in ("wheel", "old"):
        (tmp_path / folder).mkdir()
    done = nginx_t(wheel, tmp_path / "wheel", f"ssl_ech_file {key};")
    assert done.returncode == 0, done.stderr
    warning = '"ssl_ech_file" is not supported on this platform, ignored'
    assert warning in done.stderr
    assert warning in libraries.capability(wheel.library, "ech").refusal
    old = require_build(provisioned, "openssl40")
    done = nginx_t(old, tmp_path / "old", f"ssl_ech_file {key};")
    assert done.returncode == 1 and 'unknown directive "ssl_ech_file"' in done.stderr
    assert directives.directive_first_release("ssl_ech_file") == "1.29.4"
    assert ech.ech_refusal(resolve(old.nginx_version, old.tls_library)) == (
        "nginx has ssl_ech_file only from 1.29.4"
    )
