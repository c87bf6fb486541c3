"""ssl_crl files against real `nginx -t` on the seven builds: nginx loads a server's CRL file as
it sets up its TLS context and stops where it reads nothing from it. Before nginx 1.27.2
OpenSSL's X509_LOOKUP_load_file takes certificates and CRLs alike (`X509_LOOKUP_load_file(...)
failed`); from 1.27.2 nginx reads the X509 CRL blocks itself (`cannot load CRL ...:
PEM_read_bio_X509_CRL() failed`), so a file of certificates alone is refused too. A backend's
CRL (proxy_ssl_crl, grpc_, uwsgi_, stream's) is read the same way, and only where nginx verifies
the backend: with verification off nginx -t passes whatever the file holds. nginx names no line:
NGX727 names the CRL line, with nginx's words (the library's reason where lint knows it)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.builds import ALL_BUILD_NAMES, STREAM_MODULE_NAMES, Build
from tests.conftest import binary_and_tree
from tests.live import (
    file_refusal_agrees,
    first_emerg,
    missing_file_agrees,
    nginx_check,
    tls_server_conf,
)
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


ABOUT = ("X509_LOOKUP_load_file(", "cannot load CRL")


def agrees(build: Build, nginx_bin: Path, conf: Path) -> None:
    """nginx -t and NGX727 agree on the CRL line (line 8); lint says the library's reason of
    nginx's own reader (PEM_read_bio_X509_CRL, 1.27.2)."""
    agreed = file_refusal_agrees(build, nginx_bin, conf, ABOUT, 8)
    if agreed is not None and "PEM_read_bio_X509_CRL" in agreed[0]:
        assert agreed[1] == agreed[0], agreed


PASSES = {
    "proxy": "proxy_pass https://127.0.0.1:9443;",
    "grpc": "grpc_pass grpcs://127.0.0.1:9443;",
    "uwsgi": "uwsgi_pass suwsgi://127.0.0.1:9443;",
}


def crl_conf(build: Build, family: str, verify: str, chain: Chain, crl: Path) -> str:
    """A tree with `crl` on line 8: a TLS server's ssl_crl (`server`), or the CRL of a pass to
    a TLS backend (http's proxy_, grpc_, uwsgi_ or stream's proxy_) with verification `verify`
    and the root as its CA."""
    if family == "server":
        return tls_server_conf(build, chain, f"ssl_crl {crl};")
    p = "proxy" if family == "stream" else family
    ca = f"{p}_ssl_verify {verify}; {p}_ssl_trusted_certificate {chain.root};\n{p}_ssl_crl {crl};\n"
    if family == "stream":
        return (
            f"{build.load_module('stream') or chr(10)}events {{}}\nstream {{\nserver {{\n"
            f"listen 127.0.0.1:8080;\nproxy_pass 127.0.0.1:9443; proxy_ssl on;\n{ca}}}\n}}\n"
        )
    return (
        f"events {{}}\nhttp {{\n{' '.join(build.in_prefix)}\nserver {{\nlisten 127.0.0.1:8080;\n"
        f"location / {{\n{PASSES[family]} {ca}}}\n}}\n}}\n"
    )


def crl_tree(
    provisioned: tuple[dict[str, Build], dict[str, str]],
    name: str,
    tmp_path: Path,
    family: str,
    chain: Chain,
    crl: Path,
    verify: str = "on",
) -> tuple[Build, Path, Path]:
    """The build, its --nginx-bin script and the tree of crl_conf (a stream case is drawn only
    for the builds with stream{}: STREAM_MODULE_NAMES)."""
    build, nginx_bin, tree = binary_and_tree(provisioned, name, tmp_path)
    assert family != "stream" or build.stream_tls or build.load_module("stream"), name
    conf = tree / "nginx.conf"
    conf.write_text(crl_conf(build, family, verify, chain, crl))
    return build, nginx_bin, conf


@pytest.mark.parametrize("name", ALL_BUILD_NAMES)
@pytest.mark.parametrize("file", FILES)
@pytest.mark.parametrize("family", ["server", "proxy"])
def test_crl_files_as_nginx_reads_them(
    name: str,
    file: str,
    family: str,
    provisioned: tuple[dict[str, Build], dict[str, str]],
    crls: Path,
    chain: Chain,
    tmp_path: Path,
) -> None:
    """A server's ssl_crl, and proxy_ssl_crl with proxy_ssl_verify on: read alike."""
    agrees(*crl_tree(provisioned, name, tmp_path, family, chain, crls / file))


@pytest.mark.parametrize(
    ("name", "family"),
    [(name, family) for name in ALL_BUILD_NAMES for family in ("proxy", "grpc", "uwsgi")]
    + [(name, "stream") for name in STREAM_MODULE_NAMES],
)
@pytest.mark.parametrize("verify", ["on", "off"])
def test_backend_crl_read_only_where_verified(
    name: str,
    family: str,
    verify: str,
    provisioned: tuple[dict[str, Build], dict[str, str]],
    crls: Path,
    chain: Chain,
    tmp_path: Path,
) -> None:
    """A garbage CRL file stops nginx -t where the backend is verified, and only there."""
    garbage = crls / "garbage.crl"
    build, nginx_bin, conf = crl_tree(provisioned, name, tmp_path, family, chain, garbage, verify)
    refused = first_emerg(nginx_check(build, conf).stderr) is not None
    assert refused == (verify == "on")  # what nginx does, that lint is held to
    agrees(build, nginx_bin, conf)


@pytest.mark.parametrize("name", ALL_BUILD_NAMES)
@pytest.mark.parametrize("family", ["server", "proxy"])
def test_a_missing_crl_file(
    name: str,
    family: str,
    provisioned: tuple[dict[str, Build], dict[str, str]],
    chain: Chain,
    tmp_path: Path,
) -> None:
    """A CRL file that does not exist, in the tree this machine's nginx reads."""
    build, _, conf = crl_tree(provisioned, name, tmp_path, family, chain, tmp_path / "missing.crl")
    missing_file_agrees(build, conf, ABOUT, 8)
