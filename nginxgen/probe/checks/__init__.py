"""The probe's checks, in the order they run (a later check may read what an earlier one found).
What a check is: nginxgen/probe/check.py."""

from __future__ import annotations

from nginxgen.probe.check import Check
from nginxgen.probe.checks import (
    alpn,
    certificate,
    client_certificate,
    early_data,
    ech,
    groups,
    hsts,
    protocols,
    resumption,
    tls12,
    tls13,
)

CHECKS: tuple[Check, ...] = (
    protocols,
    groups,
    tls13,
    ech,
    tls12,
    alpn,
    certificate,
    client_certificate,
    early_data,
    resumption,
    hsts,
)
