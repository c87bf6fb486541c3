"""The fleet summary's certificate lines (trial 14: an expired certificate was listed as
"expiring within 30 days: db.example (-260 days)")."""

from __future__ import annotations

from typing import Any

from nginxgen.probe.checks.certificate import _left
from nginxgen.probe.fleet import summary


def _result(name: str, days: int) -> dict[str, Any]:
    return {
        "sni": name,
        "endpoint": "127.0.0.1:443",
        "connections": 2,
        "protocols": {"TLSv1.3": True},
        "pq": "hybrid",
        "certificate": {"days_left": days},
    }


def test_expired_and_expiring_certificates_are_said_apart() -> None:
    lines = summary([_result("old.example", -260), _result("soon.example", 12)], 30, False)
    assert "  certificates expired: old.example (260 days ago)" in lines, lines
    assert "  certificates expiring within 30 days: soon.example (12 days)" in lines, lines
    assert _left(-260) == "expired 260 days ago" and _left(3) == "3 days left"
