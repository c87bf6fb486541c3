"""One ClientHello on the wire and what the server answers first: enough to learn which protocol
version, suite and key-exchange group a server picks, without finishing a handshake.

Built by hand (RFC 8446 section 4.1.2, RFC 5246 section 7.4.1.2) because the answers that matter
are in the server's first flight and no TLS library a user has will offer groups without key
shares on request: a group offered with no key share makes a TLS 1.3 server that wants it send
a HelloRetryRequest naming it, which is exactly how enforcement of ML-KEM shows. The first
hello's key shares are X25519 or X25519MLKEM768; a HelloRetryRequest may be answered once, with
a share for the group it names (fresh X25519, X448 and NIST-curve keys from `cryptography`,
ML-KEM keys as described below), to read the suite and group of the ServerHello that follows.
Nothing after a ServerHello is read or answered.
"""

from __future__ import annotations

import os
import secrets
import socket
import struct
import threading
from collections.abc import Callable, Iterator, Mapping, Sequence

from nginxgen.base.records import record, replace
from nginxgen.knowledge import tls_groups

# IANA TLS registries: protocol versions. The groups and suites are the knowledge base's, every
# one it knows (groups.toml; cipher_suites.every_suite).
VERSIONS = {"TLSv1": 0x0301, "TLSv1.1": 0x0302, "TLSv1.2": 0x0303, "TLSv1.3": 0x0304}


def group_name(group: tls_groups.Group) -> str:
    """How the probe names a group: its IANA name (secp256r1, not OpenSSL's prime256v1), in
    OpenSSL's letter case where they differ only in that (X25519)."""
    return group.display if group.display.lower() == group.id.lower() else group.id


KNOWN_GROUPS = [g for g in tls_groups.all_groups() if g.codepoint is not None]
GROUPS = {group_name(g): g.codepoint for g in KNOWN_GROUPS if g.codepoint is not None}
GROUP_NAMES = {code: name for name, code in GROUPS.items()}
# the groups of a hello that is not about them: the classical ones every client offers
CLASSICAL = [group_name(g) for g in tls_groups.classical_groups()]
PQ_GROUPS = frozenset(group_name(g) for g in KNOWN_GROUPS if g.pq)
# what browsers send a key share for, beside X25519 (the one hybrid they offer)
BROWSER_HYBRID = "X25519MLKEM768"
# the standard hybrids (ML-KEM with a classical group), which clients offer: the browsers' first,
# so that a server taking the client's order among its hybrids answers as it answers them
# (trial 23: OpenSSL 4.0's and AWS-LC's own lists hold SecP256r1MLKEM768 too, and the probe,
# offering it first, reported it where a browser gets X25519MLKEM768)
PQ_HYBRIDS = sorted(
    (group_name(g) for g in KNOWN_GROUPS if g.pq and not (g.pure or g.draft)),
    key=lambda name: name != BROWSER_HYBRID,
)
# every group TLS 1.3 can negotiate, and every one TLS 1.2's ECDHE can (no finite-field group:
# OpenSSL takes those in TLS 1.3 only; no ML-KEM, which needs TLS 1.3)
# (the classical ones first, then the knowledge base's order)
_RANK = {name: rank for rank, name in enumerate(CLASSICAL)}
_ORDER = sorted(KNOWN_GROUPS, key=lambda g: _RANK.get(group_name(g), len(CLASSICAL)))
TLS13_GROUPS = [group_name(g) for g in _ORDER if not g.tls12_only]
TLS12_GROUPS = [group_name(g) for g in _ORDER if not (g.tls13_only or g.pq)]


def _every_suite() -> tuple[dict[int, str], dict[int, str]]:
    from nginxgen.ciphers.suites import every_suite

    older, tls13 = every_suite()
    return dict(older), dict(tls13)


# code -> name of every suite, in the order offered: TLS 1.2 (and older) strongest first
TLS12_SUITES, TLS13_SUITES = _every_suite()
SUITE_CODES = {name: code for code, name in (*TLS12_SUITES.items(), *TLS13_SUITES.items())}
# every signature scheme a certificate of a TLS 1.2 suite may need (RFC 8446 4.2.3; DSA: RFC
# 5246 7.4.1.4.1), so that no suite is out of reach for want of one
SIGNATURE_SCHEMES = [0x0403, 0x0503, 0x0603, 0x0807, 0x0808, 0x0804, 0x0805, 0x0806, 0x0809,
                     0x080A, 0x080B, 0x0401, 0x0501, 0x0601, 0x0203, 0x0201, 0x0402, 0x0502,
                     0x0602, 0x0202]  # fmt: skip
