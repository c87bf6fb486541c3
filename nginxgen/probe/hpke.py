"""HPKE (RFC 9180) in base mode for the one suite ECH configs use by default:
DHKEM(X25519, HKDF-SHA256), HKDF-SHA256, AES-128-GCM (KEM 0x0020, KDF 0x0001, AEAD 0x0001).
Built from `cryptography`'s X25519, HMAC-SHA256 and AES-GCM; the labelled key derivation
(section 4), the KEM (section 4.1, DHKEM with X25519) and the key schedule (section 5.1) are
here. The sender side is all the probe needs to encrypt a ClientHello; the receiver side
(`setup_base_r`) is here so the published test vectors (Appendix A.1) can check both.
"""

from __future__ import annotations

from nginxgen.records import record

KEM_ID, KDF_ID, AEAD_ID = 0x0020, 0x0001, 0x0001
N_SECRET, N_SK, N_K, N_N, N_H = 32, 32, 16, 12, 32  # section 7.1, 7.2, 7.3
KEM_SUITE = b"KEM" + KEM_ID.to_bytes(2, "big")
HPKE_SUITE = b"HPKE" + b"".join(i.to_bytes(2, "big") for i in (KEM_ID, KDF_ID, AEAD_ID))
MODE_BASE = 0x00


def extract(salt: bytes, ikm: bytes) -> bytes:
    """HKDF-Extract with SHA-256 (RFC 5869 2.2): HMAC keyed with the salt (an empty salt is
    HMAC's zero-length key, the same as Nh zero bytes)."""
    from cryptography.hazmat.primitives import hashes, hmac

    mac = hmac.HMAC(salt, hashes.SHA256())
    mac.update(ikm)
    return mac.finalize()


def expand(prk: bytes, info: bytes, length: int) -> bytes:
    """HKDF-Expand with SHA-256 (RFC 5869 2.3)."""
    from cryptography.hazmat.primitives import hashes
    from cryptography.hazmat.primitives.kdf.hkdf import HKDFExpand

    return HKDFExpand(hashes.SHA256(), length, info).derive(prk)


def labeled_extract(suite_id: bytes, salt: bytes, label: bytes, ikm: bytes) -> bytes:
    """Section 4: LabeledExtract(salt, label, ikm)."""
    return extract(salt, b"HPKE-v1" + suite_id + label + ikm)


def labeled_expand(suite_id: bytes, prk: bytes, label: bytes, info: bytes, length: int) -> bytes:
    """Section 4: LabeledExpand(prk, label, info, L)."""
    labeled_info = length.to_bytes(2, "big") + b"HPKE-v1" + suite_id + label + info
    return expand(prk, labeled_info, length)


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


def key_schedule(shared_secret: bytes, info: bytes) -> KeySchedule:
    """Section 5.1 KeySchedule in base mode (no PSK)."""
    psk_id_hash = labeled_extract(HPKE_SUITE, b"", b"psk_id_hash", b"")
    info_hash = labeled_extract(HPKE_SUITE, b"", b"info_hash", info)
    context = bytes([MODE_BASE]) + psk_id_hash + info_hash
    secret = labeled_extract(HPKE_SUITE, shared_secret, b"secret", b"")
    return KeySchedule(
        key_schedule_context=context,
        secret=secret,
        key=labeled_expand(HPKE_SUITE, secret, b"key", context, N_K),
        base_nonce=labeled_expand(HPKE_SUITE, secret, b"base_nonce", context, N_N),
        exporter_secret=labeled_expand(HPKE_SUITE, secret, b"exp", context, N_H),
    )


class Context:
    """An encryption context (section 5.2): AES-128-GCM under the schedule's key, the nonce the
    base nonce XOR the sequence number."""

    def __init__(self, schedule: KeySchedule) -> None:
        self.schedule = schedule
        self.sequence = 0

    def _nonce(self) -> bytes:
        counter = self.sequence.to_bytes(N_N, "big")
        return bytes(a ^ b for a, b in zip(self.schedule.base_nonce, counter, strict=True))

    def seal(self, aad: bytes, plaintext: bytes) -> bytes:
        from cryptography.hazmat.primitives.ciphers.aead import AESGCM

        sealed = AESGCM(self.schedule.key).encrypt(self._nonce(), plaintext, aad)
        self.sequence += 1
        return sealed

    def open(self, aad: bytes, ciphertext: bytes) -> bytes:
        from cryptography.hazmat.primitives.ciphers.aead import AESGCM

        opened = AESGCM(self.schedule.key).decrypt(self._nonce(), ciphertext, aad)
        self.sequence += 1
        return opened

    def export(self, exporter_context: bytes, length: int) -> bytes:
        """Section 5.3 Export."""
        return labeled_expand(
            HPKE_SUITE, self.schedule.exporter_secret, b"sec", exporter_context, length
        )


def setup_base_s(pk_r: bytes, info: bytes, sk_e: bytes | None = None) -> tuple[bytes, Context]:
    """Section 5.1.1 SetupBaseS: (enc, the sender's context)."""
    shared_secret, enc = encap(pk_r, sk_e)
    return enc, Context(key_schedule(shared_secret, info))


def setup_base_r(enc: bytes, sk_r: bytes, info: bytes) -> Context:
    """Section 5.1.1 SetupBaseR: the receiver's context."""
    return Context(key_schedule(decap(enc, sk_r), info))
