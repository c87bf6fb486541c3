"""A TLS address:port whose default server has no shared session cache.

Without `ssl_session_cache shared:...` a client that resumes by session ID (or any client, where
ssl_session_tickets is off) pays a full handshake on every connection (or every connection to
another worker); session tickets, on by default, still resume the clients that keep them.
`none` (the default) and `off` store nothing; `builtin` is per worker. The fix names a zone the
tree does not use already (`SSL`, else `SSL_stream`, ...).

Fail: ssl_session_cache builtin;
Fix (at http{} level or in the default server; 1 MB holds about 4000 sessions):
    ssl_session_cache shared:SSL:10m;

Not said where an include that could set it cannot be read (NGX002 reports the include): the
setting is unknown there, not absent.

The same for a stream{} TLS server, whose fix goes at stream{} level.

Sources: ngx_http_ssl_module docs (ssl_session_cache default "none").
"""

from __future__ import annotations

from collections.abc import Iterator

from nginxgen.lint.context import Context, Rule, block_fix
from nginxgen.lint.findings import Finding, Severity
from nginxgen.lint.rules.ngx012_shared_memory_zone import free_zone_name

RULE = Rule(
    code="NGX601",
    name="no-session-cache",
    severity=Severity.INFO,
    fix="ssl_session_cache shared:SSL:10m; at http{} level",
)


def check(ctx: Context) -> Iterator[Finding]:
    for socket, default, block in ctx.every_default_server():
        value = default.value("ssl_session_cache")
        if value and any(v.startswith("shared:") for v in value):
            continue
        if default.unknown("ssl_session_cache") is not None:
            continue  # a missing include may set it (NGX002 reports the include)
        stmts = default.effective("ssl_session_cache")
        where = stmts[-1] if stmts else default.stmt
        shown = " ".join(value) if value else "none, the default"
        tickets = default.value("ssl_session_tickets")
        if tickets and tickets[0] == "off":
            what = "every resumption is a full handshake"
        else:  # on by default: a client that keeps a ticket resumes with it (trial 10)
            what = (
                "only clients that resume with a session ticket skip the full handshake; one "
                "that resumes by session ID pays it"
            )
        zone = free_zone_name(ctx, "SSL", block.block)
        yield ctx.finding(
            RULE,
            where,
            f"no shared session cache for {socket} ({shown}): {what}",
            fix=block_fix(RULE.fix.replace("shared:SSL:", f"shared:{zone}:"), block),
        )
