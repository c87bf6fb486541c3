"""The key of an `ssl_certificate_key` line does not belong to the first certificate of its
`ssl_certificate` file. nginx takes the first certificate in the file as the server's and the
rest as its chain, then checks the key against it: `nginx -t` fails with "key values mismatch".
When the key belongs to a later certificate in the file, the chain is written in the wrong
order (the leaf must come first).

Read only where the files are readable; an encrypted key is not checked.

Sources: nginx ngx_ssl_certificate() (SSL_CTX_use_certificate, then the chain, then
SSL_CTX_use_PrivateKey); nginx docs "configuring HTTPS servers", chains.
"""

from __future__ import annotations

from collections.abc import Iterator

from nginxgen.lint.context import Context, Rule
from nginxgen.lint.findings import Finding, Severity
from nginxgen.lint.rules._files import certificate_files

RULE = Rule(
    code="NGX721",
    name="certificate-key-mismatch",
    severity=Severity.ERROR,
    fix="put the leaf certificate first in the file, then its intermediates; pair it with its key",
)


def check(ctx: Context) -> Iterator[Finding]:
    for cert in certificate_files(ctx):
        if cert.key_match is None or cert.key_match == 0 or cert.key_stmt is None:
            continue
        if cert.key_match > 0:
            message = (
                f"{cert.key_stmt.args[0]} is the key of certificate {cert.key_match + 1} in "
                f"{cert.stmt.args[0]}, not of the first: the leaf is not first, nginx -t fails "
                "(key values mismatch)"
            )
        else:
            message = (
                f"{cert.key_stmt.args[0]} belongs to no certificate in {cert.stmt.args[0]}: "
                "nginx -t fails (key values mismatch)"
            )
        yield ctx.finding(RULE, cert.key_stmt, message)
