"""ssl_stapling_file against real `nginx -t` on the seven builds: with ssl_stapling on nginx
reads the file as it sets up the server's TLS context, once for each certificate it loads,
and stops where it cannot open it (`BIO_new_file("...") failed`) or reads no OCSP response in
DER from it (`d2i_OCSP_RESPONSE_bio("...") failed`: an empty file, text, a PEM-wrapped response,
a certificate in DER). With ssl_stapling off, for a certificate named with variables (loaded
per handshake), and with BoringSSL (`"ssl_stapling" ignored, not supported`) it reads nothing.
nginx names no line: NGX727 names the ssl_stapling_file line, with nginx's words up to the
library's reason (which differs between libraries and releases: OpenSSL 3.6 gives one for an
empty file, 3.0 to 3.5 and 4.0 none)."""

from __future__ import annotations

import base64
from pathlib import Path

import pytest
from cryptography import x509
from cryptography.hazmat.primitives.serialization import Encoding

from tests.builds import ALL_BUILD_NAMES, STREAM_MODULE_NAMES, Build
from tests.conftest import binary_and_tree
from tests.live import file_refusal_agrees, missing_file_agrees, nginx_and_lint, tls_server_conf
from tests.pki import CertificateFactory, Chain, ocsp_response

ABOUT = ("BIO_new_file(", "d2i_OCSP_RESPONSE_bio(")


@pytest.fixture(scope="module")
def factory(tmp_path_factory: pytest.TempPathFactory) -> CertificateFactory:
    return CertificateFactory(tmp_path_factory.mktemp("pki"), "ecdsa")


@pytest.fixture(scope="module")
def chain(factory: CertificateFactory) -> Chain:
    return factory.leaf("a.example")


@pytest.fixture(scope="module")
def responses(
    tmp_path_factory: pytest.TempPathFactory, factory: CertificateFactory, chain: Chain
) -> Path:
    """A folder of OCSP responses in DER and files that only look like one."""
    folder = tmp_path_factory.mktemp("ocsp")
    der = ocsp_response(factory, chain, folder / "good.der").read_bytes()
    # a responder's refusal is a response too (responseStatus only): nginx staples it as read
    (folder / "unauthorized.der").write_bytes(bytes.fromhex("30030a0106"))
    # the same in BER, of indefinite length: OpenSSL's and AWS-LC's d2i take it
    (folder / "indefinite.der").write_bytes(bytes.fromhex("30800a01060000"))
    (folder / "empty.der").write_bytes(b"")
    (folder / "garbage.der").write_text("not an OCSP response\n")
    body = base64.encodebytes(der).decode()
    (folder / "response.pem").write_text(f"-----BEGIN OCSP RESPONSE-----\n{body}-----END OCSP RESPONSE-----\n")  # fmt: skip
    leaf = x509.load_pem_x509_certificate(chain.leaf.read_bytes())
    (folder / "certificate.der").write_bytes(leaf.public_bytes(Encoding.DER))
    return folder


FILES = ["good.der", "unauthorized.der", "indefinite.der", "empty.der", "garbage.der",
         "response.pem", "certificate.der"]  # fmt: skip


@pytest.mark.parametrize("name", ALL_BUILD_NAMES)
@pytest.mark.parametrize("file", FILES)
@pytest.mark.parametrize("stapling", ["on", "off"])
def test_stapling_files_as_nginx_reads_them(
    name: str,
    file: str,
    stapling: str,
    provisioned: tuple[dict[str, Build], dict[str, str]],
    responses: Path,
    chain: Chain,
    tmp_path: Path,
) -> None:
    build, nginx_bin, tree = binary_and_tree(provisioned, name, tmp_path)
    conf = tree / "nginx.conf"
    lines = f"ssl_stapling {stapling}; ssl_stapling_file {responses / file};"
    conf.write_text(tls_server_conf(build, chain, lines))
    agreed = file_refusal_agrees(build, nginx_bin, conf, ABOUT, 8)
    assert agreed is None or stapling == "on"  # what nginx does, that lint is held to


@pytest.mark.parametrize("name", ALL_BUILD_NAMES)
def test_no_stapling_file_read_for_a_certificate_with_variables(
    name: str,
    provisioned: tuple[dict[str, Build], dict[str, str]],
    responses: Path,
    chain: Chain,
    tmp_path: Path,
) -> None:
    """A certificate named with variables is loaded per handshake: nginx staples nothing for
    it and reads no stapling file (nginx -t passes with a garbage one)."""
    build, nginx_bin, tree = binary_and_tree(provisioned, name, tmp_path)
    conf = tree / "nginx.conf"
    lines = f"ssl_stapling on; ssl_stapling_file {responses / 'garbage.der'};"
    text = tls_server_conf(build, chain, lines)
    conf.write_text(text.replace(str(chain.fullchain), f"{chain.fullchain}$ssl_server_name"))
    assert file_refusal_agrees(build, nginx_bin, conf, ABOUT, 8) is None


@pytest.mark.parametrize("name", STREAM_MODULE_NAMES)
def test_stapling_file_in_stream(
    name: str,
    provisioned: tuple[dict[str, Build], dict[str, str]],
    responses: Path,
    chain: Chain,
    tmp_path: Path,
) -> None:
    """stream{} has ssl_stapling from nginx 1.27.2 (CHANGES): there the file is read as in
    http{}; before, nginx refuses the line as not allowed (NGX008's), and NGX727 says nothing."""
    build, nginx_bin, tree = binary_and_tree(provisioned, name, tmp_path)
    assert build.stream_tls or build.load_module("stream"), name
    conf = tree / "nginx.conf"
    conf.write_text(
        f"{build.load_module('stream') or chr(10)}events {{}}\nstream {{\nserver {{\n"
        f"listen 127.0.0.1:8443 ssl;\nssl_certificate {chain.fullchain}; "
        f"ssl_certificate_key {chain.key};\nproxy_pass 127.0.0.1:9443;\n"
        f"ssl_stapling on; ssl_stapling_file {responses / 'garbage.der'};\n}}\n}}\n"
    )
    emerg, lines = nginx_and_lint(build, nginx_bin, conf, "NGX727")
    if emerg is not None and "directive is not allowed here" in emerg[0]:
        assert lines == [], lines
        return
    assert file_refusal_agrees(build, nginx_bin, conf, ABOUT, 8) is not None


@pytest.mark.parametrize("name", ALL_BUILD_NAMES)
def test_a_missing_stapling_file(
    name: str, provisioned: tuple[dict[str, Build], dict[str, str]], chain: Chain, tmp_path: Path
) -> None:
    """A stapling file that does not exist, in the tree this machine's nginx reads."""
    build, _, tree = binary_and_tree(provisioned, name, tmp_path)
    conf = tree / "nginx.conf"
    lines = f"ssl_stapling on; ssl_stapling_file {tmp_path / 'missing.der'};"
    conf.write_text(tls_server_conf(build, chain, lines))
    missing_file_agrees(build, conf, ABOUT, 8)
