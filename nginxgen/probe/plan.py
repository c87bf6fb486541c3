"""Which names nginx answers from one TLS context (issue 47), so that what depends only on that
context is probed once for all of them.

nginx picks a server{} for the name a client sends (ngx_http_find_virtual_server) and switches
the connection to that server's SSL context; what it does not switch, the default server of the
address decides (knowledge: default_server_only). So two names get the same protocols, suites,
groups, resumption and 0-RTT when they select the same server{} on the same address by name, and
that address has the same default server: those are the context checks
(nginxgen/probe/checks: SHARED), probed for the first such name only. Every other check (ECH,
ALPN, the certificate, client certificates, HSTS, and the 0-RTT offer read from the same
handshake) is the per-name check, run for each name.

Sharing is only ever known from the --config model, never guessed: without it every name is
probed whole. Even with it, a name is probed apart where nginx can answer it otherwise than the
others of its server{}: no SNI (no server is selected by name), a name no server has (the
default server's by default, not by name), a certificate chosen by a variable
(`ssl_certificate $ssl_server_name...`). And a name whose own per-name check contradicts the
model (another certificate, or the chain read through another version than its context's name)
is probed whole after all (run.py).
"""

from __future__ import annotations

from nginxgen.base.records import record
from nginxgen.conf.config import Config, Server, server_for_name
from nginxgen.conf.effective import Effective
from nginxgen.conf.per_name import by_name, tls_socket_for_port
from nginxgen.knowledge.target import Target


@record(frozen=True)
class Shared:
    """A name whose context values are taken from another name's probe, and why."""

    name: str  # the name whose probe gives them (probed whole)
    why: str


def _label(server: Server) -> str:
    return f"{server.stmt.file}:{server.stmt.line}"


def _by_variable(server: Server) -> bool:
    """Whether the server's certificates are chosen per name (a variable in their paths)."""
    return any(
        "$" in arg
        for directive in ("ssl_certificate", "ssl_certificate_key")
        for stmt in server.effective(directive)
        for arg in stmt.args
    )


def shared_contexts(
    config: Config, target: Target, port: int, names: list[str | None], host: str | None = None
) -> dict[str, Shared]:
    """For each name of `names` that nginx answers from the same TLS context as an earlier one
    (module docstring), that earlier name and why; names probed whole are not in it. `host`:
    the address connected to (predict.models_for)."""
    socket = tls_socket_for_port(config, port, host)
    if socket is None:
        return {}
    servers = config.sockets[socket]
    default = config.default_server(socket)
    selects = by_name(Effective(config, target))
    first: dict[tuple[str, str], str] = {}
    out: dict[str, Shared] = {}
    for name in names:
        if name is None:
            continue
        server = server_for_name(servers, name) if selects else None
        if server is None or _by_variable(server):
            continue
        key = (_label(server), _label(default))
        if key not in first:
            first[key] = name
            continue
        out[name] = Shared(
            first[key],
            f"{name} selects the same server{{}} ({key[0]}) on {socket} as {first[key]}, and "
            f"the default server there is {key[1]} (--config)",
        )
    return out
