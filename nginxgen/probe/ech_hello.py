"""One Encrypted Client Hello (RFC 9849) in the probe's own codec, and what the server made of it.

The client's side, as section 6.1 lays it out: a ClientHelloInner naming the real server (TLS 1.3
only, the `encrypted_client_hello` extension of type inner) is encoded (section 5.1: its
legacy_session_id left empty, padded as section 6.1.3 says), sealed with HPKE (nginxgen/probe/
hpke.py; info "tls ech" 0x00 ECHConfig, the AAD the ClientHelloOuter with the payload zeroed)
and sent inside a ClientHelloOuter that names the config's public name. Both hellos carry the
same key shares (X25519, P-256 and P-384, so that a server without X25519 needs no
HelloRetryRequest), so whichever hello the server takes, the probe can run the TLS 1.3 key
schedule (RFC 8446 7.1) and read the server's encrypted flight.

The verdict, from the server's answer:

- `accepted`: the last 8 bytes of the ServerHello's random are the accept confirmation
  (section 7.2: HKDF-Expand-Label(HKDF-Extract(0, ClientHelloInner.random),
  "ech accept confirmation", transcript hash of ClientHelloInner and the ServerHello with those
  bytes zeroed, 8)); the flight is then read under the inner transcript;
- `rejected`: no confirmation, and the EncryptedExtensions (read under the outer transcript)
  carry an `encrypted_client_hello` extension: the server's retry_configs (section 7.1);
- `ignored`: no confirmation and no retry configs, the server answered the outer hello as any
  TLS 1.3 server without ECH does;
- `error`: an alert, a close, a TLS 1.2 answer or a HelloRetryRequest (which this probe does not
  follow: it comes only from a server with none of the three groups, an ML-KEM-only one, for
  which this Python's `cryptography` has no key exchange).

Either way the leaf certificate's names are read from the flight: an accepted handshake shows the
inner name's certificate, a rejected one the public name's. Nothing is sent after the
ClientHello: the connection is closed once the server's Certificate (or Finished) is read.
"""

from __future__ import annotations

import hashlib
import os
import socket
import struct

from nginxgen.base.ech_configs import (
    ECH_EXTENSION,
    KEM_X25519_HKDF_SHA256,
    EchConfig,
    EchConfigList,
    EchError,
    parse_config,
    parse_config_list,
    serialise_config,
)
from nginxgen.base.records import record
from nginxgen.probe import hpke
from nginxgen.probe.hello import (
    ALERTS,
    GROUP_NAMES,
    HRR_RANDOM,
    _extension,
    _read_record,
    _vector,
    client_hello_body,
    connect,
    handshake_record,
)
from nginxgen.probe.resumption import certificate_facts
from nginxgen.probe.tls13_flight import (
    SUITES,
    _certificate,
    _Decryptor,
    _hkdf_expand_label,
    _messages,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Literal

ACCEPTED, REJECTED, IGNORED, ERROR = "accepted", "rejected", "ignored", "error"
OUTER, INNER = 0, 1  # ECHClientHelloType (section 5)
TAG = 16  # each AEAD of RFC 9180 7.3 adds a 16-byte tag to the sealed inner hello


@record(frozen=True)
class EchAnswer:
    """What one ECH ClientHello got (see the module's docstring for the verdicts)."""

    verdict: str
    config_id: int
    public_name: str
    retry_configs: EchConfigList | None = None  # a rejection's retry_configs, as sent
    certificate_names: tuple[str, ...] = ()  # the leaf's DNS names, from the decrypted flight
    detail: str | None = None  # for an error: what happened
    inconclusive: bool = False  # a timeout or a reset: no verdict either way


def usable(configs: EchConfigList) -> tuple[EchConfig | None, str]:
    """The first config this probe can use (section 6.1: a client skips a version, KEM or suite
    it lacks, and a config with a mandatory extension it does not know), or None and why."""
    reasons = [f"version {version:#06x}" for version, _ in configs.others]
    for config in configs.configs:
        if config.kem_id != KEM_X25519_HKDF_SHA256:
            reasons.append(f"config {config.config_id}: KEM {config.kem_id:#06x}, not X25519")
        elif suite_of(config) is None:
            reasons.append(
                f"config {config.config_id}: no suite of HKDF-SHA256/384/512 with AES-128-GCM, "
                "AES-256-GCM or ChaCha20Poly1305"
            )
        elif config.mandatory_extensions:
            kinds = ", ".join(f"{k:#06x}" for k in config.mandatory_extensions)
            reasons.append(f"config {config.config_id}: mandatory extensions {kinds}")
        else:
            return config, ""
    return None, "no config this probe can use (" + "; ".join(reasons) + ")"


def suite_of(config: EchConfig) -> hpke.Suite | None:
    """The first of the config's cipher suites HPKE here has (section 6.1: the client picks
    one it supports), None when it has none."""
    return next(
        (hpke.Suite(s.kdf_id, s.aead_id) for s in config.suites
         if hpke.supported(s.kdf_id, s.aead_id)),
        None,
    )  # fmt: skip


def _padding(encoded_length: int, inner_name: str, config: EchConfig) -> int:
    """Section 6.1.3: pad the name up to maximum_name_length, then the whole to 32 bytes."""
    padding = max(0, config.maximum_name_length - len(inner_name.encode("idna")))
    total = encoded_length + padding
    return padding + 31 - ((total - 1) % 32)


class KeyShares:
    """Fresh key pairs for the groups the ECH hellos offer (RFC 8446 4.2.8: X25519 raw, the NIST
    curves as uncompressed points), kept to finish the key exchange with the one the server
    picks."""

    def __init__(self) -> None:
        from cryptography.hazmat.primitives.asymmetric import ec
        from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey

        self.x25519 = X25519PrivateKey.generate()
        self.nist = {"secp256r1": ec.generate_private_key(ec.SECP256R1()),
                     "secp384r1": ec.generate_private_key(ec.SECP384R1())}  # fmt: skip

    def public(self) -> dict[str, bytes]:
        from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

        shares = {"X25519": self.x25519.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)}
        for name, key in self.nist.items():
            point = key.public_key().public_bytes(Encoding.X962, PublicFormat.UncompressedPoint)
            shares[name] = point
        return shares

    def shared(self, group: int, server_share: bytes) -> bytes:
        """The (EC)DHE secret with the server's share of `group` (a code point)."""
        from cryptography.hazmat.primitives.asymmetric import ec
        from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PublicKey

        name = GROUP_NAMES.get(group)
        if name == "X25519":
            return self.x25519.exchange(X25519PublicKey.from_public_bytes(server_share))
        if name in self.nist:
            key = self.nist[name]
            point = ec.EllipticCurvePublicKey.from_encoded_point(key.curve, server_share)
            return key.exchange(ec.ECDH(), point)
        raise _Failed(f"the server chose group {group:#06x}, which was not offered")


