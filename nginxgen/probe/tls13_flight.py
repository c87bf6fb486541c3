"""What a TLS 1.3 server sends encrypted: its certificate chain (with any OCSP staple) and whether
its session tickets allow 0-RTT.

In TLS 1.3 everything after the ServerHello is encrypted, and Python's ssl module shows only the
leaf certificate. This module runs one real handshake with the ssl module over memory buffers,
keeps every byte the server sent, and asks the ssl module to log the connection's traffic
secrets (`SSLContext.keylog_filename`, the NSS key log format). With those secrets it decrypts
the server's records itself (RFC 8446 section 5.2 record protection, 7.1 key schedule,
7.3 traffic keys) and reads:

- the Certificate message (4.4.2): every certificate as sent, in order, and the leaf entry's
  status_request extension (an OCSP response stapled, RFC 8446 4.4.2.1);
- the NewSessionTicket messages (4.6.1) sent after a request: an early_data extension
  (max_early_data_size) means the server accepts 0-RTT data with that ticket;
- a CertificateRequest (4.3.2), kept as sent for the client-certificate check;

and it keeps the answers to the requests sent after the handshake (the probe's pages: one
connection for the chain, the tickets and the pages).

The secrets are this probe's own connections': each thread has one client context, whose key
log is a private temporary file, emptied after each handshake and removed with the context
(creating a context and a folder per connection cost as much as the handshake).
"""

from __future__ import annotations

import os
import shutil
import ssl
import tempfile
import threading
import weakref

from nginxgen.base.records import record, replace
from nginxgen.probe.hello import connect

# TLS 1.3 suites: (AEAD, key length, hash)
SUITES = {
    0x1301: ("AESGCM", 16, "sha256"),
    0x1302: ("AESGCM", 32, "sha384"),
    0x1303: ("CHACHA20", 32, "sha256"),
    0x1304: ("AESCCM", 16, "sha256"),
}


@record(frozen=True)
class Tls13Flight:
    chain: list[bytes]  # DER, as sent, leaf first when the server is right
    stapled: bool
    max_early_data: int | None  # from the tickets: None when they allow no 0-RTT
    certificate_request: bytes | None = None  # the CertificateRequest's body, if one was sent
    answers: bytes = b""  # the server's application data: its answers to `requests`
    timed_out: bool = False  # the answers stopped at the timeout, not at the server's close


def _hkdf_expand_label(
    secret: bytes, label: str, length: int, hash_name: str, context: bytes = b""
) -> bytes:
    """HKDF-Expand-Label (RFC 8446 7.1)."""
    from cryptography.hazmat.primitives import hashes
    from cryptography.hazmat.primitives.kdf.hkdf import HKDFExpand

    full = b"tls13 " + label.encode()
    info = length.to_bytes(2, "big") + bytes([len(full)]) + full
    info += bytes([len(context)]) + context
    algorithm = hashes.SHA384() if hash_name == "sha384" else hashes.SHA256()
    return HKDFExpand(algorithm, length, info).derive(secret)


class _Decryptor:
    """Record protection for one direction and one traffic secret (RFC 8446 5.3)."""

    def __init__(self, secret: bytes, suite: int) -> None:
        from cryptography.hazmat.primitives.ciphers import aead

        kind, key_length, hash_name = SUITES[suite]
        key = _hkdf_expand_label(secret, "key", key_length, hash_name)
        self.iv = _hkdf_expand_label(secret, "iv", 12, hash_name)
        ciphers: dict[str, type[aead.AESGCM | aead.ChaCha20Poly1305 | aead.AESCCM]] = {
            "AESGCM": aead.AESGCM,
            "CHACHA20": aead.ChaCha20Poly1305,
            "AESCCM": aead.AESCCM,
        }
        self.aead = ciphers[kind](key)
        self.sequence = 0

    def open(self, header: bytes, body: bytes) -> tuple[int, bytes]:
        nonce = bytes(
            a ^ b for a, b in zip(self.iv, self.sequence.to_bytes(12, "big"), strict=True)
        )
        self.sequence += 1
        plain = self.aead.decrypt(nonce, body, header).rstrip(b"\x00")
        return plain[-1], plain[:-1]


def _records(data: bytes) -> list[tuple[bytes, bytes]]:
    out, at = [], 0
    while at + 5 <= len(data):
        size = int.from_bytes(data[at + 3 : at + 5], "big")
        out.append((data[at : at + 5], data[at + 5 : at + 5 + size]))
        at += 5 + size
    return out


