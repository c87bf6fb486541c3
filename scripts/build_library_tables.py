"""Regenerate nginxgen/knowledge/tls_tables/ by asking each provisioned build's TLS library what
it accepts, the way nginx asks it.

Usage: python scripts/build_library_tables.py [--build NAME ...] [--out FOLDER]

For every build in the build manifest (tests/builds.py reads it: a build added to the manifest
is one more table, nothing else to change), each candidate value is put in a one-server config

    server { listen 127.0.0.1:PORT ssl; ssl_reject_handshake on; LINE }

and the build's own `nginx -t` decides: `ssl_reject_handshake on` makes nginx create the TLS
context without a certificate, so the line reaches the library exactly as in a real config
(SSL_CTX_set1_curves_list, SSL_CTX_set_cipher_list, SSL_CONF_cmd). A failure that is not about
the line (a missing folder, a port) stops the script rather than becoming a table entry.

Candidate names come from the libraries themselves, and each table records where:
- group names listed by a build's own `openssl` binary (`openssl ecparam -list_curves`,
  `openssl list -tls-groups` / `-all-tls-groups`, with and without `-tls1_2`, where the
  version has them), asked at run time;
- the NamedGroup tables of BoringSSL and AWS-LC (ssl/ssl_key_share.cc kNamedGroups) and
  OpenSSL's TLS group list (providers/common/capabilities.c), copied below with the tag;
- each name also in lower and upper case, since libraries differ in case rules;
- cipher-string keywords from OpenSSL's ciphers(1) CIPHER STRINGS and BoringSSL's
  ssl/ssl_cipher.cc kCipherAliases, and every suite name of the cipher engine's OpenSSL
  tables (knowledge/ciphers/), each alone; ssl_conf_command names and Options values from OpenSSL's
  ssl/ssl_conf.c (ssl_conf_cmds, ssl_option_list).
Every table is probed with the union of the names, so a name one library lists is also tried
on the others.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import tempfile
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from tests.builds import Build, load_builds  # noqa: E402

OUT = REPO / "nginxgen" / "knowledge" / "tls_tables"
PORT = 8443  # nginx -t does not bind: any port does, a fixed one keeps the configs identical

# --- candidates drawn from the libraries' sources --------------------------------------------

# google/boringssl and aws/aws-lc ssl/ssl_key_share.cc kNamedGroups (name and alias columns),
# over their history: CECPQ2 (BoringSSL, removed 2023), X25519Kyber768Draft00 (BoringSSL
# 2023-2026, AWS-LC v1.17.4-v1.66), SecP256r1Kyber768Draft00 (AWS-LC), the ML-KEM names.
SOURCE_GROUPS: dict[str, tuple[str, ...]] = {
    "boringssl and aws-lc ssl/ssl_key_share.cc kNamedGroups": (
        "P-224", "secp224r1", "P-256", "prime256v1", "P-384", "secp384r1", "P-521",
        "secp521r1", "X25519", "x25519", "CECPQ2", "X25519Kyber768Draft00",
        "SecP256r1Kyber768Draft00", "X25519MLKEM768", "SecP256r1MLKEM768",
        "SecP384r1MLKEM1024", "MLKEM512", "ML-KEM-512", "MLKEM768", "ML-KEM-768", "MLKEM1024",
        "ML-KEM-1024",
    ),
    # openssl/openssl providers/common/capabilities.c param_group_list (openssl-3.5.0): the
    # TLS group names and aliases, beside the curves every version's ecparam lists
    "openssl providers/common/capabilities.c param_group_list (openssl-3.5.0)": (
        "secp256r1", "P-256", "secp384r1", "P-384", "secp521r1", "P-521", "x25519", "x448",
        "X448", "brainpoolP256r1", "brainpoolP384r1", "brainpoolP512r1",
        "brainpoolP256r1tls13", "brainpoolP384r1tls13", "brainpoolP512r1tls13", "ffdhe2048",
        "ffdhe3072", "ffdhe4096", "ffdhe6144", "ffdhe8192", "MLKEM512", "MLKEM768",
        "MLKEM1024", "SecP256r1MLKEM768", "X25519MLKEM768", "SecP384r1MLKEM1024",
        "GC256A", "GC256B", "GC256C", "GC256D", "GC512A", "GC512B", "GC512C",
    ),
}  # fmt: skip

# The list syntax of SSL_CTX_set1_groups_list (OpenSSL 3.5 SSL_CTX_set1_curves.pod) and the
# edge cases nginx users write: one example per feature, each otherwise made of names every
# library in the manifest has (X25519 and P-256 in a spelling each one takes).
GROUP_LISTS: dict[str, str] = {
    "plain": "X25519:prime256v1",
    "duplicate": "X25519:prime256v1:X25519",
    "duplicate_alias": "prime256v1:P-256",
    "question_known": "?X25519:prime256v1",
    "question_unknown": "?nosuchgroup:X25519",
    "star": "*X25519:prime256v1",
    "tuple": "X25519/prime256v1",
    "dash": "X25519:prime256v1:-prime256v1",
    "default": "DEFAULT",
    "default_minus": "DEFAULT:-X25519",
    "empty_entry": "X25519::prime256v1",
    "trailing_colon": "X25519:prime256v1:",
    "comma": "X25519,prime256v1",
    "space_in_quotes": "X25519: prime256v1",
    "auto_inside": "X25519:auto",
}

# OpenSSL doc/man1/openssl-ciphers.pod.in CIPHER STRINGS (openssl-3.5.0) and BoringSSL
# ssl/ssl_cipher.cc kCipherAliases; each probed alone, as `ssl_ciphers WORD;`.
CIPHER_KEYWORDS: tuple[str, ...] = (
    "ALL", "COMPLEMENTOFALL", "COMPLEMENTOFDEFAULT", "DEFAULT", "HIGH", "MEDIUM", "LOW",
    "eNULL", "NULL", "aNULL", "kRSA", "aRSA", "RSA", "kDHE", "kEDH", "DH", "DHE", "EDH", "ADH",
    "kEECDH", "kECDHE", "ECDH", "ECDHE", "EECDH", "AECDH", "aECDSA", "ECDSA", "TLSv1.2",
    "TLSv1.0", "TLSv1", "SSLv3", "AES128", "AES256", "AES", "AESGCM", "AESCCM", "AESCCM8",
    "ARIA128", "ARIA256", "ARIA", "CAMELLIA128", "CAMELLIA256", "CAMELLIA", "CHACHA20",
    "3DES", "DES", "RC4", "RC2", "IDEA", "SEED", "MD5", "SHA1", "SHA", "SHA256", "SHA384",
    "kPSK", "kECDHEPSK", "kDHEPSK", "kRSAPSK", "aPSK", "PSK", "SUITEB128", "SUITEB128ONLY",
    "SUITEB192", "CBC", "FIPS", "EXPORT", "EXP", "SRP", "kGOST", "GOST89MAC",
)  # fmt: skip

# Whole strings: the security-level and ordering commands, nginx's default, and the strings
# of the issue (BoringSSL and AWS-LC refuse @SECLEVEL and eNULL).
CIPHER_STRINGS: tuple[str, ...] = (
    "HIGH:!aNULL:!MD5", "ALL:@SECLEVEL=0", "DEFAULT:@SECLEVEL=0", "DEFAULT:@SECLEVEL=1",
    "DEFAULT:@SECLEVEL=2", "DEFAULT:@SECLEVEL=3", "DEFAULT:@SECLEVEL=4", "DEFAULT:@SECLEVEL=5",
    "DEFAULT:@SECLEVEL=6", "DEFAULT:@SECLEVEL=x", "HIGH:@STRENGTH", "HIGH:eNULL",
    "HIGH:!eNULL", "ECDHE+AESGCM", "ECDHE-RSA-AES128-GCM-SHA256",
    "ECDHE-ECDSA-AES128-GCM-SHA256:ECDHE-RSA-AES128-GCM-SHA256",
    "TLS_AES_128_GCM_SHA256", "HIGH:NOSUCHWORD", "NOSUCHWORD", "HIGH:+AES", "HIGH:-AES",
    "HIGH:!", "HIGH,MEDIUM", "HIGH MEDIUM", "[ECDHE-ECDSA-AES128-GCM-SHA256|ECDHE-ECDSA-CHACHA20-POLY1305]",
    "PROFILE=SYSTEM",
    # a word after one that adds nothing: AWS-LC reads DEFAULT, HIGH and FIPS only first
    "NOSUCHWORD:HIGH", "NOSUCHWORD:FIPS", "NOSUCHWORD:DEFAULT", "NOSUCHWORD:ALL",
)  # fmt: skip

# openssl/openssl ssl/ssl_conf.c ssl_option_list (openssl-3.5.0), the values of `Options`;
# each probed as set and negated (`-Name`), and the bad values after them.
OPTIONS: tuple[str, ...] = (
    "SessionTicket", "EmptyFragments", "Bugs", "Compression", "ServerPreference",
    "NoResumptionOnRenegotiation", "DHSingle", "ECDHSingle", "UnsafeLegacyRenegotiation",
    "UnsafeLegacyServerConnect", "ClientRenegotiation", "EncryptThenMac", "NoRenegotiation",
    "AllowNoDHEKEX", "PreferNoDHEKEX", "PrioritizeChaCha", "MiddleboxCompat", "AntiReplay",
    "ExtendedMasterSecret", "CANames", "KTLS", "StrictCertCheck", "TxCertificateCompression",
    "RxCertificateCompression", "KTLSTxZerocopySendfile", "IgnoreUnexpectedEOF",
    "LegacyECPointFormats",
)  # fmt: skip

VERSIONS = ("None", "SSLv3", "TLSv1", "TLSv1.1", "TLSv1.2", "TLSv1.3", "DTLSv1", "DTLSv1.2")
PROTOCOLS = ("ALL", "SSLv2", "SSLv3", "TLSv1", "TLSv1.1", "TLSv1.2", "TLSv1.3", "DTLSv1",
             "DTLSv1.2")  # fmt: skip
VERIFY_MODES = ("Peer", "Request", "Require", "Once", "RequirePostHandshake",
                "RequestPostHandshake")  # fmt: skip

# `ssl_conf_command NAME VALUE` pairs: the commands of ssl/ssl_conf.c ssl_conf_cmds that take
# a value nginx users write (no file paths), each with a value the docs give and a bad one;
# command names in other letter cases; an unknown command.
CONF_COMMANDS: tuple[tuple[str, str], ...] = (
    *(("Options", o) for o in OPTIONS),
    *(("Options", f"-{o}") for o in OPTIONS),
    ("Options", "Bogus"), ("Options", "KTLS,PrioritizeChaCha"), ("Options", "KTLS PrioritizeChaCha"),
    ("Options", "ktls"), ("Options", ""),
    ("Ciphersuites", "TLS_AES_128_GCM_SHA256"), ("Ciphersuites", "TLS_AES_256_GCM_SHA384"),
    ("Ciphersuites", "TLS_CHACHA20_POLY1305_SHA256"), ("Ciphersuites", "TLS_AES_128_CCM_SHA256"),
    ("Ciphersuites", "TLS_AES_128_CCM_8_SHA256"), ("Ciphersuites", "TLS_SHA256_SHA256"),
    ("Ciphersuites", "TLS_AES_128_GCM_SHA256:TLS_AES_256_GCM_SHA384"),
    ("Ciphersuites", "TLS_AES_128_GCM_SHA256:BOGUS"), ("Ciphersuites", "BOGUS"),
    ("Ciphersuites", "tls_aes_128_gcm_sha256"), ("Ciphersuites", "ECDHE-RSA-AES128-GCM-SHA256"),
    ("Ciphersuites", ""), ("Ciphersuites", "TLS_AES_128_GCM_SHA256,TLS_AES_256_GCM_SHA384"),
    ("CipherString", "HIGH"), ("CipherString", "ALL:@SECLEVEL=0"), ("CipherString", "NOSUCHWORD"),
    ("Groups", "X25519:prime256v1"), ("Groups", "nosuchgroup"), ("Curves", "X25519:prime256v1"),
    ("Protocol", "-TLSv1.1"), ("Protocol", "TLSv1.2,TLSv1.3"), ("Protocol", "TLSv1.4"),
    ("MinProtocol", "TLSv1.2"), ("MinProtocol", "TLSv1.3"), ("MinProtocol", "TLSv13"),
    ("MinProtocol", "None"), ("MaxProtocol", "TLSv1.3"), ("MaxProtocol", "TLSv1.4"),
    ("SignatureAlgorithms", "ECDSA+SHA256:RSA-PSS+SHA256"), ("SignatureAlgorithms", "ecdsa_secp256r1_sha256"),
    ("SignatureAlgorithms", "BOGUS+SHA256"), ("ClientSignatureAlgorithms", "ECDSA+SHA256"),
    ("VerifyMode", "Request"), ("VerifyMode", "Bogus"), ("ECDHParameters", "prime256v1"),
    # ssl/ssl_conf.c cmd_ECDHParameters: "automatic" and "+automatic" in any case (file mode, as
    # nginx sets it), else one group name for SSL_CTX_set1_groups_list, no `:`
    ("ECDHParameters", "auto"), ("ECDHParameters", "automatic"), ("ECDHParameters", "+automatic"),
    ("ECDHParameters", "AUTOMATIC"), ("ECDHParameters", "X25519"), ("ECDHParameters", "P-256"),
    ("ECDHParameters", "prime256v1:secp384r1"), ("ECDHParameters", "nosuchgroup"),
    ("RecordPadding", "512"), ("RecordPadding", "abc"),
    ("NumTickets", "2"), ("NumTickets", "abc"), ("NumTickets", "-1"),
    ("NumTickets", "0"), ("RecordPadding", "0"), ("RecordPadding", "16384"),
    ("RecordPadding", "16385"),
    # the closed lists NGX504 judges whole (a word not taken here is refused): each word of
    # ssl/ssl_conf.c `versions` (MinProtocol, MaxProtocol: strcmp), `ssl_protocol_list`
    # (Protocol) and `ssl_vfy_list` (VerifyMode), openssl-3.5.0
    *(("MinProtocol", v) for v in VERSIONS), *(("MaxProtocol", v) for v in VERSIONS),
    *(("Protocol", p) for p in PROTOCOLS), *(("Protocol", f"-{p}") for p in PROTOCOLS),
    *(("VerifyMode", m) for m in VERIFY_MODES),
    # signature algorithms one at a time, as NGX504 judges a list by its elements
    *(("SignatureAlgorithms", a) for a in (
        "ECDSA+SHA256", "RSA-PSS+SHA256", "RSA+SHA256", "RSA+SHA1", "ECDSA+SHA1", "RSA+MD5",
        "MD5+RSA", "ed25519", "ed448", "rsa_pss_rsae_sha256", "rsa_pkcs1_sha256",
        "ecdsa_secp384r1_sha384",
    )),
    ("options", "KTLS"), ("OPTIONS", "KTLS"), ("ciphersuites", "TLS_AES_128_GCM_SHA256"),
    ("NoSuchCommand", "x"), ("Option", "KTLS"), ("SessionTicket", "off"),
    # commands that take a file: a missing one is refused for the file, not for the name
    *((c, "/nonexistent") for c in (
        "Certificate", "PrivateKey", "ServerInfoFile", "ChainCAFile", "ChainCAPath",
        "VerifyCAFile", "VerifyCAPath", "RequestCAFile", "RequestCAPath", "ClientCAFile",
        "ClientCAPath", "DHParameters", "ChainCAStore", "VerifyCAStore", "RequestCAStore",
        "ClientCAStore",
    )),
)  # fmt: skip

# Signature algorithm lists (`SignatureAlgorithms`, `ClientSignatureAlgorithms`: SSL_CONF_cmd ->
# tls1_set_sigalgs_list, openssl ssl/t1_lib.c sig_cb). CONF_parse_list splits the value at `:`
# (spaces around an element dropped, an empty element refused); an element is a scheme name
# of sigalg_lookup_tbl (or, from OpenSSL 3.4, of a provider's TLS-SIGALG capability) or SIG+HASH
# in either order, SIG one of get_sigorhash's words and HASH a digest's OBJ short or long name,
# accepted where the table has that pair. Probed, each alone: every name in four letter cases;
# every SIG word in four letter cases with SHA256; every HASH word in four letter cases with
# ECDSA; every SIG+HASH and HASH+SIG pair as written. Every element a library can take is made
# of these, so NGX504 can call any other element unknown.
SIGALG_NAMES: dict[str, tuple[str, ...]] = {
    # the named entries (openssl-3.0.0; the unnamed ones, ecdsa_sha1, dsa_*, are only reachable
    # as SIG+HASH there), and the brainpool names openssl-3.2.0 added
    "openssl ssl/t1_lib.c sigalg_lookup_tbl (openssl-3.0.0, openssl-3.2.0)": (
        "ecdsa_secp256r1_sha256", "ecdsa_secp384r1_sha384", "ecdsa_secp521r1_sha512",
        "ed25519", "ed448", "rsa_pss_rsae_sha256", "rsa_pss_rsae_sha384", "rsa_pss_rsae_sha512",
        "rsa_pss_pss_sha256", "rsa_pss_pss_sha384", "rsa_pss_pss_sha512", "rsa_pkcs1_sha256",
        "rsa_pkcs1_sha384", "rsa_pkcs1_sha512", "rsa_pkcs1_sha224", "rsa_pkcs1_sha1",
        "ecdsa_sha224", "ecdsa_sha1", "dsa_sha256", "dsa_sha384", "dsa_sha512", "dsa_sha224",
        "dsa_sha1", "ecdsa_brainpoolP256r1_sha256", "ecdsa_brainpoolP384r1_sha384",
        "ecdsa_brainpoolP512r1_sha512", "rsa_pkcs1_md5_sha1",
    ),
}  # fmt: skip
# get_sigorhash's SIG words (compared with strcmp, or in any case where the library does), and
# HASH: the short and long OBJ names of the digests sigalg_lookup_tbl pairs with RSA, RSA-PSS,
# DSA and ECDSA (sha1, sha224, sha256, sha384, sha512; no other OBJ name has their NIDs), then
# digests it pairs with none of them
SIGALG_SIGS = ("RSA", "RSA-PSS", "PSS", "DSA", "ECDSA")
SIGALG_HASHES = ("SHA1", "sha1", "SHA224", "sha224", "SHA256", "sha256", "SHA384", "sha384",
                 "SHA512", "sha512", "MD5", "md5", "MD5-SHA1", "SHA3-256", "SM3")  # fmt: skip
# the partners a SIG or HASH word is probed with (ECDSA+SHA256 is in every OpenSSL's table)
SIGALG_PARTNERS = {"sig": "SHA256", "hash": "ECDSA"}
# the list syntax, one example each, of elements every OpenSSL build takes
SIGALG_LISTS: dict[str, str] = {
    "plain": "RSA+SHA256:ECDSA+SHA256",
    "question": "?nosuchsigalg:RSA+SHA256",  # `?` skips an unknown element
    "duplicate": "RSA+SHA256:RSA+SHA256",
    "duplicate_spelling": "ecdsa_secp256r1_sha256:ECDSA+SHA256",
    "empty": "",
    "empty_entry": "RSA+SHA256::ECDSA+SHA256",
    "trailing_colon": "RSA+SHA256:",
    "spaces": "RSA+SHA256 : ECDSA+SHA256",
    "comma": "RSA+SHA256,ECDSA+SHA256",
}


def listed_sigalgs(build: Build) -> dict[str, list[str]]:
    """Scheme names the build's own openssl binary lists (`openssl list
    -tls-signature-algorithms`, OpenSSL >= 3.4: the table's and the providers')."""
    if build.openssl_argv is None:
        return {}
    done = build.openssl("list", "-tls-signature-algorithms")
    if done.returncode != 0:
        return {}
    version = build.openssl("version").stdout.split("(")[0].strip()
    return {f"openssl list -tls-signature-algorithms ({version})": done.stdout.strip().split(":")}


def _four_cases(word: str) -> list[str]:
    return list(dict.fromkeys((word, word.lower(), word.upper(), word.capitalize())))


def sigalg_candidates(origins: dict[str, set[str]]) -> list[str]:
    """Every element probed (see SIGALG_NAMES)."""
    return sorted({
        *(v for name in origins for v in _four_cases(name)),
        *(f"{v}+{SIGALG_PARTNERS['sig']}" for s in SIGALG_SIGS for v in _four_cases(s)),
        *(f"{SIGALG_PARTNERS['hash']}+{v}" for h in SIGALG_HASHES for v in _four_cases(h)),
        *(p for s in SIGALG_SIGS for h in SIGALG_HASHES for p in (f"{s}+{h}", f"{h}+{s}")),
    })  # fmt: skip


# The lines that tell the library apart from an environment problem: a failing probe must name
# one of them, else the run stops.
LIBRARY_CALLS = {
    "ssl_ecdh_curve": ("SSL_CTX_set1_curves_list", "SSL_CTX_set1_groups_list"),
    "ssl_ciphers": ("SSL_CTX_set_cipher_list",),
    "ssl_conf_command": ("SSL_CONF_cmd", '"ssl_conf_command" directive is not supported'),
}


@dataclass
class Probe:
    """Runs `nginx -t` of one line in a one-server config with one build."""

    build: Build
    folder: Path
    runs: int = 0
    setup: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        (self.folder / "temp").mkdir(exist_ok=True)
        self.setup = ["access_log off;", *self.build.temp_path_directives]

    def refusal(self, directive: str, *args: str) -> str | None:
        """None when nginx -t accepts `directive args;`, else the library's reason."""
        line = " ".join([directive, *(_quote(a) for a in args)]) + ";"
        conf = self.folder / "nginx.conf"
        conf.write_text(
            "events {}\nhttp {\n" + "\n".join(self.setup) + "\n"
            f"server {{ listen 127.0.0.1:{PORT} ssl; ssl_reject_handshake on;\n{line}\n}}\n}}\n"
        )
        done = self.build.nginx(
            "-p", f"{self.folder}/", "-c", str(conf), "-e", str(self.folder / "error.log"),
            "-g", f"pid {self.folder}/nginx.pid;", "-t",
        )  # fmt: skip
        self.runs += 1
        if done.returncode == 0:
            return None
        emerg = [x for x in done.stderr.splitlines() if "[emerg]" in x]
        if not any(call in x for x in emerg for call in LIBRARY_CALLS[directive]):
            raise SystemExit(f"{self.build.name}: {line} failed for another reason:\n{done.stderr}")
        return _reason(emerg[0])


def _quote(arg: str) -> str:
    """An nginx argument: quoted when empty or holding a space, `;`, braces or quotes."""
    if arg and not re.search(r"[\s;{}\"'\\]", arg):
        return arg
    return '"' + arg.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _reason(line: str) -> str:
    """The library's reason in an nginx emerg line, without the values that vary (the line's
    own text): `unknown cmd name`, `INVALID_COMMAND`, `not supported on this platform`; just
    `refused` when the library gives none (OpenSSL's SSL_CTX_set1_curves_list)."""
    if "is not supported on this platform" in line:
        return "not supported on this platform"
    reasons = re.findall(r"routines:[^:]*:(.+?)(?= error:|:|\)|$)", line)
    return "; ".join(dict.fromkeys(r.strip() for r in reasons)) or "refused"


def cipher_names() -> list[str]:
    """Every suite name of OpenSSL 3.0 and 3.5 (knowledge/ciphers/, read from real `openssl
    ciphers` runs by scripts/build_cipher_table.py): BoringSSL's and AWS-LC's names are among
    them. A word of an ssl_ciphers string that is none of these and no keyword matches nothing
    in any library."""
    names: set[str] = set()
    for table in sorted((REPO / "nginxgen" / "knowledge" / "ciphers").glob("*.json")):
        names.update(s["name"] for s in json.loads(table.read_text())["suites"])
    return sorted(names)


def _case_variants(names: Iterable[str]) -> list[str]:
    out: set[str] = set()
    for name in names:
        out.update((name, name.lower(), name.upper()))
    return sorted(out)


def listed_groups(build: Build) -> dict[str, list[str]]:
    """Group names the build's own openssl binary lists, by the command that listed them."""
    if build.openssl_argv is None:
        return {}
    version = build.openssl("version").stdout.split("(")[0].strip()
    found: dict[str, list[str]] = {}
    commands = (
        ("ecparam", "-list_curves"),
        ("list", "-tls-groups"),
        ("list", "-all-tls-groups"),
        ("list", "-tls1_2", "-tls-groups"),
        ("list", "-tls1_2", "-all-tls-groups"),
    )
    for args in commands:
        done = build.openssl(*args)
        if done.returncode != 0:
            continue  # older versions lack `list -tls-groups`: their curves come from ecparam
        if args[0] == "ecparam":
            names = re.findall(r"^\s*(\S+?)\s*:", done.stdout, re.MULTILINE)
        else:
            names = done.stdout.strip().split(":")
        found[f"openssl {' '.join(args)} ({version})"] = names
    return found


def library_line(build: Build) -> str:
    """What the build says its library is: `openssl version`, else nginx -V's `built with`."""
    if build.openssl_argv is not None:
        return build.openssl("version").stdout.split("(")[0].strip()
    match = re.search(r"built with (.+)", build.nginx("-V").stderr)
    return match.group(1).strip() if match else build.tls_library


def probe_build(build: Build, group_names: list[str], sigalgs: list[str]) -> dict[str, object]:
    with tempfile.TemporaryDirectory(prefix="nginxgen-tables-") as tmp:
        probe = Probe(build, Path(tmp))
        groups = {n: probe.refusal("ssl_ecdh_curve", n) is None for n in group_names}
        lists = {
            feature: probe.refusal("ssl_ecdh_curve", text) is None
            for feature, text in GROUP_LISTS.items()
        }
        keywords = {k: probe.refusal("ssl_ciphers", k) for k in CIPHER_KEYWORDS}
        names = {n: probe.refusal("ssl_ciphers", n) for n in cipher_names()}
        strings = {s: probe.refusal("ssl_ciphers", s) for s in CIPHER_STRINGS}
        conf = {f"{c} {v}": probe.refusal("ssl_conf_command", c, v) for c, v in CONF_COMMANDS}
        refused_all = set(conf.values()) == {"not supported on this platform"}
        elements = {} if refused_all else {
            e: probe.refusal("ssl_conf_command", "SignatureAlgorithms", e) is None for e in sigalgs
        }  # fmt: skip
        sigalg_lists = {} if refused_all else {
            f: {"list": text,
                "accepted": probe.refusal("ssl_conf_command", "SignatureAlgorithms", text) is None}
            for f, text in SIGALG_LISTS.items()
        }  # fmt: skip
        print(f"{build.name}: {probe.runs} nginx -t runs", file=sys.stderr)
    reasons = set(conf.values())
    sigalg_table = {
        "sig_words": list(SIGALG_SIGS),
        "hash_words": list(SIGALG_HASHES),
        "partners": SIGALG_PARTNERS,
        "elements": elements,
        "lists": sigalg_lists,
    }
    return {
        "library": build.tls_library,
        "library_says": library_line(build),
        "nginx": build.nginx_version,
        "probe": "nginx -t of `server { listen ... ssl; ssl_reject_handshake on; LINE }`",
        "groups": groups,
        "group_lists": {f: {"list": GROUP_LISTS[f], "accepted": ok} for f, ok in lists.items()},
        "cipher_keywords": keywords,
        "cipher_names": names,
        "cipher_strings": strings,
        # a library without SSL_CONF_cmd refuses the directive whatever it says: one answer
        "conf_command": {"refused": reasons.pop()}
        if reasons == {"not supported on this platform"}
        else {"commands": conf},
        # SignatureAlgorithms elements and list syntax (ClientSignatureAlgorithms parses alike)
        **({"sigalgs": sigalg_table} if elements else {}),
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--build", action="append", help="only this build (repeatable)")
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args()
    builds, missing = load_builds()
    if missing:
        print(f"missing builds (their tables are left as they are): {missing}", file=sys.stderr)
    chosen = sorted(args.build or builds)
    # every build's listing, not only the chosen ones: the candidates must not depend on which
    # builds are regenerated
    origins = _origins(SOURCE_GROUPS, [listed_groups(builds[n]) for n in sorted(builds)])
    candidates = _case_variants(origins)
    sigalg_origins = _origins(SIGALG_NAMES, [listed_sigalgs(builds[n]) for n in sorted(builds)])
    sigalgs = sigalg_candidates(sigalg_origins)
    args.out.mkdir(parents=True, exist_ok=True)
    names_file = {
        "about": "group names probed in every table, each with where it was found; lower and "
        "upper case of each were probed too; signature algorithm scheme names, each probed in "
        "four letter cases (beside get_sigorhash's SIG and HASH words and their pairs)",
        "names": {n: sorted(o) for n, o in sorted(origins.items())},
        "sigalg_names": {n: sorted(o) for n, o in sorted(sigalg_origins.items())},
    }
    _write(args.out / "names.json", names_file)
    for name in chosen:
        table = probe_build(builds[name], candidates, sigalgs)
        _write(args.out / f"{builds[name].tls_library}.json", table)


def _origins(
    sources: dict[str, tuple[str, ...]], listings: list[dict[str, list[str]]]
) -> dict[str, set[str]]:
    """name -> where it was found: the sources copied above, then each build's listings."""
    origins: dict[str, set[str]] = {}
    for found in (sources, *listings):
        for where, names in found.items():
            for name in names:
                origins.setdefault(name, set()).add(where)
    return origins


def _write(path: Path, data: object) -> None:
    path.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    print(f"wrote {path}", file=sys.stderr)


if __name__ == "__main__":
    main()
