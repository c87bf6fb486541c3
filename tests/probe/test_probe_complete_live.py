"""The probe's TLS 1.2 suites and groups are complete (issue 44): Debian 12's nginx with its
default ciphers takes far more TLS 1.2 suites than a sample of sixteen (AES-CCM, ARIA, CAMELLIA,
DHE...), and with its own order winning, TLS 1.2 groups that a client offering them first never
gets. What the probe lists equals what the build's own `openssl s_client` (OpenSSL 3.0.22),
which shares no code with it, finds: every suite the client knows offered, the one chosen
dropped, until the server refuses; each group offered alone."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.builds import Build
from tests.cli_process import nginxgen as run_nginxgen
from tests.live import Server, free_port, parse_s_client, prepare_prefix
from tests.pki import CertificateFactory

NAME = "a.test"


def _serve(build: Build, folder: Path, prefer: str) -> tuple[Path, int]:
    """Debian 12's defaults: no ssl_ciphers line, nginx 1.22.1's protocols (TLS 1.0-1.2, no
    TLS 1.3), an RSA certificate beside an ECDSA one and DH parameters, so that every family of
    suites the defaults select can be taken."""
    factory = CertificateFactory(folder / "certs", "ecdsa")
    ecdsa, rsa = factory.leaf(NAME, "ecdsa"), factory.leaf(NAME, "rsa")
    dhparam = folder / "dhparam.pem"
    made = build.openssl("genpkey", "-genparam", "-algorithm", "DH", "-pkeyopt", "group:ffdhe2048",
                         "-out", str(dhparam))  # fmt: skip
    assert made.returncode == 0, made.stderr
    port = free_port()
    conf = folder / "nginx.conf"
    conf.write_text(
        "worker_processes auto;\nevents {}\nhttp {\n    server {\n"
        f"        listen 127.0.0.1:{port} ssl; server_name {NAME};\n"
        f"        ssl_certificate {ecdsa.fullchain}; ssl_certificate_key {ecdsa.key};\n"
        f"        ssl_certificate {rsa.fullchain}; ssl_certificate_key {rsa.key};\n"
        f"        ssl_dhparam {dhparam}; ssl_prefer_server_ciphers {prefer};\n"
        "    }\n}\n"
    )
    prepare_prefix(conf, build, workers=1)
    return conf, port


def _s_client(build: Build, port: int, *args: str) -> str:
    done = build.openssl("s_client", "-connect", f"127.0.0.1:{port}", "-servername", NAME,
                         "-tls1_2", *args)  # fmt: skip
    return done.stdout + done.stderr


def _suites_s_client_takes(build: Build, port: int) -> list[str]:
    left = build.openssl("ciphers", "ALL:COMPLEMENTOFALL:@SECLEVEL=0").stdout.strip().split(":")
    left = [s for s in left if not s.startswith("TLS_")]  # TLS 1.3's
    taken = []
    while left:
        out = _s_client(build, port, "-cipher", ":".join(left) + ":@SECLEVEL=0")
        cipher = parse_s_client(out).cipher
        if cipher not in left:
            break
        taken.append(cipher)
        left.remove(cipher)
    return sorted(taken)


def _group_s_client_takes(build: Build, port: int, group: str) -> bool | None:
    """Whether the server takes `group` offered alone (None: this client does not know it)."""
    out = _s_client(build, port, "-groups", group, "-cipher", "ECDHE:@SECLEVEL=0")
    if "CONNECTED(" not in out:
        return None
    said = parse_s_client(out).group
    spelled = {"prime256v1": "secp256r1", "X25519": "X25519", "X448": "X448"}
    return said is not None and spelled.get(said, said) == group


@pytest.mark.parametrize("prefer", ["on", "off"])
@pytest.mark.parametrize("build", ["bookworm"], indirect=True)
def test_every_tls12_suite_and_group_the_server_takes_is_listed(
    build: Build, tmp_path: Path, prefer: str
) -> None:
    conf, port = _serve(build, tmp_path, prefer)
    with Server(build, conf, [port]):
        done = run_nginxgen(
            "probe",
            f"127.0.0.1:{port}",
            "--sni",
            NAME,
            "--format",
            "json",
            *build.target_flags,
            timeout=120,
        )
        assert done.returncode in (0, 1), done.stderr
        named = json.loads(done.stdout)[0]
        suites = _suites_s_client_takes(build, port)
        groups = {
            group: taken
            for group in named["groups"]
            if (taken := _group_s_client_takes(build, port, group)) is not None
        }
    assert len(suites) > 16  # the defaults take more than the old sample held
    assert any(s.startswith("DHE-") for s in suites) and any("CCM" in s for s in suites)
    tls12 = named["tls12"]
    assert sorted(tls12["accepted"]) == suites
    assert named["groups_via"] == "TLSv1.2"  # nginx 1.22.1's default protocols: no TLS 1.3
    assert {g for g, ok in groups.items() if ok} >= {"secp384r1", "X448"}
    assert {g: named["groups"][g] for g in groups} == groups
    assert tls12["partial"] is None and named["groups_partial"] is None
    assert tls12["server_order"] == (prefer == "on")