def build(
    config: EchConfig, inner_name: str, shares: dict[str, bytes]
) -> tuple[bytes, bytes, bytes]:
    """(the ClientHelloOuter record, the ClientHelloInner handshake message as the server will
    rebuild it, the ClientHelloOuter handshake message), for one config and the real name, both
    hellos with the key shares `shares` (by group name)."""
    session_id = os.urandom(32)
    suites = list(SUITES)  # those whose records this module decrypts
    groups = list(shares)

    def hello(name: str, session: bytes, random: bytes, extra: bytes) -> bytes:
        return client_hello_body(name, "TLSv1.3", groups, groups, suites,
                                 random=random, session_id=session, share_values=shares,
                                 extra=extra)  # fmt: skip

    inner_random = os.urandom(32)
    marker = _extension(ECH_EXTENSION, bytes([INNER]))
    inner = hello(inner_name, session_id, inner_random, marker)
    encoded = hello(inner_name, b"", inner_random, marker)  # section 5.1: no session id
    encoded += bytes(_padding(len(encoded), inner_name, config))
    suite = suite_of(config) or hpke.DEFAULT  # a GREASE config has the default suite
    enc, context = hpke.setup_base_s(config.public_key, b"tls ech\x00" + config.raw, suite=suite)

    def outer_extension(payload: bytes) -> bytes:
        body = (
            bytes([OUTER])
            + struct.pack("!HHB", suite.kdf_id, suite.aead_id, config.config_id)
            + _vector(enc, 2)
            + _vector(payload, 2)
        )
        return _extension(ECH_EXTENSION, body)

    outer_random = os.urandom(32)
    size = len(encoded) + TAG
    aad = hello(config.public_name, session_id, outer_random, outer_extension(bytes(size)))
    payload = context.seal(aad, encoded)
    outer = aad[:-size] + payload  # the payload is the last field of the last extension
    inner_message = b"\x01" + len(inner).to_bytes(3, "big") + inner
    outer_message = b"\x01" + len(outer).to_bytes(3, "big") + outer
    return handshake_record(1, outer), inner_message, outer_message


