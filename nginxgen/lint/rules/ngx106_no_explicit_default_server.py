"""Several servers on a TLS address:port and none marked `default_server`.

The first server nginx meets then becomes the default and silently supplies the groups, session
cache, ticket keys, early data (and before 1.29.2 the protocols) for every name on the socket;
reordering includes changes TLS behaviour. QUIC sockets count too: `listen 443 quic` is UDP port
443, an address of its own with its own default server.

The same in stream{} from nginx 1.25.5, where several stream servers share an address:port by
`server_name`: on a `listen ... ssl` address the first server decides the shared TLS settings
for every name; on a plain address where a server reads the ClientHello (`ssl_preread on`), it
decides whether the name is read at all (only the default server's `ssl_preread` runs, NGX109).

Fail:
    server { listen 443 ssl; server_name a.example; ... }
    server { listen 443 ssl; server_name b.example; ... }
Fix (`default_server` on one listen of the address:port, ideally a catch-all server):
    server { listen 443 ssl default_server; ssl_reject_handshake on; return 421; }
    server { listen 443 ssl; server_name a.example; ... }
    server { listen 443 ssl; server_name b.example; ... }

Sources: nginx docs server_names.html; nginx docs ngx_http_core_module and ngx_stream_core_module
(listen default_server, server_name; stream since 1.25.5, nginx CHANGES 1.25.5); checked with
nginx -t on nginx 1.28.3 and 1.31.3 (stream) by tests/lint/test_default_server_live.py.
"""

from __future__ import annotations

from collections.abc import Iterator

from nginxgen.conf.stream import Stream
from nginxgen.lint.context import Context, Rule, server_label
from nginxgen.lint.findings import Applicability, Finding, Severity
from nginxgen.lint.rules import _fixes

RULE = Rule(
    code="NGX106",
    name="no-explicit-default-server",
    severity=Severity.WARNING,
    fix="mark one server's listen with default_server (e.g. a catch-all with ssl_reject_handshake on)",
    autofix=(
        Applicability.SAFE,
        "adds default_server to the listen of the server that is already the default by order (nothing changes, but a reordered include can no longer change it)",
    ),
)


def check(ctx: Context) -> Iterator[Finding]:
    http = ((s, d, o, "the shared TLS settings") for s, d, o in ctx.tls_sockets())
    for socket, default, others, decides in (*http, *Stream(ctx).shared_sockets()):
        if not others:
            continue
        if any(lst.default for lst in default.listens if lst.socket == socket):
            continue
        listen = next(lst for lst in default.listens if lst.socket == socket)
        servers = "stream servers" if default.block == "stream" else "servers"
        yield ctx.finding(
            RULE,
            listen.stmt,
            f"{len(others) + 1} {servers} share {socket} and none is default_server: "
            f"{server_label(default)} becomes the default by order and decides {decides}",
            edits=_fixes.set_args(ctx, listen.stmt, [*listen.stmt.args, "default_server"]),
        )