# the compatibility-mode ChangeCipherSpec a client sends before its second hello (RFC 8446 D.4)
CHANGE_CIPHER_SPEC = b"\x14\x03\x03\x00\x01\x01"
HRR_RANDOM = bytes.fromhex("CF21AD74E59A6111BE1D8C021E65B891C2A211167ABB8C5E079E09E2C8A8339C")
ALERTS = {40: "handshake failure", 70: "protocol version", 71: "insufficient security",
          80: "internal error", 112: "unrecognized name", 47: "illegal parameter",
          50: "decode error", 109: "missing extension"}  # fmt: skip


@record(frozen=True)
class HelloReply:
    """The server's first answer to one ClientHello."""

    accepted: bool  # a ServerHello (or HelloRetryRequest) came, not an alert or a close
    version: str | None = None
    cipher: str | None = None
    group: str | None = None  # the key-share group of a TLS 1.3 ServerHello or HRR
    hrr: bool = False
    alert: str | None = None
    alert_code: int | None = None  # the AlertDescription, where the server sent an alert
    inconclusive: bool = False  # a timeout or a reset: neither accepted nor refused
    cookie: bytes | None = None  # a HelloRetryRequest's cookie, echoed in the second hello
    retry: HelloReply | None = None  # with follow_retry: the answer to the second ClientHello
    # with key_exchange, TLS 1.2: the group of the leaf certificate's EC key (None: not EC),
    # which the client's groups must name for the server to use that certificate (RFC 8422 5.1)
    certificate_curve: str | None = None


_opened = threading.local()  # connections made by this thread (one probed name per thread)


def connect(address: tuple[str, int], timeout: float) -> socket.socket:
    """Every connection the probe makes, counted."""
    _opened.count = getattr(_opened, "count", 0) + 1
    return socket.create_connection(address, timeout=timeout)


def connections_made() -> int:
    """Connections this thread made since the last call."""
    count: int = getattr(_opened, "count", 0)
    _opened.count = 0
    return count


def _vector(data: bytes, width: int) -> bytes:
    return len(data).to_bytes(width, "big") + data


def _extension(kind: int, body: bytes) -> bytes:
    return struct.pack("!HH", kind, len(body)) + body


def _x25519_share() -> bytes:
    from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey
    from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

    public = X25519PrivateKey.generate().public_key()
    return public.public_bytes(Encoding.Raw, PublicFormat.Raw)


def _ec_share(curve: str) -> bytes:
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

    kind: dict[str, ec.EllipticCurve] = {
        "secp256r1": ec.SECP256R1(),
        "secp384r1": ec.SECP384R1(),
        "secp521r1": ec.SECP521R1(),
    }
    public = ec.generate_private_key(kind[curve]).public_key()
    return public.public_bytes(Encoding.X962, PublicFormat.UncompressedPoint)


def _x448_share() -> bytes:
    from cryptography.hazmat.primitives.asymmetric.x448 import X448PrivateKey
    from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

    public = X448PrivateKey.generate().public_key()
    return public.public_bytes(Encoding.Raw, PublicFormat.Raw)


def _mlkem_encapsulation_key(k: int = 3) -> bytes:
    """A well-formed ML-KEM-768 (k = 3; ML-KEM-1024: k = 4) encapsulation key (FIPS 203): k
    polynomials of 256 coefficients below q = 3329, 12 bits each, then a 32-byte seed. Its
    coefficients are drawn at random rather than from a key pair: it passes the server's input
    checks (length and modulus, FIPS 203 7.2) and the server encapsulates to it, which is all
    the probe reads (the ServerHello's group); the handshake is never finished, so no
    decapsulation key is needed. This Python's `cryptography` has no ML-KEM."""
    coefficients = [secrets.randbelow(3329) for _ in range(k * 256)]
    packed = bytearray()
    for a, b in zip(coefficients[0::2], coefficients[1::2], strict=True):
        packed += bytes((a & 0xFF, (a >> 8) | ((b & 0x0F) << 4), b >> 4))
    return bytes(packed) + os.urandom(32)


# the groups this probe can make a key share for, each with how (the hybrids as
# draft-ietf-tls-ecdhe-mlkem lays them out: ML-KEM first only for X25519)
_SHARES: dict[str, Callable[[], bytes]] = {
    "X25519": _x25519_share,
    "X448": _x448_share,
    "secp256r1": lambda: _ec_share("secp256r1"),
    "secp384r1": lambda: _ec_share("secp384r1"),
    "secp521r1": lambda: _ec_share("secp521r1"),
    "X25519MLKEM768": lambda: _mlkem_encapsulation_key() + _x25519_share(),
    "SecP256r1MLKEM768": lambda: _ec_share("secp256r1") + _mlkem_encapsulation_key(),
    "SecP384r1MLKEM1024": lambda: _ec_share("secp384r1") + _mlkem_encapsulation_key(k=4),
}
RETRY_SHARES = frozenset(_SHARES)


