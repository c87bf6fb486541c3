"""`ssl_stapling on` without a `resolver`.

The OCSP responder's host is then resolved once at start-up only; at run time nginx logs
`no resolver defined to resolve ...` and stapling stops when the responder moves. (And with
Let's Encrypt certificates issued since 2025-05-07 there is no responder at all.)

Fix: resolver 127.0.0.53;  (or drop stapling)

Sources: nginx ngx_event_openssl_stapling.c; CHANGES 1.19.0; nginx-tls-facts §8.3, P30.
"""

from __future__ import annotations

from collections.abc import Iterator

from nginxgen.lint.context import Context, Rule
from nginxgen.lint.findings import Finding

RULE = Rule(
    code="NGX711",
    name="stapling-without-resolver",
    severity="warning",
    fix="add a resolver, or remove ssl_stapling",
)


def check(ctx: Context) -> Iterator[Finding]:
    for server, stapling in ctx.effective_on("ssl_stapling"):
        if not server.effective("resolver"):
            yield ctx.finding(
                RULE,
                stapling,
                "OCSP stapling without a resolver: the responder is looked up once at start-up",
            )
