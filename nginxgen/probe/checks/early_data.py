"""0-RTT: the early_data extension of the server's TLS 1.3 session tickets (RFC 8446 4.6.1),
read from the decrypted TLS 1.3 flight: whether a client resuming with them may send early data,
and how much. The model: `ssl_early_data` from the server that decides it for the name."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from nginxgen.conf.per_name import NameModel
from nginxgen.probe.check import Found, NameProbe, Prediction, expect

KEYS: Mapping[str, Any] = {"early_data": None}


def runs(found: Found) -> bool:
    return bool(found["protocols"].get("TLSv1.3"))


def observe(probe: NameProbe) -> dict[str, Any]:
    flight = probe.tls13_flight
    if flight is None:
        return dict(KEYS)
    offered = flight.max_early_data is not None
    return {"early_data": {"offered": offered, "max_early_data": flight.max_early_data}}


def predict(model: NameModel, found: Found) -> list[Prediction]:
    if found.get("early_data") is None:
        return []
    return [expect(model.early_data(), found["early_data"]["offered"], "early_data.offered")]


def text(found: Found) -> list[str]:
    early = found.get("early_data")
    if early is None:
        return []
    offered = (
        f"offered, up to {early['max_early_data']} bytes" if early["offered"] else "not offered"
    )
    return [f"  0-RTT: {offered} (the server's TLS 1.3 session tickets)"]
