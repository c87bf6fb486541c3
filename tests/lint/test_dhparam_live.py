"""DH parameters files against real `nginx -t` on the seven builds (issue 44: `ssl_dhparam` on
an empty file; nginx stops with `PEM_read_bio_DHparams("...") failed (SSL: ...no start
line...)` and lint said nothing). nginx names no line: NGX727 names the ssl_dhparam line, with
nginx's words as each library prints them. PEM_read_bio_DHparams skips blocks of other names:
parameters after a certificate load; X9.42 parameters load with OpenSSL only."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.builds import ALL_BUILD_NAMES, Build
from tests.conftest import binary_and_tree
from tests.live import file_refusal_agrees, tls_server_conf
from tests.pki import CertificateFactory, Chain

GROUP = ("-pkeyopt", "group:ffdhe2048")


@pytest.fixture(scope="module")
def chain(tmp_path_factory: pytest.TempPathFactory) -> Chain:
    return CertificateFactory(tmp_path_factory.mktemp("pki"), "ecdsa").leaf("a.example")


@pytest.fixture(scope="module")
def parameters(tmp_path_factory: pytest.TempPathFactory, client: Build, chain: Chain) -> Path:
    """A folder of DH parameters files and files that only look like one, made by OpenSSL."""
    folder = tmp_path_factory.mktemp("dh")
    client.openssl("genpkey", "-genparam", "-algorithm", "DH", *GROUP, "-out", f"{folder}/dh.pem")
    client.openssl("genpkey", "-genparam", "-algorithm", "DHX", "-pkeyopt", "dh_rfc5114:2",
                   "-out", f"{folder}/x942.pem")  # fmt: skip
    client.openssl("dhparam", "-in", f"{folder}/dh.pem", "-outform", "DER", "-out", f"{folder}/der")
    client.openssl("ecparam", "-name", "prime256v1", "-out", f"{folder}/ec.pem")
    (folder / "empty.pem").write_text("")
    certificate = chain.fullchain.read_text()
    (folder / "certificate.pem").write_text(certificate)
    (folder / "certificate-then-dh.pem").write_text(certificate + (folder / "dh.pem").read_text())
    assert "BEGIN X9.42 DH PARAMETERS" in (folder / "x942.pem").read_text()
    return folder


FILES = ["empty.pem", "der", "certificate.pem", "ec.pem", "dh.pem", "x942.pem",
         "certificate-then-dh.pem"]  # fmt: skip


@pytest.mark.parametrize("name", ALL_BUILD_NAMES)
@pytest.mark.parametrize("file", FILES)
def test_dhparam_files_as_nginx_reads_them(
    name: str,
    file: str,
    provisioned: tuple[dict[str, Build], dict[str, str]],
    parameters: Path,
    chain: Chain,
    tmp_path: Path,
) -> None:
    build, nginx_bin, tree = binary_and_tree(provisioned, name, tmp_path)
    conf = tree / "nginx.conf"
    conf.write_text(tls_server_conf(build, chain, f"ssl_dhparam {parameters / file};"))
    agreed = file_refusal_agrees(build, nginx_bin, conf, ("PEM_read_bio_DHparams(",), 8)
    if agreed is not None:
        said, words = agreed
        assert words == said  # lint knows every library's reason here
