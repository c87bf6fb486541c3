"""Whole handshakes and requests with this Python's own TLS library (which needs no ML-KEM for
them), for the checks that need them: ALPN, resumption, HSTS and the certificate.

Certificates are not verified here: the probe reports what the server sends (chain order,
intermediates, key, expiry, names, an OCSP staple) so that a broken chain shows rather than
stopping the probe.
"""

from __future__ import annotations

import datetime
import functools
import ssl
from typing import Any

from nginxgen.base.records import record
from nginxgen.probe.hello import connect

TYPE_CHECKING = False
if TYPE_CHECKING:
    from cryptography import x509


@functools.cache
def shared_context(alpn: tuple[str, ...] = ()) -> ssl.SSLContext:
    """One client context for every connection that does not change it (creating one costs a
    third of a handshake): its users only connect with it."""
    return client_context(list(alpn))


def client_context(alpn: list[str] | None = None) -> ssl.SSLContext:
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE
    if alpn:
        context.set_alpn_protocols(alpn)
    return context


def connect_tls(
    address: tuple[str, int],
    sni: str | None,
    context: ssl.SSLContext,
    timeout: float,
    session: ssl.SSLSession | None = None,
) -> ssl.SSLSocket:
    raw = connect(address, timeout)
    try:
        return context.wrap_socket(raw, server_hostname=sni, session=session)
    except BaseException:
        raw.close()
        raise


def request_host(address: tuple[str, int], sni: str | None) -> str:
    """The Host header of the probe's requests: the name, else the address (an IPv6 one in
    brackets, RFC 9110 7.2; bare, nginx answers 400 before any location, with the server
    level's headers)."""
    if sni:
        return sni
    return f"[{address[0]}]" if ":" in address[0] else address[0]


def _get(tls: ssl.SSLSocket, host: str, method: str, path: str) -> None:
    tls.sendall(f"{method} {path} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n".encode())


@record(frozen=True)
class Resumption:
    """What resuming showed, each way tried alone on fresh connections (None: that version is
    off). The names say what was observed, never what a config meant."""

    session_id_resumed: bool | None  # TLS 1.2, the client offering no ticket: its session ID
    tls12_ticket_issued: bool | None  # a TLS 1.2 full handshake got a non-empty NewSessionTicket
    tls12_ticket_resumed: bool | None  # ... and the next connection, offering it, resumed
    tls13_psk_resumed: bool | None  # TLS 1.3: a PSK from the first connection's tickets resumed
    # TLS 1.3: whether the server wrote anything on that first connection (None: not asked).
    # A library that sends its tickets with its first write (BoringSSL) sends none to a
    # request nginx answers with nothing (`return 444`): no session to offer (trial 10)
    tls13_answered: bool | None
    # the Host of the request each first connection made (with no client certificate): where
    # nginx refuses it for want of one, it drops the session from its cache
    host: str


def _first_session(
    address: tuple[str, int], sni: str | None, timeout: float, context: ssl.SSLContext
) -> tuple[ssl.SSLSession | None, bool]:
    """One full handshake and a request (TLS 1.3 tickets come after the handshake: a request
    makes the server send them); the session the client keeps, and whether the server
    answered the request with any bytes."""
    answered = False
    with connect_tls(address, sni, context, timeout) as tls:
        _get(tls, request_host(address, sni), "HEAD", "/")
        try:
            while tls.recv(4096):
                answered = True
        except (ssl.SSLError, OSError):
            pass
        return tls.session, answered


def _resumed(
    address: tuple[str, int],
    sni: str | None,
    timeout: float,
    context: ssl.SSLContext,
    session: ssl.SSLSession,
) -> bool:
    with connect_tls(address, sni, context, timeout, session) as tls:
        return bool(tls.session_reused)


def _context(version: ssl.TLSVersion, tickets: bool) -> ssl.SSLContext:
    context = client_context()
    context.minimum_version = context.maximum_version = version
    if not tickets:  # no session_ticket extension: the session ID is all there is
        context.options |= ssl.OP_NO_TICKET
    return context


