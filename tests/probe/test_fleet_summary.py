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


def test_no_mismatch_says_how_many_names_were_compared() -> None:
    """Trial 17: `mismatches with the config: 0 on 0 names` read as if nothing was compared,
    and a certificate one day from its end was `(1 days)`."""
    results = [{**_result("a.example", 1), "mismatches": []}, _result("b.example", 40)]
    lines = summary(results, 30, True)
    assert "  mismatches with the config: none (2 names compared)" in lines, lines
    assert "  certificates expiring within 30 days: a.example (1 day)" in lines, lines