def _server_hello(message: bytes) -> tuple[bytes, int, dict[int, bytes]]:
    """(random, suite, extensions by type) of a ServerHello handshake message."""
    body = message[4:]
    random = body[2:34]
    at = 34 + 1 + body[34]
    suite = int.from_bytes(body[at : at + 2], "big")
    at += 3
    end = at + 2 + int.from_bytes(body[at : at + 2], "big")
    return random, suite, _extensions(body[at + 2 : end])


def _extensions(data: bytes) -> dict[int, bytes]:
    found, at = {}, 0
    while at + 4 <= len(data):
        kind, size = struct.unpack("!HH", data[at : at + 4])
        found[kind] = data[at + 4 : at + 4 + size]
        at += 4 + size
    return found


def _hash(suite: int) -> tuple[str, int]:
    name = SUITES[suite][2]
    return name, hashlib.new(name).digest_size


def accept_confirmation(inner_message: bytes, server_hello: bytes, suite: int) -> bytes:
    """Section 7.2: the 8 bytes a server that accepted ECH puts at the end of its random."""
    name, size = _hash(suite)
    inner_random = inner_message[6:38]
    zeroed = server_hello[: 4 + 2 + 24] + bytes(8) + server_hello[4 + 2 + 32 :]
    transcript = hashlib.new(name, inner_message + zeroed).digest()
    secret = _extract(name, bytes(size), inner_random)
    return _hkdf_expand_label(secret, "ech accept confirmation", 8, name, transcript)


def _extract(hash_name: str, salt: bytes, ikm: bytes) -> bytes:
    import hmac

    return hmac.new(salt, ikm, hash_name).digest()


def handshake_traffic_secret(shared: bytes, transcript: bytes, suite: int) -> bytes:
    """RFC 8446 7.1: server_handshake_traffic_secret from the (EC)DHE secret and the hash of
    ClientHello..ServerHello."""
    name, size = _hash(suite)
    early = _extract(name, bytes(size), bytes(size))
    derived = _hkdf_expand_label(early, "derived", size, name, hashlib.new(name).digest())
    handshake = _extract(name, derived, shared)
    digest = hashlib.new(name, transcript).digest()
    return _hkdf_expand_label(handshake, "s hs traffic", size, name, digest)


def ask_ech(
    address: tuple[str, int], inner_name: str, config: EchConfig, timeout: float
) -> EchAnswer:
    """Send one ECH ClientHello for `inner_name` with `config` and read the verdict."""
    keys = KeyShares()
    hello, inner, outer = build(config, inner_name, keys.public())
    answer = EchAnswer(ERROR, config.config_id, config.public_name)

    def failed(detail: str, inconclusive: bool = False) -> EchAnswer:
        return EchAnswer(ERROR, config.config_id, config.public_name, detail=detail,
                         inconclusive=inconclusive)  # fmt: skip

    try:
        with connect(address, timeout) as sock:
            sock.sendall(hello)
            return _read_answer(sock, answer, keys, inner, outer)
    except _Failed as exc:
        return failed(str(exc))
    except TimeoutError:
        return failed("timeout", inconclusive=True)
    except ConnectionResetError:
        return failed("connection reset", inconclusive=True)
    except OSError as exc:
        return failed(exc.strerror or str(exc))


class _Failed(Exception):
    """The exchange ended without a verdict: why, in a few words."""


def _read_answer(
    sock: socket.socket, answer: EchAnswer, shares: KeyShares, inner: bytes, outer: bytes
) -> EchAnswer:
    buffer = b""
    keys: _Decryptor | None = None
    retry: EchConfigList | None = None
    verdict = IGNORED
    while True:
        kind, body = _next_record(sock)
        if kind == 22 and keys is None:
            buffer += body
            if len(buffer) < 4 or len(buffer) < 4 + int.from_bytes(buffer[1:4], "big"):
                continue
            server_hello = buffer[: 4 + int.from_bytes(buffer[1:4], "big")]
            verdict, keys = _handshake_keys(server_hello, shares, inner, outer)
            buffer = b""
        elif kind == 23 and keys is not None:
            plain = _open(keys, body)
            if plain is None:
                continue
            messages, buffer = _messages(buffer + plain)
            for message_kind, message in messages:
                if message_kind == 8:  # EncryptedExtensions
                    sent = _extensions(message[2:])
                    if ECH_EXTENSION in sent and verdict != ACCEPTED:
                        verdict, retry = REJECTED, _retry_configs(sent[ECH_EXTENSION])
                elif message_kind == 11:  # Certificate: the last message read
                    chain, _ = _certificate(message)
                    names = tuple(certificate_facts(chain[0], None)["names"]) if chain else ()
                    return _verdict(answer, verdict, retry, names)
                elif message_kind == 20:  # Finished without a certificate (a PSK: not here)
                    return _verdict(answer, verdict, retry, ())


