"""Cipher suites: the engine's suite table (nginxgen.ciphers) and why a suite is unsafe to
offer; the broken families a cipher string may name (libraries.toml [weak_cipher_families])."""

from __future__ import annotations

from nginxgen.ciphers.model import CipherSuite, load_model
from nginxgen.knowledge import libraries

Suite = CipherSuite  # the generator and linter read the engine's tables (nginxgen.ciphers)


def suites() -> dict[str, Suite]:
    """The suite table of the newest OpenSSL model by OpenSSL name (TLS 1.3: IANA names)."""
    return load_model("openssl-3.5").by_name


def find_suite(name: str) -> Suite | None:
    table = suites()
    if name in table:
        return table[name]
    for suite in table.values():
        if suite.iana == name:
            return suite
    return None


def is_weak_cipher_word(word: str) -> bool:
    """A cipher-string word that asks for a broken suite family, known to the table or not."""
    families = libraries.weak_cipher_families()
    return (
        word in families.words
        or any(s in word for s in families.substrings)
        or word.startswith(families.prefixes)
    )


def suite_weakness(suite: Suite) -> str | None:
    """Why a suite is unsafe to offer, or None. Order matters: the worst reason first."""
    enc, mac = suite.enc.upper(), suite.mac.upper()
    if enc.startswith("NONE"):
        return "no encryption (NULL)"
    if suite.au == "None":
        return "no authentication (anonymous)"
    if "EXP" in suite.name or (suite.bits and suite.bits < 64):
        return "export-grade"
    if enc.startswith("RC4"):
        return "RC4"
    if enc.startswith("3DES"):
        return "3DES (Sweet32)"
    if enc.startswith("DES"):
        return "single DES"
    if mac == "MD5":
        return "MD5 MAC"
    if suite.kx == "RSA":
        return "static RSA key exchange (no forward secrecy)"
    if suite.psk_or_srp:
        return "PSK/SRP suite (not for web servers)"
    return None


def suite_is_cbc_sha1(suite: Suite) -> bool:
    return suite.mac == "SHA1" and "GCM" not in suite.enc and "CHACHA" not in suite.enc
