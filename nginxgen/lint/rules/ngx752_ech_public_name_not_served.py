"""Encrypted Client Hello keys whose public name the address does not serve with a certificate
that covers it. A client whose key is stale (an old DNS record) completes a handshake for the
public name and takes the retry configs only when the certificate verifies for that name: with
no server for it behind a default server that rejects unknown names the handshake is refused
(alert 112, no retry configs), and with a certificate for other names the client refuses them
(hostname mismatch). Either way such clients cannot connect until their DNS cache expires.

Failing (the rule reads the files, so this example does not run as the others do):
    ssl_ech_file ech.pem;   # public name public.example
    server { listen 443 ssl default_server; ssl_reject_handshake on; }
    server { listen 443 ssl; server_name a.example; ... }
Fixed (a server for the public name, its certificate covering it):
    server { listen 443 ssl; server_name public.example; ssl_certificate public.pem; ... }

Sources: RFC 9849 section 6.1.7 (authenticating for the public name); nginx 1.30.4 with
OpenSSL 4.0.3, scripts/ech_nginx_proof.py (reject-no-public, public-not-covered,
generated-layout; docs/live-verification.md).
"""

from __future__ import annotations

from collections.abc import Iterator

from nginxgen.base.pem import covers
from nginxgen.conf.per_name import NameModel
from nginxgen.lint.context import Context, Rule, server_label
from nginxgen.lint.findings import Finding, Severity
from nginxgen.lint.rules._ech import ech_sockets, key_file
from nginxgen.lint.rules._files import load_chain, read

RULE = Rule(
    code="NGX752",
    name="ech-public-name-not-served",
    severity=Severity.WARNING,
    fix="serve the public name on this address with a certificate that covers it",
    triggers=("ssl_ech_file",),
)


def check(ctx: Context) -> Iterator[Finding]:
    for found in ech_sockets(ctx):
        names: list[str] = []
        for path in found.files:
            keys = key_file(ctx, path)
            if keys is None or keys.keys is None:
                continue  # unreadable here, or NGX751's
            for config in keys.keys.config_list.configs:
                if config.public_name not in names:
                    names.append(config.public_name)
        for name in names:
            model = NameModel(found.block, found.socket, name)
            if model.refused().value:
                yield ctx.finding(
                    RULE,
                    found.line,
                    f"the public name {name} is refused on {found.socket} "
                    f"({server_label(model.server)} rejects the handshake): a client with a "
                    "stale key gets no retry configs",
                )
                continue
            chains = []
            for stmt in model.server.effective("ssl_certificate"):
                data = read(ctx, stmt.args[0]) if stmt.args else None
                chain = load_chain(data) if data else []
                if chain:
                    chains.append(chain[0])
            if chains and not any(covers(leaf.crypto(), name) for leaf in chains):
                yield ctx.finding(
                    RULE,
                    found.line,
                    f"the public name {name} is served on {found.socket} by "
                    f"{server_label(model.server)}, whose certificate does not cover it: a "
                    "client with a stale key refuses the retry configs (hostname mismatch)",
                )
