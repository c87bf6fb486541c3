"""Clients get post-quantum key exchange, the connection to the backend does not.

Where the server offers an ML-KEM group to its clients (its `ssl_ecdh_curve`, its
`ssl_conf_command Groups`, or the library's default, as OpenSSL 3.5's), the traffic is only as
safe from harvest-now-decrypt-later as its weakest leg: a `proxy_ssl_conf_command Groups` line
(and `grpc_`, `uwsgi_`) without one leaves the leg to the backend classical. nginx has no
`proxy_ssl_ecdh_curve`: `*_ssl_conf_command Groups` is the only way to choose the groups nginx
offers a backend, so the rule needs a library with SSL_CONF_cmd (OpenSSL, not BoringSSL nor
AWS-LC) that has X25519MLKEM768 (OpenSSL >= 3.5). Without a Groups line OpenSSL 3.5 offers
X25519MLKEM768 by default, and nothing is reported.

Fail:
    ssl_ecdh_curve X25519MLKEM768:X25519;
    location / { proxy_pass https://api.example.com;
                 proxy_ssl_conf_command Groups X25519:prime256v1; }
Fix:
    ssl_ecdh_curve X25519MLKEM768:X25519;
    location / { proxy_pass https://api.example.com;
                 proxy_ssl_conf_command Groups X25519MLKEM768:X25519:prime256v1; }

Sources: nginx.org ngx_http_proxy_module docs (proxy_ssl_conf_command); nginx/nginx#423 (no
proxy_ssl_ecdh_curve); OpenSSL 3.5 SSL_CONF_cmd and CHANGES 3.5.0 (X25519MLKEM768 in the
default groups).
"""

from __future__ import annotations

from collections.abc import Iterator

from nginxgen.conf.config import Server
from nginxgen.conf.groups import parse_groups
from nginxgen.knowledge import tls_groups
from nginxgen.lint.context import Context, Rule
from nginxgen.lint.findings import Finding, Severity
from nginxgen.lint.rules._backends import passes

RULE = Rule(
    code="NGX806",
    name="backend-not-post-quantum",
    severity=Severity.INFO,
    fix="proxy_ssl_conf_command Groups X25519MLKEM768:X25519:prime256v1;",
    triggers=("proxy_pass", "grpc_pass", "uwsgi_pass"),
)


def _offered_to_clients(ctx: Context, server: Server) -> frozenset[str] | None:
    """The ids of the groups a server offers its clients: its Groups command, else its
    ssl_ecdh_curve (auto: the library's default), else the library's default."""
    commands = [*server.conf_command("Groups"), *server.conf_command("Curves")]
    curve = server.value("ssl_ecdh_curve")
    text = commands[-1].args[1] if commands else (curve[0] if curve else "auto")
    if text == "auto":
        return tls_groups.default_groups(ctx.target.library)
    return frozenset(g.id for e in parse_groups(text) if (g := tls_groups.find_group(e.name)))


def _pq(ids: frozenset[str]) -> bool:
    return any((g := tls_groups.find_group(i)) is not None and g.pq for i in ids)


def check(ctx: Context) -> Iterator[Finding]:
    if not (ctx.has("ssl_conf_command") and ctx.has("mlkem_hybrid")):
        return
    seen: set[int] = set()
    for backend in ctx.backends():
        offered, line = backend.groups()
        if line is None or offered is None or _pq(offered) or id(line) in seen:
            continue
        clients = _offered_to_clients(ctx, backend.server)
        if not (backend.server.tls and clients and _pq(clients)):
            continue
        seen.add(id(line))
        yield ctx.finding(
            RULE,
            line,
            f"no post-quantum group towards the backend ({passes(backend)}), while the server "
            "offers one to its clients",
            fix=f"{line.directive} {line.args[0]} X25519MLKEM768:{line.args[1]};",
        )
