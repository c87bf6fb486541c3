"""Groups, each offered alone. With TLS 1.3: accepted when, offered without a key share, the
server asks for it by a HelloRetryRequest. Without TLS 1.3: each elliptic-curve group offered
first with ECDHE suites only, accepted when the ServerKeyExchange (in clear in TLS 1.2, RFC 8422
5.4) names it. The model: the groups of `ssl_ecdh_curve` from the server that decides them."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from nginxgen.conf.per_name import NameModel
from nginxgen.knowledge import tls_groups
from nginxgen.probe.check import Found, NameProbe, Prediction, expect
from nginxgen.probe.hello import GROUPS, TLS12_SUITES

KEYS: Mapping[str, Any] = {"groups": None, "groups_via": None}
TLS12_GROUPS = ["X25519", "secp256r1", "secp384r1", "secp521r1", "X448"]  # ECDHE can use these
CERTIFICATE_CURVES = ["secp256r1", "secp384r1", "secp521r1"]
ECDHE_SUITES = [code for code, name in TLS12_SUITES.items() if name.startswith("ECDHE-")]


def runs(found: Found) -> bool:
    return bool(found["protocols"].get("TLSv1.3") or found["protocols"].get("TLSv1.2"))


def observe(probe: NameProbe) -> dict[str, Any]:
    groups: dict[str, bool | None] = {}
    if probe.offers("TLSv1.3"):
        for group in GROUPS:
            answer = probe.hello("TLSv1.3", [group])
            groups[group] = probe.verdict(group, answer, answer.accepted and answer.group == group)
        return {"groups": groups, "groups_via": "TLSv1.3"}
    # The NIST curves follow the group asked about because in TLS 1.2 the client's groups also
    # bound the curve of an ECDSA certificate: a client offering X25519 alone cannot reach a
    # P-256 certificate at all (OpenSSL 3.0, seen).
    for group in TLS12_GROUPS:
        offered = [group, *(c for c in CERTIFICATE_CURVES if c != group)]
        answer = probe.hello("TLSv1.2", offered, suites=ECDHE_SUITES, key_exchange=True)
        taken = answer.accepted and answer.group == group
        groups[group] = probe.verdict(f"{group} (TLS 1.2)", answer, taken)
    return {"groups": groups, "groups_via": "TLSv1.2"}


def predict(model: NameModel, found: Found) -> list[Prediction]:
    # TLS 1.2 groups are probed each offered first: with the server's order winning, the
    # server's first group is what every probe sees, so they say nothing about the rest
    server_order_tls12 = found.get("groups_via") == "TLSv1.2" and bool(
        (found.get("tls12") or {}).get("server_order")
    )
    if found.get("groups") is None or server_order_tls12:
        return []
    probed = list(found["groups"])

    def in_terms(ids: frozenset[str]) -> set[str]:
        return {p for p in probed if (g := tls_groups.find_group(p)) and g.id in ids}

    taken = {g for g, ok in found["groups"].items() if ok}
    return [expect(model.groups(), taken, "groups", in_terms)]


def text(found: Found) -> list[str]:
    if found["groups"] is None:
        return []
    accepted = [g for g, ok in found["groups"].items() if ok]
    return [f"  groups ({found['groups_via']}): {' '.join(accepted)}"]
