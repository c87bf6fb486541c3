"""`ssl_preread on` in a stream server that is not the default server of its address:port,
where the default server does not have it.

The preread phase, which reads the ClientHello's server name and picks the stream virtual
server by it, runs with the configuration of the address's default server: where ssl_preread
is off there, no name is ever read, every connection stays with the default server, and the
server that asked for preread is never reached by its name. nginx -t says nothing.

Fail (nginx >= 1.25.5):
    stream {
        server { listen 443 default_server; proxy_pass default_backend; }
        server { listen 443; server_name b.example; ssl_preread on; proxy_pass b_backend; }
    }
Fix (preread where it runs: the default server, or stream{} level):
    stream {
        ssl_preread on;
        server { listen 443 default_server; proxy_pass default_backend; }
        server { listen 443; server_name b.example; proxy_pass b_backend; }
    }

Sources: nginx src/stream/ngx_stream_ssl_preread_module.c (ngx_stream_ssl_preread_handler
declines where ssl_preread is off in the session's configuration, the default server's until a
name selects another); nginx CHANGES 1.25.5 (stream virtual servers); reproduced on nginx 1.31.3
in tests/conf/test_stream_live.py::test_preread_routes.
"""

from __future__ import annotations

from collections.abc import Iterator

from nginxgen.conf.stream import Stream
from nginxgen.lint.context import Context, Rule
from nginxgen.lint.findings import Finding, Severity

RULE = Rule(
    code="NGX109",
    name="preread-outside-default-server",
    severity=Severity.WARNING,
    fix="set ssl_preread on at stream{} level or in the default server of the address",
    triggers=("ssl_preread",),
)


def check(ctx: Context) -> Iterator[Finding]:
    stream = Stream(ctx)
    for socket in stream.config.sockets:
        if stream.config.tls_socket(socket):
            continue
        for ignored in stream.route(socket, None).ignored:
            yield ctx.finding(
                RULE,
                ignored.line,
                f"ssl_preread here never runs: {ignored.why}, so no name reaches this stream "
                "server",
            )
