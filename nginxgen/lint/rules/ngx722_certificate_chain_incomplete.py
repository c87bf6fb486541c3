"""An `ssl_certificate` file with only the leaf, issued by an intermediate CA: the intermediate
certificates are missing. Browsers that cache or fetch intermediates cope; many other clients
(curl, Android apps, Java, Go, monitoring) fail with "unable to get local issuer certificate".
nginx does not warn.

A leaf issued directly by a root (a private CA without intermediates) is complete on its own:
clients hold the root. The issuer is looked for where it is knowable here: the CA files the
config names (`ssl_trusted_certificate`, `ssl_client_certificate`, `proxy_ssl_trusted_certificate`
...), the certificate files beside the leaf's, and this machine's bundle of public roots. Found
and self-signed (a root): nothing to report. Found and not self-signed: the finding names the
file that holds that intermediate. Not found: reported, since a leaf issued by a root is rare
outside private CAs, whose root can be named in one of those places.

Sources: nginx docs "configuring HTTPS servers", SSL certificate chains; RFC 8446 section
4.4.2 (the root may be omitted, the intermediates not).
"""

from __future__ import annotations

from collections.abc import Iterator

from nginxgen.lint.context import Context, Rule
from nginxgen.lint.findings import Finding, Severity
from nginxgen.lint.rules._files import certificate_files, issuer_of

RULE = Rule(
    code="NGX722",
    name="certificate-chain-incomplete",
    severity=Severity.WARNING,
    fix="use the full chain file (Let's Encrypt: fullchain.pem), leaf first then intermediates",
)


def check(ctx: Context) -> Iterator[Finding]:
    for cert in certificate_files(ctx):
        leaf = cert.chain[0]
        if len(cert.chain) != 1 or leaf.issuer == leaf.subject:
            continue
        path = cert.stmt.args[0]
        issuer = issuer_of(ctx, path, leaf)
        if issuer is not None and issuer.certificate.issuer == issuer.certificate.subject:
            continue  # issued by a root: nothing in between to send
        found = (
            f" ({issuer.certificate.subject_text} is in {issuer.file}: append it)" if issuer else ""
        )
        yield ctx.finding(
            RULE,
            cert.stmt,
            f"{path} holds only the leaf; clients without its intermediate certificate cannot "
            f"verify it{found}",
        )
