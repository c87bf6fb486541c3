"""The report as text tables: overall, each site, and with --by one row per period."""

from __future__ import annotations

from typing import Any

from nginxgen.report.logformat import ROLES

TOP = 6  # suites and groups shown per slice; the JSON has them all
MISSING = "not in the log format"


def _percent(entry: dict[str, Any] | None) -> str:
    if entry is None:
        return "-"
    if entry["share"] is None:
        return "0"
    return f"{entry['share'] * 100:.1f}% ({entry['count']:,})"


def _shares(table: dict[str, Any] | None) -> str:
    if table is None:
        return MISSING
    if not table:
        return "-"
    shown = [f"{name} {_percent(entry)}" for name, entry in list(table.items())[:TOP]]
    rest = len(table) - TOP
    return ", ".join(shown) + (f", {rest} more" if rest > 0 else "")


def _counted(count: int, what: str) -> str:
    return f"{count:,} {what}{'' if count == 1 else 's'}"


def _slice(title: str, part: dict[str, Any], unit: str) -> list[str]:
    if part["connections"] is None:  # the format cannot tell TLS from plain HTTP
        return [f"{title}: {_counted(part['tls_unknown'], unit)}, TLS unknown"]
    per = part["requests_per_connection"]
    head = f"{title}: {_counted(part['connections'], 'TLS ' + unit)}"
    if part["protocols"] is None:
        head += " (protocol not logged)"
    if unit == "connection":
        head += f", {_counted(part['requests'], 'request')}"
        head += f" ({per} per connection)" if per else ""
    if part["plain_http"]:
        head += f", {_counted(part['plain_http'], 'plain HTTP ' + unit)}"
    rows = [
        ("protocols", _shares(part["protocols"])),
        ("key exchange", _shares(part["groups"])),
        ("post-quantum", _percent(part["pq"]) if part["pq"] else MISSING),
        (
            "offered ML-KEM, got classical",
            _percent(part["pq_offered_not_used"]) if part["pq_offered_not_used"] else MISSING,
        ),
        ("resumed", _percent(part["resumed"]) if part["resumed"] else MISSING),
        ("0-RTT", _percent(part["early_data"]) if part["early_data"] else MISSING),
        ("suites", _shares(part["ciphers"])),
    ]
    if part["ech"] is not None:  # a log with $ssl_ech_status (nginx >= 1.29.4, OpenSSL 4.0)
        rows.insert(-1, ("Encrypted Client Hello", _percent(part["ech"])))
    width = max(len(name) for name, _ in rows)
    return [head, *(f"  {name:<{width}}  {value}" for name, value in rows)]


def _share_cell(entry: dict[str, Any] | None) -> str:
    if entry is None or entry["share"] is None:
        return "-"
    return f"{entry['share'] * 100:.1f}%"


def _periods(report: dict[str, Any]) -> list[str]:
    header = (
        "period",
        report["unit"] + "s",
        "TLS 1.3",
        "ML-KEM",
        "offered, not used",
        "resumed",
        "0-RTT",
    )
    rows = [header]
    for period in report["periods"]:
        part = period["overall"]
        rows.append(
            (
                period["period"],
                f"{part['connections']:,}",
                _share_cell(part["protocols"].get("TLSv1.3")),
                _share_cell(part["pq"]),
                _share_cell(part["pq_offered_not_used"]),
                _share_cell(part["resumed"]),
                _share_cell(part["early_data"]),
            )
        )
    widths = [max(len(row[i]) for row in rows) for i in range(len(header))]
    return [
        "  ".join(
            cell.rjust(w) if i else cell.ljust(w)
            for i, (cell, w) in enumerate(zip(row, widths, strict=True))
        ).rstrip()
        for row in rows
    ]


def tls_fields_note(report: dict[str, Any]) -> tuple[str, str] | None:
    """What the format cannot say about TLS, and where the format that says it follows."""
    if report["tls_hint"] is None:
        return None
    if report["tls_known"]:
        said = (
            f"this format ({report['format']}) records whether a request used TLS "
            f"(${report['variables']['tls']}) but not its protocol (no $ssl_protocol)"
        )
    else:
        said = (
            f"this format ({report['format']}) records no TLS fields (none of "
            f"{', '.join('$' + v for v in ROLES['tls'])}): TLS and plain HTTP cannot be told apart"
        )
    hint = (
        "to log what clients negotiate, add to http{} the format `nginxgen generate` writes "
        "(`generate --nginx-version` leaves out what an older nginx lacks); a server{} or "
        "location with an access_log of its own takes none from http{}: put the access_log line "
        "beside its own there too:"
    )  # trial 23: zammad's servers log to their own file, and the http{} line logged nothing
    return said, hint


def _tls_fields(report: dict[str, Any]) -> list[str]:
    note = tls_fields_note(report)
    if note is None:
        return []
    return ["", *note, *(f"  {line}" for line in report["tls_hint"])]


def text_report(report: dict[str, Any]) -> str:
    lines = report["lines"]
    unit = report["unit"]
    counted = (
        "counted per connection (first request of each, $connection_requests = 1)"
        if unit == "connection"
        else "counted per request (the log format has no $connection_requests)"
    )
    out = [f"{lines['read']:,} lines read, {lines['unreadable']:,} unreadable; {counted}"]
    for example in lines["unreadable_examples"]:
        out.append(f"  unreadable: {example['file']}:{example['line']}: {example['text']}")
    out += _tls_fields(report)
    out += ["", *_slice("all sites", report["overall"], unit)]
    if len(report["sites"]) > 1:
        for name, part in report["sites"].items():
            out += ["", *_slice(f"site {name}", part, unit)]
    if report.get("periods"):
        out += ["", f"by {report['by']}:", *_periods(report)]
    return "\n".join(out) + "\n"
