"""The report as one self-contained HTML page: inline CSS and SVG charts, no script, no network.

Every number shown carries `data-key`, a JSON pointer into the report data (`/overall/pq/share`),
so a test can check the page against `--format json`. Values from the log (site names, suites)
are escaped: `$host` is whatever a client sent.
"""

from __future__ import annotations

from html import escape
from typing import Any

from nginxgen.report.text import tls_fields_note

# stacked categories of TLS connections over time, bottom up
CATEGORIES = (
    ("ML-KEM (TLS 1.3)", "#1b7f3b"),
    ("classical TLS 1.3", "#7fbf7f"),
    ("TLS 1.2", "#e0a030"),
    ("older", "#c0392b"),
)
SITE_METRICS = (
    ("TLS 1.3", ("protocols", "TLSv1.3"), "#7fbf7f"),
    ("ML-KEM", ("pq",), "#1b7f3b"),
    ("resumed", ("resumed",), "#3b6fb6"),
)
CSS = """
body{font:14px/1.4 system-ui,sans-serif;margin:2em;color:#222;max-width:1100px}
h1{font-size:1.5em}h2{font-size:1.2em;margin-top:2em}
table{border-collapse:collapse;margin:.5em 0}td,th{padding:.2em .8em;text-align:right}
th:first-child,td:first-child{text-align:left}tr:nth-child(even){background:#f4f4f4}
.cards{display:flex;flex-wrap:wrap;gap:1em}.card{border:1px solid #ccc;padding:.6em 1em}
.card b{display:block;font-size:1.6em}.legend span{margin-right:1.2em}
.swatch{display:inline-block;width:.9em;height:.9em;margin-right:.3em;vertical-align:middle}
svg text{font:11px system-ui,sans-serif}
"""


def _count(value: int | None, key: str) -> str:
    if value is None:  # the format cannot tell TLS from plain HTTP
        return "<span>unknown</span>"
    return f'<span data-key="{escape(key)}">{value:,}</span>'


def _share(entry: dict[str, Any] | None, key: str) -> str:
    if entry is None:
        return "<span>not logged</span>"
    if entry["share"] is None:
        return "<span>-</span>"
    return f'<span data-key="{escape(key)}/share">{entry["share"] * 100:.1f}%</span>'


def _pointer(*parts: str) -> str:
    return "".join("/" + p.replace("~", "~0").replace("/", "~1") for p in parts)


def _tls13(part: dict[str, Any]) -> dict[str, Any] | None:
    return (part["protocols"] or {}).get("TLSv1.3")


def _cards(part: dict[str, Any], unit: str) -> str:
    cards = [
        (f"TLS {unit}s", _count(part["connections"], "/overall/connections")),
        *(
            [(f"{unit}s, TLS unknown", _count(part["tls_unknown"], "/overall/tls_unknown"))]
            if part["tls_unknown"]
            else []
        ),
        ("TLS 1.3", _share(_tls13(part), "/overall/protocols/TLSv1.3")),
        ("ML-KEM", _share(part["pq"], "/overall/pq")),
        (
            "offered ML-KEM, got classical",
            _share(part["pq_offered_not_used"], "/overall/pq_offered_not_used"),
        ),
        ("resumed", _share(part["resumed"], "/overall/resumed")),
        ("0-RTT", _share(part["early_data"], "/overall/early_data")),
    ]
    if part["ech"] is not None:  # a log with $ssl_ech_status
        cards.append(("Encrypted Client Hello", _share(part["ech"], "/overall/ech")))
    if part["requests_per_connection"] is not None:
        cards.append(
            (
                "requests per connection",
                f'<span data-key="/overall/requests_per_connection">'
                f"{part['requests_per_connection']}</span>",
            )
        )
    body = "".join(f'<div class="card">{escape(t)}<b>{v}</b></div>' for t, v in cards)
    return f'<div class="cards">{body}</div>'


def _table(title: str, table: dict[str, Any] | None, base: str) -> str:
    if table is None:
        return f"<h2>{escape(title)}</h2><p>not in the log format</p>"
    rows = "".join(
        f"<tr><td>{escape(name)}</td><td>{_count(entry['count'], base + _pointer(name, 'count'))}"
        f"</td><td>{_share(entry, base + _pointer(name))}</td></tr>"
        for name, entry in table.items()
    )
    return (
        f"<h2>{escape(title)}</h2><table><tr><th>{escape(title)}</th><th>count</th>"
        f"<th>share</th></tr>{rows}</table>"
    )


def _categories(part: dict[str, Any]) -> list[int]:
    protocols = {name: entry["count"] for name, entry in (part["protocols"] or {}).items()}
    pq = part["pq"]["count"] if part["pq"] else 0
    tls13 = protocols.pop("TLSv1.3", 0)
    tls12 = protocols.pop("TLSv1.2", 0)
    return [pq, tls13 - pq, tls12, sum(protocols.values())]


