"""`ssl_stapling_verify on` without `ssl_trusted_certificate`: responses cannot be verified and
stapling is dropped unless the chain file happens to hold the issuer and root. Not reported
where nginx ignores ssl_stapling for every certificate of the server (NGX502, NGX726): nothing
is stapled, so nothing is verified.

Fail: ssl_stapling on; ssl_stapling_verify on; resolver 127.0.0.53;
Fix (the issuer and root of the chain in a file of their own):
    ssl_stapling on; ssl_stapling_verify on; resolver 127.0.0.53;
    ssl_trusted_certificate /etc/ssl/root_and_intermediates.pem;

Sources: ngx_http_ssl_module docs (ssl_stapling_verify).
"""

from __future__ import annotations

from collections.abc import Iterator

from nginxgen.conf.config import Server
from nginxgen.lint.context import Context, Rule
from nginxgen.lint.findings import Finding, Severity
from nginxgen.lint.rules._stapling import stapling_ignored, stapling_line

RULE = Rule(
    code="NGX712",
    name="stapling-verify-without-trusted-certificate",
    severity=Severity.WARNING,
    fix="ssl_trusted_certificate /path/to/chain.pem;",
    triggers=("ssl_stapling_verify",),
)


def check(ctx: Context) -> Iterator[Finding]:
    def unverified(server: Server) -> bool:
        # nothing stapled, nothing verified (found trying public configs); nor where nginx
        # ignores ssl_stapling (NGX502, NGX726 say so): no response to verify (trial 19: a
        # third finding for one ignored line)
        return (
            stapling_line(ctx, server) is not None
            and not server.effective("ssl_trusted_certificate")
            and not stapling_ignored(ctx, server)
        )

    # each server the line is in effect in, not its first only (as NGX711)
    for _, verify in ctx.effective_on("ssl_stapling_verify", unverified):
        yield ctx.finding(
            RULE,
            verify,
            "ssl_stapling_verify needs ssl_trusted_certificate (root and intermediates)",
        )
