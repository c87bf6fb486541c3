"""Resumption, per way of resuming, each tried alone: a second connection with the first one's
session (a request is made first, so TLS 1.3 tickets arrive): `TLSv1.3` (tickets, stateless or
stateful), `TLSv1.2 ticket`, `TLSv1.2 session id` (the client asks for no ticket); null where
that version is off. `resumption` is what a client that takes the newest version gets. The
model: the session cache and tickets of the server that decides them for the name."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from nginxgen.conf.per_name import NameModel
from nginxgen.probe.check import Found, NameProbe, Prediction, expect, offers_tls
from nginxgen.probe.session import resumption_by_kind

KEYS: Mapping[str, Any] = {"resumption": None, "resumption_by": None}


def runs(found: Found) -> bool:
    return offers_tls(found)


def observe(probe: NameProbe) -> dict[str, Any]:
    by = resumption_by_kind(probe.address, probe.sni, probe.timeout, probe.found["protocols"])
    newest = by["TLSv1.3"] if by["TLSv1.3"] is not None else by["TLSv1.2 ticket"]
    return {"resumption": newest, "resumption_by": by}


def predict(model: NameModel, found: Found) -> list[Prediction]:
    by = found.get("resumption_by") or {}
    out = []
    if by.get("TLSv1.2 session id") is not None:
        out.append(expect(model.session_id_resumption(), by["TLSv1.2 session id"]))
    if by.get("TLSv1.3") is not None:
        out.append(expect(model.tls13_resumption(), by["TLSv1.3"]))
    return out


def text(found: Found) -> list[str]:
    by = found.get("resumption_by") or {}
    said = [f"{kind} {'yes' if ok else 'no'}" for kind, ok in by.items() if ok is not None]
    return [f"  resumption: {', '.join(said)}"] if said else []