def _time_chart(periods: list[dict[str, Any]]) -> str:
    """Stacked bars, one per period: the shares of the CATEGORIES among its TLS connections."""
    width, height, top, left = 1000, 260, 10, 40
    plot = height - top - 40
    step = (width - left) / max(len(periods), 1)
    bar = min(max(step * 0.8, 1), 40)
    parts = [
        f'<svg role="img" aria-label="TLS connections over time" width="{width}" '
        f'height="{height}" viewBox="0 0 {width} {height}">'
    ]
    for tick in (0, 25, 50, 75, 100):
        y = top + plot * (1 - tick / 100)
        parts.append(
            f'<line x1="{left}" x2="{width}" y1="{y:.1f}" y2="{y:.1f}" stroke="#ddd"/>'
            f'<text x="{left - 4}" y="{y + 4:.1f}" text-anchor="end">{tick}%</text>'
        )
    labels_every = max(1, len(periods) // 12)
    for index, period in enumerate(periods):
        x = left + index * step + (step - bar) / 2
        counts = _categories(period["overall"])
        total = sum(counts)
        y = top + plot
        for (name, color), count in zip(CATEGORIES, counts, strict=True):
            if not total or not count:
                continue
            h = plot * count / total
            y -= h
            parts.append(
                f'<rect x="{x:.1f}" y="{y:.1f}" width="{bar:.1f}" height="{h:.1f}" '
                f'fill="{color}"><title>{escape(period["period"])}: {escape(name)} '
                f"{count:,} of {total:,}</title></rect>"
            )
        if index % labels_every == 0:
            parts.append(
                f'<text x="{x + bar / 2:.1f}" y="{height - 22}" text-anchor="middle">'
                f"{escape(period['period'][5:])}</text>"
            )
    parts.append("</svg>")
    legend = "".join(
        f'<span><i class="swatch" style="background:{color}"></i>{escape(name)}</span>'
        for name, color in CATEGORIES
    )
    return f'<div class="legend">{legend}</div>' + "".join(parts)


def _site_chart(sites: dict[str, Any]) -> str:
    """Horizontal bars per site: the SITE_METRICS shares."""
    shown = list(sites.items())[:30]
    row, left, width = 18, 220, 1000
    height = row * len(SITE_METRICS) * len(shown) + 10 * len(shown) + 10
    parts = [
        f'<svg role="img" aria-label="shares per site" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}">'
    ]
    y = 5
    for name, part in shown:
        parts.append(f'<text x="0" y="{y + row + 4}">{escape(name[:32])}</text>')
        for label, path, color in SITE_METRICS:
            entry: Any = part
            for step in path:
                entry = entry.get(step) if entry else None
            share = entry["share"] if entry and entry["share"] is not None else 0
            w = (width - left - 120) * share
            parts.append(
                f'<rect x="{left}" y="{y}" width="{w:.1f}" height="{row - 4}" fill="{color}"/>'
                f'<text x="{left + w + 4:.1f}" y="{y + row - 7}">{escape(label)} '
                f"{share * 100:.1f}%</text>"
            )
            y += row
        y += 10
    parts.append("</svg>")
    return "".join(parts)


def _site_table(sites: dict[str, Any], unit: str) -> str:
    head = (
        f"<tr><th>site</th><th>TLS {unit}s</th><th>TLS 1.3</th><th>ML-KEM</th>"
        "<th>offered ML-KEM, got classical</th><th>resumed</th><th>0-RTT</th></tr>"
    )
    rows = []
    for name, part in sites.items():
        base = _pointer("sites", name)
        cells = [
            _count(part["connections"], base + "/connections"),
            _share(_tls13(part), base + "/protocols/TLSv1.3"),
            _share(part["pq"], base + "/pq"),
            _share(part["pq_offered_not_used"], base + "/pq_offered_not_used"),
            _share(part["resumed"], base + "/resumed"),
            _share(part["early_data"], base + "/early_data"),
        ]
        rows.append(f"<tr><td>{escape(name)}</td>" + "".join(f"<td>{c}</td>" for c in cells))
    return f"<table>{head}{''.join(rows)}</table>"


def _tls_fields(report: dict[str, Any]) -> list[str]:
    note = tls_fields_note(report)
    if not note:
        return []
    said, hint = note
    return [f"<p>{escape(said)}</p>", f"<p>{escape(hint)}</p>",
            f"<pre>{escape(chr(10).join(report['tls_hint']))}</pre>"]  # fmt: skip


def html_report(report: dict[str, Any]) -> str:
    lines, unit, overall = report["lines"], report["unit"], report["overall"]
    periods = report.get("periods") or []
    body = [
        "<h1>TLS report</h1>",
        f"<p>{_count(lines['read'], '/lines/read')} lines read, "
        f"{_count(lines['unreadable'], '/lines/unreadable')} unreadable; format "
        f"{escape(report['format'])}, counted per {escape(unit)}.</p>",
        *_tls_fields(report),
        _cards(overall, unit),
        f"<h2>Over time (by {escape(str(report['by']))})</h2>",
        _time_chart(periods) if periods else "<p>no times in the log format</p>",
        "<h2>Per site</h2>",
        _site_chart(report["sites"]),
        _site_table(report["sites"], unit),
        _table("protocols", overall["protocols"], "/overall/protocols"),
        _table("key exchange groups", overall["groups"], "/overall/groups"),
        _table("suites", overall["ciphers"], "/overall/ciphers"),
    ]
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        "<title>nginxgen TLS report</title>"
        f"<style>{CSS}</style></head><body>{''.join(body)}</body></html>\n"
    )
