"""Resumption, each way tried alone on fresh connections (nginxgen/probe/resumption.py), under names
that say what was observed:

- `session_id_resumed`: TLS 1.2, the client offering no ticket, resumed by its session ID;
- `tls12_ticket_issued`: a TLS 1.2 full handshake brought a NewSessionTicket with a ticket in
  it (RFC 5077 3.3);
- `tls12_ticket_resumed`: ... and the next connection, offering that ticket, resumed (RFC 5077
  3.4); false when no ticket was issued, whatever the session ID did;
- `tls13_psk_resumed`: TLS 1.3, a second connection offering the first one's ticket as a PSK
  resumed (RFC 8446 2.2: stateless tickets, or a cache lookup where tickets are off).

Null where that version is off; `host` is the Host of the request each first connection made
(it makes a TLS 1.3 server send its tickets). The model: the session cache and tickets of the
server that decides them for the name, each observation predicted under its own name; and,
since the probe's client has no certificate, what nginx does with that request: where it
refuses it for want of a certificate (400), it drops the session from its cache first, so
neither a session ID nor a TLS 1.3 session kept in the cache resumes, while tickets still do
(NameModel.session_dropped). Where the server wrote nothing on the first TLS 1.3 connection
(`return 444`) and its library sends tickets only with its first write (BoringSSL), there was
no ticket to offer: `tls13_psk_resumed` is not compared."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from nginxgen.conf.per_name import Answer, NameModel
from nginxgen.knowledge import libraries
from nginxgen.probe.check import Found, NameProbe, Prediction, expect, offers_tls
from nginxgen.probe.resumption import resumption

KEYS: Mapping[str, Any] = {"resumption": None}
OBSERVED = ("session_id_resumed", "tls12_ticket_issued", "tls12_ticket_resumed",
            "tls13_psk_resumed")  # fmt: skip
LABELS = {  # the text report's words for each observation
    "session_id_resumed": "TLS 1.2 by session ID",
    "tls12_ticket_issued": "TLS 1.2 ticket issued",
    "tls12_ticket_resumed": "TLS 1.2 by ticket",
    "tls13_psk_resumed": "TLS 1.3 (PSK)",
}


def runs(found: Found) -> bool:
    return offers_tls(found)


def observe(probe: NameProbe) -> dict[str, Any]:
    seen = resumption(probe.address, probe.sni, probe.timeout, probe.found["protocols"])
    return {
        "resumption": {
            **{key: getattr(seen, key) for key in OBSERVED},
            "host": seen.host,
            "tls13_answered": seen.tls13_answered,
        }
    }


def predict(model: NameModel, found: Found) -> list[Prediction]:
    seen = found.get("resumption") or {}
    host = seen.get("host")
    answers: dict[str, Callable[[], Answer]] = {
        "session_id_resumed": lambda: model.session_id_resumption(host),
        "tls12_ticket_resumed": model.tls12_ticket_resumption,
        "tls13_psk_resumed": lambda: model.tls13_resumption(host),
    }
    # a library that sends its TLS 1.3 tickets with its first write (BoringSSL) sent none where
    # nginx wrote nothing to the first connection (`return 444`): there was no session to
    # offer, whatever the config says of resumption (trial 10, a 444 default server)
    unsent = seen.get("tls13_answered") is False and not libraries.has(
        model.target.library, "tls13_tickets_before_first_write"
    )
    return [
        expect(answer(), seen[key], f"resumption.{key}")
        for key, answer in answers.items()
        if seen.get(key) is not None and not (key == "tls13_psk_resumed" and unsent)
    ]


def text(found: Found) -> list[str]:
    seen = found.get("resumption") or {}
    said = [
        f"{LABELS[k]} {'yes' if seen[k] else 'no'}" for k in OBSERVED if seen.get(k) is not None
    ]
    return [f"  resumption: {', '.join(said)}"] if said else []
