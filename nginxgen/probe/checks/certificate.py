"""The certificate as the server sends it for the name: the leaf of a full handshake (key,
expiry, names, whether they cover the name), and the chain as sent, decrypted from a TLS 1.3
handshake (probe/tls13_flight.py) or read from TLS 1.2's clear first flight: its length, order,
intermediates and whether an OCSP response is stapled. Nothing is verified: a broken chain shows
instead of stopping the probe. The model: the leaves of the name's `ssl_certificate` files, and
stapling off unless `ssl_stapling on` (with it on, the responder decides: not predicted)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from nginxgen.conf.per_name import NameModel
from nginxgen.probe.check import Found, NameProbe, Prediction, expect, offers_tls
from nginxgen.probe.resumption import certificate_facts, load_certificate

KEYS: Mapping[str, Any] = {"certificate": None}
NO_CHAIN = dict.fromkeys(
    ("chain_length", "leaf_first", "in_order", "intermediates", "ocsp_stapled", "chain_from")
)


def runs(found: Found) -> bool:
    return offers_tls(found)


def observe(probe: NameProbe) -> dict[str, Any]:
    leaf = probe.handshake[1]
    certificate: dict[str, Any] = certificate_facts(leaf, probe.sni) if leaf else {}
    flight = probe.flight
    if flight is None or not flight.chain:
        return {"certificate": {**certificate, **NO_CHAIN}}
    certs = [load_certificate(d) for d in flight.chain]
    certificate.update(
        chain_length=len(certs),
        leaf_first=flight.chain[0] == leaf,
        in_order=all(certs[i].issuer == certs[i + 1].subject for i in range(len(certs) - 1)),
        intermediates=len(certs) > 1,
        ocsp_stapled=flight.stapled,
        chain_from="TLSv1.3" if flight is probe.tls13_flight else "TLSv1.2",
    )
    return {"certificate": certificate}


def predict(model: NameModel, found: Found) -> list[Prediction]:
    certificate = found.get("certificate") or {}
    out = []
    if certificate.get("sha256"):
        sent = f"{certificate.get('subject')} (sha256 {certificate['sha256']})"
        sha = certificate["sha256"]
        # equal when the leaf sent is one of the files', else the files it should have been
        out.append(
            expect(
                model.certificates(),
                sent,
                "certificate.sha256",
                lambda v: sent if sha in v else sorted(v.values()),
            )
        )
    if certificate.get("ocsp_stapled") is not None:
        out.append(
            expect(model.stapling(), certificate["ocsp_stapled"], "certificate.ocsp_stapled")
        )
    return out


def text(found: Found) -> list[str]:
    cert = found.get("certificate")
    if not cert or "key" not in cert:
        return []
    chain = (
        f"{cert['chain_length']} sent, leaf first: {cert['leaf_first']}, "
        f"OCSP stapled: {cert['ocsp_stapled']}"
        if cert["chain_length"] is not None
        else "chain not seen"
    )
    # no subjectAltName: clients match no name (RFC 6125 6.4.4; the CN is not read), trial 8
    names = f"names {' '.join(cert['names'])}" if cert["names"] else "no subjectAltName names"
    covered = "" if cert["covers_sni"] is None else f", covers the name: {cert['covers_sni']}"
    return [
        f"  certificate: {cert['key']} {cert['bits']}, {_left(cert['days_left'])}, "
        f"{names}{covered}; {chain}"
    ]


def _left(days: int) -> str:
    """`12 days left`, or `expired 260 days ago` (trial 14: `-260 days left`)."""
    return f"{days} days left" if days >= 0 else f"expired {-days} days ago"
