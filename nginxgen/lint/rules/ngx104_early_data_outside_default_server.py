"""`ssl_early_data` in a non-default server differing from the default server's.

With OpenSSL, nginx reads the default server's max_early_data when the connection is created and
OpenSSL does not copy it on the SNI switch: 0-RTT is on or off for the whole address:port as the
default server says (still so on nginx 1.31.4). BoringSSL copies it per vhost.

Fail:
    server { listen 443 ssl default_server; ... }
    server { listen 443 ssl; server_name b.example; ssl_early_data on; ... }
Fix (ssl_early_data at http{} level, or in the default server):
    ssl_early_data on;
    server { listen 443 ssl default_server; ... }
    server { listen 443 ssl; server_name b.example; ... }

The unsafe fix moves the line into the default server, where it turns 0-RTT on for every
server of the address: not where one of them hands requests to a backend with no replay
protection (NGX713); the text then names that backend, to protect first.

Sources: nginx ngx_ssl_create_connection() (try_early_data from the default
server's context); OpenSSL SSL_set_SSL_CTX() leaves max_early_data alone.
"""

from __future__ import annotations

from collections.abc import Iterator

from nginxgen.conf.client_certificates import refuses_handshakes
from nginxgen.lint.context import Context, Rule, server_label
from nginxgen.lint.findings import Finding, Severity
from nginxgen.lint.rules._default_server import MOVE_TO_DEFAULT, Misplaced, finding, misplaced
from nginxgen.lint.rules.ngx713_early_data_replay import Exposed, exposed, handing_line

RULE = Rule(
    code="NGX104",
    name="early-data-outside-default-server",
    severity=Severity.WARNING,
    fix="set ssl_early_data at http{} level or in the default server",
    autofix=MOVE_TO_DEFAULT,
    triggers=("ssl_early_data",),
)


def check(ctx: Context) -> Iterator[Finding]:
    for m in misplaced(ctx, ("ssl_early_data",)):
        message = (
            f"ssl_early_data here is ignored: {server_label(m.default)} is the default server "
            f"of {m.on} and decides 0-RTT there ({m.default_value})"
        )
        replayed = _replayed(ctx, m)
        if replayed is None:
            yield finding(ctx, RULE, m, message)
            continue
        # Moved into the default server, 0-RTT would reach every server of the address, this
        # one's backend unprotected: NGX713, whose fix turns it off again (trial 24: the unsafe
        # fixes never settled). No edit; the text says what to mend first.
        passing = replayed.pass_line
        fix = (
            f"{RULE.fix}, once {passing.directive} at {passing.file}:{passing.line} is protected "
            f"from replays (NGX713: {handing_line(passing.directive)}): 0-RTT in the default "
            "server reaches every server of the address"
        )
        yield ctx.finding(RULE, m.stmt, message, fix=fix)


def _replayed(ctx: Context, m: Misplaced) -> Exposed | None:
    """A backend that 0-RTT, moved into the default server, would hand replayable requests
    to: with OpenSSL the default server's ssl_early_data is every server's on its address."""
    if m.stmt.args[:1] != ["on"]:
        return None
    for socket in (m.socket, *m.also):
        for server in m.config.sockets.get(socket, []):
            found = None if refuses_handshakes(server) else exposed(ctx, server)
            if found is not None:
                return found
    return None
