"""An `ssl_session_ticket_key` file that is not 48 or 80 bytes. nginx reads exactly those sizes
(48: AES-128 tickets, 80: AES-256, from 1.11.8) and refuses anything else:
`"ssl_session_ticket_key" file must be 48 or 80 bytes`. And one that does not exist (judged
where the tree is the one the --nginx-bin binary reads, as NGX727's files): nginx opens each
file as it merges the server's settings and stops, `open() "PATH" failed (2: No such file or
directory)`, naming the line where it merges (http{}'s `}`); lint names the ticket key's line.

Sources: nginx docs ssl_session_ticket_key; ngx_ssl_session_ticket_keys(); seen with nginx -t
on 1.22.1, 1.26.3, 1.28.3 and 1.31.3 (tests/lint/test_lint_files.py).
"""

from __future__ import annotations

import os
from collections.abc import Iterator

from nginxgen.conf import files
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
        loaded = ctx.config.loaded
        if files.absent(loaded, stmt.args[0], ctx.target.conf_path):
            # the name as nginx opens it (ngx_conf_full_name: a relative one under the prefix)
            full = loaded.here(stmt.args[0])
            message = f'{stmt.args[0]} does not exist: nginx -t fails: open() "{full}" failed'
            fix = "point ssl_session_ticket_key at the key file (openssl rand 80 > ticket.key)"
            yield ctx.finding(RULE, stmt, message, fix)
            continue
        path = resolve(ctx, stmt.args[0])
        if path is None:
            continue
        size = os.path.getsize(path)
        if size not in SIZES:
            yield ctx.finding(
                RULE, stmt, f"{stmt.args[0]} is {size} bytes, not 48 or 80: nginx refuses it"
            )
