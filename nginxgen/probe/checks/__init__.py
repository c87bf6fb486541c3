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

# What depends only on the TLS context nginx answers a name from (the same server{} on the same
# address, the same default server there): probed once per context (nginxgen/probe/plan.py).
# The others are the per-name checks.
SHARED: tuple[Check, ...] = (protocols, groups, tls13, tls12, resumption)
