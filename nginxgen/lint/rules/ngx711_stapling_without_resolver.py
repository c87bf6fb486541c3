"""`ssl_stapling on` without a `resolver`.

The OCSP responder's host is then resolved once at start-up only; at run time nginx logs
`no resolver defined to resolve ...` and stapling stops when the responder moves. (And with
Let's Encrypt certificates issued since 2025-05-07 there is no responder at all.)

Not reported where nginx ignores ssl_stapling for every certificate of the server (a library
without OCSP stapling, NGX502; no issuer or no OCSP URL, NGX726): it looks up nothing. Nor
when nothing needs resolving: `ssl_stapling_file` is set (nginx staples that file
and queries no responder) or `ssl_stapling_responder` names an IP address.

Fail: ssl_stapling on;
Fix (or no stapling): ssl_stapling on; resolver 127.0.0.53;

Sources: nginx ngx_event_openssl_stapling.c; ngx_http_ssl_module docs (ssl_stapling_file,
ssl_stapling_responder); CHANGES 1.19.0.
"""

from __future__ import annotations

from collections.abc import Iterator

from nginxgen.conf.config import Server
from nginxgen.lint.context import Context, Rule
from nginxgen.lint.findings import Finding, Severity
from nginxgen.lint.rules._stapling import from_file, stapling_ignored

RULE = Rule(
    code="NGX711",
    name="stapling-without-resolver",
    severity=Severity.WARNING,
    fix="add a resolver, or remove ssl_stapling",
    triggers=("ssl_stapling",),
)


def _ip_literal(url: str) -> bool:
    import ipaddress  # only with ssl_stapling_responder: kept off the start-up path
    from urllib.parse import urlsplit

    try:
        host = urlsplit(url if "//" in url else f"http://{url}").hostname
        ipaddress.ip_address(host or "")
    except ValueError:
        return False
    return True


def _nothing_to_resolve(server: Server) -> bool:
    if from_file(server):
        return True
    responder = server.value("ssl_stapling_responder")
    return responder is not None and bool(responder) and _ip_literal(responder[0])


def check(ctx: Context) -> Iterator[Finding]:
    def unresolved(server: Server) -> bool:
        # not where nginx ignores ssl_stapling, with a warning NGX502 or NGX726 says: it looks
        # up no responder, at start-up or later (trial 19: "looked up once at start-up" was
        # false on BoringSSL, and a third finding for one ignored line elsewhere)
        return (
            not server.effective("resolver")
            and not _nothing_to_resolve(server)
            and not stapling_ignored(ctx, server)
        )

    # each server the line is in effect in, not its first only: an http{}-level line is moot
    # for a server whose stapling nginx ignores, not for the others
    for _, stapling in ctx.effective_on("ssl_stapling", unresolved):
        yield ctx.finding(
            RULE,
            stapling,
            "OCSP stapling without a resolver: the responder is looked up once at start-up",
        )
