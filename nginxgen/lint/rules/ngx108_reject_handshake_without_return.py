"""A default server that refuses TLS handshakes (`ssl_reject_handshake on`) but answers requests.

`ssl_reject_handshake` only acts on the handshake. With HTTP/2 a browser reuses a connection made
for `a.example` for `b.example` when both names share the address and certificate; nginx then
routes the request by its Host header, and a name no server lists lands in the default server,
which serves its default root (`html/index.html`). `return 421` (Misdirected Request) makes the
client open a connection of its own; `return 444` closes it.

Fail:
    server { listen 443 ssl default_server; http2 on; ssl_reject_handshake on; }
Fix:
    server { listen 443 ssl default_server; http2 on; ssl_reject_handshake on; return 421; }

Sources: RFC 9113 §9.1.1 (connection reuse) and RFC 9110 §15.5.20 (421 Misdirected Request);
ngx_http_ssl_module docs (ssl_reject_handshake); nginx docs server_names.html (how a request
finds its server).
"""

from __future__ import annotations

from collections.abc import Iterator

from nginxgen.lint.config import Server
from nginxgen.lint.context import Context, Rule
from nginxgen.lint.findings import Finding

RULE = Rule(
    code="NGX108",
    name="reject-handshake-without-return",
    severity="warning",
    fix="add return 421; (or return 444;) to the default server",
)


def _speaks_h2(server: Server, socket: str) -> bool:
    if any(lst.http2 for lst in server.listens if lst.socket == socket):
        return True
    switch = server.effective("http2")
    return bool(switch) and switch[-1].args[:1] == ["on"]


def check(ctx: Context) -> Iterator[Finding]:
    reported: set[int] = set()
    for socket, default, others in ctx.tls_sockets():
        reject = default.effective("ssl_reject_handshake")
        if not reject or reject[-1].args[:1] != ["on"] or default.index in reported:
            continue
        if default.own("return") or not any(_speaks_h2(s, socket) for s in (default, *others)):
            continue
        reported.add(default.index)
        yield ctx.finding(
            RULE,
            reject[-1],
            f"the default server of {socket} refuses handshakes but would answer a request sent "
            "over a reused HTTP/2 connection from its default root",
        )
