"""TLS 1.2 suites: a ClientHello with the 16 probed ECDHE/RSA suites and one with them reversed
(the server's order wins when the same suite comes back), then each suite offered alone. The
model: the suites `ssl_ciphers` selects that the name's certificates can serve."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from nginxgen.conf.per_name import NameModel
from nginxgen.probe.check import CLASSICAL, Found, NameProbe, Prediction, expect_suites
from nginxgen.probe.hello import TLS12_SUITES

KEYS: Mapping[str, Any] = {"tls12": None}


def runs(found: Found) -> bool:
    return bool(found["protocols"].get("TLSv1.2"))


def observe(probe: NameProbe) -> dict[str, Any]:
    suites = list(TLS12_SUITES)
    forward = probe.hello("TLSv1.2", CLASSICAL, suites=suites)
    backward = probe.hello("TLSv1.2", CLASSICAL, suites=suites[::-1])
    accepted = []
    for code, name in TLS12_SUITES.items():  # each offered alone
        answer = probe.hello("TLSv1.2", CLASSICAL, suites=[code])
        if probe.verdict(name, answer, answer.accepted and answer.cipher == name):
            accepted.append(name)
    return {
        "tls12": {
            "cipher": forward.cipher,
            "server_order": forward.cipher == backward.cipher,
            "accepted": accepted,
        }
    }


def predict(model: NameModel, found: Found) -> list[Prediction]:
    return expect_suites(
        model.tls12_suites, found.get("tls12"), TLS12_SUITES.values(), "tls12.accepted"
    )


def text(found: Found) -> list[str]:
    t = found["tls12"]
    if not t:
        return []
    order = "server's" if t["server_order"] else "client's"
    return [
        f"  TLS 1.2: {t['cipher']} ({order} suite order wins)",
        f"  TLS 1.2 suites: {' '.join(t['accepted']) or 'none'}",
    ]
