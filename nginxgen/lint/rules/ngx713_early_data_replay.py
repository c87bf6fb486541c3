"""`ssl_early_data on` where requests in early data reach a backend with no replay protection.

Requests sent in TLS 1.3 early data (0-RTT) can be replayed by anyone who recorded them, and
nginx turns OpenSSL's own anti-replay off. What protects the application is nginx refusing them
(`if ($ssl_early_data) { return 425; }`, RFC 8470), the backend being told
(`proxy_set_header Early-Data $ssl_early_data;` or the FastCGI, uwsgi, SCGI or gRPC twin, so it
can answer 425 to what must not run twice), a map of the variable used either way, or
`ssl_conf_command Options AntiReplay;` (OpenSSL). Copying `$ssl_early_data` into a response
header (`add_header`) or a log line protects nothing.

Judged where the requests go: for each server that takes 0-RTT (the default server of its
address decides that with OpenSSL, NGX104), each location that passes requests to a backend
(proxy_pass, fastcgi_pass, uwsgi_pass, scgi_pass, grpc_pass) needs one of these in effect
there: an `if` of the server or of that location, or the header lines its pass sends (those of
the innermost level that has any). Files and `return` answers run nothing twice and are not
reported. Nor is a server whose include could not be read (it may hold the protection).

Fail:
    ssl_early_data on;
    add_header X-Early-Data $ssl_early_data;
    location / { proxy_pass http://127.0.0.1:8080; }
Fix (the backend is told, and answers 425 where a replay would harm):
    ssl_early_data on;
    location / { proxy_pass http://127.0.0.1:8080; proxy_set_header Early-Data $ssl_early_data; }

Sources: ngx_http_ssl_module docs (ssl_early_data, $ssl_early_data); RFC 8470 (Early-Data,
425 Too Early); nginx ngx_ssl_create() (SSL_OP_NO_ANTI_REPLAY); seen on nginx 1.22.1, 1.26.3
and 1.31.3: a request sent twice in the early data of one session reaches the backend twice,
with `Early-Data: 1` only where proxy_set_header passes it (tests/lint/test_early_data_live.py).
"""

from __future__ import annotations

from collections.abc import Iterator

from nginxgen.base.records import record
from nginxgen.conf.client_certificates import refuses_handshakes
from nginxgen.conf.config import Location, Server
from nginxgen.conf.load import Stmt
from nginxgen.conf.per_name import NameModel
from nginxgen.conf.variables import (
    backend_pass,
    derived,
    mentions,
    passed_lines,
    refusing,
    unread_include,
)
from nginxgen.knowledge.upstream import request_passes
from nginxgen.lint.context import Context, Rule, server_label
from nginxgen.lint.findings import Applicability, Finding, Severity
from nginxgen.lint.rules import _fixes

RULE = Rule(
    code="NGX713",
    name="early-data-replay",
    severity=Severity.WARNING,
    fix="proxy_set_header Early-Data $ssl_early_data; (or ssl_conf_command Options AntiReplay;)",
    autofix=(Applicability.UNSAFE, "turns ssl_early_data off"),
    triggers=("ssl_early_data",),
)
VARIABLE = "ssl_early_data"


@record(frozen=True, eq=False)
class Exposed:
    """A location that hands requests in early data to a backend unprotected."""

    server: Server
    location: Location
    pass_line: Stmt


def check(ctx: Context) -> Iterator[Finding]:
    if not ctx.has("early_data"):
        return  # the library ignores ssl_early_data (NGX503): no request comes in early data
    reported: set[int] = set()
    for socket, default, others in ctx.tls_sockets():
        for server in (default, *others):
            if refuses_handshakes(server):
                continue
            answer = NameModel(ctx, socket, None, server=server, default=default).early_data()
            line = answer.line
            if not answer.value or line is None or id(line) in reported:
                continue
            found = exposed(ctx, server)
            if found is None:
                continue
            reported.add(id(line))
            pass_line = found.pass_line
            yield ctx.finding(
                RULE,
                line,
                f"0-RTT on without replay protection: requests in early data reach "
                f"{pass_line.directive} {pass_line.args[0]} (location "
                f"{' '.join(found.location.stmt.args)} at {pass_line.file}:{pass_line.line}, "
                f"{server_label(server)}) and can be replayed; nothing refuses them or hands "
                "$ssl_early_data to the backend",
                edits=_fixes.set_args(ctx, line, ["off"]),
                fix=handing_line(pass_line.directive),
            )


def handing_line(pass_directive: str) -> str:
    """The fix text for the backend this location passes to: its own module's line that hands
    $ssl_early_data on (a FastCGI backend takes a parameter, not a proxy header)."""
    lister = request_passes().get(pass_directive, "proxy_set_header")
    name = "Early-Data" if lister.endswith("_header") else "EARLY_DATA"
    return f"{lister} {name} $ssl_early_data; (or ssl_conf_command Options AntiReplay;)"


def exposed(ctx: Context, server: Server) -> Exposed | None:
    """The first location of `server` that passes requests in early data to a backend with
    nothing acting on $ssl_early_data; None where every one is protected, or not known."""
    config = ctx.config
    if server.own("return") or server.conf_option("AntiReplay") is not None:
        return None  # every request answered before a location; or OpenSSL refuses replays
    if unread_include(config, server) is not None:
        return None
    names = derived(config, server, VARIABLE)
    if refusing(server.stmt.block or [], names) is not None:
        return None
    for chain in server.all_locations():
        location = chain[-1]
        found = backend_pass(location)
        if found is None or refusing(location.stmt.block or [], names) is not None:
            continue
        if any(mentions(line.args[1:], names) for line in passed_lines(config, server, chain)):
            continue
        return Exposed(server, location, found)
    return None
