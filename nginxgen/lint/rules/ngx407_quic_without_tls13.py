"""A server with `listen ... quic` whose `ssl_protocols` leave out TLSv1.3. QUIC is TLS 1.3 only,
and nginx refuses the config: `"ssl_protocols" must enable TLSv1.3 for the "listen ... quic"
directive` (seen with nginx 1.26.3 here).

Fail: listen 443 quic; ssl_protocols TLSv1.2;
Fix (TLSv1.3 added, or no quic listen): listen 443 quic; ssl_protocols TLSv1.2 TLSv1.3;

Sources: nginx ngx_http_ssl_module.c (ngx_http_ssl_merge_srv_conf); RFC 9001 §4.2.
"""

from __future__ import annotations

from collections.abc import Iterator

from nginxgen.knowledge import nginx
from nginxgen.lint.context import Context, Rule
from nginxgen.lint.findings import Applicability, Finding, Severity
from nginxgen.lint.rules import _fixes
from nginxgen.lint.rules._grammar import refused_listens

RULE = Rule(
    code="NGX407",
    name="quic-without-tls13",
    severity=Severity.ERROR,
    fix="add TLSv1.3 to ssl_protocols (QUIC is TLS 1.3 only), or drop the quic listen",
    autofix=(Applicability.UNSAFE, "adds TLSv1.3 to the ssl_protocols line in effect"),
)


def check(ctx: Context) -> Iterator[Finding]:
    needed = nginx.listen_param_needs_protocol("quic")
    quic_servers = [
        (server, quic)
        for server in ctx.config.servers
        if (quic := next((listen for listen in server.listens if listen.quic), None)) is not None
    ]
    if not quic_servers:
        return  # the grammar's verdicts not asked: this family may run in a process of its own
    # a listen nginx refuses (`invalid parameter "quic"` before 1.25.0, NGX010) stops nginx -t
    # there: the protocols are never asked (trial 22: two errors for one line on 1.22.1)
    refused = refused_listens(ctx)
    for server, quic in quic_servers:
        if id(quic.stmt) in refused:
            continue
        if needed and needed not in ctx.protocols(server):
            protocols = server.effective("ssl_protocols")
            yield ctx.finding(
                RULE,
                quic.stmt,
                "listen ... quic without TLSv1.3 in ssl_protocols: nginx -t fails",
                edits=_fixes.set_args(ctx, protocols[-1], [*protocols[-1].args, needed])
                if protocols
                else None,
            )
