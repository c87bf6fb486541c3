"""Client certificates: whether the server asks this name's clients for a certificate, which CA
names it sends, and what it answers a client that has none.

What it sends: nothing of its own for the first two. The CertificateRequest is read from the
handshakes the certificate check already made (one connection fewer per name): TLS 1.3's,
decrypted with the probe's own key log (probe/tls13_flight.py, RFC 8446 4.3.2: the
certificate_authorities extension), else TLS 1.2's first flight, which is in clear
(probe/hello.py, RFC 5246 7.4.4: the certificate_authorities list). The probe never sends a
certificate: its client has none, so it answers with an empty Certificate message, and nginx
finishes the handshake anyway (it judges the certificate per request). Then the answer to a GET
of `/` (NameProbe.page: on the TLS 1.3 flight's connection where there is one), Host the name
(the address without one), read whole (64 KiB at most):
421 is "misdirected"; 400 with nginx's page "No required SSL certificate was sent" is
"no-certificate"; any other answer is "served"; no answer (none within the timeout, or the
server closed first) is not checked (null), with why (`not_checked`), and inconclusive. A 421
the config returns itself looks the same on the wire: where the model says "served", an
observed 421 is not compared.

The model (conf/client_certs.py through conf/per_name.py): the name's server's
`ssl_verify_client` (not off: asked), the subjects of its `ssl_client_certificate` file (the CA
names, in file order), and what nginx does with the request (`request_outcome`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from nginxgen.conf.per_name import Answer, NameModel
from nginxgen.knowledge import nginx
from nginxgen.probe.check import Found, NameProbe, Prediction, expect, offers_tls
from nginxgen.probe.resumption import request_host

KEYS: Mapping[str, Any] = {"client_certificate": None}
CERTIFICATE_AUTHORITIES = 47  # the TLS 1.3 extension (RFC 8446 4.2.4)


def runs(found: Found) -> bool:
    return offers_tls(found)


def _vector(data: bytes, at: int, width: int) -> tuple[bytes, int]:
    size = int.from_bytes(data[at : at + width], "big")
    return data[at + width : at + width + size], at + width + size


def _distinguished_names(data: bytes) -> list[bytes]:
    """The DER names of a DistinguishedName list (each with a 2-byte length)."""
    names, at = [], 0
    while at + 2 <= len(data):
        name, at = _vector(data, at, 2)
        names.append(name)
    return names


def authorities(request: bytes, tls13: bool) -> list[bytes]:
    """The DER CA names a CertificateRequest body carries (none: the client may pick any)."""
    if not tls13:  # certificate_types<1..>, supported_signature_algorithms<2..>, names<0..>
        at = 1 + request[0]
        at += 2 + int.from_bytes(request[at : at + 2], "big")
        return _distinguished_names(_vector(request, at, 2)[0])
    at = 1 + request[0]  # certificate_request_context
    extensions, _ = _vector(request, at, 2)
    at = 0
    while at + 4 <= len(extensions):
        kind = int.from_bytes(extensions[at : at + 2], "big")
        body, at = _vector(extensions, at + 2, 2)
        if kind == CERTIFICATE_AUTHORITIES:
            return _distinguished_names(_vector(body, 0, 2)[0])
    return []


def _der(data: bytes, at: int) -> tuple[int, bytes, int]:
    """(tag, contents, next offset) of one DER element."""
    tag, size, at = data[at], data[at + 1], at + 2
    if size & 0x80:
        count = size & 0x7F
        size, at = int.from_bytes(data[at : at + count], "big"), at + count
    return tag, data[at : at + size], at + size


def _oid(contents: bytes) -> str:
    parts, value = [contents[0] // 40, contents[0] % 40], 0
    for byte in contents[1:]:
        value = (value << 7) | (byte & 0x7F)
        if not byte & 0x80:
            parts.append(value)
            value = 0
    return ".".join(str(p) for p in parts)


def name_text(der: bytes) -> str:
    """A DER Name as RFC 4514 text, as cryptography writes a certificate's subject (the model's
    terms); its hex where it does not read as a name."""
    from cryptography import x509

    try:
        _, rdns, _ = _der(der, 0)
        parsed, at = [], 0
        while at < len(rdns):
            _, rdn, at = _der(rdns, at)
            attributes, inner = [], 0
            while inner < len(rdn):
                _, pair, inner = _der(rdn, inner)
                _, oid, rest = _der(pair, 0)
                tag, value, _ = _der(pair, rest)
                text = value.decode("utf-16-be" if tag == 0x1E else "utf-8", "replace")
                attributes.append(x509.NameAttribute(x509.ObjectIdentifier(_oid(oid)), text))
            parsed.append(x509.RelativeDistinguishedName(attributes))
        return x509.Name(parsed).rfc4514_string()
    except (IndexError, ValueError):
        return der.hex()


def answer_without(probe: NameProbe) -> tuple[int | None, str | None, str | None]:
    """(status, kind, why not checked) of a GET of / by a client that has no certificate; a GET
    that got no answer is not checked (kind None), and listed as inconclusive."""
    facts = nginx.client_certificates()
    page = probe.page("/")
    if page.unanswered is not None:
        probe.inconclusive.append(f"client certificate, without one: {page.unanswered}")
        return None, None, page.unanswered
    if page.status == facts.misdirected_status:
        return page.status, "misdirected", None
    nginx_page = facts.no_certificate_page.encode()
    if page.status == facts.no_certificate_status and nginx_page in page.raw:
        return page.status, "no-certificate", None
    return page.status, "served", None


def observe(probe: NameProbe) -> dict[str, Any]:
    flight = probe.flight
    if flight is None:
        return {"client_certificate": None}
    request = flight.certificate_request
    tls13 = flight is probe.tls13_flight
    names = [name_text(n) for n in authorities(request, tls13)] if request else None
    host = request_host(probe.address, probe.sni)
    status, kind, why = answer_without(probe)
    return {
        "client_certificate": {
            "requested": request is not None,
            "requested_in": "TLSv1.3" if tls13 else "TLSv1.2",
            "ca_names": names,
            "host": host,
            "status_without": status,
            "without": kind,
            "not_checked": why,
        }
    }


def predict(model: NameModel, found: Found) -> list[Prediction]:
    seen = found.get("client_certificate")
    if not seen:
        return []
    request = model.client_certificate_request()
    out = [expect(request, seen["requested"], "client_certificate.requested")]
    # the CA names where both ask: where the config asks for none (trial 23: verify turned off,
    # not reloaded) nginx would send no list, and the unchanged ssl_client_certificate line
    # was blamed for `[]`; the request itself is the mismatch
    if seen["requested"] and request.value is not False:
        names = model.client_ca_names()
        out.append(expect(names, seen["ca_names"], "client_certificate.ca_names", list))
    if seen["without"] is None:  # the GET got no answer: nothing to compare
        return out
    without = model.without_client_certificate(seen["host"])
    if without.value == "served" and seen["without"] == "misdirected":
        # the config's own `return 421` (common in default servers) is the same answer on the
        # wire as nginx's misdirected-request check: what the locations answer is not predicted
        without = Answer(without.key, None, without.line)
    out.append(expect(without, seen["without"], "client_certificate.without"))
    return out


def text(found: Found) -> list[str]:
    seen = found.get("client_certificate")
    if not seen:
        return []
    asked = (
        f"asked ({seen['requested_in']}), CA names: {'; '.join(seen['ca_names']) or 'none'}"
        if seen["requested"]
        else "not asked"
    )
    without = (
        f"{seen['without']} (status {seen['status_without']})"
        if seen["without"] is not None
        else f"not checked ({seen['not_checked']})"
    )
    return [f"  client certificate: {asked}; without one: {without}"]
