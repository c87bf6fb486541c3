"""Groups: every group of the knowledge base (groups.toml) that the version can negotiate, all
offered at once; the group the server picks is taken and the rest offered again, until the
server has none left: one hello per group taken and one more. With TLS 1.3 the hellos carry no
key share, so the server names its pick in a HelloRetryRequest. Without TLS 1.3, ECDHE suites
only, and the ServerKeyExchange (in clear in TLS 1.2, RFC 8422 5.4) names the pick.

In TLS 1.2 the client's groups also bound the curve of an ECDSA certificate (RFC 8422 5.1: a
client offering X25519 alone cannot reach a P-256 certificate at all, OpenSSL 3.0, seen): once
that curve was taken, a refusal may be the certificate's, so the curve is offered again last.
Should the server then pick it over every group left, whether it takes any of those cannot be
seen when its own order wins: a second pair of groups offered the other way round tells whose
order wins, and where it is the server's (or cannot be told) `groups_partial` says why and the
groups not seen are null. The model: the groups of `ssl_ecdh_curve` from the server that decides
them."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from nginxgen.conf.per_name import NameModel
from nginxgen.knowledge import tls_groups
from nginxgen.probe.check import Found, NameProbe, Prediction, expect
from nginxgen.probe.hello import TLS12_GROUPS, TLS12_SUITES, TLS13_GROUPS, HelloReply

KEYS: Mapping[str, Any] = {"groups": None, "groups_via": None, "groups_partial": None}
ECDHE_SUITES = [code for code, name in TLS12_SUITES.items() if name.startswith("ECDHE-")]


def runs(found: Found) -> bool:
    return bool(found["protocols"].get("TLSv1.3") or found["protocols"].get("TLSv1.2"))


def observe(probe: NameProbe) -> dict[str, Any]:
    if probe.offers("TLSv1.3"):
        groups, partial = _tls13(probe)
        return {"groups": groups, "groups_via": "TLSv1.3", "groups_partial": partial}
    groups, partial = _tls12(probe)
    return {"groups": groups, "groups_via": "TLSv1.2", "groups_partial": partial}


def _unanswered(probe: NameProbe, groups: dict[str, bool | None], left: list[str],
                answer: HelloReply) -> str:  # fmt: skip
    """A hello that timed out: the groups not yet seen are neither taken nor refused."""
    probe.inconclusive.append(f"groups: {answer.alert}")
    groups.update(dict.fromkeys(left))
    return f"a hello was not answered ({answer.alert}): the groups after it"


def _tls13(probe: NameProbe) -> tuple[dict[str, bool | None], str | None]:
    left = list(TLS13_GROUPS)
    groups: dict[str, bool | None] = dict.fromkeys(left, False)
    while left:
        answer = probe.hello("TLSv1.3", left)  # no key share: the pick comes back in an HRR
        if answer.inconclusive:
            return groups, _unanswered(probe, groups, left, answer)
        if not answer.accepted or answer.version != "TLSv1.3" or answer.group not in left:
            break
        groups[answer.group] = True
        left.remove(answer.group)
    return groups, None


def _tls12(probe: NameProbe) -> tuple[dict[str, bool | None], str | None]:
    left = list(TLS12_GROUPS)
    groups: dict[str, bool | None] = dict.fromkeys(left, False)
    picks: list[str] = []
    curve: str | None = None  # the curve of the ECDSA certificate of the last pick (None: RSA)
    kept: str | None = None  # that curve, offered last once a refusal may have been its
    while left:
        offered = [*left, *([kept] if kept else [])]
        answer = probe.hello("TLSv1.2", offered, suites=ECDHE_SUITES, key_exchange=True)
        if answer.inconclusive:
            return groups, _unanswered(probe, groups, left, answer)
        group = answer.group if answer.accepted and answer.version == "TLSv1.2" else None
        if group in left:
            groups[group] = True
            left.remove(group)
            picks.append(group)
            curve = answer.certificate_curve
            continue
        if group is not None and group == kept:
            return groups, _kept_first(probe, groups, left, picks, kept)
        if kept is None and curve in picks:  # the refusal may be the certificate's
            kept = curve
            continue
        break
    return groups, None


def _kept_first(probe: NameProbe, groups: dict[str, bool | None], left: list[str],
                picks: list[str], kept: str) -> str | None:  # fmt: skip
    """The server picked the certificate's curve over every group left: nothing left is taken
    where the client's order wins; where the server's does, the rest cannot be seen."""
    if len(picks) >= 2:
        first, second = picks[0], picks[1]  # the server took `first` with both offered
        offered = list(dict.fromkeys([second, first, kept]))
        answer = probe.hello("TLSv1.2", offered, suites=ECDHE_SUITES, key_exchange=True)
        if answer.accepted and answer.group == second:
            return None  # the client's order wins: the server took the curve for want of any
    groups.update(dict.fromkeys(left))
    return (
        f"the server's order puts {kept}, the curve of its ECDSA certificate, first: a TLS 1.2 "
        "client must offer that curve to get the certificate (RFC 8422 5.1), so whether the "
        "server takes any group it puts after it cannot be seen"
    )


def predict(model: NameModel, found: Found) -> list[Prediction]:
    if found.get("groups") is None:
        return []
    decided = [g for g, ok in found["groups"].items() if ok is not None]

    def in_terms(ids: frozenset[str]) -> set[str]:
        return {p for p in decided if (g := tls_groups.find_group(p)) and g.id in ids}

    taken = {g for g, ok in found["groups"].items() if ok}
    return [expect(model.groups(), taken, "groups", in_terms)]


def text(found: Found) -> list[str]:
    if found["groups"] is None:
        return []
    accepted = [g for g, ok in found["groups"].items() if ok]
    partial = f" (partial: {found['groups_partial']})" if found.get("groups_partial") else ""
    return [f"  groups ({found['groups_via']}){partial}: {' '.join(accepted) or 'none'}"]
