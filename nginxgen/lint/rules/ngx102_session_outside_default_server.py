"""Session cache, timeout or ticket key set in a server that is not the default server.

nginx stores and looks up sessions, and encrypts tickets, in the default server's context of the
address:port (`c->ssl->session_ctx`). A shared cache configured only in a vhost is never used
(no resumption: a full handshake on every connection); a ticket key or timeout there is ignored.

The same in stream{} servers (virtual servers since nginx 1.25.5): a stream vhost's session
cache and timeout are ignored too (seen on nginx 1.31.3, tests/conf/test_stream_live.py).

Fail:
    server { listen 443 ssl default_server; ssl_reject_handshake on; }
    server { listen 443 ssl; server_name a.example; ssl_session_cache shared:SSL:10m; ... }

Fix (ssl_session_cache, ssl_session_timeout and ssl_session_ticket_key at http{} level):
    ssl_session_cache shared:SSL:10m;
    server { listen 443 ssl default_server; ssl_reject_handshake on; }
    server { listen 443 ssl; server_name a.example; ... }

Sources: nginx src/event/ngx_event_openssl.c (session_ctx); reproduced on the real builds in tests/lint/test_live_rules.py
(a cache only in a vhost gives no resumption).
"""

from __future__ import annotations

from collections.abc import Iterator

from nginxgen.lint.context import Context, Rule, server_label
from nginxgen.lint.findings import Finding, Severity
from nginxgen.lint.rules._default_server import MOVE_TO_DEFAULT, finding, misplaced

RULE = Rule(
    code="NGX102",
    name="session-outside-default-server",
    severity=Severity.WARNING,
    fix="move ssl_session_cache, ssl_session_timeout and ssl_session_ticket_key to http{} level",
    autofix=MOVE_TO_DEFAULT,
    triggers=("ssl_session_cache", "ssl_session_timeout", "ssl_session_ticket_key"),
)


def check(ctx: Context) -> Iterator[Finding]:
    keys = ("ssl_session_cache", "ssl_session_timeout", "ssl_session_ticket_key")
    for m in misplaced(ctx, keys):
        yield finding(
            ctx,
            RULE,
            m,
            f"{m.key} here is ignored: sessions on {m.on} use {server_label(m.default)}, "
            f"its default server ({m.default_value})",
        )
