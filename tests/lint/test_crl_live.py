"""ssl_crl files against real `nginx -t` on the seven builds: nginx loads a server's CRL file as
it sets up its TLS context and stops where it reads nothing from it. Before nginx 1.27.2
OpenSSL's X509_LOOKUP_load_file takes certificates and CRLs alike (`X509_LOOKUP_load_file(...)
failed`); from 1.27.2 nginx reads the X509 CRL blocks itself (`cannot load CRL ...:
PEM_read_bio_X509_CRL() failed`), so a file of certificates alone is refused too. nginx names no
line: NGX727 names the ssl_crl line, with nginx's words (the library's reason where lint knows
it)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.builds import ALL_BUILD_NAMES, Build
from tests.conftest import binary_and_tree
from tests.live import nginx_and_lint
from tests.pki import CertificateFactory, Chain, empty_crl


@pytest.fixture(scope="module")
def factory(tmp_path_factory: pytest.TempPathFactory) -> CertificateFactory:
    return CertificateFactory(tmp_path_factory.mktemp("pki"), "ecdsa")


@pytest.fixture(scope="module")
def chain(factory: CertificateFactory) -> Chain:
    return factory.leaf("a.example")


@pytest.fixture(scope="module")
def crls(
    tmp_path_factory: pytest.TempPathFactory, factory: CertificateFactory, chain: Chain
) -> Path:
    """A folder of CRL files and files that only look like one."""
    folder = tmp_path_factory.mktemp("crl")
    crl = empty_crl(factory, folder / "ca.crl").read_text()
    assert "BEGIN X509 CRL" in crl
    certificate = chain.fullchain.read_text()
    (folder / "garbage.crl").write_text("not a CRL\n")
    (folder / "empty.crl").write_text("")
    (folder / "key.crl").write_text(chain.key.read_text())
    (folder / "certificate.crl").write_text(certificate)
    (folder / "certificate-then-crl.crl").write_text(certificate + crl)
    return folder


FILES = ["ca.crl", "garbage.crl", "empty.crl", "key.crl", "certificate.crl",
         "certificate-then-crl.crl"]  # fmt: skip


@pytest.mark.parametrize("name", ALL_BUILD_NAMES)
@pytest.mark.parametrize("file", FILES)
def test_crl_files_as_nginx_reads_them(
    name: str,
    file: str,
    provisioned: tuple[dict[str, Build], dict[str, str]],
    crls: Path,
    chain: Chain,
    tmp_path: Path,
) -> None:
    build, nginx_bin, tree = binary_and_tree(provisioned, name, tmp_path)
    conf = tree / "nginx.conf"
    conf.write_text(
        f"events {{}}\nhttp {{\n{' '.join(build.in_prefix)}\nserver {{\nlisten 127.0.0.1:8443 ssl;\n"
        f"ssl_certificate {chain.fullchain};\nssl_certificate_key {chain.key};\n"
        f"ssl_crl {crls / file};\n}}\n}}\n"
    )
    emerg, lines = nginx_and_lint(build, nginx_bin, conf, "NGX727")
    if emerg is None:
        assert lines == [], lines
        return
    said, line = emerg
    assert said.startswith(("X509_LOOKUP_load_file(", "cannot load CRL")), said
    assert line is None  # nginx names none: lint names the ssl_crl line
    assert len(lines) == 1 and ":8: NGX727 error " in lines[0], lines
    # lint says nginx's words up to the library's reason where it does not know that reason
    known = said if "PEM_read_bio_X509_CRL" in said else said.split(" (SSL: ")[0]
    assert known in lines[0], (lines, said)
