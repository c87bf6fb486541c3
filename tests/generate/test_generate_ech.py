"""`generate` with `policy.ech`: refused where nginx or its library cannot serve Encrypted Client
Hello, and where it can, a key file that OpenSSL 4.0.3's own server loads and whose DNS record
its own client uses to reach the inner name (the nginx side: scripts/ech_nginx_proof.py)."""

from __future__ import annotations

import re
import subprocess
import time
from pathlib import Path

import pytest
import yaml

from nginxgen.base import ech_configs as ech
from nginxgen.shell.cli import main
from tests.builds import Build
from tests.conftest import require_build
from tests.helpers import CertPair, make_cert
from tests.live import free_port

ECH_TARGET = ["--nginx-version", "1.30.4", "--tls-library", "openssl-4.0.3"]


def site_file(folder: Path, public: CertPair, inner: CertPair, **policy: object) -> Path:
    ech = {"public_name": "public.example", **policy}
    data = {
        "extends": "modern",
        "policy": {"ech": ech},
        "sites": [
            {"domains": [name], "certificates": [{"cert": str(p.cert), "key": str(p.key)}],
             "http_listen": [], "redirect": False}
            for name, p in (("public.example", public), ("a.example", inner))
        ],
        "access_log": "off",
    }  # fmt: skip
    path = folder / "site.yaml"
    path.write_text(yaml.safe_dump(data))
    return path


@pytest.fixture
def pairs(tmp_path: Path) -> tuple[CertPair, CertPair]:
    return (make_cert(tmp_path / "certs", "public.example"),
            make_cert(tmp_path / "certs", "a.example"))  # fmt: skip