def _tls12_ticket(address: tuple[str, int], sni: str | None, timeout: float) -> tuple[bool, bool]:
    """(issued, resumed) for TLS 1.2 tickets (RFC 5077): issued when the full handshake brought
    a NewSessionTicket with a ticket in it (an empty one means "no ticket", 3.3); resumed when
    the next connection, offering that ticket, resumed. A server that issues no ticket may
    still resume the session by its ID: that is not a ticket resumption, and is the
    `session_id_resumed` observation. Offering a ticket, OpenSSL's client sends as session ID
    a hash of the ticket, which the server echoes only when it accepted the ticket (3.4)."""
    context = _context(ssl.TLSVersion.TLSv1_2, tickets=True)
    session, _ = _first_session(address, sni, timeout, context)
    if session is None or not session.has_ticket:
        return False, False
    return True, _resumed(address, sni, timeout, context, session)


def _resumes(
    address: tuple[str, int],
    sni: str | None,
    timeout: float,
    version: ssl.TLSVersion,
    tickets: bool,
) -> tuple[bool, bool]:
    """Whether a second connection of this version resumes the first one's session, and
    whether the server answered the first one's request with any bytes."""
    context = _context(version, tickets)
    session, answered = _first_session(address, sni, timeout, context)
    resumed = session is not None and _resumed(address, sni, timeout, context, session)
    return resumed, answered


def resumption(
    address: tuple[str, int], sni: str | None, timeout: float, protocols: dict[str, bool | None]
) -> Resumption:
    """Each way of resuming, tried alone (None where its version is off)."""
    tls12, tls13 = bool(protocols.get("TLSv1.2")), bool(protocols.get("TLSv1.3"))
    issued: bool | None = None
    resumed: bool | None = None
    if tls12:
        issued, resumed = _tls12_ticket(address, sni, timeout)
    v12, v13 = ssl.TLSVersion.TLSv1_2, ssl.TLSVersion.TLSv1_3
    psk, answered = _resumes(address, sni, timeout, v13, True) if tls13 else (None, None)
    return Resumption(
        session_id_resumed=_resumes(address, sni, timeout, v12, False)[0] if tls12 else None,
        tls12_ticket_issued=issued,
        tls12_ticket_resumed=resumed,
        tls13_psk_resumed=psk,
        tls13_answered=answered,
        host=request_host(address, sni),
    )


def certificate_facts(der: bytes, sni: str | None) -> dict[str, Any]:
    facts = dict(_facts(der))
    expires = datetime.datetime.fromisoformat(facts["expires"])
    facts["days_left"] = (expires - datetime.datetime.now(datetime.UTC)).days
    # no name asked (no SNI): nothing to cover, null (trial 11: "covers the name: True")
    facts["covers_sni"] = None if sni is None else covers(facts["names"], sni)
    return facts


@functools.lru_cache(maxsize=1024)
def load_certificate(der: bytes) -> x509.Certificate:
    """A certificate, parsed once however many names of a fleet are sent it."""
    from cryptography import x509

    return x509.load_der_x509_certificate(der)


@functools.lru_cache(maxsize=1024)
def _facts(der: bytes) -> dict[str, Any]:
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes
    from cryptography.hazmat.primitives.asymmetric import ec, rsa

    cert = load_certificate(der)
    key = cert.public_key()
    kind = (
        "ECDSA"
        if isinstance(key, ec.EllipticCurvePublicKey)
        else ("RSA" if isinstance(key, rsa.RSAPublicKey) else type(key).__name__)
    )
    try:
        names = cert.extensions.get_extension_for_class(
            x509.SubjectAlternativeName
        ).value.get_values_for_type(x509.DNSName)
    except x509.ExtensionNotFound:
        names = []
    expires = cert.not_valid_after_utc
    return {
        "subject": cert.subject.rfc4514_string(),
        "key": kind,
        "bits": getattr(key, "key_size", None),
        "expires": expires.isoformat(),
        "days_left": None,  # (certificate_facts: now, and the name asked for)
        "names": names,
        "covers_sni": None,
        "sha256": cert.fingerprint(hashes.SHA256()).hex(),
    }


def covers(names: list[str], sni: str) -> bool:
    """Whether a name list (server_name, certificate SANs) has `sni`, one-label wildcards too."""
    for name in names:
        if name == sni or (name.startswith("*.") and sni.split(".", 1)[-1] == name[2:]):
            return True
    return False
