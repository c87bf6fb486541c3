"""Encrypted Client Hello: with `--ech-config`, one ECH ClientHello per name (the name inside,
the config's public name outside; nginxgen/probe/ech_hello.py) and the server's verdict:
accepted, rejected with retry configs, or not offered (RFC 9849 sections 6.1 and 7). Not run
for the probe without SNI: there is no name to hide.

A rejection is only useful to a client when the certificate it then gets covers the public name
(section 6.1.7: the client verifies it for the public name before taking the retry configs);
when it does not, that is a problem. The model (`NameModel.ech_keys`: the deciding
ssl_ech_file lines and what their files hold) predicts the verdict for the config sent, and for
a rejection the retry configs.
"""

from __future__ import annotations

import base64
from collections.abc import Mapping
from typing import Any

from nginxgen.conf.per_name import EchKeys, NameModel
from nginxgen.probe.check import Found, NameProbe, Prediction, expect
from nginxgen.probe.ech_hello import ACCEPTED, NOT_OFFERED, REJECTED, ask_ech
from nginxgen.probe.session import covers

KEYS: Mapping[str, Any] = {"ech": None}


def runs(found: Found) -> bool:
    return found["sni"] is not None and bool(found["protocols"].get("TLSv1.3"))


def observe(probe: NameProbe) -> dict[str, Any]:
    if probe.ech is None or probe.sni is None:
        return dict(KEYS)
    answer = ask_ech(probe.address, probe.sni, probe.ech, probe.timeout)
    if answer.inconclusive:
        probe.inconclusive.append(f"ECH: {answer.detail}")
    retry = answer.retry_configs
    names = list(answer.certificate_names)
    if answer.verdict == REJECTED and not covers(names, answer.public_name):
        probe.problems.append(
            f"ECH rejected, and the certificate sent ({', '.join(names) or 'no DNS names'}) does "
            f"not cover the public name {answer.public_name}: clients cannot take the retry "
            "configs (RFC 9849 6.1.7)"
        )
    return {
        "ech": {
            "verdict": answer.verdict,
            "config_id": answer.config_id,
            "public_name": answer.public_name,
            "public_key": probe.ech.public_key.hex(),
            "retry_configs": retry.base64() if retry is not None else None,
            "retry_public_names": [c.public_name for c in retry.configs] if retry else [],
            "certificate_names": names,
            "detail": answer.detail,
        }
    }


def predict(model: NameModel, found: Found) -> list[Prediction]:
    ech = found.get("ech")
    if ech is None or ech["verdict"] not in (ACCEPTED, REJECTED, NOT_OFFERED):
        return []
    sent = (ech["config_id"], bytes.fromhex(ech["public_key"]))

    def verdict(keys: EchKeys) -> str:
        if sent in keys.decrypts:
            return ACCEPTED
        return REJECTED if keys.retry_configs is not None else NOT_OFFERED

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
    verdict = ech["verdict"]
    if verdict == REJECTED:
        names = ", ".join(ech["retry_public_names"]) or "none"
        verdict += f", retry configs for {names}: {ech['retry_configs']}"
    elif ech["detail"]:
        verdict += f": {ech['detail']}"
    shown = ", ".join(ech["certificate_names"])
    certificate = f"; certificate for {shown}" if shown else ""
    return [f"  ECH ({offered}): {verdict}{certificate}"]
