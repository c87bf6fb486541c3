"""DHE suites listed in `ssl_ciphers` without `ssl_dhparam`. Since nginx 1.11.0 there are no
built-in DH parameters: without the directive the DHE suites are silently never used (the
model's answer, Effective.dhe_usable, which the probe's expectations read too).

Sources: nginx docs ssl_dhparam (no DHE suites without it); nginx CHANGES 1.11.0.
"""

from __future__ import annotations

from collections.abc import Iterator

from nginxgen.conf.client_certificates import refuses_handshakes
from nginxgen.conf.config import Server
from nginxgen.conf.load import Stmt
from nginxgen.lint.context import Context, Rule, server_label
from nginxgen.lint.findings import Finding, Severity
from nginxgen.lint.rules._dhe import dhe_suites

RULE = Rule(
    code="NGX732",
    name="dhe-without-dhparam",
    severity=Severity.INFO,
    fix="ssl_dhparam /etc/nginx/ffdhe2048.pem; (RFC 7919 group), or drop the DHE suites",
    triggers=("ssl_ciphers",),
)


def check(ctx: Context) -> Iterator[Finding]:
    for stmt, servers in _takers(ctx).values():
        suites = next((found for s in servers if (found := dhe_suites(ctx, s))), None)
        # a line is judged by every server it applies to: one with ssl_dhparam uses its DHE
        # suites (trial 24: an http{} line was said unused for the default server's want of
        # one, while the vhost beside it negotiated DHE)
        if not suites or any(ctx.dhe_usable(s) for s in servers):
            continue
        count, more = len(suites), len(servers) - 1
        where = server_label(servers[0]) + (f" and {more} more" if more else "")
        yield ctx.finding(
            RULE,
            stmt,
            f"{count} DHE suite{'s' if count > 1 else ''} ({suites[0]}, ...) never used: no "
            f"ssl_dhparam where this line applies ({where})",
        )


def _takers(ctx: Context) -> dict[int, tuple[Stmt, list[Server]]]:
    """Each ssl_ciphers line in effect, with the servers that complete handshakes under it (one
    that refuses every handshake negotiates nothing)."""
    takers: dict[int, tuple[Stmt, list[Server]]] = {}
    for server in ctx.tls_servers():
        lines = server.effective("ssl_ciphers")
        if lines and not refuses_handshakes(server):
            takers.setdefault(id(lines[-1]), (lines[-1], []))[1].append(server)
    return takers
