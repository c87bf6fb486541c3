"""A TLS server that serves content without a Strict-Transport-Security header.

Without HSTS a network attacker can keep a browser on plain HTTP (SSL stripping) on its next
visit. Catch-all servers that refuse the handshake (`ssl_reject_handshake on`) or close the
connection (`return 444`) are not flagged, nor is HSTS sent by headers-more
(`more_set_headers "Strict-Transport-Security: max-age=..."`) or by ngx_security_headers
(`security_headers on`). Where http{} sets HSTS and the server drops it (an add_header line of
its own, or `add_header_inherit off`, nginx >= 1.29.3), the finding is on the line that drops it.

Fail: location / { root /srv/a; }
Fix:
    add_header Strict-Transport-Security "max-age=63072000; includeSubDomains" always;
    location / { root /srv/a; }

Sources: RFC 6797; openresty/headers-more-nginx-module README (more_set_headers);
GetPageSpeed/ngx_security_headers README (security_headers on adds Strict-Transport-Security);
Mozilla guideline 6.0 (hsts_min_age); RFC 6797.
"""

from __future__ import annotations

from collections.abc import Iterator

from nginxgen.base import rule_codes
from nginxgen.conf.responses import HSTS
from nginxgen.lint.context import Context, Rule, server_label
from nginxgen.lint.findings import Finding, Severity
from nginxgen.lint.rules._hsts import content_servers, other_hsts, responses

RULE = Rule(
    code=rule_codes.HSTS_MISSING,  # the generator names it too
    name="hsts-missing",
    severity=Severity.WARNING,
    fix='add_header Strict-Transport-Security "max-age=63072000; includeSubDomains" always;',
)


def check(ctx: Context) -> Iterator[Finding]:
    for server in content_servers(ctx):
        if other_hsts(server.http) or other_hsts(server.directives):
            continue  # headers-more or ngx_security_headers sends it
        (_, own), *locations = responses(ctx, server)
        if own.named(HSTS) or any(h.named(HSTS) for _, h in locations):
            continue  # some responses carry it; NGX704 checks the rest
        message = f"{server_label(server)} serves HTTPS without HSTS"
        dropped = own.dropped_named(HSTS)
        if dropped:  # http{}'s HSTS line, dropped here: the finding is on the line that drops it
            yield ctx.finding(RULE, dropped[-1].cause, f"{message}: {dropped[-1].why}")
        else:
            yield ctx.finding(RULE, server.stmt, message)
