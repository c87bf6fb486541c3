"""TLS 1.3: what a client offering every group but sending only an X25519 key share gets (suite,
group, whether a HelloRetryRequest came), what a browser-like client gets (ML-KEM first, key
shares for it and X25519), the suites taken (each offered alone), whether the server keeps its
suite and group after its HelloRetryRequest (RFC 8446 4.1.4), and how far post-quantum key
exchange goes (`pq`):

- `enforced`: the X25519-share client is asked (HelloRetryRequest) for an ML-KEM group;
- `preferred`: not enforced, but the browser-like client gets X25519MLKEM768;
- `supported`: one of the three hybrids offered alone is taken (the groups check);
- `none` otherwise. The ML-KEM key share is well-formed but not from a key pair
  (hello._mlkem_encapsulation_key).

The model: the suites of `ssl_conf_command Ciphersuites` (or the library's) from the server that
decides them for the name.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from nginxgen.conf.per_name import NameModel
from nginxgen.probe.check import Found, NameProbe, Prediction, expect_suites
from nginxgen.probe.hello import (
    BROWSER_HYBRID,
    CLASSICAL,
    PQ_GROUPS,
    PQ_HYBRIDS,
    TLS13_SUITES,
    HelloReply,
)

KEYS: Mapping[str, Any] = {"tls13": None, "pq": "none"}


def runs(found: Found) -> bool:
    return bool(found["protocols"].get("TLSv1.3"))


def observe(probe: NameProbe) -> dict[str, Any]:
    offered = [*PQ_HYBRIDS, *CLASSICAL]
    plain = probe.hello("TLSv1.3", offered, [CLASSICAL[0]], follow_retry=True)
    both = probe.hello("TLSv1.3", [BROWSER_HYBRID, *CLASSICAL], [BROWSER_HYBRID, CLASSICAL[0]])
    only = probe.hello("TLSv1.3", [BROWSER_HYBRID], [BROWSER_HYBRID])
    accepted = []
    retried = [("X25519 share, every suite", plain)]
    for code, name in TLS13_SUITES.items():  # each offered alone, otherwise as `plain`
        answer = probe.hello("TLSv1.3", offered, [CLASSICAL[0]], suites=[code], follow_retry=True)
        if probe.verdict(name, answer, answer.accepted and answer.cipher == name):
            accepted.append(name)
            retried.append((f"{name} alone", answer))
    found: dict[str, Any] = {
        "tls13": {
            "cipher": plain.cipher,
            "group": plain.group,
            "hrr": plain.hrr,
            "group_both_shares": both.group if both.accepted else None,
            "group_mlkem_only": only.group if only.accepted else None,
            "accepted": accepted,
            "retry_failures": _retry_failures(retried, probe),
        }
    }
    groups = probe.found.get("groups") or {}
    if plain.inconclusive:
        probe.inconclusive.append(f"TLS 1.3 with an X25519 key share: {plain.alert}")
        found["pq"] = "inconclusive"
    elif plain.hrr and plain.group in PQ_HYBRIDS:
        found["pq"] = "enforced"
    elif both.accepted and both.group in PQ_HYBRIDS:
        found["pq"] = "preferred"
    elif any(ok for group, ok in groups.items() if group in PQ_GROUPS):
        found["pq"] = "supported"
    else:
        found["pq"] = "none"
    return found


def _retry_failures(retried: list[tuple[str, HelloReply]], probe: NameProbe) -> list[str]:
    """Hellos with only an X25519 key share that the server answered with a HelloRetryRequest,
    followed by the second hello: a server must then keep its suite and group (RFC 8446 4.1.4),
    else the client aborts. nginx before 1.29.2 breaks that for a name whose server sets its
    own TLS 1.3 suites: the first hello is answered from the default server's suites, the
    second from the name's. Returns what failed, each as "hello: what happened"."""
    failures = []
    for label, first in retried:
        retry = first.retry
        if retry is None:
            continue
        if retry.inconclusive:
            probe.inconclusive.append(
                f"{label}, second hello after a HelloRetryRequest: {retry.alert}"
            )
        elif not retry.accepted:
            failures.append(f"{label}: refused ({retry.alert})")
        elif (retry.cipher, retry.group) != (first.cipher, first.group):
            failures.append(
                f"{label}: {first.cipher} and {first.group} in the HelloRetryRequest, "
                f"{retry.cipher} and {retry.group} in the ServerHello"
            )
    if failures:
        probe.problems.append(
            "clients that offer ML-KEM but send only an X25519 key share fail after the "
            f"server's HelloRetryRequest (RFC 8446 4.1.4): {'; '.join(failures)}"
        )
    return failures


def predict(model: NameModel, found: Found) -> list[Prediction]:
    return expect_suites(
        model.tls13_suites, found.get("tls13"), TLS13_SUITES.values(), "tls13.accepted"
    )


def text(found: Found) -> list[str]:
    t = found["tls13"]
    if not t:
        return []
    hrr = " after a HelloRetryRequest" if t["hrr"] else ""
    return [
        f"  TLS 1.3: {t['cipher']}, {t['group']}{hrr}; post-quantum {found['pq']}",
        f"  TLS 1.3 suites: {' '.join(t['accepted']) or 'none'}",
    ]