def _messages(buffer: bytes) -> tuple[list[tuple[int, bytes]], bytes]:
    """Whole handshake messages (type, body) in a buffer, and what is left of it."""
    out = []
    while len(buffer) >= 4 and len(buffer) >= 4 + int.from_bytes(buffer[1:4], "big"):
        size = int.from_bytes(buffer[1:4], "big")
        out.append((buffer[0], buffer[4 : 4 + size]))
        buffer = buffer[4 + size :]
    return out, buffer


def _certificate(body: bytes) -> tuple[list[bytes], bool]:
    at = 1 + body[0]  # certificate_request_context
    end = at + 3 + int.from_bytes(body[at : at + 3], "big")
    at += 3
    chain, stapled = [], False
    while at + 3 <= end:
        size = int.from_bytes(body[at : at + 3], "big")
        chain.append(body[at + 3 : at + 3 + size])
        at += 3 + size
        extensions = int.from_bytes(body[at : at + 2], "big")
        ext_at, ext_end = at + 2, at + 2 + extensions
        while ext_at + 4 <= ext_end:
            kind = int.from_bytes(body[ext_at : ext_at + 2], "big")
            if kind == 5 and len(chain) == 1:  # status_request on the leaf: a stapled response
                stapled = True
            ext_at += 4 + int.from_bytes(body[ext_at + 2 : ext_at + 4], "big")
        at = ext_end
    return chain, stapled


def _early_data(body: bytes) -> int | None:
    """max_early_data_size from a NewSessionTicket's early_data extension (42)."""
    at = 8  # lifetime, age_add
    at += 1 + body[at]  # nonce
    at += 2 + int.from_bytes(body[at : at + 2], "big")  # ticket
    end = at + 2 + int.from_bytes(body[at : at + 2], "big")
    at += 2
    while at + 4 <= end:
        kind = int.from_bytes(body[at : at + 2], "big")
        size = int.from_bytes(body[at + 2 : at + 4], "big")
        if kind == 42 and size == 4:
            return int.from_bytes(body[at + 4 : at + 8], "big")
        at += 4 + size
    return None


# what is read of the server's answers: enough for every page the checks read (64 KiB each)
ANSWERS_READ = 256 * 1024


_local = threading.local()


def _context() -> tuple[ssl.SSLContext, str]:
    """This thread's TLS 1.3 client context, and the file its key log goes to."""
    if not hasattr(_local, "context"):
        from nginxgen.probe.resumption import client_context

        folder = tempfile.mkdtemp(prefix="nginxgen-probe-")
        keylog = os.path.join(folder, "keys")
        context = client_context()
        context.minimum_version = ssl.TLSVersion.TLSv1_3
        context.keylog_filename = keylog
        weakref.finalize(context, shutil.rmtree, folder, ignore_errors=True)
        _local.context, _local.keylog = context, keylog
    return _local.context, _local.keylog


def _handshake(
    address: tuple[str, int],
    sni: str | None,
    timeout: float,
    context: ssl.SSLContext,
    requests: bytes,
) -> tuple[bytes, bytes, bool]:
    """One TLS 1.3 handshake, then `requests` (HTTP/1.1, the last one closing the connection:
    the tickets come after the handshake, and a request makes every library send them) over
    memory buffers: (every byte the server sent until it closed, its application data, whether
    it stopped at the timeout instead), at most ANSWERS_READ of the application data."""
    incoming, outgoing = ssl.MemoryBIO(), ssl.MemoryBIO()
    tls = context.wrap_bio(incoming, outgoing, server_hostname=sni)
    received = bytearray()
    timed_out = False
    with connect(address, timeout) as sock:

        def pump() -> bool:
            nonlocal timed_out
            pending = outgoing.read()
            if pending:
                sock.sendall(pending)
            try:
                data = sock.recv(65536)
            except TimeoutError:
                timed_out = True
                return False
            if not data:
                incoming.write_eof()
                return False
            received.extend(data)
            incoming.write(data)
            return True

        while True:
            try:
                tls.do_handshake()
                break
            except ssl.SSLWantReadError:
                if not pump():
                    raise ConnectionError("the server closed during the handshake") from None
        answers = bytearray()
        if not requests:  # a stream port speaks no HTTP: the handshake's flight is all there is
            return bytes(received), bytes(answers), timed_out
        tls.write(requests)
        sock.sendall(outgoing.read())
        while len(answers) < ANSWERS_READ and pump():  # the tickets and the answers
            try:
                while chunk := tls.read(65536):
                    answers += chunk
            except (ssl.SSLWantReadError, ssl.SSLZeroReturnError, ssl.SSLEOFError):
                pass
    return bytes(received), bytes(answers), timed_out


