"""Encrypted Client Hello: with `--ech-config`, one ECH ClientHello per name (the name inside,
the config's public name outside; nginxgen/probe/ech_hello.py) and the server's verdict:
accepted, rejected with retry configs, or ignored (the server answered without using ECH; RFC
9849 sections 6.1 and 7), or an error (the handshake failed: ECH needs TLS 1.3, and a server
that offers the name only TLS 1.2 fails every ECH client). Not run for the probe without SNI:
there is no name to hide.

Whoever asks with a config expects it to be accepted, so an error, a rejection and an ignored
ECH are problems: an error fails every client of that config, a rejected one retries with the
retry configs (a second handshake, section 6.1.6), and where ECH is ignored its clients show the
inner name to nobody but send it in vain. A rejection is only of use to a client when the
certificate it then gets covers the public name (section 6.1.7: the client verifies it for the
public name before taking the retry configs); when it does not, the problem says that instead.
The model (`NameModel.ech_keys`: the deciding ssl_ech_file lines and what their files hold)
predicts the verdict for the config sent, and for a rejection the retry configs.

With `--ech-config grease`, a GREASE ECH (section 6.2) per name: a random config nobody holds the
key of, the name itself outside. Nothing is hidden, and neither verdict is a problem: a server
with ECH keys rejects it with its retry configs, which is how a client without the DNS record
learns them; one without answers as if the extension were not there. A server that breaks the
handshake instead fails every browser that sends GREASE: that is a problem.
"""

from __future__ import annotations

import base64
from collections.abc import Mapping
from typing import Any

from nginxgen.conf.per_name import EchKeys, NameModel
from nginxgen.probe.check import Found, NameProbe, Prediction, expect, offers_tls
from nginxgen.probe.ech_hello import (
    ACCEPTED,
    ERROR,
    IGNORED,
    REJECTED,
    ask_ech,
    grease_config,
)
from nginxgen.probe.resumption import covers

KEYS: Mapping[str, Any] = {"ech": None}


def runs(found: Found) -> bool:
    return found["sni"] is not None and offers_tls(found)


def observe(probe: NameProbe) -> dict[str, Any]:
    if probe.ech is None or probe.sni is None:
        return dict(KEYS)
    tls13 = probe.offers("TLSv1.3")
    if isinstance(probe.ech, str):  # the one word --ech-config takes: GREASE
        if not tls13:  # a GREASE client offers TLS 1.2 too, and gets it: nothing to see
            return dict(KEYS)
        sent, grease = grease_config(probe.sni), True
    else:
        sent, grease = probe.ech, False
    answer = ask_ech(probe.address, probe.sni, sent, probe.timeout)
    if answer.inconclusive:
        probe.inconclusive.append(f"ECH: {answer.detail}")
    retry = answer.retry_configs
    names = list(answer.certificate_names)
    config = f"config {answer.config_id} of {answer.public_name}"
    if grease:
        if answer.verdict == ERROR and not answer.inconclusive:
            probe.problems.append(
                f"a GREASE ECH hello failed ({answer.detail}): every client that sends GREASE "
                "ECH, as browsers do, fails here (RFC 9849 6.2, 7.1)"
            )
    elif answer.verdict == ERROR and not answer.inconclusive:
        why = f"; the server offers {probe.sni} no TLS 1.3, which ECH needs (RFC 9849)"
        why = "" if tls13 else why
        probe.problems.append(
            f"ECH failed ({answer.detail}): every client of {config} fails here{why}"
        )
    elif answer.verdict == REJECTED and not covers(names, answer.public_name):
        probe.problems.append(
            f"ECH rejected, and the certificate sent ({', '.join(names) or 'no DNS names'}) does "
            f"not cover the public name {answer.public_name}: clients cannot take the retry "
            "configs (RFC 9849 6.1.7)"
        )
    elif answer.verdict == REJECTED:
        probe.problems.append(
            f"ECH rejected: the server has no key for {config} (a stale or another key); its "
            "clients retry with the retry configs, one more handshake (RFC 9849 6.1.6)"
        )
    elif answer.verdict == IGNORED:
        probe.problems.append(
            f"ECH ignored: the server answered the outer hello for {answer.public_name} without "
            f"using ECH ({config}): it has no ECH key where the default server decides, or no ECH"
        )
    return {
        "ech": {
            "verdict": answer.verdict,
            "config_id": answer.config_id,
            "public_name": answer.public_name,
            "grease": grease,
            "public_key": sent.public_key.hex(),
            "retry_configs": retry.base64() if retry is not None else None,
            "retry_public_names": [c.public_name for c in retry.configs] if retry else [],
            "certificate_names": names,
            "detail": answer.detail,
        }
    }


def predict(model: NameModel, found: Found) -> list[Prediction]:
    ech = found.get("ech")
    if ech is None or ech["verdict"] not in (ACCEPTED, REJECTED, IGNORED):
        return []
    sent = (ech["config_id"], bytes.fromhex(ech["public_key"]))

    def verdict(keys: EchKeys) -> str:
        if sent in keys.decrypts:
            return ACCEPTED
        return REJECTED if keys.retry_configs is not None else IGNORED

    def retry(keys: EchKeys) -> str | None:
        raw = keys.retry_configs
        return base64.b64encode(raw).decode("ascii") if raw is not None else None

    answer = model.ech_keys()
    out = [expect(answer, ech["verdict"], "ech.verdict", verdict)]
    if ech["verdict"] == REJECTED:
        out.append(expect(answer, ech["retry_configs"], "ech.retry_configs", retry))
    return out


def text(found: Found) -> list[str]:
    ech = found.get("ech")
    if ech is None:
        return []
    offered = f"config {ech['config_id']}, outer name {ech['public_name']}"
    if ech["grease"]:
        offered = f"GREASE, a random config {ech['config_id']}"
    verdict = ech["verdict"]
    if verdict == REJECTED:
        names = ", ".join(ech["retry_public_names"]) or "none"
        verdict += f", retry configs for {names}: {ech['retry_configs']}"
    elif ech["detail"]:
        verdict += f": {ech['detail']}"
    shown = ", ".join(ech["certificate_names"])
    certificate = f"; certificate for {shown}" if shown else ""
    return [f"  ECH ({offered}): {verdict}{certificate}"]
