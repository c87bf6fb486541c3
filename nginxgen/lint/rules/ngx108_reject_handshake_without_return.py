"""A default server that refuses TLS handshakes (`ssl_reject_handshake on`) but answers requests.

`ssl_reject_handshake` only acts on the handshake. With HTTP/2 a browser reuses a connection made
for `a.example` for `b.example` when both names share the address and certificate; nginx then
routes the request by its Host header, and a name no server lists lands in the default server,
which serves its default root (`html/index.html`). `return 421` (Misdirected Request) makes the
client open a connection of its own; `return 444` closes it.

No finding where no request can reach the default root: the server has its own `return`, or a
`location /` and every location of it ends in a `return`; nor where the default server is alone
on its address:port (no handshake there succeeds, so no connection exists to reuse). Checked on
nginx 1.26.3: a Host no server lists, sent over another site's HTTP/2 connection, is answered
from the default server's root.

Fail:
    server { listen 443 ssl default_server; http2 on; ssl_reject_handshake on; }
    server { listen 443 ssl; server_name a.example; ... }
Fix:
    server { listen 443 ssl default_server; http2 on; ssl_reject_handshake on; return 421; }

Sources: RFC 9113 §9.1.1 (connection reuse) and RFC 9110 §15.5.20 (421 Misdirected Request);
ngx_http_ssl_module docs (ssl_reject_handshake); nginx docs server_names.html (how a request
finds its server).
"""

from __future__ import annotations

from collections.abc import Iterator

from nginxgen.conf.config import Location, Server
from nginxgen.conf.words import flag_on
from nginxgen.lint.context import Context, Rule
from nginxgen.lint.findings import Finding, Severity

RULE = Rule(
    code="NGX108",
    name="reject-handshake-without-return",
    severity=Severity.WARNING,
    fix="add return 421; (or return 444;) to the default server",
)


def _speaks_h2(server: Server, socket: str) -> bool:
    if any(lst.http2 for lst in server.listens if lst.socket == socket):
        return True
    switch = server.effective("http2")
    return bool(switch) and flag_on(switch[-1].args)


def _all_return(locations: list[Location]) -> bool:
    return all(loc.directives.get("return") and _all_return(loc.locations) for loc in locations)


def _answers_every_request(server: Server) -> bool:
    """Every request ends in a `return`: the server's own, or a `location /` (which every URI
    reaches when nothing else matches) with every location returning."""
    if server.own("return"):
        return True
    catch_all = any(
        loc.stmt.args in (["/"], ["^~", "/"]) for loc in server.locations if loc.stmt.args
    )
    return catch_all and _all_return(server.locations)


def check(ctx: Context) -> Iterator[Finding]:
    reported: set[int] = set()
    for socket, default, others in ctx.tls_sockets():
        reject = default.effective("ssl_reject_handshake")
        if not reject or not flag_on(reject[-1].args) or default.index in reported:
            continue
        if not others or _answers_every_request(default):
            continue  # alone: no connection to reuse; or no request reaches the default root
        if not any(_speaks_h2(s, socket) for s in (default, *others)):
            continue
        reported.add(default.index)
        yield ctx.finding(
            RULE,
            reject[-1],
            f"the default server of {socket} refuses handshakes but would answer a request sent "
            "over a reused HTTP/2 connection from its default root",
        )
