"""nginx speaks TLS to a backend without checking its certificate.

`proxy_ssl_verify` is off by default: the connection to the backend is encrypted, but anyone
on the path to it can stand in for it with any certificate, and nginx passes the client's
data on. Turning verification on needs the CA that issued the backend's certificate
(`proxy_ssl_trusted_certificate`: nginx -t refuses verification without one) and the name the
certificate is for (`proxy_ssl_name`, else the host of proxy_pass). This rule reads stream{}
servers with `proxy_ssl on`; the knowledge it rests on (client_tls_defaults) is the same for
http's proxy_ssl_*.

Fail:
    stream { server { listen 5432; proxy_pass db.internal:5432; proxy_ssl on; } }
Fix:
    stream { server { listen 5432; proxy_pass db.internal:5432; proxy_ssl on;
        proxy_ssl_verify on; proxy_ssl_trusted_certificate /etc/ssl/internal-ca.pem; } }

Sources: https://nginx.org/en/docs/stream/ngx_stream_proxy_module.html#proxy_ssl_verify
(default off); nginx src/stream/ngx_stream_proxy_module.c (ngx_stream_proxy_merge_srv_conf:
ssl_verify 0); reproduced on nginx 1.31.3 in tests/test_stream_live.py (a backend whose
certificate no trusted CA issued is connected to without verification, refused with it).
"""

from __future__ import annotations

from collections.abc import Iterator

from nginxgen.conf.stream import Stream
from nginxgen.lint.context import Context, Rule, server_label
from nginxgen.lint.findings import Finding

RULE = Rule(
    code="NGX801",
    name="backend-not-verified",
    severity="warning",
    fix="proxy_ssl_verify on; with proxy_ssl_trusted_certificate (the backend's CA) and, where "
    "the certificate's name is not proxy_pass's host, proxy_ssl_name",
)


def check(ctx: Context) -> Iterator[Finding]:
    stream = Stream(ctx)
    for server in stream.config.servers:
        client = stream.upstream_tls(server)
        if client is None or not client.unverified:
            continue
        line = client.verify.line or server.effective("proxy_ssl")[-1]
        yield ctx.finding(
            RULE,
            line,
            f"{server_label(server)} speaks TLS to its backend without checking its certificate "
            "(proxy_ssl_verify is off): anyone on the path can stand in for the backend",
        )
