"""An entry of a `map`, `geo` or `split_clients` block that nginx refuses or overrides:

- map: a key given twice (`conflicting parameter "a"`; keys compare in lower case, a leading `\\`
  dropped, and with `hostnames` a `.name` key also stands for `name`), or `default` twice
  (`duplicate default map parameter`): `nginx -t` fails;
- geo: a network given twice (`duplicate network "10.0.0.0/8", value: "b", old value: "a"`, the
  same network however written: `10.1.2.3/16` is `10.1.0.0/16`, `default` is `0.0.0.0/0`),
  a range given twice with `ranges` (`duplicate range`): nginx -t warns and the later value
  wins (a network with bits beyond its mask is NGX027's); a `delete` of a network no line above
  gives (`no network "10.1.0.0/16" to delete`): nginx -t warns;
- split_clients: percentages that add up to more than 100% (`percent total is greater than
  100%`, on the block's closing line), or one with more than two decimals (`invalid percent
  value`): nginx -t fails.

The same in stream{}, whose map, geo and split_clients read their entries alike. A block with an
include not read is judged on what was read.

Fail:
    http {
        map $http_upgrade $connection_upgrade {
            default upgrade;
            ''      close;
            ''      "";
        }
    }
Fix (each key once):
    http {
        map $http_upgrade $connection_upgrade {
            default upgrade;
            ''      close;
        }
    }

Sources: nginx src/http/modules/ngx_http_map_module.c (ngx_http_map), src/core/ngx_hash.c
(ngx_hash_add_key: NGX_BUSY), ngx_http_geo_module.c (ngx_http_geo_cidr_add,
ngx_http_geo_add_range), ngx_http_split_clients_module.c and their stream{} twins; seen with
nginx -t on Debian 12's and 13's nginx and nginx 1.31.3 (tests/lint/test_value_blocks_live.py).
"""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Iterator

from nginxgen.conf.load import Stmt, walk
from nginxgen.lint.context import Context, Rule, seen_at
from nginxgen.lint.findings import Finding, Severity
from nginxgen.lint.rules._blocks import closing_line, entries, map_exact_keys

RULE = Rule(
    code="NGX022",
    name="block-entry-conflict",
    severity=Severity.ERROR,
    fix="give each key, network or range once; split_clients' percentages add up to 100% at most",
    otherwise=((Severity.WARNING, "a geo network or range given twice: the later value wins"),),
    triggers=("map", "geo", "split_clients"),
)

# entries of a geo block that are settings, not networks
GEO_WORDS = frozenset({"default", "include", "proxy", "proxy_recursive", "ranges", "delete"})
PERCENT = re.compile(r"^(\d+)(?:\.(\d{1,2}))?%$")


def check(ctx: Context) -> Iterator[Finding]:
    loaded = ctx.config.loaded
    for stmt in walk(loaded.statements):
        if stmt.block is None:
            continue
        if stmt.directive == "map":
            yield from _map(ctx, stmt)
        elif stmt.directive == "geo":
            yield from _geo(ctx, stmt)
        elif stmt.directive == "split_clients":
            yield from _split(ctx, stmt)


def _map(ctx: Context, block: Stmt) -> Iterator[Finding]:
    default: Stmt | None = None
    for entry in entries(block):
        if entry.directive == "default" and len(entry.args) == 1:
            if default is not None:
                yield ctx.finding(
                    RULE, entry, f"duplicate default map parameter ({seen_at(default, entry)} "
                    "gives the first): nginx -t fails",
                )  # fmt: skip
            default = entry
    seen: dict[str, Stmt] = {}
    for entry, key in map_exact_keys(block):
        first = seen.setdefault(key, entry)
        if first is not entry:
            yield ctx.finding(
                RULE,
                entry,
                f'conflicting parameter "{key}" ({seen_at(first, entry)} gives it first): '
                "nginx -t fails",
            )


def _network(text: str) -> ipaddress.IPv4Network | ipaddress.IPv6Network | None:
    try:
        return ipaddress.ip_network(text, strict=False)
    except ValueError:
        return None


def _geo(ctx: Context, block: Stmt) -> Iterator[Finding]:
    listed = entries(block)
    ranges = any(s.directive == "ranges" and not s.args for s in listed)
    seen: dict[object, tuple[Stmt, str]] = {}
    # a network added in an include not read may be the one a delete names
    unread = any(s.directive == "include" and s.unread for s in listed)
    for entry in listed:
        key = entry.directive
        if len(entry.args) != 1 or (key in GEO_WORDS and key != "default"):
            if key == "delete" and len(entry.args) == 1:
                net = _geo_key(entry.args[0], ranges)
                gone = seen.pop(net, None)
                if gone is None and net is not None and not ranges and not unread:
                    # the radix tree deletes only a network given above (ngx_http_geo)
                    yield ctx.finding(
                        RULE, entry, f'no network "{entry.args[0]}" to delete (no line above '
                        "gives it): nginx -t warns", severity=Severity.WARNING, handled=True,
                    )  # fmt: skip
            continue
        names: list[object]
        if ranges and key != "default":
            names, what = [("range", key)], "range"
        elif key == "default":  # both families' whole space
            names, what = [_network("0.0.0.0/0"), _network("::/0")], "network"
        else:
            network = _network(key)
            if network is None:
                continue  # nginx refuses it otherwise
            names, what = [network], "network"
        first = next((seen[n] for n in names if n in seen), None)
        if first is not None:
            yield ctx.finding(
                RULE,
                entry,
                f'duplicate {what} "{key}", value: "{entry.args[0]}", old value: '
                f'"{first[1]}" ({seen_at(first[0], entry)}): the later value wins (nginx -t warns)',
                severity=Severity.WARNING,
            )
        seen.update((n, (entry, entry.args[0])) for n in names)


def _geo_key(text: str, ranges: bool) -> object:
    return ("range", text) if ranges else _network(text)


def _split(ctx: Context, block: Stmt) -> Iterator[Finding]:
    total = 0
    for entry in entries(block):
        if entry.directive == "*":
            continue
        percent = PERCENT.match(entry.directive)
        if percent is None:
            if entry.directive.endswith("%"):
                yield ctx.finding(
                    RULE, entry, f'invalid percent value "{entry.directive}": nginx -t fails'
                )
                return
            continue  # nginx refuses it otherwise
        total += int(percent[1]) * 100 + int((percent[2] or "0").ljust(2, "0"))
    closed = closing_line(block, ctx.config.loaded)
    if total > 10000 and closed is not None:  # None: nginx stopped before its `}`
        where = Stmt(block.directive, block.args, closed, block.file)
        yield ctx.finding(
            RULE,
            where,
            f"percent total is greater than 100% ({total / 100:g}% in split_clients at line "
            f"{block.line}): nginx -t fails",
        )
