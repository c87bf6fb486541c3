"""A post-quantum group listed with `:` only on OpenSSL >= 3.5: ML-KEM is offered, not enforced.

With `X25519MLKEM768:X25519`, a client that sends an X25519 key share (while supporting ML-KEM)
finishes with X25519: OpenSSL accepts any key share from the list rather than asking for a
better group. The OpenSSL 3.5 tuple `X25519MLKEM768/X25519` (or OpenSSL 3.5's own default,
`auto`) makes the server ask for ML-KEM with a HelloRetryRequest - one extra round trip for such
clients, none for browsers that already send an ML-KEM key share.

Fail: ssl_ecdh_curve X25519MLKEM768:X25519:prime256v1;
Fix:  ssl_ecdh_curve X25519MLKEM768/X25519:prime256v1;

BoringSSL and AWS-LC have no tuples: there the server's group order wins, asking for ML-KEM,
only with `ssl_prefer_server_ciphers on` in the default server of the address; with it off the
client's key share is taken (reproduced on nginx 1.26.3 with AWS-LC 5.12.0 and BoringSSL).

Sources: OpenSSL 3.5 SSL_CTX_set1_curves.pod; OpenSSL CHANGES 3.5.0 (group tuples);
reproduced on the real builds in tests/lint/test_live_rules.py
(nginx 1.26.3 with OpenSSL 3.5).
"""

from __future__ import annotations

from collections.abc import Iterator

from nginxgen.conf.config import Server
from nginxgen.conf.load import Stmt
from nginxgen.conf.words import flag_on
from nginxgen.knowledge import libraries, tls_groups
from nginxgen.lint.context import Context, Rule
from nginxgen.lint.findings import Applicability, Finding, Severity
from nginxgen.lint.rules import _fixes
from nginxgen.lint.rules._default_server import ignored_lines
from nginxgen.lint.rules._groups import group_statements, parse_groups

RULE = Rule(
    code="NGX203",
    name="pq-not-enforced",
    severity=Severity.INFO,
    fix="end the post-quantum groups with / (X25519MLKEM768/X25519:...), or use auto",
    autofix=(
        Applicability.UNSAFE,
        "rewrites the colon list as the tuple PQ/classical (X25519MLKEM768/X25519): clients that send a classical key share first pay one extra round trip",
    ),
)


def check(ctx: Context) -> Iterator[Finding]:
    library = ctx.target.library
    if libraries.has(library, "server_group_preference"):
        yield from _server_order(ctx)
    if not libraries.has(library, "group_tuples"):
        return
    for stmt, text in group_statements(ctx):
        if "/" in text:
            continue
        entries = parse_groups(text)
        pq = [e.name for e in entries if (g := tls_groups.find_group(e.name)) and g.pq]
        if pq and len(pq) < len(entries):
            if id(stmt) in ignored_lines(ctx, "ssl_ecdh_curve"):
                continue  # an ignored line (NGX101) enforces nothing, whatever it says (trial 24)
            tuple_text = f"{':'.join(pq)}/{':'.join(e.raw for e in entries if e.name not in pq)}"
            yield ctx.finding(
                RULE,
                stmt,
                f"{pq[0]} is offered but not enforced: a client that sends a classical key share "
                "first keeps it",
                f"write {':'.join(pq)}/{':'.join(e.raw for e in entries if e.name not in pq)} "
                "(one extra round trip for such clients)",
                edits=_fixes.set_args(ctx, stmt, [tuple_text])
                if stmt.directive == "ssl_ecdh_curve" and len(stmt.args) == 1
                else None,
            )


def _server_order(ctx: Context) -> Iterator[Finding]:
    """A post-quantum group first, but the client's order wins in the default server."""

    def unenforced(default: Server, stmt: Stmt) -> bool:
        first = _first_group(stmt)
        prefer = flag_on(default.value("ssl_prefer_server_ciphers"))
        return first is not None and first.pq and not prefer

    for _, _, stmt in ctx.default_lines("ssl_ecdh_curve", unenforced):
        first = _first_group(stmt)
        assert first is not None
        yield ctx.finding(
            RULE,
            stmt,
            f"{first.id} is offered but not enforced: with ssl_prefer_server_ciphers off, "
            f"{ctx.library()} takes the client's key share when it is in the list",
            "set ssl_prefer_server_ciphers on where the default server takes it (the server's "
            "group order then wins; it also makes the server's TLS 1.2 suite order win)",
        )


def _first_group(stmt: Stmt) -> tls_groups.Group | None:
    entries = parse_groups(stmt.args[0])
    return tls_groups.find_group(entries[0].name) if entries else None
