"""From the counters of a Tally to the report: overall, per site, and per hour or day.

The report is plain data (what `--format json` prints); the text and HTML renderers only lay it
out. Shares are of TLS connections (or requests, when the log cannot tell connections apart).
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from nginxgen.report.logformat import generated_log_directives
from nginxgen.report.tally import Tally, hour_label

BY_CHOICES = ("hour", "day")


class _Sum:
    """The counts of one slice (all, one site, one period, or a site in a period)."""

    def __init__(self) -> None:
        self.connections = 0
        self.plain = 0
        self.unknown = 0  # TLS or not: the format does not say
        self.tls_requests = 0
        self.protocols: Counter[str] = Counter()
        self.ciphers: Counter[str] = Counter()
        self.groups: Counter[str] = Counter()
        self.pq = 0
        self.offered_pq = 0
        self.reused = 0
        self.early = 0
        self.ech = 0

    def add(self, key: tuple[Any, ...], count: int) -> None:
        _, _, tls, protocol, cipher, group, pq, offered, reused, early, ech = key
        if tls is None:
            self.unknown += count
            return
        if not tls:
            self.plain += count
            return
        self.connections += count
        if protocol:
            self.protocols[protocol] += count
        if cipher:
            self.ciphers[cipher] += count
        if group:
            self.groups[group] += count
        self.pq += count if pq else 0
        self.offered_pq += count if offered else 0
        self.reused += count if reused else 0
        self.early += count if early else 0
        self.ech += count if ech else 0

    def as_dict(self, tally: Tally) -> dict[str, Any]:
        roles = tally.roles
        total = self.connections

        def share(count: int, of: int = total) -> dict[str, Any]:
            return {"count": count, "share": round(count / of, 4) if of else None}

        def shares(counter: Counter[str]) -> dict[str, Any]:
            return {name: share(n) for name, n in counter.most_common()}

        has_curve = roles["curve"] is not None
        told = roles["tls"] is not None  # else TLS and plain HTTP cannot be told apart
        return {
            "connections": total if told else None,
            "plain_http": self.plain if told else None,
            "tls_unknown": self.unknown,
            "requests": self.tls_requests if told else None,
            "requests_per_connection": (
                round(self.tls_requests / total, 2) if total and tally.per_connection else None
            ),
            "protocols": shares(self.protocols) if roles["protocol"] else None,
            "ciphers": shares(self.ciphers) if roles["cipher"] else None,
            "groups": shares(self.groups) if has_curve else None,
            "pq": share(self.pq) if has_curve else None,
            # TLS 1.3 connections whose client listed an ML-KEM group but got a classical one:
            # what enforcing ML-KEM on the server (the key-share tuple) would change
            "pq_offered_not_used": (
                share(self.offered_pq) if has_curve and roles["curves"] else None
            ),
            "resumed": share(self.reused) if roles["reused"] else None,
            "early_data": share(self.early) if roles["early_data"] else None,
            # connections whose ClientHello nginx decrypted ($ssl_ech_status SUCCESS)
            "ech": share(self.ech) if roles["ech"] else None,
        }


class _Slices:
    """The sums counters go into: overall, per site, and with `by` per period (hour or day), the
    whole period and each site in it."""

    def __init__(self, time_variable: str | None, by: str | None) -> None:
        self.time_variable, self.by = time_variable, by
        self.overall, self.sites = _Sum(), dict[str, _Sum]()
        self.periods: dict[str | None, tuple[_Sum, dict[str, _Sum]]] = {}
        self._labels: dict[object, str | None] = {}  # hour key -> period: one label per hour

    def of(self, hour: object, site: str) -> list[_Sum]:
        """The sums a counter of this hour and site goes into."""
        out = [self.overall, self.sites.setdefault(site, _Sum())]
        if self.by is not None:
            whole, per_site = self.periods.setdefault(self._period(hour), (_Sum(), {}))
            out += [whole, per_site.setdefault(site, _Sum())]
        return out

    def _period(self, key: object) -> str | None:
        if key not in self._labels:
            label = hour_label(self.time_variable, key)
            self._labels[key] = label[:10] if label and self.by == "day" else label
        return self._labels[key]


def summarize(tally: Tally, by: str | None) -> dict[str, Any]:
    """The report as data: `overall`, `sites`, and with `by` the `periods` in time order."""
    slices = _Slices(tally.roles["time"], by)
    for key, count in tally.connections.items():
        for part in slices.of(key[0], str(key[1])):
            part.add(key, count)
    for (hour, site, tls), count in tally.requests.items():
        for part in slices.of(hour, str(site)):
            part.tls_requests += count if tls else 0
    report: dict[str, Any] = {
        "format": tally.fmt.name,
        "unit": "connection" if tally.per_connection else "request",
        "variables": dict(tally.roles),
        "tls_known": tally.roles["tls"] is not None,
        "protocol_known": tally.roles["protocol"] is not None,
        # the lines to add to http{} for a log that says what TLS was negotiated
        "tls_hint": None if tally.roles["protocol"] else generated_log_directives(),
        "lines": _lines(tally),
        "overall": slices.overall.as_dict(tally),
        "sites": {
            name: part.as_dict(tally)
            for name, part in sorted(slices.sites.items(), key=lambda item: -item[1].connections)
        },
        "by": by,
    }
    if by is not None:
        report["periods"] = _periods(slices, tally)
    return report


def _lines(tally: Tally) -> dict[str, Any]:
    """The lines read, and the first unreadable ones."""
    return {
        "read": tally.lines,
        "unreadable": tally.unreadable.count,
        "unreadable_examples": [
            {"file": f, "line": n, "text": text} for f, n, text in tally.unreadable.examples
        ],
    }


def _periods(slices: _Slices, tally: Tally) -> list[dict[str, Any]]:
    """Each period in time order (a line whose time could not be read last, as "unknown"):
    its overall sums and its sites'."""
    return [
        {
            "period": label if label is not None else "unknown",
            "overall": whole.as_dict(tally),
            "sites": {name: part.as_dict(tally) for name, part in sorted(per_site.items())},
        }
        for label, (whole, per_site) in sorted(
            slices.periods.items(), key=lambda item: (item[0] is None, item[0] or "")
        )
    ]
