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

from nginxgen.probe.hello import connect
from nginxgen.records import record

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


def host_header(address: tuple[str, int], sni: str | None) -> str:
    """The Host header: the name, else the address (an IPv6 one in brackets, RFC 9110 7.2;
    bare, nginx answers 400 before any location, with the server level's headers)."""
    if sni:
        return sni
    return f"[{address[0]}]" if ":" in address[0] else address[0]


def _get(tls: ssl.SSLSocket, host: str, method: str, path: str) -> None:
    tls.sendall(f"{method} {path} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n".encode())


PAGE_READ = 65536  # what is kept of one answer, head and body


@record(frozen=True)
class Page:
    """The server's answer to a GET: its status, its headers (names in lower case), and the
    answer as sent (head and body), PAGE_READ bytes at most."""

    status: int | None
    headers: dict[str, str]
    raw: bytes


def requests(host: str, paths: list[str]) -> bytes:
    """GETs of `paths` one after the other on one connection (HTTP/1.1 pipelining, RFC 9112
    9.3.2), the last one closing it."""
    out = []
    for n, path in enumerate(paths):
        close = "Connection: close\r\n" if n == len(paths) - 1 else ""
        out.append(f"GET {path} HTTP/1.1\r\nHost: {host}\r\n{close}\r\n")
    return "".join(out).encode()


def pages_in(data: bytes) -> list[Page]:
    """The whole answers in `data`, in order. Each one's body ends where its Content-Length or
    its last chunk says (RFC 9112 6.3); one with neither runs to the close and is the last. An
    answer cut short is kept as far as it came, and is the last."""
    out: list[Page] = []
    while data:
        head, found, rest = data.partition(b"\r\n\r\n")
        if not found:
            break
        lines = head.decode("latin-1").split("\r\n")
        parts = lines[0].split()
        status = int(parts[1]) if len(parts) > 1 and parts[1].isdigit() else None
        headers = {}
        for line in lines[1:]:
            key, _, value = line.partition(":")
            headers[key.strip().lower()] = value.strip()
        end = _body_end(rest, headers, status)
        page_end = len(head) + 4 + (len(rest) if end is None else end)
        out.append(Page(status, headers, data[: min(page_end, PAGE_READ)]))
        if end is None:
            break
        data = rest[end:]
    return out


def _body_end(rest: bytes, headers: dict[str, str], status: int | None) -> int | None:
    """Where the body that opens `rest` ends; None: at the close, or not within `rest`."""
    if status is not None and (status < 200 or status in (204, 304)):
        return 0
    if "chunked" in headers.get("transfer-encoding", "").lower():
        at = 0
        while True:
            line, found, _ = rest[at:].partition(b"\r\n")
            size_text = line.split(b";")[0].strip()
            if not found or not size_text:
                return None
            try:
                size = int(size_text, 16)
            except ValueError:
                return None
            at += len(line) + 2
            if size == 0:  # the last chunk, then any trailer lines up to an empty line
                if rest[at : at + 2] == b"\r\n":
                    return at + 2
                end = rest.find(b"\r\n\r\n", at)
                return None if end < 0 else end + 4
            at += size + 2
            if at > len(rest):
                return None
    length = headers.get("content-length", "")
    if length.isdigit():
        end = int(length)
        return end if end <= len(rest) else None
    return None


def get_pages(
    address: tuple[str, int], sni: str | None, paths: list[str], timeout: float
) -> list[Page]:
    """GETs of `paths` on one connection (this Python's TLS library), a client without a
    certificate: the answers that came before the server closed."""
    with connect_tls(address, sni, shared_context(), timeout) as tls:
        tls.sendall(requests(host_header(address, sni), paths))
        data = bytearray()
        while len(data) < PAGE_READ * len(paths):
            try:
                chunk = tls.recv(65536)
            except (ssl.SSLZeroReturnError, ssl.SSLEOFError):
                break
            if not chunk:
                break
            data += chunk
    return pages_in(bytes(data))


@record(frozen=True)
class Resumption:
    """What resuming showed, each way tried alone on fresh connections (None: that version is
    off). The names say what was observed, never what a config meant."""

    session_id_resumed: bool | None  # TLS 1.2, the client offering no ticket: its session ID
    tls12_ticket_issued: bool | None  # a TLS 1.2 full handshake got a non-empty NewSessionTicket
    tls12_ticket_resumed: bool | None  # ... and the next connection, offering it, resumed
    tls13_psk_resumed: bool | None  # TLS 1.3: a PSK from the first connection's tickets resumed


def _first_session(
    address: tuple[str, int], sni: str | None, timeout: float, context: ssl.SSLContext
) -> ssl.SSLSession | None:
    """One full handshake and a request (TLS 1.3 tickets come after the handshake: a request
    makes the server send them); the session the client keeps."""
    with connect_tls(address, sni, context, timeout) as tls:
        _get(tls, host_header(address, sni), "HEAD", "/")
        try:
            while tls.recv(4096):
                pass
        except (ssl.SSLError, OSError):
            pass
        return tls.session


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
    session = _first_session(address, sni, timeout, context)
    if session is None or not session.has_ticket:
        return False, False
    return True, _resumed(address, sni, timeout, context, session)


def _resumes(
    address: tuple[str, int],
    sni: str | None,
    timeout: float,
    version: ssl.TLSVersion,
    tickets: bool,
) -> bool:
    """Whether a second connection of this version resumes the first one's session."""
    context = _context(version, tickets)
    session = _first_session(address, sni, timeout, context)
    return session is not None and _resumed(address, sni, timeout, context, session)


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
    return Resumption(
        session_id_resumed=_resumes(address, sni, timeout, v12, False) if tls12 else None,
        tls12_ticket_issued=issued,
        tls12_ticket_resumed=resumed,
        tls13_psk_resumed=_resumes(address, sni, timeout, v13, True) if tls13 else None,
    )


def certificate_facts(der: bytes, sni: str | None) -> dict[str, Any]:
    facts = dict(_facts(der))
    expires = datetime.datetime.fromisoformat(facts["expires"])
    facts["days_left"] = (expires - datetime.datetime.now(datetime.UTC)).days
    facts["covers_sni"] = sni is None or covers(facts["names"], sni)
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
