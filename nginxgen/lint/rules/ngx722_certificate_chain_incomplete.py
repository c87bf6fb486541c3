"""An `ssl_certificate` file with only the leaf, issued by someone else: the intermediate
certificates are missing. Browsers that cache or fetch intermediates cope; many other clients
(curl, Android apps, Java, Go, monitoring) fail with "unable to get local issuer certificate".
nginx does not warn.

Sources: nginx docs "configuring HTTPS servers", SSL certificate chains.
"""

from __future__ import annotations

from collections.abc import Iterator

from nginxgen.lint.context import Context, Rule
from nginxgen.lint.findings import Finding, Severity
from nginxgen.lint.rules._files import certificate_files

RULE = Rule(
    code="NGX722",
    name="certificate-chain-incomplete",
    severity=Severity.WARNING,
    fix="use the full chain file (Let's Encrypt: fullchain.pem), leaf first then intermediates",
)


def check(ctx: Context) -> Iterator[Finding]:
    for cert in certificate_files(ctx):
        leaf = cert.chain[0]
        if len(cert.chain) == 1 and leaf.issuer != leaf.subject:
            yield ctx.finding(
                RULE,
                cert.stmt,
                f"{cert.stmt.args[0]} holds only the leaf; clients without its intermediate "
                "certificate cannot verify it",
            )
