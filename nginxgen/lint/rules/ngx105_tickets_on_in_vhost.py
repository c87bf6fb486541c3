"""`ssl_session_tickets` in a vhost the other way from the default server's.

Before nginx 1.29.2 tickets turned back on in a virtual server do not work when the default
server of the address:port has them off: clients get no usable ticket. The other way round,
with OpenSSL, tickets turned off in a virtual server under a default server that has them on
(nginx's default) take TLS 1.3 resumption away from its names altogether: the session cache does
not resume their TLS 1.3 sessions either (TLS 1.2 sessions still resume from it).

The same in stream{} servers (virtual servers since nginx 1.25.5): the stream module switches
the connection to the vhost's context as http does (ngx_stream_ssl_servername).

Fail (nginx 1.26.3):
    server { listen 443 ssl default_server; ssl_session_tickets off; ... }
    server { listen 443 ssl; server_name b.example; ssl_session_tickets on; ... }
Fix (tickets decided at http{} level, or nginx >= 1.29.2):
    ssl_session_tickets off;
    server { listen 443 ssl default_server; ... }
    server { listen 443 ssl; server_name b.example; ... }

Sources: nginx src/event/ngx_event_openssl.c (ngx_ssl_session_ticket_key_callback reads the
connection's session_ctx, the default server's); nginx CHANGES 1.29.2 (server selection in the
ClientHello callback); tests/conf/test_fuzz_live.py (tickets after the SNI switch, per build).
"""

from __future__ import annotations

from collections.abc import Iterator

from nginxgen.lint.context import Context, Rule, server_label
from nginxgen.lint.findings import Finding, Severity
from nginxgen.lint.rules._default_server import (
    MOVE_TO_DEFAULT,
    Misplaced,
    finding,
    merged,
    misplaced,
    vhost_models,
)

RULE = Rule(
    code="NGX105",
    name="tickets-on-in-vhost",
    severity=Severity.INFO,
    fix="set ssl_session_tickets at http{} level",
    autofix=MOVE_TO_DEFAULT,
    triggers=("ssl_session_tickets",),
)


def check(ctx: Context) -> Iterator[Finding]:
    for m in misplaced(ctx, ("ssl_session_tickets",)):
        yield finding(
            ctx,
            RULE,
            m,
            f"tickets are off in {server_label(m.default)}, the default server of {m.on}, "
            "so turning them on here has no effect before nginx 1.29.2",
        )
    yield from _off_under_on(ctx)


def _off_under_on(ctx: Context) -> Iterator[Finding]:
    """A vhost's tickets off where the config model says its names then resume no TLS 1.3
    session, although its line meant them to resume from the session cache (its own, where
    the vhost writes one: that line is ignored too, NGX102); one finding per line."""
    for m in merged(_tickets_off(ctx)):
        yield finding(
            ctx,
            RULE,
            m,
            f"tickets are on in {server_label(m.default)}, the default server "
            f"of {m.on}: turning them off here leaves this server's names without "
            "TLS 1.3 resumption before nginx 1.29.2 (on "
            f"{ctx.target.library.display}: the session cache does not resume "
            "their TLS 1.3 sessions either)",
        )


def _tickets_off(ctx: Context) -> Iterator[Misplaced]:
    for socket, server, model, config in vhost_models(ctx):
        if "ssl_session_tickets" not in model.decided:
            continue
        answer = model.tls13_resumption()
        for ignored in answer.ignored:
            turned_off = ignored.line.args == ["off"]
            if not turned_off or answer.value is not False or ignored.meant is not True:
                continue
            yield Misplaced(
                socket, "ssl_session_tickets", ignored.line, model.default,
                model.decided["ssl_session_tickets"].why, "on", server, config,
            )  # fmt: skip