def generate(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    code = main(["generate", *args])
    return code, capsys.readouterr().err


@pytest.mark.parametrize(
    ("target", "why"),
    [
        (["--nginx-version", "1.28.3", "--tls-library", "openssl-4.0.3"],
         "nginx has ssl_ech_file only from 1.29.4"),
        (["--nginx-version", "1.31.3", "--tls-library", "openssl-3.5.7"],
         "nginx uses only OpenSSL's ECH API"),
        (["--nginx-version", "1.31.3", "--tls-library", "boringssl"],
         "nginx uses only OpenSSL's ECH API"),
        (["--nginx-version", "1.31.3", "--tls-library", "aws-lc-1.37.0"],
         "nginx uses only OpenSSL's ECH API"),
    ],
)  # fmt: skip
def test_targets_without_ech_are_refused(
    target: list[str], why: str, pairs: tuple[CertPair, CertPair], tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:  # fmt: skip
    config = site_file(tmp_path, *pairs)
    code, err = generate(["--config", str(config), *target, "--out", str(tmp_path / "o")], capsys)
    assert code == 2
    # the file and line of `ech:`; the reason says ECH cannot work, not the public name; the
    # way out cites public sources (a pip install has no scripts/)
    at = 1 + config.read_text().splitlines().index("  ech:")
    line = next(x for x in err.splitlines() if " policy.ech: " in x)
    assert line.startswith(f"nginxgen: error: {config}:{at}: policy.ech: Encrypted Client Hello "
                           "cannot work on "), err  # fmt: skip
    assert why in line and "use nginx 1.29.4 or newer built against OpenSSL 4.0" in line, err
    assert "ngx_http_ssl_module.html#ssl_ech_file" in line and "CHANGES 1.29.4" in line, line
    assert "scripts/" not in line and "public.example" not in line, line
    assert not (tmp_path / "o").exists()


def test_tls13_off_and_an_unserved_public_name_are_refused(
    pairs: tuple[CertPair, CertPair], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = site_file(tmp_path, *pairs, public_name="outer.example")
    data = yaml.safe_load(config.read_text())
    data["extends"] = "intermediate"
    data["policy"]["protocols"] = ["TLSv1.2"]
    config.write_text(yaml.safe_dump(data))
    code, err = generate(["--config", str(config), *ECH_TARGET], capsys)
    assert code == 2
    assert "Encrypted Client Hello is TLS 1.3 only" in err
    assert "policy.ech.public_name: 'outer.example'" in err and "no site serves it" in err


@pytest.mark.parametrize("binary", [False, True], ids=["an-ec-key", "binary"])
def test_a_key_file_that_is_not_one_is_refused(
    binary: bool,
    pairs: tuple[CertPair, CertPair],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    bad = tmp_path / "bad.pem"
    if binary:
        bad.write_bytes(b"\x30\x82\xff\xfe" + bytes(range(256)))  # DER-like, not UTF-8
    else:
        bad.write_text(pairs[0].key.read_text())  # an EC key, no ECHCONFIG
    config = site_file(tmp_path, *pairs, keys=[str(bad)])
    code, err = generate(["--config", str(config), *ECH_TARGET], capsys)
    at = 1 + config.read_text().splitlines().index("    keys:") + 1  # the list's first item
    errors = [x for x in err.splitlines() if "error" in x]
    assert code == 2 and len(errors) == 1, err
    assert errors[0].startswith(f"nginxgen: error: {config}:{at}: policy.ech.keys[0]: '{bad}'")
    assert "not an ECH key file" in errors[0]


def test_without_out_the_new_key_is_said_on_stderr(
    pairs: tuple[CertPair, CertPair], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """On stdout the key is a new one each run (nothing keeps it), and so is its record: one
    warning line says so; a key file of the user's own draws none."""
    config = site_file(tmp_path, *pairs)
    records = []
    for _ in range(2):
        assert main(["generate", "--config", str(config), *ECH_TARGET]) == 0
        said = capsys.readouterr()
        assert "# ==> ech.pem <==\n-----BEGIN PRIVATE KEY-----" in said.out
        records.append(_config_list(said.out))
        warnings = [x for x in said.err.splitlines() if "warning" in x]
        assert warnings == [
            "nginxgen: warning: ech.pem below is a new ECH private key, and its DNS record "
            "changes with every run: use --out DIR to keep the key (later runs reuse it)"
        ], said.err
    assert records[0] != records[1]
    own = tmp_path / "own.pem"
    own.write_text(ech.new_key_file("public.example"))
    config = site_file(tmp_path, *pairs, keys=[str(own)])
    assert main(["generate", "--config", str(config), *ECH_TARGET]) == 0
    assert "warning" not in capsys.readouterr().err


def _config_list(record_text: str) -> str:
    """The base64 after `ech=` in the first HTTPS record line (read here, not by nginxgen)."""
    line = next(x for x in record_text.splitlines() if " IN HTTPS " in x)
    return re.search(r"\bech=([A-Za-z0-9+/=]+)", line).group(1)  # type: ignore[union-attr]


def test_the_key_and_record_reach_the_inner_name_on_openssl_4(
    provisioned: tuple[dict[str, Build], dict[str, str]],
    pairs: tuple[CertPair, CertPair],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    build = require_build(provisioned, "openssl40")
    public, inner = pairs
    out = tmp_path / "out"
    config = site_file(tmp_path, public, inner)
    code, err = generate(["--config", str(config), *ECH_TARGET, "--out", str(out)], capsys)
    assert code == 0, err
    key = out / "ech.pem"
    assert key.stat().st_mode & 0o777 == 0o600
    assert "ssl_ech_file ech.pem;" in (out / "tls.conf").read_text()
    records = (out / "ech-dns.txt").read_text()
    assert 'a.example. 3600 IN HTTPS 1 . alpn="h2" ech=' in records
    # a second run keeps the key (its record is published) and changes nothing
    code, err = generate(["--config", str(config), *ECH_TARGET, "--out", str(out)], capsys)
    assert code == 0 and "unchanged" in err and "wrote" not in err, err
    port = free_port()
    server = subprocess.Popen(
        [*(build.openssl_argv or ()), "s_server", "-accept", f"127.0.0.1:{port}", "-naccept", "1",
         "-cert", str(public.cert), "-key", str(public.key), "-cert2", str(inner.cert),
         "-key2", str(inner.key), "-servername", "a.example", "-ech_key", str(key), "-www"],
        env=build.env(), stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )  # fmt: skip
    try:
        time.sleep(0.5)
        ca = tmp_path / "ca.pem"
        ca.write_text(public.cert.read_text() + inner.cert.read_text())
        hello = build.openssl(
            "s_client", "-connect", f"127.0.0.1:{port}", "-servername", "a.example",
            "-CAfile", str(ca), "-ech_config_list", _config_list(records),
            stdin="GET / HTTP/1.0\r\n\r\n",
        )  # fmt: skip
    finally:
        server.kill()
        loaded = server.communicate(timeout=10)[0]
    said = hello.stdout + hello.stderr
    assert "Loaded 1 ECH key pairs" in loaded, loaded[-800:]
    assert "ECH: success" in said and "subject=CN=a.example" in said, said[-1500:]
    assert "ECH: outer: public.example" in said, said[-1500:]


def test_into_an_existing_tree_is_refused_not_dropped(
    pairs: tuple[CertPair, CertPair], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    tree = tmp_path / "tree"
    tree.mkdir()
    (tree / "nginx.conf").write_text("events {}\nhttp {\n}\n")
    before = (tree / "nginx.conf").read_text()
    config = site_file(tmp_path, *pairs)
    code, err = generate(["--config", str(config), *ECH_TARGET, "--into", str(tree)], capsys)
    assert code == 2 and "policy.ech" in err and "not added to an existing tree" in err, err
    assert (tree / "nginx.conf").read_text() == before
