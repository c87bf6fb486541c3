"""ALPN: the protocol chosen when a client offers h2 and http/1.1 (a full handshake). The model:
h2 where `http2 on` is in effect for the name's server or a listen of the address has `http2`."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from nginxgen.conf.per_name import NameModel
from nginxgen.probe.check import Found, NameProbe, Prediction, expect, offers_tls

KEYS: Mapping[str, Any] = {"alpn": None}


def runs(found: Found) -> bool:
    return offers_tls(found)


def observe(probe: NameProbe) -> dict[str, Any]:
    return {"alpn": probe.handshake[0]}


def predict(model: NameModel, found: Found) -> list[Prediction]:
    if found.get("alpn") is None:
        return []
    return [expect(model.alpn(), found["alpn"], "alpn")]


def text(found: Found) -> list[str]:
    return [f"  ALPN: {found['alpn']}"] if found.get("alpn") is not None else []