def _key_share(group: str) -> bytes:
    if group not in _SHARES:
        raise ValueError(f"no key share can be made for {group}")
    return _SHARES[group]()


def handshake_record(kind: int, body: bytes) -> bytes:
    """One handshake message of `kind` in one record (legacy version 0x0301, as ClientHellos
    are sent)."""
    handshake = bytes([kind]) + len(body).to_bytes(3, "big") + body
    return b"\x16" + (0x0301).to_bytes(2, "big") + _vector(handshake, 2)


def client_hello_body(
    sni: str | None,
    version: str,
    groups: Sequence[str],
    shares: Sequence[str] = (),
    suites: Sequence[int] | None = None,
    alpn: Sequence[str] = (),
    random: bytes | None = None,
    session_id: bytes | None = None,
    cookie: bytes | None = None,
    share_values: Mapping[str, bytes] | None = None,
    extra: bytes = b"",
) -> bytes:
    """A ClientHello message's body (handshake_record(1, ...) makes the record) offering exactly
    one protocol version. For TLS 1.3: `groups` in supported_groups, a key share for each of
    `shares` (RETRY_SHARES). The second hello after a HelloRetryRequest repeats the first one's
    random and session id and echoes the cookie. `share_values` gives the key share of a group
    instead of a fresh one (a caller that finishes the key exchange keeps the private key),
    `extra` is appended to the extensions (ECH's, which is last), and an empty `session_id` is
    sent empty."""
    tls13 = version == "TLSv1.3"
    if suites is None:
        suites = list(TLS13_SUITES) if tls13 else list(TLS12_SUITES)
    extensions = _offer_extensions(sni, groups, alpn)
    if tls13:
        extensions += _tls13_extensions(shares, share_values or {}, cookie)
    extensions += extra
    legacy = 0x0303 if tls13 else VERSIONS[version]
    session = os.urandom(32) if session_id is None else session_id  # middlebox compatibility
    return (
        legacy.to_bytes(2, "big")
        + (random or os.urandom(32))
        + _vector(session, 1)
        + _vector(b"".join(s.to_bytes(2, "big") for s in suites), 2)
        + b"\x01\x00"  # compression: null
        + _vector(extensions, 2)
    )


def _offer_extensions(sni: str | None, groups: Sequence[str], alpn: Sequence[str]) -> bytes:
    """The extensions a hello of any version sends: the name (with `sni`), the groups, point
    formats, signature schemes, ALPN (with `alpn`), renegotiation_info and status_request."""
    extensions = b""
    if sni:
        name = sni.encode("idna")
        extensions += _extension(0, _vector(b"\x00" + _vector(name, 2), 2))
    codes = b"".join(GROUPS[g].to_bytes(2, "big") for g in groups)
    extensions += _extension(10, _vector(codes, 2))  # supported_groups
    extensions += _extension(11, b"\x01\x00")  # ec_point_formats: uncompressed
    schemes = b"".join(s.to_bytes(2, "big") for s in SIGNATURE_SCHEMES)
    extensions += _extension(13, _vector(schemes, 2))
    if alpn:
        protocols = b"".join(_vector(p.encode(), 1) for p in alpn)
        extensions += _extension(16, _vector(protocols, 2))
    extensions += _extension(0xFF01, b"\x00")  # renegotiation_info
    extensions += _extension(5, b"\x01\x00\x00\x00\x00")  # status_request: OCSP, no ids
    return extensions


def _tls13_extensions(
    shares: Sequence[str], share_values: Mapping[str, bytes], cookie: bytes | None
) -> bytes:
    """The extensions that offer TLS 1.3 alone: the version, a key share for each of `shares`
    (`share_values`' where it has one, else a fresh one), and a HelloRetryRequest's cookie."""
    extensions = _extension(43, _vector(b"\x03\x04", 1))  # supported_versions
    entries = b""
    for group in shares:
        value = share_values.get(group) or _key_share(group)
        entries += GROUPS[group].to_bytes(2, "big") + _vector(value, 2)
    extensions += _extension(51, _vector(entries, 2))  # key_share
    extensions += _extension(45, b"\x01\x01")  # psk_key_exchange_modes: psk_dhe_ke
    if cookie is not None:
        extensions += _extension(44, _vector(cookie, 2))
    return extensions


