"""`ssl_session_tickets off` with BoringSSL or AWS-LC: no TLS 1.3 session ever resumes.

OpenSSL resumes TLS 1.3 from the server's session cache when tickets are off (stateful tickets);
BoringSSL and AWS-LC have no such path, so every TLS 1.3 client pays a full handshake on each
new connection, however large the shared cache. TLS 1.2 clients still resume by session ID.
The default server of the address decides (tickets are a default-server setting).

Fail (BoringSSL, TLS 1.3 on): ssl_session_tickets off;
Fix (with nginx >= 1.23.2 and a shared cache, which rotates the keys): ssl_session_tickets on;
Older nginx needs rotated ssl_session_ticket_key files.

Sources: OpenSSL SSL_CTX_set_options.pod (SSL_OP_NO_TICKET and TLS 1.3 stateful tickets);
reproduced on nginx 1.26.3 with AWS-LC 5.12.0 and BoringSSL: tickets off, a TLS 1.3 session
did not resume, a TLS 1.2 one did.
"""

from __future__ import annotations

from collections.abc import Iterator

from nginxgen.conf.config import Server
from nginxgen.conf.load import Stmt
from nginxgen.knowledge import libraries
from nginxgen.lint.context import Context, Rule
from nginxgen.lint.findings import Finding, Severity

RULE = Rule(
    code="NGX606",
    name="tickets-off-no-tls13-resumption",
    severity=Severity.INFO,
    fix="ssl_session_tickets on; (with rotated keys: nginx >= 1.23.2 and a shared cache, or "
    "ssl_session_ticket_key files)",
    triggers=("ssl_session_tickets",),
)


def check(ctx: Context) -> Iterator[Finding]:
    library = ctx.target.library
    if libraries.has(library, "tls13_stateful_resumption"):
        return

    def off_with_tls13(default: Server, stmt: Stmt) -> bool:
        return stmt.args == ["off"] and "TLSv1.3" in ctx.protocols(default)

    for socket, _, stmt in ctx.default_lines("ssl_session_tickets", off_with_tls13):
        yield ctx.finding(
            RULE,
            stmt,
            f"session tickets off for {socket}: {ctx.library()} has no stateful TLS 1.3 "
            "resumption, so no TLS 1.3 session resumes (TLS 1.2 ones still do)",
        )
