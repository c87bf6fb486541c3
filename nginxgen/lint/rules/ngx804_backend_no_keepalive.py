"""A pass to a TLS backend that opens a new connection for every request.

Each proxied request then pays a TCP and a TLS handshake to the backend (with session reuse, an
abbreviated one), which costs the backend CPU and every request a round trip or two: the
"TLS is not slow" lesson on the other side of nginx. nginx keeps backend connections only
through an upstream{} block (never for a URL's literal host), with connections to keep
(`keepalive N`; from nginx 1.29.7 every block keeps 32 by default), and for proxy_pass only where
the request lets the backend keep it: HTTP/1.1 without `Connection: close`, or HTTP/1.0 with
`Connection: keep-alive` (the defaults before 1.29.7 are HTTP/1.0 and close). gRPC
keeps its HTTP/2 connections whenever the block does; uwsgi never keeps one, and is not reported.
Before nginx 1.29.7 a balancing method's line below `keepalive` (least_conn, hash, ...) takes
its place, and the block keeps nothing (NGX006 says `load balancing method redefined`).

Fail: location / { proxy_pass https://api.example.com; }
Fix:
    upstream api { server api.example.com:443; keepalive 16; }
    server { listen 443 ssl; server_name a.example; ...
        location / { proxy_pass https://api; proxy_ssl_name api.example.com;
                     proxy_http_version 1.1; proxy_set_header Connection ""; } }

The message names only the lines missing on the target's release. No automatic fix: a new
upstream{} block changes the name nginx verifies and sends (`proxy_ssl_name` must follow), and
a location's own `proxy_set_header` line replaces every inherited one.

Sources: nginx.org ngx_http_upstream_module docs (keepalive: "For HTTP, the proxy_http_version
directive should be set to 1.1 and the Connection header field should be cleared"); nginx
CHANGES 1.29.7; ngx_http_upstream_keepalive_init_main_conf (implicit upstreams skipped).
"""

from __future__ import annotations

from collections.abc import Iterator

from nginxgen.conf.upstream import is_hostname
from nginxgen.lint.context import Context, Rule
from nginxgen.lint.findings import Finding, Severity
from nginxgen.lint.rules._backends import passes, where

RULE = Rule(
    code="NGX804",
    name="backend-no-keepalive",
    severity=Severity.INFO,
    fix='keepalive 16; (in the upstream block) proxy_http_version 1.1; proxy_set_header Connection "";',
    triggers=("proxy_pass", "grpc_pass", "uwsgi_pass"),
)


def check(ctx: Context) -> Iterator[Finding]:
    for backend in ctx.backends():
        keepalive = backend.keepalive()
        if keepalive.kept is not False or backend.module.keeps_connections == "never":
            continue
        host = backend.destination.host
        block: list[str] = []  # lines for the upstream{} block, then for the location
        location: list[str] = []
        if keepalive.block is None:
            block.append(f"a new upstream{{}} block for {host} with keepalive 16;")
            location.append(f"{backend.module.directive} to that block;")
            if host and is_hostname(host):  # the name verified and sent stays the host's
                location.append(f"{backend.directive('name')} {host};")
        elif keepalive.dropped_by is not None:  # a method after keepalive took its place
            method = keepalive.dropped_by.directive
            block.append(f"in the upstream block at {where(keepalive.block)}: {method} above "
                         "keepalive (below it, it drops keepalive);")  # fmt: skip
        elif keepalive.connections == 0:
            block.append(f"in the upstream block at {where(keepalive.block)}: keepalive 16;")
        version, connection = keepalive.http_version, keepalive.connection
        if version is not None and version.value != "1.1":
            location.append("proxy_http_version 1.1;")
        if connection is not None and connection.value == "close":
            location.append('proxy_set_header Connection "";')
        needed = [*block, *(["in the location:", *location] if location else [])]
        yield ctx.finding(
            RULE,
            backend.pass_line,
            f"{passes(backend)}: a new TCP and TLS handshake to the backend for every request",
            fix=" ".join(needed),
        )
