"""Certificates in the `TRUSTED CERTIFICATE` PEM form (`openssl x509 -trustout`) on the seven
real builds (issue 44): lint reads each file as nginx does on the target, and nginx -t agrees.

- an ssl_certificate file whose leaf is in the trusted form loads everywhere; an intermediate in
  that form is skipped (s_client is sent the leaf alone: NGX722, not NGX727);
- ssl_trusted_certificate and proxy_ssl_trusted_certificate in that form load everywhere;
- ssl_client_certificate in that form fails before nginx 1.27.2 (`SSL_load_client_CA_file()
  failed`: the CA names are read by a reader that skips it) and loads from 1.27.2, where the
  names sent to clients include it (s_client's "Acceptable client certificate CA names", as
  `NameModel.client_ca_names` predicts);
- a CA file of CRLs alone loads before 1.27.2 and is refused from 1.27.2.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

from nginxgen.base.version import Version
from nginxgen.conf.config import build as build_config
from nginxgen.conf.effective import Effective
from nginxgen.conf.load import load_path
from nginxgen.conf.per_name import NameModel
from nginxgen.knowledge.target import resolve
from nginxgen.lint.findings import Finding
from tests.builds import ALL_BUILD_NAMES, Build
from tests.every_rule import lint_checked
from tests.live import Server, free_port, nginx_check, prepare_prefix
from tests.pki import CertificateFactory, Chain, empty_crl

BEGIN = "-----BEGIN CERTIFICATE-----"


def trustout(client: Build, pem: str) -> str:
    """Each certificate of `pem` in the trusted form, by `openssl x509 -trustout`."""
    blocks = [BEGIN + part for part in pem.split(BEGIN)[1:]]
    return "".join(client.openssl("x509", "-trustout", stdin=block).stdout for block in blocks)


def files(client: Build, pki: CertificateFactory, chain: Chain, folder: Path) -> dict[str, Path]:
    leaf, intermediate = (BEGIN + p for p in chain.fullchain.read_text().split(BEGIN)[1:])
    root = chain.root.read_text()
    made = {
        "leaf": trustout(client, leaf) + intermediate,  # trusted leaf, plain intermediate
        "chain": trustout(client, leaf + intermediate),  # both trusted
        "root": trustout(client, root),
        "mixed": trustout(client, root) + intermediate,  # a trusted root, a plain intermediate
    }
    paths = {}
    for name, text in made.items():
        paths[name] = folder / f"{name}.trusted.pem"
        paths[name].write_text(text)
    paths["crl"] = empty_crl(pki, folder / "only.crl")
    return paths


CASES = {  # case: (the certificate file, the server's other lines)
    "leaf": ("leaf", ""),
    "chain": ("chain", ""),
    "client_ca": (None, "ssl_verify_client on; ssl_client_certificate {root};"),
    "trusted_ca": (None, "ssl_trusted_certificate {root};"),
    "proxy_ca": (
        None,
        "location / { proxy_pass https://127.0.0.1:9; proxy_ssl_verify on; "
        "proxy_ssl_trusted_certificate {root}; }",
    ),
    "crl_only": (None, "ssl_trusted_certificate {crl};"),
    "names": (
        None,
        "ssl_verify_client optional; ssl_client_certificate {mixed}; "
        "if ($ssl_client_verify != SUCCESS) { return 403; }",
    ),
}


def write(folder: Path, port: int, chain: Chain, paths: dict[str, Path], case: str) -> Path:
    cert, extra = CASES[case]
    certificate = paths[cert] if cert else chain.fullchain
    for name, path in paths.items():
        extra = extra.replace("{" + name + "}", str(path))
    conf = folder / case / "nginx.conf"
    conf.parent.mkdir()
    conf.write_text(
        "worker_processes auto;\nevents {}\nhttp {\nssl_protocols TLSv1.2 TLSv1.3;\n"
        f"server {{ listen 127.0.0.1:{port} ssl default_server; server_name a.example;\n"
        f"  ssl_certificate {certificate}; ssl_certificate_key {chain.key};\n  {extra}\n}}\n}}\n"
    )
    return conf


def sent(client: Build, port: int) -> tuple[list[str], list[str]]:
    """The subjects of the certificates the server sends, and the CA names it asks for."""
    done = client.openssl(
        "s_client", "-connect", f"127.0.0.1:{port}", "-servername", "a.example", "-showcerts",
        "-tls1_2",
    )  # fmt: skip
    out = done.stdout
    chain = re.findall(r"^ *\d+ s:(.*)$", out, re.M)
    names = out.split("Acceptable client certificate CA names\n", 1)
    listed = names[1].split("\n") if len(names) == 2 else []
    cas = []
    for line in listed:
        if not line.startswith("CN="):
            break
        cas.append(line.strip())
    return chain, cas


@pytest.mark.live
@pytest.mark.parametrize("build", ALL_BUILD_NAMES, indirect=True)
def test_trusted_form_files_load_as_nginx_loads_them(
    build: Build, client: Build, tmp_path: Path
) -> None:
    pki = CertificateFactory(tmp_path / "pki", "ecdsa")
    chain = pki.leaf("a.example")
    paths = files(client, pki, chain, tmp_path)
    target = resolve(build.nginx_version, build.tls_library)
    cached = Version(build.nginx_version) >= Version("1.27.2")  # nginx reads CA files itself
    for case in CASES:
        port = free_port()
        conf = write(tmp_path, port, chain, paths, case)
        found: list[Finding] = lint_checked(load_path(str(conf)), target)
        unloadable = [f for f in found if f.code == "NGX727"]
        prepare_prefix(conf, build)
        done = nginx_check(build, conf)
        refused = {"client_ca": not cached, "crl_only": cached}.get(case, False)
        assert (done.returncode != 0) == refused, (case, done.stderr)
        assert bool(unloadable) == refused, (case, unloadable)
        if refused:
            said = unloadable[0].message.split("nginx -t fails: ", 1)[1]
            assert said in done.stderr, (case, said, done.stderr)
            continue
        if case in ("leaf", "chain"):
            incomplete = [f for f in found if f.code == "NGX722"]
            with Server(build, conf, [port]):
                served, _ = sent(client, port)
            # the trusted-form intermediate is skipped: the leaf alone is sent
            assert len(served) == (2 if case == "leaf" else 1), (case, served)
            assert bool(incomplete) == (case == "chain"), (case, incomplete)
        if case == "names":
            config = build_config(load_path(str(conf)))
            socket = next(iter(config.sockets))
            model = NameModel(Effective(config, target), socket, "a.example")
            predicted = model.client_ca_names().value
            with Server(build, conf, [port]):
                _, asked = sent(client, port)
            assert predicted is not None
            assert asked == list(predicted), (asked, predicted)  # one-attribute names


@pytest.mark.live
def test_openssl_writes_the_trusted_form(client: Build, tmp_path: Path) -> None:
    """The files above are what `openssl x509 -trustout` writes (not a hand-made label)."""
    pki = CertificateFactory(tmp_path / "pki", "ecdsa")
    made = trustout(client, pki.root_path.read_text())
    assert made.startswith("-----BEGIN TRUSTED CERTIFICATE-----"), made
    shown = subprocess.run(
        [*(client.openssl_argv or ()), "x509", "-noout", "-subject"],
        input=made,
        capture_output=True,
        text=True,
        env=client.env(),
        check=False,
    )
    assert "nginxgen test root" in shown.stdout, shown.stderr


@pytest.mark.live
@pytest.mark.parametrize("build", ["bookworm", "wheel"], indirect=True)
def test_generate_takes_a_trusted_form_leaf_as_nginx_does(
    build: Build, client: Build, tmp_path: Path
) -> None:
    """`generate --cert` with a leaf in the trusted form: nginx loads it, so generate writes the
    site (it refused it as "not a PEM certificate"), and the tree passes nginx -t."""
    from nginxgen.shell.cli import main

    pki = CertificateFactory(tmp_path / "pki", "ecdsa")
    chain = pki.leaf("example.com")
    leaf, intermediate = (BEGIN + p for p in chain.fullchain.read_text().split(BEGIN)[1:])
    cert = tmp_path / "trusted-leaf.pem"
    cert.write_text(trustout(client, leaf) + intermediate)
    site = tmp_path / "site.yaml"
    site.write_text(
        'extends: intermediate\naccess_log: "off"\nsites:\n  - domains: [example.com]\n'
        f"    certificates:\n      - cert: {cert}\n        key: {chain.key}\n"
    )
    out = tmp_path / "out"
    flags = ["--nginx-version", build.nginx_version, "--tls-library", build.tls_library]
    assert main(["generate", "--config", str(site), "--out", str(out), *flags]) == 0
    conf = out / "nginx.conf"
    prepare_prefix(conf, build)
    done = nginx_check(build, conf)
    assert done.returncode == 0, done.stderr
