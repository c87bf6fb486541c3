"""HPKE (RFC 9180) in base mode with DHKEM(X25519, HKDF-SHA256) (KEM 0x0020), the KEM ECH
configs use, and each KDF and AEAD of sections 7.2 and 7.3: HKDF-SHA256, -SHA384 and -SHA512
(0x0001-0x0003), AES-128-GCM, AES-256-GCM and ChaCha20Poly1305 (0x0001-0x0003). Built from
`cryptography`'s X25519, HMAC, HKDF-Expand, AES-GCM and ChaCha20Poly1305; the labelled key
derivation (section 4), the KEM (section 4.1, DHKEM with X25519) and the key schedule (section
5.1) are here. The sender side is all the probe needs to encrypt a ClientHello; the receiver
side (`setup_base_r`) is here so the published test vectors (Appendix A.1) can check both.
"""

from __future__ import annotations

from nginxgen.base.records import record

TYPE_CHECKING = False
if TYPE_CHECKING:
    from cryptography.hazmat.primitives.ciphers.aead import AESGCM, ChaCha20Poly1305

KEM_ID = 0x0020
KDF_HKDF_SHA256, AEAD_AES_128_GCM = 0x0001, 0x0001
N_SECRET, N_SK, N_N = 32, 32, 12  # section 7.1 (the KEM's own KDF is HKDF-SHA256), 7.3
KDFS = {0x0001: ("SHA256", 32), 0x0002: ("SHA384", 48), 0x0003: ("SHA512", 64)}  # 7.2: Nh
AEAD_CHACHA20_POLY1305 = 0x0003
AEAD_KEY_SIZES = {AEAD_AES_128_GCM: 16, 0x0002: 32, AEAD_CHACHA20_POLY1305: 32}  # 7.3: Nk
KEM_SUITE = b"KEM" + KEM_ID.to_bytes(2, "big")
MODE_BASE = 0x00


@record(frozen=True)
class Suite:
    """A KDF and an AEAD of sections 7.2 and 7.3 (with the KEM above)."""

    kdf_id: int = KDF_HKDF_SHA256
    aead_id: int = AEAD_AES_128_GCM

    @property
    def hpke_id(self) -> bytes:
        """Section 5.1: suite_id = "HPKE" || kem_id || kdf_id || aead_id."""
        ids = (KEM_ID, self.kdf_id, self.aead_id)
        return b"HPKE" + b"".join(i.to_bytes(2, "big") for i in ids)

    @property
    def hash_name(self) -> str:
        return KDFS[self.kdf_id][0]

    @property
    def n_h(self) -> int:
        return KDFS[self.kdf_id][1]


def supported(kdf_id: int, aead_id: int) -> bool:
    """Whether this module has the KDF and the AEAD (not the export-only AEAD 0xffff)."""
    return kdf_id in KDFS and aead_id in AEAD_KEY_SIZES


DEFAULT = Suite()


def extract(salt: bytes, ikm: bytes, hash_name: str = "SHA256") -> bytes:
    """HKDF-Extract (RFC 5869 2.2): HMAC keyed with the salt (an empty salt is HMAC's
    zero-length key, the same as Nh zero bytes)."""
    from cryptography.hazmat.primitives import hashes, hmac

    mac = hmac.HMAC(salt, getattr(hashes, hash_name)())
    mac.update(ikm)
    return mac.finalize()


def expand(prk: bytes, info: bytes, length: int, hash_name: str = "SHA256") -> bytes:
    """HKDF-Expand (RFC 5869 2.3)."""
    from cryptography.hazmat.primitives import hashes
    from cryptography.hazmat.primitives.kdf.hkdf import HKDFExpand

    return HKDFExpand(getattr(hashes, hash_name)(), length, info).derive(prk)


def labeled_extract(
    suite_id: bytes, salt: bytes, label: bytes, ikm: bytes, hash_name: str = "SHA256"
) -> bytes:
    """Section 4: LabeledExtract(salt, label, ikm)."""
    return extract(salt, b"HPKE-v1" + suite_id + label + ikm, hash_name)


def labeled_expand(
    suite_id: bytes, prk: bytes, label: bytes, info: bytes, length: int, hash_name: str = "SHA256"
) -> bytes:
    """Section 4: LabeledExpand(prk, label, info, L)."""
    labeled_info = length.to_bytes(2, "big") + b"HPKE-v1" + suite_id + label + info
    return expand(prk, labeled_info, length, hash_name)


def derive_key_pair(ikm: bytes) -> tuple[bytes, bytes]:
    """Section 7.1.3 for X25519: (private key, public key), both raw."""
    dkp_prk = labeled_extract(KEM_SUITE, b"", b"dkp_prk", ikm)
    private = labeled_expand(KEM_SUITE, dkp_prk, b"sk", b"", N_SK)
    return private, public_key(private)


def public_key(private: bytes) -> bytes:
    from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey
    from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

    key = X25519PrivateKey.from_private_bytes(private).public_key()
    return key.public_bytes(Encoding.Raw, PublicFormat.Raw)


