"""`ssl_session_tickets on` in a vhost while the default server turned tickets off.

Before nginx 1.29.2 tickets turned back on in a virtual server do not work when the default
server of the address:port has them off: clients get no usable ticket.

Fail (nginx 1.26.3):
    server { listen 443 ssl default_server; ssl_session_tickets off; ... }
    server { listen 443 ssl; server_name b.example; ssl_session_tickets on; ... }
Fix (tickets decided at http{} level, or nginx >= 1.29.2):
    ssl_session_tickets off;
    server { listen 443 ssl default_server; ... }
    server { listen 443 ssl; server_name b.example; ... }

Sources: nginx src/event/ngx_event_openssl.c (ngx_ssl_session_ticket_key_callback reads the
connection's session_ctx, the default server's); nginx CHANGES 1.29.2 (server selection in the
ClientHello callback); tests/test_fuzz_live.py (tickets after the SNI switch, per build).
"""

from __future__ import annotations

from collections.abc import Iterator

from nginxgen.lint.context import Context, Rule, server_label
from nginxgen.lint.findings import Finding
from nginxgen.lint.rules._default_server import MOVE_TO_DEFAULT, misplaced, move_to_default

RULE = Rule(
    code="NGX105",
    name="tickets-on-in-vhost",
    severity="info",
    fix="set ssl_session_tickets at http{} level",
    autofix=MOVE_TO_DEFAULT,
)


def check(ctx: Context) -> Iterator[Finding]:
    for m in misplaced(ctx, ("ssl_session_tickets",)):
        yield ctx.finding(
            RULE,
            m.stmt,
            f"tickets are off in the default server {server_label(m.default)} of {m.socket}, "
            "so turning them on here has no effect before nginx 1.29.2",
            edits=move_to_default(ctx, m),
        )
