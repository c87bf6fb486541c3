"""A certificate that has expired, or expires within 14 days. nginx serves an expired
certificate without a word; every client refuses it. Fourteen days leaves time for a renewal
that failed (ACME clients renew at 30 days left).

Sources: RFC 5280 §4.1.2.5; Let's Encrypt renewal guidance (renew with 30 days left).
"""

from __future__ import annotations

from collections.abc import Iterator

from nginxgen.lint.context import Context, Rule
from nginxgen.lint.findings import Finding, Severity
from nginxgen.lint.rules._files import certificate_files

RULE = Rule(
    code="NGX725",
    name="certificate-expiry",
    severity=Severity.WARNING,
    fix="renew the certificate (and check why automatic renewal did not)",
    otherwise=((Severity.ERROR, "the certificate has expired"),),
)
WARN_DAYS = 14


def check(ctx: Context) -> Iterator[Finding]:
    certificates = list(certificate_files(ctx))
    if not certificates:
        return
    import datetime  # only once a certificate was read: kept off the start-up path

    now = datetime.datetime.now(datetime.UTC)
    for cert in certificates:
        not_after = cert.chain[0].not_after
        left = not_after - now
        day = not_after.date().isoformat()
        if left <= datetime.timedelta(0):
            yield ctx.finding(
                RULE, cert.stmt, f"{cert.stmt.args[0]} expired on {day}", severity=Severity.ERROR
            )
        elif left < datetime.timedelta(days=WARN_DAYS):
            yield ctx.finding(
                RULE, cert.stmt, f"{cert.stmt.args[0]} expires on {day} ({left.days} days left)"
            )