def _dh(private: bytes, public: bytes) -> bytes:
    from cryptography.hazmat.primitives.asymmetric.x25519 import (
        X25519PrivateKey,
        X25519PublicKey,
    )

    key = X25519PrivateKey.from_private_bytes(private)
    return key.exchange(X25519PublicKey.from_public_bytes(public))


def _extract_and_expand(dh: bytes, kem_context: bytes) -> bytes:
    eae_prk = labeled_extract(KEM_SUITE, b"", b"eae_prk", dh)
    return labeled_expand(KEM_SUITE, eae_prk, b"shared_secret", kem_context, N_SECRET)


def encap(pk_r: bytes, sk_e: bytes | None = None) -> tuple[bytes, bytes]:
    """Section 4.1 Encap(pkR): (shared_secret, enc). `sk_e`, the ephemeral private key, is
    fresh unless given (the test vectors give it)."""
    import os

    sk_e = sk_e if sk_e is not None else derive_key_pair(os.urandom(N_SK))[0]
    enc = public_key(sk_e)
    return _extract_and_expand(_dh(sk_e, pk_r), enc + pk_r), enc


def decap(enc: bytes, sk_r: bytes) -> bytes:
    """Section 4.1 Decap(enc, skR): the shared secret."""
    return _extract_and_expand(_dh(sk_r, enc), enc + public_key(sk_r))


@record(frozen=True)
class KeySchedule:
    """Section 5.1's outputs for one context."""

    key_schedule_context: bytes
    secret: bytes
    key: bytes
    base_nonce: bytes
    exporter_secret: bytes


def key_schedule(shared_secret: bytes, info: bytes, suite: Suite = DEFAULT) -> KeySchedule:
    """Section 5.1 KeySchedule in base mode (no PSK)."""
    suite_id, hash_name = suite.hpke_id, suite.hash_name

    def extract_(salt: bytes, label: bytes, ikm: bytes) -> bytes:
        return labeled_extract(suite_id, salt, label, ikm, hash_name)

    def expand_(secret: bytes, label: bytes, length: int) -> bytes:
        return labeled_expand(suite_id, secret, label, context, length, hash_name)

    context = (
        bytes([MODE_BASE]) + extract_(b"", b"psk_id_hash", b"") + extract_(b"", b"info_hash", info)
    )
    secret = extract_(shared_secret, b"secret", b"")
    return KeySchedule(
        key_schedule_context=context,
        secret=secret,
        key=expand_(secret, b"key", AEAD_KEY_SIZES[suite.aead_id]),
        base_nonce=expand_(secret, b"base_nonce", N_N),
        exporter_secret=expand_(secret, b"exp", suite.n_h),
    )


class Context:
    """An encryption context (section 5.2): the suite's AEAD under the schedule's key, the
    nonce the base nonce XOR the sequence number."""

    def __init__(self, schedule: KeySchedule, suite: Suite = DEFAULT) -> None:
        self.schedule = schedule
        self.suite = suite
        self.sequence = 0

    def _nonce(self) -> bytes:
        counter = self.sequence.to_bytes(N_N, "big")
        return bytes(a ^ b for a, b in zip(self.schedule.base_nonce, counter, strict=True))

    def _aead(self) -> AESGCM | ChaCha20Poly1305:
        from cryptography.hazmat.primitives.ciphers.aead import AESGCM, ChaCha20Poly1305

        if self.suite.aead_id == AEAD_CHACHA20_POLY1305:
            return ChaCha20Poly1305(self.schedule.key)
        return AESGCM(self.schedule.key)

    def seal(self, aad: bytes, plaintext: bytes) -> bytes:
        sealed = self._aead().encrypt(self._nonce(), plaintext, aad)
        self.sequence += 1
        return sealed

    def open(self, aad: bytes, ciphertext: bytes) -> bytes:
        opened = self._aead().decrypt(self._nonce(), ciphertext, aad)
        self.sequence += 1
        return opened

    def export(self, exporter_context: bytes, length: int) -> bytes:
        """Section 5.3 Export."""
        return labeled_expand(
            self.suite.hpke_id,
            self.schedule.exporter_secret,
            b"sec",
            exporter_context,
            length,
            self.suite.hash_name,
        )


def setup_base_s(
    pk_r: bytes, info: bytes, sk_e: bytes | None = None, suite: Suite = DEFAULT
) -> tuple[bytes, Context]:
    """Section 5.1.1 SetupBaseS: (enc, the sender's context)."""
    shared_secret, enc = encap(pk_r, sk_e)
    return enc, Context(key_schedule(shared_secret, info, suite), suite)


def setup_base_r(enc: bytes, sk_r: bytes, info: bytes, suite: Suite = DEFAULT) -> Context:
    """Section 5.1.1 SetupBaseR: the receiver's context."""
    return Context(key_schedule(decap(enc, sk_r), info, suite), suite)
