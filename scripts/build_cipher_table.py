"""Regenerate nginxgen/knowledge/ciphers.json from a real `openssl ciphers` run.

Usage: python scripts/build_cipher_table.py [OPENSSL_BINARY]

The table records every suite the given OpenSSL knows (including those only usable at security
level 0), with the attributes `openssl ciphers -V -stdname -v` prints. The file is data: commit it
together with the OpenSSL version line it was made from.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

TLS13 = (
    "TLS_AES_128_GCM_SHA256:TLS_AES_256_GCM_SHA384:TLS_CHACHA20_POLY1305_SHA256:"
    "TLS_AES_128_CCM_SHA256:TLS_AES_128_CCM_8_SHA256"
)
LINE = re.compile(
    r"^\s*0x(?P<c1>[0-9A-F]{2}),0x(?P<c2>[0-9A-F]{2}) - (?P<iana>\S+)\s+- (?P<name>\S+)\s+"
    r"(?P<proto>\S+)\s+Kx=(?P<kx>\S+)\s+Au=(?P<au>\S+)\s+Enc=(?P<enc>\S+)\s+Mac=(?P<mac>\S+)"
)


ALIASES = [
    "ALL",
    "COMPLEMENTOFALL",
    "DEFAULT",
    "COMPLEMENTOFDEFAULT",
    "HIGH",
    "MEDIUM",
    "LOW",
    "EXP",
    "EXPORT",
    "eNULL",
    "NULL",
    "aNULL",
    "kRSA",
    "aRSA",
    "RSA",
    "kEECDH",
    "kECDHE",
    "EECDH",
    "ECDHE",
    "ECDH",
    "AECDH",
    "kEDH",
    "kDHE",
    "EDH",
    "DHE",
    "DH",
    "ADH",
    "aECDSA",
    "ECDSA",
    "aDSS",
    "DSS",
    "PSK",
    "kPSK",
    "SRP",
    "AES",
    "AES128",
    "AES256",
    "AESGCM",
    "AESCCM",
    "AESCCM8",
    "CHACHA20",
    "CAMELLIA",
    "CAMELLIA128",
    "CAMELLIA256",
    "ARIA",
    "ARIA128",
    "ARIA256",
    "SEED",
    "IDEA",
    "3DES",
    "DES",
    "RC4",
    "RC2",
    "MD5",
    "SHA1",
    "SHA",
    "SHA256",
    "SHA384",
    "SSLv3",
    "TLSv1",
    "TLSv1.2",
    "SUITEB128",
    "SUITEB128ONLY",
    "SUITEB192",
    "aGOST",
    "GOST94",
    "kGOST",
]


def alias_members(openssl: str, alias: str) -> list[str]:
    """What `openssl ciphers ALIAS` expands to, at security level 0 (so nothing is hidden)."""
    result = subprocess.run(
        [openssl, "ciphers", "-ciphersuites", "", f"{alias}:@SECLEVEL=0"],
        capture_output=True,
        text=True,
        check=False,
    )
    return result.stdout.strip().split(":") if result.returncode == 0 else []


def main() -> None:
    openssl = sys.argv[1] if len(sys.argv) > 1 else "openssl"
    version = subprocess.run([openssl, "version"], capture_output=True, text=True, check=True)
    out = subprocess.run(
        [
            openssl,
            "ciphers",
            "-V",
            "-stdname",
            "-v",
            "-ciphersuites",
            TLS13,
            "ALL:COMPLEMENTOFALL:@SECLEVEL=0",
        ],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    usable = (
        subprocess.run(
            [openssl, "ciphers", "-s", "ALL:COMPLEMENTOFALL"],
            capture_output=True,
            text=True,
            check=True,
        )
        .stdout.strip()
        .split(":")
    )
    suites = []
    for line in out.splitlines():
        m = LINE.match(line)
        if not m:
            raise SystemExit(f"unparsed line: {line!r}")
        enc = m["enc"]
        bits = re.search(r"\((\d+)\)", enc)
        suites.append(
            {
                "name": m["name"],
                "iana": m["iana"],
                "code": f"0x{m['c1']}{m['c2']}",
                "protocol": m["proto"],
                "kx": m["kx"],
                "au": m["au"],
                "enc": enc,
                "bits": int(bits.group(1)) if bits else 0,
                "mac": m["mac"],
                "default_seclevel": m["name"] in usable,
            }
        )
    table = {
        "source": f"`openssl ciphers -V -stdname -v` of {version.stdout.strip()}",
        "suites": suites,
        "aliases": {alias: alias_members(openssl, alias) for alias in ALIASES},
    }
    path = Path(__file__).resolve().parent.parent / "nginxgen" / "knowledge" / "ciphers.json"
    path.write_text(json.dumps(table, indent=1) + "\n")
    print(f"{len(suites)} suites -> {path}")


if __name__ == "__main__":
    main()
