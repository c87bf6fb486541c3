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

from nginxgen.conf.words import flag_on
from nginxgen.lint.context import Context, Rule
from nginxgen.lint.findings import Finding, Severity
from nginxgen.lint.rules.ngx726_stapling_without_ocsp_url import stapling_ignored

RULE = Rule(
    code="NGX712",
    name="stapling-verify-without-trusted-certificate",
    severity=Severity.WARNING,
    fix="ssl_trusted_certificate /path/to/chain.pem;",
    triggers=("ssl_stapling_verify",),
)


def check(ctx: Context) -> Iterator[Finding]:
    seen: set[int] = set()
    # each server the line is in effect in, not its first only (as NGX711)
    for server in ctx.tls_servers():
        verify = server.effective("ssl_stapling_verify")
        if not verify or not flag_on(verify[-1].args) or id(verify[-1]) in seen:
            continue
        stapling = server.effective("ssl_stapling")
        if not stapling or not flag_on(stapling[-1].args):
            continue  # nothing is stapled, so nothing is verified (found trying public configs)
        if server.effective("ssl_trusted_certificate"):
            continue
        if stapling_ignored(ctx, server):
            # nginx ignores ssl_stapling there (NGX502, NGX726 say so): no response to verify
            # (trial 19: a third finding for one ignored line)
            continue
        seen.add(id(verify[-1]))
        yield ctx.finding(
            RULE,
            verify[-1],
            "ssl_stapling_verify needs ssl_trusted_certificate (root and intermediates)",
        )
