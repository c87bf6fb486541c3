"""Session tickets on, but their keys never rotate.

A ticket key that lives until the next reload lets anyone who obtains it decrypt every recorded
session since (no forward secrecy). nginx rotates ticket keys itself only from 1.23.2, and only
with a `shared:` session cache and no ssl_session_ticket_key. Tickets are on by default.

Fail (nginx 1.22.1, or no ssl_session_tickets line at all): ssl_session_tickets on;
Fix (or rotate ssl_session_ticket_key files yourself): ssl_session_tickets off;

Not said where an include that could set the session settings cannot be read (NGX002 reports
the include): they are unknown there, not absent.

The same for a stream{} TLS server.

Sources: nginx commit 1d572e359 (CHANGES 1.23.2).
"""

from __future__ import annotations

from collections.abc import Iterator

from nginxgen.conf.words import flag_on
from nginxgen.knowledge import nginx
from nginxgen.lint.context import Context, Rule, block_fix
from nginxgen.lint.findings import Finding, Severity

RULE = Rule(
    code="NGX602",
    name="tickets-without-rotation",
    severity=Severity.WARNING,
    fix="ssl_session_tickets off; (or rotate ssl_session_ticket_key files, or use nginx >= 1.23.2 with a shared cache)",
)


def check(ctx: Context) -> Iterator[Finding]:
    for socket, default, block in ctx.every_default_server():
        settings = ("ssl_session_tickets", "ssl_session_ticket_key", "ssl_session_cache")
        if any(default.unknown(name) is not None for name in settings):
            continue  # a missing include may turn tickets off or rotate them (NGX002 says so)
        tickets = default.value("ssl_session_tickets") or ["on"]
        if not flag_on(tickets) or ctx.sessions.ticket_keys_managed(default):
            continue  # off, or keys that change (the admin's files, or nginx's rotation)
        stmts = default.effective("ssl_session_tickets")
        why = (
            f"nginx {ctx.target.nginx} never rotates ticket keys"
            if not nginx.auto_ticket_rotation(ctx.target)
            else "without a shared session cache (ssl_session_cache shared:...) nginx does not rotate ticket keys"
        )
        yield ctx.finding(
            RULE,
            stmts[-1] if stmts else default.stmt,
            f"session tickets on for {socket}, but {why}",
            fix=block_fix(RULE.fix, block),
        )
