"""A pass to a TLS backend by host name without SNI.

`proxy_ssl_server_name` (and `grpc_`, `uwsgi_`) is off by default: nginx sends no server name
in its ClientHello, so a backend that serves several names (a CDN, a load balancer, a shared
host, another nginx with virtual servers) answers with its default certificate, or refuses the
handshake. Turning it on sends the name nginx verifies (`proxy_ssl_name`, by default the host
of the URL); nginx never sends an IP address literal (RFC 6066), so a pass to an address is not
reported.

Fail: location / { proxy_pass https://api.example.com; }
Fix:  location / { proxy_pass https://api.example.com; proxy_ssl_server_name on; }

The automatic fix is safe where the name is a host name written in the config (the URL's, or
`proxy_ssl_name`'s): it adds `proxy_ssl_server_name on;` to the location (or turns its own
`off` on); a backend that ignores SNI answers as before. Where the name is an upstream{} block's
(`proxy_pass https://backend;`), nginx would send that word: no automatic fix, the fix text asks
for `proxy_ssl_name` first (NGX803).

Sources: nginx.org ngx_http_proxy_module docs (proxy_ssl_server_name, default off;
proxy_ssl_name); ngx_http_upstream_ssl_name (no SNI for address literals); RFC 6066 section 3;
checked live on nginx 1.22.1, 1.26.3 and 1.31.3 by tests/conf/test_upstream_live.py (off: the
backend sees no SNI; on: it sees the name).
"""

from __future__ import annotations

from collections.abc import Iterator

from nginxgen.lint.context import Context, Rule
from nginxgen.lint.findings import Applicability, Finding, Severity
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
        server_name = backend.server_name()
        name = backend.name()
        if server_name.value or name.hostname is False:
            continue
        directive = backend.directive("server_name")
        line = server_name.line
        fix = f"{directive} on;"
        if name.value is None:
            edits = None  # a name known only per request: nothing to vouch for
        elif name.upstream is not None and name.line is None:
            # the upstream{} block's name would be sent: rarely a name the backend serves
            edits = None
            fix = f"{backend.directive('name')} NAME-THE-BACKEND-SERVES; {fix}"
        elif any(s is line for s in backend.location.directives.get(directive, [])):
            assert line is not None  # the location's own off line: turned on where it stands
            edits = _fixes.set_args(ctx, line, ["on"])
        else:
            edits = _fixes.insert_into(ctx, backend.location.stmt, f"{directive} on;")
        what = f"the name {name.value!r}" if name.value else "its name"
        yield ctx.finding(
            RULE,
            backend.pass_line,
            f"{passes(backend)}: no SNI is sent {decided(line, 'off')}; a backend "
            f"that serves several names cannot tell {what} and answers with its default "
            "certificate",
            fix=fix,
            edits=edits,
        )