def _read_record(sock: socket.socket) -> tuple[int, bytes] | None:
    header = _read_exact(sock, 5)
    if header is None:
        return None
    kind, _, length = struct.unpack("!BHH", header)
    body = _read_exact(sock, length)
    return None if body is None else (kind, body)


def _read_exact(sock: socket.socket, size: int) -> bytes | None:
    data = b""
    while len(data) < size:
        chunk = sock.recv(size - len(data))
        if not chunk:
            return None
        data += chunk
    return data


def parse_server_hello(body: bytes) -> HelloReply:
    """A ServerHello handshake message (type 2), HelloRetryRequest included."""
    legacy = int.from_bytes(body[4:6], "big")
    random = body[6:38]
    at = 38
    at += 1 + body[at]  # session id
    suite = int.from_bytes(body[at : at + 2], "big")
    at += 3  # suite, compression
    version, group, cookie = legacy, None, None
    if at + 2 <= len(body):
        end = at + 2 + int.from_bytes(body[at : at + 2], "big")
        at += 2
        while at + 4 <= end:
            kind, size = struct.unpack("!HH", body[at : at + 4])
            data = body[at + 4 : at + 4 + size]
            if kind == 43 and size >= 2:
                version = int.from_bytes(data[:2], "big")
            elif kind == 51 and size >= 2:
                group = int.from_bytes(data[:2], "big")
            elif kind == 44 and size >= 2:
                cookie = data[2 : 2 + int.from_bytes(data[:2], "big")]
            at += 4 + size
    names = {code: name for name, code in VERSIONS.items()}
    return HelloReply(
        accepted=True,
        version=names.get(version, hex(version)),
        cipher=TLS13_SUITES.get(suite) or TLS12_SUITES.get(suite) or hex(suite),
        group=GROUP_NAMES.get(group, hex(group)) if group is not None else None,
        hrr=random == HRR_RANDOM,
        cookie=cookie,
    )


class _Alert(Exception):
    """The server answered with an alert: its description, and its code."""

    def __init__(self, code: int) -> None:
        super().__init__(ALERTS.get(code, f"alert {code}"))
        self.code = code


def alert_text(code: int) -> str:
    """An alert as RFC 8446 section 6 names it: `alert 112 (unrecognized_name)`."""
    name = ALERTS.get(code)
    return f"alert {code} ({name.replace(' ', '_')})" if name else f"alert {code}"


def _messages(sock: socket.socket) -> Iterator[tuple[int, bytes]]:
    """The server's handshake messages (type, whole message) as they arrive, until it closes;
    an alert raises _Alert with its description."""
    buffer = b""
    while True:
        record = _read_record(sock)
        if record is None:
            return
        kind, body = record
        if kind == 21 and len(body) >= 2:
            raise _Alert(body[1])
        if kind != 22:
            continue
        buffer += body
        while len(buffer) >= 4 and len(buffer) >= 4 + int.from_bytes(buffer[1:4], "big"):
            size = 4 + int.from_bytes(buffer[1:4], "big")
            yield buffer[0], buffer[:size]
            buffer = buffer[size:]


def ask(
    address: tuple[str, int],
    sni: str | None,
    version: str,
    groups: Sequence[str],
    shares: Sequence[str] = (),
    suites: Sequence[int] | None = None,
    timeout: float = 5.0,
    key_exchange: bool = False,
    follow_retry: bool = False,
) -> HelloReply:
    """Send one ClientHello and read the server's first answer; with `key_exchange`, a TLS 1.2
    answer is read on to its ServerKeyExchange, whose ECDHE parameters name the group (the
    TLS 1.2 first flight travels unencrypted, RFC 8422 5.4). With `follow_retry`, a
    HelloRetryRequest for a group the probe can make a key share for is answered with the
    second ClientHello (RFC 8446 4.1.2), and the server's answer to it is the reply's `retry`: a
    server may take another suite there, which clients refuse (RFC 8446 4.1.4)."""
    random, session_id = os.urandom(32), os.urandom(32)

    def hello(shares: Sequence[str], cookie: bytes | None = None) -> bytes:
        body = client_hello_body(sni, version, groups, shares, suites, random=random,
                                 session_id=session_id, cookie=cookie)  # fmt: skip
        return handshake_record(1, body)

    first_hello = hello(shares)
    first: HelloReply | None = None  # a HelloRetryRequest answered with a second hello
    curve: str | None = None
    try:
        with connect(address, timeout) as sock:
            sock.sendall(first_hello)
            answer = None
            for kind, message in _messages(sock):
                if kind == 2 and first is not None:  # the ServerHello after the retry
                    return replace(first, retry=parse_server_hello(message))
                if kind == 2:  # ServerHello (a HelloRetryRequest is one too)
                    answer = parse_server_hello(message)
                    retry = follow_retry and answer.hrr and answer.group in RETRY_SHARES
                    if retry and answer.group is not None:
                        first = answer
                        again = hello([answer.group], answer.cookie)
                        sock.sendall(CHANGE_CIPHER_SPEC + again)
                        continue
                    if not key_exchange or answer.version == "TLSv1.3":
                        return answer
                elif kind == 11 and answer is not None:  # Certificate, in clear in TLS 1.2
                    curve = _leaf_curve(message[4:])
                elif kind == 12 and answer is not None:  # ServerKeyExchange
                    group = _key_exchange_group(message)
                    return replace(answer, group=group, certificate_curve=curve)
                elif kind == 14 and answer is not None:  # ServerHelloDone: no ECDHE
                    return replace(answer, certificate_curve=curve)
            closed = HelloReply(accepted=False, alert="connection closed")
            return replace(first, retry=closed) if first is not None else closed
    except (_Alert, OSError) as exc:
        refused = _refusal(exc)
    return replace(first, retry=refused) if first is not None else refused


