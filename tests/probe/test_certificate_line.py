"""The probe's certificate line for a certificate without subjectAltName names (trial 8: it
read `names , covers the name: False`)."""

from __future__ import annotations

from typing import Any

from nginxgen.probe.checks import certificate


def _found(names: list[str]) -> Any:
    cert = {"key": "ECDSA", "bits": 256, "days_left": 29, "names": names, "covers_sni": False,
            "chain_length": None}  # fmt: skip
    return {"certificate": cert}


def test_no_names_is_said() -> None:
    line = certificate.text(_found([]))[0]
    assert "no subjectAltName names, covers the name: False" in line, line
    assert "names ," not in line


def test_names_are_listed() -> None:
    assert (
        "names a.example b.example, covers"
        in certificate.text(_found(["a.example", "b.example"]))[0]
    )


def test_no_name_asked_covers_nothing() -> None:
    """Trial 11: without SNI the probe said "covers the name: True" (and covers_sni true in
    the JSON); no name was asked, so the line says nothing of it and the JSON has null."""
    import tempfile
    from pathlib import Path

    from cryptography import x509
    from cryptography.hazmat.primitives.serialization import Encoding

    from nginxgen.probe.resumption import certificate_facts
    from tests.pki import CertificateFactory

    with tempfile.TemporaryDirectory() as tmp:
        chain = CertificateFactory(Path(tmp), "ecdsa").leaf("a.example")
        der = x509.load_pem_x509_certificate(chain.leaf.read_bytes()).public_bytes(Encoding.DER)
    assert certificate_facts(der, None)["covers_sni"] is None
    assert certificate_facts(der, "a.example")["covers_sni"] is True
    assert certificate_facts(der, "b.example")["covers_sni"] is False
