"""Backend verification on, against an upstream{} block's name the backend's certificate does
not cover.

Without `proxy_ssl_name`, nginx verifies the backend's certificate against the host of the
pass's URL, `$proxy_host`: with `proxy_pass https://backend;` and `upstream backend {...}` that
is the word "backend", whatever names the block's `server` lines give. A certificate rarely
covers such a name, so turning `proxy_ssl_verify on` makes every request a 502 ("upstream SSL
certificate does not match"). Reported where the block's name is a single label (no public CA
issues for one) and none of its servers' host names; a dotted name
(`upstream api.example.com {...}`) may be the certificate's and is not reported.

Fail:
    upstream backend { server api.example.com:443; }
    server { listen 443 ssl; server_name a.example; ...
        location / { proxy_pass https://backend; proxy_ssl_verify on;
                     proxy_ssl_trusted_certificate /etc/ssl/certs/ca-certificates.crt; } }
Fix:
    upstream backend { server api.example.com:443; }
    server { listen 443 ssl; server_name a.example; ...
        location / { proxy_pass https://backend; proxy_ssl_verify on;
                     proxy_ssl_trusted_certificate /etc/ssl/certs/ca-certificates.crt;
                     proxy_ssl_name api.example.com; proxy_ssl_server_name on; } }

No automatic fix: which name the backend's certificate covers is not in the config.

Sources: nginx.org ngx_http_proxy_module docs (proxy_ssl_name, default $proxy_host);
ngx_http_upstream_init_request (`u->ssl_name = uscf->host`, the block's name);
checked live on nginx 1.22.1, 1.26.3 and 1.31.3 by tests/conf/test_upstream_live.py (a block named
"backend": 502 with a certificate for the server's name, 200 with proxy_ssl_name set to it).
"""

from __future__ import annotations

from collections.abc import Iterator

from nginxgen.conf.upstream import is_hostname, strip_port
from nginxgen.lint.context import Context, Rule
from nginxgen.lint.findings import Finding, Severity
from nginxgen.lint.rules._backends import passes, where

RULE = Rule(
    code="NGX803",
    name="backend-name-is-upstream-block",
    severity=Severity.WARNING,
    fix="proxy_ssl_name NAME-ON-THE-BACKEND-CERTIFICATE;",
    triggers=("proxy_pass", "grpc_pass", "uwsgi_pass"),
)


def check(ctx: Context) -> Iterator[Finding]:
    for backend in ctx.backends():
        name = backend.name()
        block = name.upstream
        if block is None or name.line is not None or name.value is None:
            continue
        if not backend.verify().value:
            continue
        hosts = sorted(
            {
                strip_port(s.args[0]).lower()
                for s in block.block or []
                if s.directive == "server" and s.args
            }
        )
        # a name with a dot may well be the certificate's (upstream api.example.com {...});
        # a single label never is a public one
        if "." in name.value or name.value.lower() in hosts:
            continue
        directive = backend.directive("name")
        named = [h for h in hosts if is_hostname(h)]
        suggestion = named[0] if len(named) == 1 else "NAME-ON-THE-BACKEND-CERTIFICATE"
        yield ctx.finding(
            RULE,
            backend.pass_line,
            f"{passes(backend)}: the backend's certificate is verified against "
            f"{name.value!r}, the name of the upstream block at {where(block)}, not a name of "
            f"its servers ({', '.join(hosts) or 'none'}); without {directive} every request "
            "fails unless the certificate covers that word",
            fix=f"{directive} {suggestion};",
        )