def _leaf_curve(body: bytes) -> str | None:
    """The group of the EC key of the first certificate of a TLS 1.2 Certificate message
    (None: another kind of key, or none)."""
    from cryptography import x509
    from cryptography.hazmat.primitives.asymmetric import ec

    if len(body) < 6:
        return None
    size = int.from_bytes(body[3:6], "big")
    try:
        key = x509.load_der_x509_certificate(body[6 : 6 + size]).public_key()
    except ValueError:
        return None
    if not isinstance(key, ec.EllipticCurvePublicKey):
        return None
    group = tls_groups.find_group(key.curve.name)
    return group_name(group) if group is not None else key.curve.name


def _key_exchange_group(message: bytes) -> str | None:
    """The group of a TLS 1.2 ServerKeyExchange's ECDHE parameters (RFC 8422 5.4), None when
    they name no curve."""
    body = message[4:]
    named = body[:1] == b"\x03"  # ECCurveType named_curve
    code = int.from_bytes(body[1:3], "big") if named else None
    return GROUP_NAMES.get(code, hex(code)) if code is not None else None


def _refusal(exc: _Alert | OSError) -> HelloReply:
    """A hello that got no ServerHello: the alert, or why the connection ended (a timeout or a
    reset is neither accepted nor refused)."""
    if isinstance(exc, _Alert):
        return HelloReply(accepted=False, alert=str(exc), alert_code=exc.code)
    if isinstance(exc, TimeoutError):
        return HelloReply(accepted=False, alert="timeout", inconclusive=True)
    if isinstance(exc, ConnectionResetError):
        return HelloReply(accepted=False, alert="connection reset", inconclusive=True)
    return HelloReply(accepted=False, alert=exc.strerror or str(exc))


@record(frozen=True)
class Flight:
    """What a TLS 1.2 server sends before it waits for the client: its certificates as sent
    (DER, in order), whether an OCSP response was stapled, and any CertificateRequest."""

    chain: list[bytes]
    stapled: bool
    certificate_request: bytes | None = None  # the CertificateRequest's body, if one was sent


def tls12_flight(address: tuple[str, int], sni: str | None, timeout: float = 5.0) -> Flight | None:
    """Read a TLS 1.2 server's first flight up to ServerHelloDone (None when TLS 1.2 is refused).
    In TLS 1.2 the Certificate and CertificateStatus messages travel unencrypted."""
    hello = handshake_record(1, client_hello_body(sni, "TLSv1.2", CLASSICAL))
    chain: list[bytes] = []
    stapled = False
    request: bytes | None = None
    try:
        with connect(address, timeout) as sock:
            sock.sendall(hello)
            for kind, message in _messages(sock):
                body = message[4:]
                if kind == 11:  # Certificate: a list of 3-byte-length DER certificates
                    at = 3
                    while at + 3 <= len(body):
                        length = int.from_bytes(body[at : at + 3], "big")
                        chain.append(body[at + 3 : at + 3 + length])
                        at += 3 + length
                elif kind == 22:  # CertificateStatus
                    stapled = True
                elif kind == 13:  # CertificateRequest (RFC 5246 7.4.4): its check reads it
                    request = body
                elif kind == 14:  # ServerHelloDone
                    return Flight(chain, stapled, request)
    except (_Alert, OSError):
        return None
    return None
