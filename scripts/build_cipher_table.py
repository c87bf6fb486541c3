"""Regenerate a suite table of nginxgen/knowledge/ciphers/ from a real OpenSSL.

Usage: python scripts/build_cipher_table.py MODEL [--build NAME | -- OPENSSL_ARGV...]

    python scripts/build_cipher_table.py openssl-3.0 --build bookworm
    python scripts/build_cipher_table.py openssl-3.5 --build trixie

Every suite the binary knows (security level 0, so nothing is hidden), with the attributes
`openssl ciphers -V -stdname -v` prints, its strength class (HIGH/MEDIUM/LOW membership), whether
it is in DEFAULT and in FIPS, and whether it is usable at the build's default security level
(`openssl ciphers -s`). The file is data: commit it with the version line it records.
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

LINE = re.compile(
    r"^\s*0x(?P<c1>[0-9A-F]{2}),0x(?P<c2>[0-9A-F]{2}) - (?P<iana>\S+)\s+- (?P<name>\S+)\s+"
    r"(?P<proto>\S+)\s+Kx=(?P<kx>\S+)\s+Au=(?P<au>\S+)\s+Enc=(?P<enc>\S+)\s+Mac=(?P<mac>\S+)"
)
TLS13 = (
    "TLS_AES_128_GCM_SHA256:TLS_AES_256_GCM_SHA384:TLS_CHACHA20_POLY1305_SHA256:"
    "TLS_AES_128_CCM_SHA256:TLS_AES_128_CCM_8_SHA256"
)


def openssl_runner(argv: list[str], env: dict[str, str]):  # type: ignore[no-untyped-def]
    def run(*args: str, check: bool = True) -> str:
        done = subprocess.run([*argv, *args], capture_output=True, text=True, check=False, env=env)
        if check and done.returncode != 0:
            raise SystemExit(f"openssl {' '.join(args)} failed: {done.stderr.strip()}")
        return done.stdout.strip() if done.returncode == 0 else ""

    return run


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("model")
    parser.add_argument("--build", help="a build from scripts/provision.py")
    parser.add_argument("openssl", nargs="*", default=[])
    args = parser.parse_args()
    if args.build:
        from tests.builds import load_builds

        build = load_builds()[0][args.build]
        assert build.openssl_argv is not None
        run = openssl_runner(list(build.openssl_argv), build.env())
    else:
        run = openssl_runner(args.openssl or ["openssl"], {})

    def members(rule: str) -> set[str]:
        text = run("ciphers", "-ciphersuites", "", f"{rule}:@SECLEVEL=0", check=False)
        return set(text.split(":")) if text else set()

    listing = run(
        "ciphers", "-V", "-stdname", "-v", "-ciphersuites", TLS13, "ALL:COMPLEMENTOFALL:@SECLEVEL=0"
    )
    classes = {name: members(name) for name in ("HIGH", "MEDIUM", "LOW")}
    not_default = members("COMPLEMENTOFDEFAULT")
    fips = members("FIPS")
    usable = set(run("ciphers", "-s", "ALL:COMPLEMENTOFALL").split(":"))
    suites = []
    for line in listing.splitlines():
        m = LINE.match(line)
        if not m:
            raise SystemExit(f"unparsed line: {line!r}")
        bits = re.search(r"\((\d+)\)", m["enc"])
        tls13 = m["proto"] == "TLSv1.3"
        strength = next((c for c, names in classes.items() if m["name"] in names), "NONE")
        suites.append(
            {
                "name": m["name"],
                "iana": m["iana"],
                "code": f"0x{m['c1']}{m['c2']}",
                "protocol": m["proto"],
                "kx": m["kx"],
                "au": m["au"],
                "enc": m["enc"],
                "bits": int(bits.group(1)) if bits else 0,
                "mac": m["mac"],
                "strength": "HIGH" if tls13 else strength,
                "in_default": tls13 or m["name"] not in not_default,
                "fips": m["name"] in fips,
                "default_seclevel": m["name"] in usable,
            }
        )
    defaults = run("ciphers", "-ciphersuites", TLS13, "-s", "-tls1_3").split(":")
    table = {
        "model": args.model,
        "source": f"`openssl ciphers -V -stdname -v` of {run('version')}",
        "default_ciphersuites": [s for s in run("ciphers").split(":") if s.startswith("TLS_")],
        "usable_tls13": [s for s in defaults if s.startswith("TLS_")],
        "suites": suites,
    }
    path = REPO / "nginxgen" / "knowledge" / "ciphers" / f"{args.model}.json"
    path.parent.mkdir(exist_ok=True)
    path.write_text(json.dumps(table, indent=1) + "\n")
    print(f"{len(suites)} suites -> {path}")


if __name__ == "__main__":
    main()
