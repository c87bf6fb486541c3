"""A server that asks for client certificates sharing its address with other names, with HTTP/2
on: a browser that reuses a connection for another name gets 421 Misdirected Request.

nginx answers 421 when the connection was made for one server name (the SNI names a server)
and a request asks for another (the Host differs) whose server has `ssl_verify_client` other
than off: the certificate checked in the handshake belongs to the first name. HTTP/2 clients
reuse one connection for every name its server certificate covers on the same address
(RFC 9113 9.1.1), so on such an address some requests come back 421; browsers retry them on a
new connection (RFC 9110 15.5.20), other clients may not. The same holds for HTTP/1.1 clients
that send a Host other than their SNI, but those do not reuse connections across names by
themselves. A server that refuses every handshake (`ssl_reject_handshake on`, as the explicit
default server often does) shares no connection: it is not counted. What the model says for a
pair of names: conf/client_certs.py `request_outcome`; which servers share: `sharing`.

Fail (nginx 1.26.3):
    server { listen 443 ssl default_server; http2 on; server_name a.example; ... }
    server { listen 443 ssl; http2 on; server_name b.example; ...
             ssl_verify_client on; ssl_client_certificate /etc/nginx/client-ca.pem; }
Fix (the verifying name on an address of its own, or a certificate that covers only it):
    server { listen 443 ssl default_server; http2 on; server_name a.example; ... }
    server { listen 127.0.0.2:443 ssl; http2 on; server_name b.example; ...
             ssl_verify_client on; ssl_client_certificate /etc/nginx/client-ca.pem; }

Sources: nginx src/http/ngx_http_request.c ngx_http_set_virtual_server ("client attempted to
request the server name different from the one that was negotiated"), seen on nginx 1.22.1,
1.26.3 and 1.31.3 over HTTP/1.1; RFC 9113 section 9.1.1; RFC 9110 section 15.5.20.
"""

from __future__ import annotations

from collections.abc import Iterator

from nginxgen.base import rule_codes
from nginxgen.conf.client_certificates import sharing
from nginxgen.conf.per_name import NameModel
from nginxgen.lint.context import Context, Rule
from nginxgen.lint.findings import Finding, Severity
from nginxgen.lint.rules._client_certs import verifying

RULE = Rule(
    code=rule_codes.CLIENT_VERIFY_MISDIRECTED,  # the generator names it too
    name="client-verify-misdirected",
    severity=Severity.INFO,
    fix="give the verifying server an address (or a certificate) of its own",
    triggers=("ssl_verify_client",),
)


def check(ctx: Context) -> Iterator[Finding]:
    asking = {id(s.server): s for s in verifying(ctx) if s.asks}
    reported: set[int] = set()
    for socket, default, others in ctx.tls_sockets():
        servers = [default, *others]
        for server in servers:
            settings = asking.get(id(server))
            if settings is None or id(server) in reported or settings.verify.line is None:
                continue
            neighbours = sharing(ctx.config, socket, server)
            if not neighbours and len(server.names) < 2:
                continue
            alpn = NameModel(ctx, socket, None, server=server, default=default).alpn()
            if alpn.value != "h2":
                continue
            reported.add(id(server))
            names = " ".join(server.names) or "(no server_name)"
            other = " ".join(n for s in neighbours for n in s.names) or "its other names"
            yield ctx.finding(
                RULE,
                settings.verify.line,
                f"{names} asks for client certificates on {socket} with HTTP/2, beside {other}: "
                "a request for it on a connection made for another name is answered 421",
            )
