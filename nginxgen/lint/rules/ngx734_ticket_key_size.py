"""An `ssl_session_ticket_key` file that is not 48 or 80 bytes. nginx reads exactly those sizes
(48: AES-128 tickets, 80: AES-256, from 1.11.8) and refuses anything else:
`"ssl_session_ticket_key" file must be 48 or 80 bytes`.

Sources: nginx docs ssl_session_ticket_key; ngx_ssl_session_ticket_keys().
"""

from __future__ import annotations

import os
from collections.abc import Iterator

from nginxgen.lint.context import Context, Rule
from nginxgen.lint.findings import Finding, Severity
from nginxgen.lint.rules._files import resolve

RULE = Rule(
    code="NGX734",
    name="ticket-key-size",
    severity=Severity.ERROR,
    fix="openssl rand 80 > ticket.key (and rotate it, keeping the previous key as a second line)",
    triggers=("ssl_session_ticket_key",),
)
SIZES = (48, 80)


def check(ctx: Context) -> Iterator[Finding]:
    for stmt in ctx.named("ssl_session_ticket_key"):
        if stmt.directive != "ssl_session_ticket_key" or not stmt.args:
            continue
        path = resolve(ctx, stmt.args[0])
        if path is None:
            continue
        size = os.path.getsize(path)
        if size not in SIZES:
            yield ctx.finding(
                RULE, stmt, f"{stmt.args[0]} is {size} bytes, not 48 or 80: nginx refuses it"
            )