def _secrets(keylog: str) -> dict[str, bytes]:
    """The secrets the key log holds (this thread's last handshake's), the log then emptied
    (the library appends to it)."""
    found = {}
    with open(keylog, "r+", encoding="ascii") as handle:
        for line in handle:
            parts = line.split()
            if len(parts) == 3:
                found[parts[0]] = bytes.fromhex(parts[2])
        handle.truncate(0)
    return found


def tls13_flight(
    address: tuple[str, int], sni: str | None, timeout: float, requests: bytes
) -> Tls13Flight | None:
    """The chain, the 0-RTT offer and the answers to `requests` of a TLS 1.3 handshake of the
    probe's unverifying client (it reports what is sent); None when it cannot be read."""
    read = _handshake_and_secrets(address, sni, timeout, requests)
    if read is None:
        return None
    received, answers, timed_out, handshake_secret, traffic_secret = read
    flight = _flight(received, handshake_secret, traffic_secret)
    return replace(flight, answers=answers, timed_out=timed_out) if flight is not None else None


def _handshake_and_secrets(
    address: tuple[str, int], sni: str | None, timeout: float, requests: bytes
) -> tuple[bytes, bytes, bool, bytes, bytes] | None:
    """Every byte the server sent in one handshake, its application data, whether that stopped
    at the timeout, and its handshake and first application traffic secrets (from the key
    log); None when the handshake or a secret is missing."""
    context, keylog = _context()
    try:
        try:
            received, answers, timed_out = _handshake(address, sni, timeout, context, requests)
        finally:
            secrets = _secrets(keylog)  # read, and emptied for the next handshake, whatever came
    except (OSError, ssl.SSLError, ConnectionError):
        return None
    handshake_secret = secrets.get("SERVER_HANDSHAKE_TRAFFIC_SECRET")
    traffic_secret = secrets.get("SERVER_TRAFFIC_SECRET_0")
    if handshake_secret is None or traffic_secret is None:
        return None
    return received, answers, timed_out, handshake_secret, traffic_secret


def _flight(received: bytes, handshake_secret: bytes, traffic_secret: bytes) -> Tls13Flight | None:
    """The server's flight read from what it sent, decrypted with its secrets (after its
    Finished, with the application traffic keys); None when it does not decrypt or has no
    certificate."""
    from cryptography.exceptions import InvalidTag

    suite, keys = None, None
    chain: list[bytes] = []
    stapled, early, finished = False, None, False
    request: bytes | None = None
    plain_buffer, secret_buffer = b"", b""
    for header, body in _records(received):
        if header[0] == 22:  # ServerHello (and a HelloRetryRequest): in clear
            plain_buffer += body
            for kind, message in _messages(plain_buffer)[0]:
                if kind == 2:
                    at = 2 + 32 + 1 + message[34]
                    suite = int.from_bytes(message[at : at + 2], "big")
            plain_buffer = _messages(plain_buffer)[1]
        elif header[0] == 23 and suite in SUITES:
            if keys is None:
                keys = _Decryptor(handshake_secret, suite)
            try:
                kind, plain = keys.open(header, body)
            except (InvalidTag, IndexError):  # not what the key log says, or an empty record
                return None
            if kind != 22:
                continue
            secret_buffer += plain
            messages, secret_buffer = _messages(secret_buffer)
            for message_kind, message in messages:
                if message_kind == 11:
                    chain, stapled = _certificate(message)
                elif message_kind == 4:
                    early = _early_data(message) if early is None else early
                elif message_kind == 13:  # CertificateRequest (4.3.2): read by its check
                    request = message
                elif message_kind == 20 and not finished:  # server Finished: new keys follow
                    finished = True
                    keys = _Decryptor(traffic_secret, suite)
    if not chain:
        return None
    return Tls13Flight(
        chain=chain, stapled=stapled, max_early_data=early, certificate_request=request
    )