def _next_record(sock: socket.socket) -> tuple[int, bytes]:
    """The server's next record (type, body); a close or an alert ends the exchange."""
    record_ = _read_record(sock)
    if record_ is None:
        raise _Failed("the server closed the connection")
    kind, body = record_
    if kind == 21 and len(body) >= 2:
        raise _alert(body[1])
    return kind, body


def _alert(code: int) -> _Failed:
    """The end of an exchange the server refused with alert `code`."""
    return _Failed("alert: " + ALERTS.get(code, f"alert {code}"))


def _handshake_keys(
    server_hello: bytes, shares: KeyShares, inner: bytes, outer: bytes
) -> tuple[str, _Decryptor]:
    """From a TLS 1.3 ServerHello: whether it confirms ECH (ACCEPTED, else IGNORED until the
    flight shows retry configs), and the keys of the server's flight, under the transcript of
    the hello it took (the inner one where confirmed)."""
    if server_hello[0] != 2:
        raise _Failed(f"handshake message {server_hello[0]} before a ServerHello")
    random, suite, extensions = _server_hello(server_hello)
    version = extensions.get(43, b"")
    if version != b"\x03\x04":
        raise _Failed("the server answered with TLS 1.2 or older: no ECH")
    if random == HRR_RANDOM:
        raise _Failed("HelloRetryRequest (not followed by this probe)")
    if suite not in SUITES or 51 not in extensions:
        raise _Failed(f"suite {suite:#06x} or key share not readable")
    share = extensions[51]
    group = int.from_bytes(share[:2], "big")
    shared = shares.shared(group, share[4 : 4 + int.from_bytes(share[2:4], "big")])
    confirmed = random[24:] == accept_confirmation(inner, server_hello, suite)
    first = inner if confirmed else outer
    secret = handshake_traffic_secret(shared, first + server_hello, suite)
    return ACCEPTED if confirmed else IGNORED, _Decryptor(secret, suite)


def _open(keys: _Decryptor, body: bytes) -> bytes | None:
    """An encrypted record's handshake bytes, None for another content type; an alert or a
    record that does not decrypt ends the exchange."""
    from cryptography.exceptions import InvalidTag

    try:
        inner_kind, plain = keys.open(struct.pack("!BHH", 23, 0x0303, len(body)), body)
    except InvalidTag:
        raise _Failed("the server's flight does not decrypt") from None
    if inner_kind == 21:
        raise _alert(plain[1])
    return plain if inner_kind == 22 else None


def _verdict(
    answer: EchAnswer, verdict: str, retry: EchConfigList | None, names: tuple[str, ...]
) -> EchAnswer:
    return EchAnswer(verdict, answer.config_id, answer.public_name, retry, names)


def _retry_configs(data: bytes) -> EchConfigList | None:
    try:
        return parse_config_list(data)
    except EchError as exc:
        raise _Failed(f"retry_configs do not parse: {exc}") from None


GREASE: Literal["grease"] = (
    "grease"  # `--ech-config grease`: a GREASE ECH for each name (RFC 9849 section 6.2)
)


def grease_config(name: str) -> EchConfig:
    """A config nobody holds the key of, for a GREASE ECH to `name`: a random config id and a
    fresh X25519 public key, so that the extension is what section 6.2.1 asks of GREASE (a
    random config_id, a valid `enc`, a random payload of a real one's length), and `name` as the
    public name, as a GREASE hello shows the real name outside. A server with ECH keys cannot
    decrypt it and answers with its retry configs (section 7.1): how a client with no DNS record
    learns them."""
    return parse_config(serialise_config(os.urandom(1)[0], os.urandom(32), name))


def config_from_argument(value: str) -> EchConfig:
    """The config `--ech-config VALUE` names (a key file, a file or text with an HTTPS record,
    or a base64 ECHConfigList; nginxgen/base/ech_configs.py reads them): the first this probe
    can use, or a one-line refusal."""
    from nginxgen.base.ech_configs import read_config_list
    from nginxgen.base.errors import NginxgenError

    try:
        configs = read_config_list(value)
    except EchError as exc:
        where = "--ech-config"
        if os.path.isfile(value):  # the file, and the line in it
            where = value + (f":{exc.line}" if exc.line is not None else "")
        raise NginxgenError(str(exc), where=where) from None
    except OSError as exc:
        raise NginxgenError(f"{value}: {exc.strerror or exc}", where="--ech-config") from None
    config, why = usable(configs)
    if config is None:
        raise NginxgenError(why, where="--ech-config")
    return config
