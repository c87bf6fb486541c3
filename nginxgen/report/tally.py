"""Counting a TLS access log in one pass, in memory that does not grow with its length.

Each line adds one to a counter keyed by what the report shows (hour, site, protocol, suite,
group, ...), so memory grows with the number of distinct combinations, not of lines. Where the
format has `$connection_requests`, a connection is counted once, on its first request
(`$connection_requests` = 1), which needs no memory of connections seen; every line still counts
as a request. Without it, every line counts as one connection and the report says its unit is
the request.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Iterable

from nginxgen.base.records import field, record
from nginxgen.knowledge import ech, tls_groups
from nginxgen.report.logformat import ROLES, LineParser, LogFormat, Values

TIME, SITE, HOST, PROTOCOL, CIPHER, CURVE, CURVES, REUSED, EARLY, REQUESTS, TLS, ECH = range(
    len(ROLES)
)
ECH_ACCEPTED = ech.status().accepted  # $ssl_ech_status on success
MONTH_NAMES = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")
_MONTHS = {name: number for number, name in enumerate(MONTH_NAMES, 1)}
_HEX = re.compile(r"0x[0-9a-fA-F]{1,4}\Z")
EMPTY = ("", "-")  # escape=json logs an empty value as "", the default escape as "-"
SHOWN_UNREADABLE = 5
MAX_SITES = 1000
OTHER_SITES = "(other sites)"


@record(frozen=True)
class GroupView:
    """A logged group value, named: hex code points become names, GREASE is left out."""

    name: str | None
    pq: bool


def _is_grease(code: int) -> bool:
    """RFC 8701: 0x0A0A, 0x1A1A, ... 0xFAFA."""
    return (code & 0x0F0F) == 0x0A0A and (code >> 8) == (code & 0xFF)


def group_view(value: str) -> GroupView:
    if _HEX.match(value):
        code = int(value, 16)
        if _is_grease(code):
            return GroupView(None, False)
        group = tls_groups.group_by_codepoint(code)
        return GroupView(group.id if group else value.lower(), bool(group and group.pq))
    group = tls_groups.find_group(value)
    return GroupView(value, bool(group and group.pq))


@record
class Unreadable:
    count: int = 0
    examples: list[tuple[str, int, str]] = field(default_factory=list)  # file, line, text

    def add(self, name: str, number: int, line: bytes) -> None:
        self.count += 1
        if len(self.examples) < SHOWN_UNREADABLE:
            text = line.decode("utf-8", "replace").rstrip("\r\n")
            self.examples.append((name, number, text[:200]))


@record
class InputCount:
    """What one input gave: its lines that the format read, and the first it could not."""

    name: str
    readable: int = 0
    unreadable: int = 0
    first_unreadable: int | None = None
    first_unreadable_text: bytes = b""


@record
class Tally:
    """The counters of one or more logs read with one format."""

    fmt: LogFormat
    roles: dict[str, str | None]
    # (hour, site, tls, protocol, cipher, group, pq, offered_pq, reused, early, ech) ->
    # connections,
    # tls being True, False (plain HTTP) or None (the format cannot tell)
    connections: Counter[tuple[object, ...]] = field(default_factory=Counter)
    # (hour, site, tls) -> requests
    requests: Counter[tuple[object, ...]] = field(default_factory=Counter)
    lines: int = 0
    unreadable: Unreadable = field(default_factory=Unreadable)
    inputs: list[InputCount] = field(default_factory=list)
    _offers: dict[str, bool] = field(default_factory=dict)
    _sites: set[str] = field(default_factory=set)
    # the roles the format has that no readable line filled yet (a JSON line without the key);
    # None before the first log
    _unfilled: list[int] | None = None
    _filled_any: bool = False  # whether any line was read at all

    def settle(self) -> None:
        """After the last log: a role no line filled is one the log's lines do not have, though
        the format read them with has it (a log written for a target without ECH, read with the
        newest nginxgen_tls format): it is left out of the report as if the format lacked it."""
        if self._filled_any and self._unfilled:
            self.roles = {
                role: None if i in self._unfilled else variable
                for i, (role, variable) in enumerate(self.roles.items())
            }

    @property
    def per_connection(self) -> bool:
        return self.roles["requests"] is not None

    def _offered_pq(self, curves: str) -> bool:
        """Whether a client's $ssl_curves names an ML-KEM group (cached: clients repeat)."""
        cached = self._offers.get(curves)
        if cached is None:
            if len(self._offers) > 65536:  # GREASE makes some lists unique: stay bounded
                self._offers.clear()
            cached = self._offers[curves] = any(group_view(c).pq for c in curves.split(":"))
        return cached

    def _site(self, site: str) -> str:
        """The site as counted: $host is whatever clients send, so past MAX_SITES names the
        rest share one row and memory stays bounded."""
        if site not in self._sites:
            if len(self._sites) >= MAX_SITES:
                return OTHER_SITES
            self._sites.add(site)
        return site

    def add_lines(self, name: str, lines: Iterable[bytes], parse: LineParser) -> None:
        connections, requests = self.connections, self.requests
        groups: dict[str, GroupView] = {}
        hour = _hour_key(self.roles["time"])
        tls_value = self._tls_value()
        counted = InputCount(name)
        self.inputs.append(counted)
        unfilled = self._unfilled_roles()
        unreadable_before = self.unreadable.count
        number = readable = 0
        try:
            for number, line in enumerate(lines, 1):
                if not line.strip():
                    continue
                values = parse(line)
                try:
                    when = hour(values[TIME]) if values is not None else None
                except ValueError:
                    values = None
                if values is None:
                    self._unreadable_line(counted, number, line)
                    continue
                readable += 1
                for i in unfilled:  # empty once every role was seen: nothing more per line
                    if values[i] is not None:
                        unfilled = self._unfilled = [j for j in unfilled if values[j] is None]
                        break
                site = self._site(values[SITE] or values[HOST] or "-")
                # TLS (True), plain HTTP (False), or None: the format has no variable that tells
                # (or this JSON line lacks it). Inline, not a call: this runs for every line.
                mark = values[TLS]
                if mark is None:
                    tls = None
                elif tls_value is None:
                    tls = mark not in EMPTY
                else:
                    tls = mark == tls_value
                requests[when, site, tls] += 1
                if values[REQUESTS] not in (None, "1"):
                    continue
                if not tls:  # plain HTTP, or a format that cannot tell: no TLS details
                    connections[
                        when, site, tls, None, None, None, False, False, False, False, False
                    ] += 1
                    continue
                connections[self._tls_connection(values, when, site, groups)] += 1
        finally:
            self._input_read(counted, number, readable, unreadable_before)

    def _tls_value(self) -> str | None:
        """The value of the format's TLS variable that marks a TLS line; None: any value but an
        empty one."""
        marker = self.fmt.tls_marker()
        return marker.tls_value if marker else None

    def _unfilled_roles(self) -> list[int]:
        """The roles no readable line filled yet (before the first log: every one the format
        has)."""
        if self._unfilled is None:
            self._unfilled = [i for i, variable in enumerate(self.roles.values()) if variable]
        return self._unfilled

    def _input_read(
        self, counted: InputCount, lines: int, readable: int, unreadable_before: int
    ) -> None:
        """A log read to its end (or to an error): its lines counted."""
        self.lines += lines
        self._filled_any = self._filled_any or readable > 0
        counted.readable = readable
        counted.unreadable = self.unreadable.count - unreadable_before

    def _unreadable_line(self, counted: InputCount, number: int, line: bytes) -> None:
        """A line the format did not read: counted, and kept as an example while few."""
        self.unreadable.add(counted.name, number, line)
        if counted.first_unreadable is None:
            counted.first_unreadable = number
            counted.first_unreadable_text = line

    def _tls_connection(
        self, values: Values, when: object, site: str, groups: dict[str, GroupView]
    ) -> tuple[object, ...]:
        """The connections key of a TLS connection's first request: its protocol, suite, group
        (named once per value in `groups`), whether the group is post-quantum or the client
        offered one, resumption, early data and an accepted ECH."""
        protocol = values[PROTOCOL]
        curve = values[CURVE]
        group = None
        offered = False
        pq = False
        if curve is not None and curve not in EMPTY:
            view = groups.get(curve)
            if view is None:
                view = groups[curve] = group_view(curve)
            group, pq = view.name, view.pq
            curves = values[CURVES]
            if not pq and protocol == "TLSv1.3" and curves not in (None, *EMPTY):
                offered = self._offered_pq(curves)
        reused, early = values[REUSED] == "r", values[EARLY] == "1"
        ech = values[ECH] == ECH_ACCEPTED
        return (when, site, True, protocol, values[CIPHER], group, pq, offered, reused, early, ech)


def _hour_key(variable: str | None) -> Callable[[str | None], object]:
    """A cheap per-line hour key for the time variable; turned into a label once per hour."""
    if variable == "time_iso8601":
        return lambda v: v[:13] if v else None  # 2026-11-23T05
    if variable == "time_local":
        return lambda v: v[:14] if v else None  # 23/Nov/2026:05
    if variable == "msec":  # raises ValueError on a line that is not a time: unreadable
        return lambda v: int(v.partition(".")[0]) // 3600 if v and v not in EMPTY else None
    return lambda v: None


def hour_label(variable: str | None, key: object) -> str | None:
    """`2026-11-23T05` for an hour key, whatever the time variable (msec: UTC)."""
    if key is None:
        return None
    if variable == "time_local":
        text = str(key)
        try:
            day, month, rest = text.split("/")
            return f"{rest[:4]}-{_MONTHS[month]:02d}-{int(day):02d}T{rest[5:7]}"
        except (ValueError, KeyError):
            return None
    if variable == "msec":
        import datetime

        moment = datetime.datetime.fromtimestamp(int(str(key)) * 3600, tz=datetime.UTC)
        return moment.strftime("%Y-%m-%dT%H")
    return str(key)
