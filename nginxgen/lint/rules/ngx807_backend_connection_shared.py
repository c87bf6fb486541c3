"""Locations that disagree on a backend's TLS share its kept connections.

nginx keeps idle connections per upstream{} block and hands the next request for the same
server one of them, whichever location the request is in: the cache compares the address only.
A kept connection carries the handshake that made it: the certificate verified or not, against
which CA and name, the SNI sent, the protocol. So where two locations pass to one block with
different `proxy_ssl_*` settings, a request to one may be served over a connection the other
made: a location with `proxy_ssl_verify on` over a connection whose certificate nobody checked,
or with the other's SNI (the backend's other virtual server). Reported once per block, naming
the settings the locations do not agree on; not reported where the block keeps connections per
location (`keepalive N local`, and nginx >= 1.29.7 without a keepalive line, whose default is
`keepalive 32 local`).

Fail:
    upstream api { server 10.0.0.1:443; keepalive 16; }
    server { listen 443 ssl; server_name a.example; ...
        location /public/ { proxy_pass https://api; }
        location /admin/ { proxy_pass https://api; proxy_ssl_verify on;
                           proxy_ssl_trusted_certificate /etc/ssl/internal-ca.pem;
                           proxy_ssl_name api.internal; } }
Fix:
    upstream api { server 10.0.0.1:443; keepalive 16; }
    server { listen 443 ssl; server_name a.example; ...
        proxy_ssl_verify on; proxy_ssl_trusted_certificate /etc/ssl/internal-ca.pem;
        proxy_ssl_name api.internal;
        location /public/ { proxy_pass https://api; }
        location /admin/ { proxy_pass https://api; } }

No automatic fix: which settings the locations should agree on (or a block per setting, or
`keepalive N local` on nginx >= 1.29.7) is the admin's choice.

Sources: ngx_http_upstream_keepalive_module.c ngx_http_upstream_get_keepalive_peer (the cache
compares sockaddr only) in nginx 1.28.0; nginx.org ngx_http_upstream_module docs (keepalive,
`local`); nginx CHANGES 1.29.7; seen live by scripts/fuzz.py backends on nginx 1.22.1, 1.26.3
and 1.31.3 (docs/fuzzing.md).
"""

from __future__ import annotations

from collections.abc import Iterator

from nginxgen.conf.backend_pools import shared_pools
from nginxgen.lint.context import Context, Rule
from nginxgen.lint.findings import Finding, Severity
from nginxgen.lint.rules._backends import where

RULE = Rule(
    code="NGX807",
    name="backend-connection-shared",
    severity=Severity.WARNING,
    fix="the same proxy_ssl_* settings for every location of the block (or a block each)",
    triggers=("proxy_pass", "grpc_pass", "uwsgi_pass"),
)


def check(ctx: Context) -> Iterator[Finding]:
    for pool in shared_pools(ctx.backends()):
        if not pool.differ:
            continue
        first = pool.backends[0]
        settings = ", ".join(first.directive(key) for key in pool.differ)
        locations = ", ".join(
            f"{' '.join(b.location.stmt.args)} ({where(b.pass_line)})" for b in pool.backends
        )
        yield ctx.finding(
            RULE,
            pool.block,
            f"upstream {pool.block.args[0]} keeps connections for every location that passes "
            f"to it, and they differ in {settings}: a request to one may be served over a "
            f"connection another made: {locations}",
        )
