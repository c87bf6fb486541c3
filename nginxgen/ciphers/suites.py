"""Cipher suites: the engine's suite table (nginxgen.ciphers) and why a suite is unsafe to
offer; the broken families a cipher string may name (libraries.toml [weak_cipher_families])."""

from __future__ import annotations

from nginxgen.ciphers.model import CipherSuite, load_model
from nginxgen.knowledge import libraries
from nginxgen.knowledge.data import toml_file

TYPE_CHECKING = False  # typing is not imported at run time: it slows every pre-commit start
if TYPE_CHECKING:
    from nginxgen.knowledge.builds import Library

TYPE_CHECKING = False  # typing is not imported at run time: it slows every pre-commit start
if TYPE_CHECKING:
    from nginxgen.knowledge.target import Library

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


# OpenSSL's own client offers `ALL:COMPLEMENTOFALL` in this order (`openssl ciphers`): the
# order the probe offers every suite in, strongest first
EVERY_SUITE = "ALL:COMPLEMENTOFALL:@SECLEVEL=0"


def every_suite() -> tuple[list[tuple[int, str]], list[tuple[int, str]]]:
    """(code, name) of every TLS 1.2-and-older suite and of every TLS 1.3 suite a known library
    has: OpenSSL's table, the older suites in the order OpenSSL's client offers them all, then
    those other libraries have beyond it (cipher_models.toml [beyond_openssl])."""
    from nginxgen.ciphers.engine import evaluate

    model = load_model("openssl-3.5")
    older = [(s.code, s.name) for s in evaluate(EVERY_SUITE, model).suites if not s.tls13]
    older += [(int(e["code"], 16), e["name"]) for e in toml_file("cipher_models")["beyond_openssl"]]
    return older, [(s.code, s.name) for s in model.tls13]


def suites_not_known(library: Library) -> str | None:
    """Why every_suite may lack suites `library` has (None: it has them all): OpenSSL's table is
    OpenSSL's own, and [beyond_openssl] holds what the libraries it names have besides."""
    from nginxgen.knowledge.builds import library_display

    known = {"openssl", "quictls"}
    for entry in toml_file("cipher_models")["beyond_openssl"]:
        known.update(entry["libraries"])
    if library.kind in known:
        return None
    return (
        f"{library_display(library.kind)} may have suites of its own, which nginxgen does not know"
    )


# a certificate key's kind (base.der) -> the `Au` of the TLS 1.2 suites it signs for (RFC 5246
# 7.4.2; RFC 8422 5.3: ECDSA suites; OpenSSL's aECDSA also serves EdDSA certificates)
_SIGNS_FOR = {
    "RSA": "RSA",
    "RSA-PSS": "RSA",
    "ECDSA": "ECDSA",
    "Ed25519": "ECDSA",
    "Ed448": "ECDSA",
}


def signs_for(key_kind: str) -> str:
    """The `Au` of the TLS 1.2 suites a certificate with this kind of key can serve."""
    return _SIGNS_FOR.get(key_kind, key_kind)
