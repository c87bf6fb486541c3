"""`nginxgen ciphers` output: one suite per line like `openssl ciphers -v`, plus our verdict."""

from __future__ import annotations

import json

from nginxgen.ciphers import suites as cipher_suites
from nginxgen.ciphers.engine import CipherList


def verdict(suite: cipher_suites.Suite, usable: bool) -> str:
    weakness = cipher_suites.suite_weakness(suite)
    if weakness:
        return f"WEAK: {weakness}"
    if cipher_suites.suite_is_cbc_sha1(suite):
        return "legacy: CBC with SHA-1 MAC"
    if not usable:
        return "unusable at the security level"
    return "ok"


def text_report(result: CipherList, source: str) -> str:
    model = result.model
    usable = {s.name for s in result.usable()}
    lines = [f"# {model.name} model, suites read from {model.source}"]
    if model.approximate:
        lines.append(f"# approximate: {model.approximate}")
    lines.append(f"# {source}")
    if result.error:
        lines.append(f"# refused: {result.error}")
        return "\n".join(lines) + "\n"
    if result.unknown:
        lines.append(f"# ignored (unknown here): {', '.join(result.unknown)}")
    if result.seclevel is not None:
        lines.append(f"# @SECLEVEL={result.seclevel}")
    lines.append(f"# {len(result.suites)} suites, {len(usable)} usable at the security level")
    for s in result.suites:
        lines.append(
            f"{s.name:<32} {s.protocol:<7} Kx={s.kx:<8} Au={s.au:<5} Enc={s.enc:<22} "
            f"Mac={s.mac:<6} {verdict(s, s.name in usable)}"
        )
    return "\n".join(lines) + "\n"


def json_report(result: CipherList, source: str) -> str:
    usable = {s.name for s in result.usable()}
    data = {
        "model": result.model.name,
        "source": result.model.source,
        "approximate": result.model.approximate,
        "input": source,
        "error": result.error,
        "seclevel": result.seclevel,
        "unknown": result.unknown,
        "suites": [
            {
                "name": s.name,
                "iana": s.iana,
                "protocol": s.protocol,
                "kx": s.kx,
                "au": s.au,
                "enc": s.enc,
                "mac": s.mac,
                "usable": s.name in usable,
                "verdict": verdict(s, s.name in usable),
            }
            for s in result.suites
        ],
    }
    return json.dumps(data, indent=2) + "\n"
