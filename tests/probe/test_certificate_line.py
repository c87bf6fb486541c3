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
