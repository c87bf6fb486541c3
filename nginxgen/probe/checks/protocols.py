"""Protocol versions: a version is accepted when the server answers a ClientHello offering only
it; where the server refuses one with an alert, `alerts` names it (a default server with
`ssl_reject_handshake on` answers unrecognized_name). The model: the versions `ssl_protocols`
(or nginx's default) allows that the library can negotiate, from the server that decides them
for the name."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from nginxgen.conf.per_name import NameModel
from nginxgen.probe.check import Found, NameProbe, Prediction, expect
from nginxgen.probe.hello import CLASSICAL, VERSIONS, alert_text

KEYS: Mapping[str, Any] = {"protocols": {}, "alerts": {}}


def runs(found: Found) -> bool:
    return True


def observe(probe: NameProbe) -> dict[str, Any]:
    protocols, alerts = {}, {}
    for version in VERSIONS:
        shares = CLASSICAL[:1] if version == "TLSv1.3" else []
        answer = probe.hello(version, CLASSICAL, shares)
        protocols[version] = probe.verdict(
            version, answer, answer.accepted and answer.version == version
        )
        if answer.alert_code is not None:
            alerts[version] = alert_text(answer.alert_code)
    return {"protocols": protocols, "alerts": alerts}


def predict(model: NameModel, found: Found) -> list[Prediction]:
    taken = {v for v, ok in found["protocols"].items() if ok}
    return [expect(model.protocols(), taken, "protocols", set)]


def text(found: Found) -> list[str]:
    on = [v for v, ok in found["protocols"].items() if ok]
    refused = f" (refused: {refusals(found)})" if not on and found["alerts"] else ""
    return [f"  protocols: {' '.join(on) or 'none'}{refused}"]


def refusals(found: Found) -> str:
    """The alerts the versions were refused with: `alert 112 (unrecognized_name) to TLSv1.2
    and TLSv1.3; alert 70 (protocol_version) to TLSv1`."""
    by_alert: dict[str, list[str]] = {}
    for version, alert in found["alerts"].items():
        by_alert.setdefault(alert, []).append(version)
    return "; ".join(f"{alert} to {' and '.join(v)}" for alert, v in by_alert.items())
