"""A pass to a TLS backend by host name without SNI.

`proxy_ssl_server_name` (and `grpc_`, `uwsgi_`) is off by default: nginx sends no server name
in its ClientHello, so a backend that serves several names (a CDN, a load balancer, a shared
host, another nginx with virtual servers) answers with its default certificate, or refuses the
handshake. Turning it on sends the name nginx verifies (`proxy_ssl_name`, by default the host
of the URL); nginx never sends an IP address literal (RFC 6066), so a pass to an address is not
reported. The same in stream{}: a server with `proxy_ssl on` sends no SNI without
`proxy_ssl_server_name on`, verified or not (`proxy_ssl_verify on` checks the name, it does not
send it).

Fail: location / { proxy_pass https://api.example.com; }
Fix:  location / { proxy_pass https://api.example.com; proxy_ssl_server_name on; }

The automatic fix is safe where the name is a host name written in the config (the URL's, or
`proxy_ssl_name`'s): it adds `proxy_ssl_server_name on;` to the location (or turns its own
`off` on; in stream{}, to the server); a backend that ignores SNI answers as before. Where the name is an upstream{} block's
(`proxy_pass https://backend;`), nginx would send that word: no automatic fix, the fix text asks
for `proxy_ssl_name` first (NGX803).

Sources: nginx.org ngx_http_proxy_module docs (proxy_ssl_server_name, default off;
proxy_ssl_name); ngx_http_upstream_ssl_name (no SNI for address literals); RFC 6066 section 3;
checked live on nginx 1.22.1, 1.26.3 and 1.31.3 by tests/conf/test_upstream_live.py (off: the
backend sees no SNI; on: it sees the name); ngx_stream_proxy_module docs (proxy_ssl_server_name,
default off), seen in stream{} on every build with stream TLS by tests/lint/test_stream_sni_live.py
(off, verification on: the backend's default server answers, with no SNI).
"""

from __future__ import annotations

from collections.abc import Iterator

from nginxgen.base.records import record
from nginxgen.conf.as_client import ClientTls
from nginxgen.conf.load import Stmt
from nginxgen.conf.stream import Stream
from nginxgen.lint.context import Context, Rule, server_label
from nginxgen.lint.findings import Applicability, Finding, Fix, Severity
from nginxgen.lint.rules import _fixes
from nginxgen.lint.rules._backends import decided, passes

RULE = Rule(
    code="NGX802",
    name="backend-no-sni",
    severity=Severity.WARNING,
    fix="proxy_ssl_server_name on;",
    autofix=(Applicability.SAFE, "adds proxy_ssl_server_name on; to the location that passes"),
    triggers=("proxy_pass", "grpc_pass", "uwsgi_pass"),
)


def check(ctx: Context) -> Iterator[Finding]:
    for backend in ctx.backends():
        found = _no_sni(ctx, backend, backend.location.stmt, backend.location.directives)
        if found is not None:
            message = f"{passes(backend)}: {found.message}"
            yield ctx.finding(RULE, backend.pass_line, message, fix=found.fix, edits=found.edits)
    stream = Stream(ctx)
    for server in stream.config.servers:
        client = stream.upstream_tls(server)
        if client is None:
            continue
        found = _no_sni(ctx, client, server.stmt, server.directives)
        if found is not None:
            pass_line = server.effective("proxy_pass") or server.effective("proxy_ssl")
            yield ctx.finding(
                RULE,
                pass_line[-1],
                f"{server_label(server)} proxy_ssl to {client.destination.url}: {found.message}",
                fix=found.fix,
                edits=found.edits,
            )


@record(frozen=True, eq=False)
class NoSni:
    """What a finding about a pass without SNI says, and its fix."""

    message: str
    fix: str
    edits: Fix | None


def _no_sni(
    ctx: Context, client: ClientTls, block: Stmt, own: dict[str, list[Stmt]]
) -> NoSni | None:
    """What a pass (an http{} location's, or a stream{} server's `proxy_ssl`) that sends no SNI
    is told, with its fix in `block` (whose own lines are `own`); None: SNI is sent, or the
    name is an address nginx never sends."""
    server_name = client.server_name()
    name = client.name()
    if server_name.value or name.hostname is False:
        return None
    directive = client.directive("server_name")
    line = server_name.line
    fix = f"{directive} on;"
    edits: Fix | None
    if name.value is None:
        edits = None  # a name known only per request: nothing to vouch for
    elif name.upstream is not None and name.line is None:
        # the upstream{} block's name would be sent: rarely a name the backend serves
        edits = None
        fix = f"{client.directive('name')} NAME-THE-BACKEND-SERVES; {fix}"
    elif any(s is line for s in own.get(directive, [])):
        assert line is not None  # the block's own off line: turned on where it stands
        edits = _fixes.set_args(ctx, line, ["on"])
    else:
        edits = _fixes.insert_into(ctx, block, f"{directive} on;")
    what = f"the name {name.value!r}" if name.value else "its name"
    return NoSni(
        f"no SNI is sent {decided(line, 'off')}; a backend that serves several names cannot "
        f"tell {what} and answers with its default certificate",
        fix,
        edits,
    )
