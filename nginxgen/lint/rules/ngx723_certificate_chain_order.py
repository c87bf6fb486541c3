"""The certificates after the leaf are not in chain order: each one should be the issuer of the
one before it. nginx sends the file as written; clients that do not reorder (older OpenSSL, some
Java and embedded stacks) fail to build the path.

Sources: RFC 8446 §4.4.2 (each following certificate SHOULD directly certify the one preceding
it); nginx docs "configuring HTTPS servers", chains.
"""

from __future__ import annotations

from collections.abc import Iterator

from nginxgen.lint.context import Context, Rule
from nginxgen.lint.findings import Finding, Severity
from nginxgen.lint.rules._files import certificate_files

RULE = Rule(
    code="NGX723",
    name="certificate-chain-order",
    severity=Severity.WARNING,
    fix="order the file leaf, its issuer, that one's issuer, ... (as fullchain.pem is)",
)


def check(ctx: Context) -> Iterator[Finding]:
    for cert in certificate_files(ctx):
        if cert.key_match not in (None, 0):
            continue  # NGX721 already says the leaf is not first
        for position, (child, parent) in enumerate(
            zip(cert.chain, cert.chain[1:], strict=False), start=2
        ):
            if child.issuer != parent.subject:
                yield ctx.finding(
                    RULE,
                    cert.stmt,
                    f"certificate {position} in {cert.stmt.args[0]} did not issue certificate "
                    f"{position - 1}: the chain is out of order",
                )
                break
