"""Protocol versions: a version is accepted when the server answers a ClientHello offering only
it. The model: the versions `ssl_protocols` (or nginx's default) allows that the library can
negotiate, from the server that decides them for the name."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from nginxgen.conf.per_name import NameModel
from nginxgen.probe.check import Found, NameProbe, Prediction, expect
from nginxgen.probe.hello import VERSIONS

KEYS: Mapping[str, Any] = {"protocols": {}}
CLASSICAL = ["X25519", "secp256r1", "secp384r1"]  # the groups of a hello that is not about them


def runs(found: Found) -> bool:
    return True


def observe(probe: NameProbe) -> dict[str, Any]:
    protocols = {}
    for version in VERSIONS:
        shares = ["X25519"] if version == "TLSv1.3" else []
        answer = probe.hello(version, CLASSICAL, shares)
        protocols[version] = probe.verdict(
            version, answer, answer.accepted and answer.version == version
        )
    return {"protocols": protocols}


def predict(model: NameModel, found: Found) -> list[Prediction]:
    taken = {v for v, ok in found["protocols"].items() if ok}
    return [expect(model.protocols(), taken, "protocols", set)]


def text(found: Found) -> list[str]:
    on = [v for v, ok in found["protocols"].items() if ok]
    return [f"  protocols: {' '.join(on) or 'none'}"]
