"""nginx speaks TLS to a backend without checking its certificate.

`proxy_ssl_verify` (and `grpc_ssl_verify`, `uwsgi_ssl_verify`, and stream's `proxy_ssl_verify`
under `proxy_ssl on`) is off by default: nginx takes any certificate the backend shows, expired,
self-signed or for another name, so anyone on the path between nginx and the backend can stand
in for it and read or change what passes. The TLS then protects against passive eavesdropping
only.

Fail: location / { proxy_pass https://api.example.com; }
Fix:  location / { proxy_pass https://api.example.com; proxy_ssl_verify on;
                   proxy_ssl_trusted_certificate /etc/ssl/certs/ca-certificates.crt;
                   proxy_ssl_server_name on; }

No automatic fix: verification needs the CA that issued the backend's certificate (the system
bundle for a public one, the organisation's own CA for an internal one), which only the admin
knows, and `proxy_ssl_verify on` without `proxy_ssl_trusted_certificate` is refused by
`nginx -t` (NGX010). The fix text names both lines.

Sources: nginx.org ngx_http_proxy_module and ngx_stream_proxy_module docs (proxy_ssl_verify,
default off; proxy_ssl_trusted_certificate); ngx_http_upstream_ssl_handshake_handler and
ngx_stream_proxy_merge_srv_conf (the verify result is only checked with ssl_verify on); checked
live on nginx 1.22.1, 1.26.3 and 1.31.3 by tests/conf/test_upstream_live.py (verify off: 200 from a
self-signed backend for another name) and on 1.31.3 by tests/conf/test_stream_live.py (stream).
"""

from __future__ import annotations

from collections.abc import Iterator

from nginxgen.conf.stream import Stream
from nginxgen.lint.context import Context, Rule, server_label
from nginxgen.lint.findings import Finding, Severity
from nginxgen.lint.rules._backends import decided, passes

RULE = Rule(
    code="NGX801",
    name="backend-not-verified",
    severity=Severity.WARNING,
    fix="proxy_ssl_verify on; proxy_ssl_trusted_certificate /path/to/backend-ca.pem;",
    triggers=("proxy_pass", "grpc_pass", "uwsgi_pass"),
)
CHOOSE = "(the CA that issued the backend's certificate: choose it, nginxgen cannot)"


def check(ctx: Context) -> Iterator[Finding]:
    yield from _http(ctx)
    yield from _stream(ctx)


def _http(ctx: Context) -> Iterator[Finding]:
    for backend in ctx.backends():
        verify = backend.verify()
        if verify.value:
            continue
        yield ctx.finding(
            RULE,
            backend.pass_line,
            f"{passes(backend)}: the backend's certificate is not verified "
            f"{decided(verify.line, 'off')}; anyone on the path can stand in for it",
            fix=(
                f"{backend.directive('verify')} on; {backend.directive('trusted_certificate')} "
                f"/path/to/backend-ca.pem; {CHOOSE}"
            ),
        )


def _stream(ctx: Context) -> Iterator[Finding]:
    stream = Stream(ctx)
    for server in stream.config.servers:
        client = stream.upstream_tls(server)
        if client is None or not client.unverified:
            continue
        line = client.verify().line or server.effective("proxy_ssl")[-1]
        yield ctx.finding(
            RULE,
            line,
            f"{server_label(server)} speaks TLS to its backend without checking its certificate "
            "(proxy_ssl_verify is off): anyone on the path can stand in for the backend",
            fix=f"proxy_ssl_verify on; proxy_ssl_trusted_certificate /path/to/backend-ca.pem; {CHOOSE}",
        )
