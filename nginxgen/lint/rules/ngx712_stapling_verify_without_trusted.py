"""`ssl_stapling_verify on` without `ssl_trusted_certificate`: responses cannot be verified and
stapling is dropped unless the chain file happens to hold the issuer and root.

Fail: ssl_stapling on; ssl_stapling_verify on; resolver 127.0.0.53;
Fix (the issuer and root of the chain in a file of their own):
    ssl_stapling on; ssl_stapling_verify on; resolver 127.0.0.53;
    ssl_trusted_certificate /etc/ssl/root_and_intermediates.pem;

Sources: ngx_http_ssl_module docs (ssl_stapling_verify).
"""

from __future__ import annotations

from collections.abc import Iterator

from nginxgen.lint.context import Context, Rule
from nginxgen.lint.findings import Finding, Severity

RULE = Rule(
    code="NGX712",
    name="stapling-verify-without-trusted-certificate",
    severity=Severity.WARNING,
    fix="ssl_trusted_certificate /path/to/chain.pem;",
    triggers=("ssl_stapling_verify",),
)


def check(ctx: Context) -> Iterator[Finding]:
    for server, verify in ctx.effective_on("ssl_stapling_verify"):
        stapling = server.effective("ssl_stapling")
        if not stapling or stapling[-1].args[:1] != ["on"]:
            continue  # nothing is stapled, so nothing is verified (found trying public configs)
        if not server.effective("ssl_trusted_certificate"):
            yield ctx.finding(
                RULE,
                verify,
                "ssl_stapling_verify needs ssl_trusted_certificate (root and intermediates)",
            )
