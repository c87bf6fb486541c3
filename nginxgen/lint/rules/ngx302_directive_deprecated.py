"""A deprecated directive or parameter: it still works on the target but warns, and a later
nginx refuses it (`ssl on` since 1.15.0, removed in 1.25.1; `listen ... http2` since 1.25.1).
And a directive nginx's source calls obsolete or deprecated in the target's release: nginx -t
warns `the "http2_push" directive is obsolete, ignored` (HTTP/2 push, since 1.25.1), `the
"http2_idle_timeout" directive is obsolete, use the "keepalive_timeout" directive instead` (the
HTTP/2 timeouts and limits, since 1.19.7), `the "proxy_downstream_buffer" directive is
deprecated, use the "proxy_buffer_size" directive instead` (stream), read per release from
nginx's source (scripts/build_directive_tables.py).

Fail (nginx 1.26.3): listen 443 ssl http2;
Fix:  listen 443 ssl; http2 on;

The fix is safe where it provably keeps behaviour in this tree: every listen of the server has
the parameter and no other server shares those addresses. Elsewhere it is unsafe: the parameter
turned HTTP/2 on for every server of the address:port, and `http2 on;` turns it on for every
listen of its server.

Sources: nginx CHANGES 1.15.0 and 1.25.1; ngx_http_v2_module docs.
"""

from __future__ import annotations

from collections.abc import Iterator

from nginxgen.conf.config import Server
from nginxgen.conf.load import Stmt
from nginxgen.knowledge import directives, nginx
from nginxgen.lint.context import Context, Rule
from nginxgen.lint.findings import Applicability, Finding, Fix, Severity
from nginxgen.lint.rules import _fixes
from nginxgen.lint.rules._directives import versioned
from nginxgen.lint.rules._grammar import instead

RULE = Rule(
    code="NGX302",
    name="directive-deprecated",
    severity=Severity.WARNING,
    fix="use the replacement before an upgrade refuses it",
    autofix=(
        Applicability.UNSAFE,
        "`listen ... http2` becomes the listen without it plus `http2 on;` in its server (safe "
        "when every listen of that server has the parameter and no other server shares its "
        "addresses; otherwise unsafe: the parameter turned HTTP/2 on for every server of the "
        "address:port, and `http2 on;` turns it on for every listen of the server); `ssl on;` "
        "becomes the ssl parameter on the server's listens (safe where every server of those "
        "addresses is TLS; otherwise unsafe: the parameter makes the whole address:port TLS)",
    ),
    target_bound=("nginx",),
)


def _server_of(ctx: Context, listen: Stmt) -> Server | None:
    return next((s for s in ctx.config.servers if any(ls.stmt is listen for ls in s.listens)), None)


def _http2_alone(ctx: Context, server: Server) -> bool:
    """Whether moving HTTP/2 from the listens into the server keeps behaviour in this tree:
    every listen of the server has the parameter (`http2 on;` covers them all) and no other
    server shares their addresses (the parameter turned HTTP/2 on for those servers too)."""
    on = any(s.args[0].lower() == "on" for s in server.own("http2") if s.args)  # covers all
    return all(
        ("http2" in listen.stmt.args[1:] or on)
        and ctx.config.sockets.get(listen.socket) == [server]
        for listen in server.listens
        if not listen.quic  # QUIC speaks HTTP/3: `http2 on;` leaves it as it is (trial 15)
    )


def _http2_on(ctx: Context, listen: Stmt) -> Fix | None:
    """`listen ... http2` -> the listen without it, and `http2 on;` in its server."""
    server = _server_of(ctx, listen)
    if server is None:
        return None
    changed = _fixes.set_args(ctx, listen, [a for a in listen.args if a != "http2"])
    if server.own("http2"):
        return changed
    # beside the server's listens, where a reader looks for what the address speaks
    listens = server.own("listen")
    after = listens[-1] if listens else None
    return changed + _fixes.insert_into(ctx, server.stmt, "http2 on;", after=after)


def check(ctx: Context) -> Iterator[Finding]:
    yield from _warned(ctx)
    yield from _versioned(ctx)


def _warned(ctx: Context) -> Iterator[Finding]:
    """Directives nginx's source marks obsolete or deprecated in the target's release (read
    from it: nginx_directives.json), in the words `nginx -t` warns with; `ssl` has its own
    finding with a fix (below)."""
    known = nginx.known_names("directive")
    for name in ctx.directive_names() - known:
        said = directives.warned_of(ctx.target, name)
        if said is None:
            continue
        for stmt in ctx.named(name):
            ignored = said.endswith("ignored")
            yield ctx.finding(
                RULE,
                stmt,
                f"{said} (nginx {ctx.target.nginx}: nginx -t warns)",
                "remove the line: nginx does nothing with it"
                if ignored
                else "use the directive nginx names instead",
            )


def _versioned(ctx: Context) -> Iterator[Finding]:
    http2_directive = nginx.directive_status(ctx.target, "http2")
    for stmt, what, status in versioned(ctx):
        if status.available and status.deprecated:
            fixable = (
                stmt.directive == "listen"
                and "http2" in stmt.args[1:]
                and http2_directive is not None
                and http2_directive.available
            )
            if stmt.directive == "ssl":
                autofix, edits = _fixes.ssl_to_listens(ctx, stmt)
            else:
                server = _server_of(ctx, stmt) if fixable else None
                alone = server is not None and _http2_alone(ctx, server)
                autofix = Applicability.SAFE if alone else Applicability.UNSAFE
                edits = _http2_on(ctx, stmt) if fixable else None
            yield ctx.finding(
                RULE,
                stmt,
                f"{what} is deprecated on nginx {ctx.target.nginx}",
                instead(ctx, stmt, status.replacement),
                autofix=autofix,
                edits=edits,
            )
