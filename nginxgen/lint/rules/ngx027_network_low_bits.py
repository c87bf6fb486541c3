"""A network whose address has bits set beyond its mask: `allow 10.0.0.1/8;`. nginx takes
`10.0.0.0/8` and `nginx -t` warns `low address bits of 10.0.0.1/8 are meaningless`: a mask
that was meant to be /32, or an address that was meant to be another, goes unseen.

Judged in allow and deny (http{} and stream{}), set_real_ip_from, and a geo block's networks,
its `delete` and `proxy` lines too (not with `ranges`).

Fail:
    location /admin/ {
        allow 192.168.1.10/24;
        deny all;
    }
Fix (the network meant, or the address alone):
    location /admin/ {
        allow 192.168.1.0/24;
        deny all;
    }

Sources: nginx src/core/ngx_inet.c (ngx_ptocidr: NGX_DONE), src/http/modules/
ngx_http_access_module.c, ngx_http_realip_module.c, ngx_http_geo_module.c and their stream{}
twins; seen with nginx -t on Debian 12's and 13's nginx and nginx 1.31.3
(tests/lint/test_value_blocks_live.py).
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterator

from nginxgen.base.sockets import ptocidr
from nginxgen.conf.load import walk
from nginxgen.lint.context import Context, Rule
from nginxgen.lint.findings import Finding, Severity
from nginxgen.lint.rules._blocks import entries

RULE = Rule(
    code="NGX027",
    name="network-low-bits",
    severity=Severity.WARNING,
    fix="write the network's first address (10.0.0.0/8), or the address alone",
    triggers=("allow", "deny", "set_real_ip_from", "geo"),
)
DIRECTIVES = frozenset({"allow", "deny", "set_real_ip_from"})


def check(ctx: Context) -> Iterator[Finding]:
    for stmt in walk(ctx.config.loaded.statements):
        if stmt.directive in DIRECTIVES and len(stmt.args) == 1:
            lines = [(stmt, stmt.args[0])]
        elif stmt.directive == "geo" and stmt.block is not None:
            listed = entries(stmt)
            if any(s.directive == "ranges" and not s.args for s in listed):
                continue
            # `delete NET` and `proxy NET` read their network as an entry does
            lines = [
                (s, s.args[0] if s.directive in ("delete", "proxy") else s.directive)
                for s in listed
                if len(s.args) == 1
            ]
        else:
            continue
        for line, text in lines:
            if low_bits(text):
                # the setter's warning (a geo's handler's for its entries), as nginx reads
                # the line: at its end (handled)
                yield ctx.finding(
                    RULE,
                    line,
                    f"low address bits of {text} are meaningless (nginx -t warns): nginx takes "
                    f"{ipaddress.ip_network(text, strict=False)}",
                    handled=True,
                )


def low_bits(text: str) -> bool:
    """Whether a network's address has bits beyond its mask (and is a network at all: what
    nginx refuses is NGX010's)."""
    return "/" in text and ptocidr(text) == "done"
