"""Group-list syntax the target's library does not accept.

OpenSSL 3.5 added tuples (`/`), `*name` (key shares), `-name` and `DEFAULT`; `?name` arrived
in 3.3, and 3.3 accepts a group listed twice (3.0 refuses it, AWS-LC accepts it, BoringSSL
refuses it). No library takes an empty element (`X25519::prime256v1`, `X25519:`, a tuple's
trailing `/`); OpenSSL drops the spaces around an element (`"X25519: prime256v1"`), BoringSSL
and AWS-LC refuse them. Older OpenSSL, BoringSSL, AWS-LC and LibreSSL refuse the others, and nginx -t
fails. Where a build of the target's release series was measured (knowledge/tls_tables), its
answer decides.

Fail (OpenSSL 3.0): ssl_ecdh_curve X25519MLKEM768/X25519;
Fix (a plain colon list the library knows): ssl_ecdh_curve X25519:prime256v1;

Sources: OpenSSL CHANGES 3.3.0 and 3.5.0; SSL_CTX_set1_curves.pod; nginx -t on the builds
(scripts/build_library_tables.py);
reproduced on the real builds in tests/lint/test_live_rules.py (OpenSSL 3.0 refuses, 3.5 accepts).
"""

from __future__ import annotations

from collections.abc import Iterator

from nginxgen.knowledge import tls_groups
from nginxgen.lint.context import Context, Rule
from nginxgen.lint.findings import Finding, Severity
from nginxgen.lint.rules._groups import group_statements, parse_groups

RULE = Rule(
    code="NGX202",
    name="group-syntax-unsupported",
    severity=Severity.ERROR,
    fix="write a plain colon-separated list of group names",
    triggers=("ssl_ecdh_curve", "ssl_conf_command"),
)


def _features(text: str) -> list[str]:
    entries = parse_groups(text)
    found = []
    raw = [element for part in text.split("/") for element in part.split(":")]
    if any(not element.strip() for element in raw):
        found.append("empty")
    if any(element != element.strip() for element in raw):
        found.append("spaces")
    if "/" in text:
        found.append("tuple")
    if any("?" in e.prefixes for e in entries):
        found.append("question")
    if any("*" in e.prefixes for e in entries):
        found.append("star")
    if any("-" in e.prefixes for e in entries) or any(e.name.upper() == "DEFAULT" for e in entries):
        found.append("dash")
    seen: set[str] = set()
    for entry in entries:
        group = tls_groups.find_group(entry.name)
        key = group.id if group else entry.name.lower()
        if key in seen:
            found.append("duplicates")
            break
        seen.add(key)
    return found


def check(ctx: Context) -> Iterator[Finding]:
    library = ctx.target.library
    for stmt, text in group_statements(ctx):
        refused = [
            tls_groups.group_syntax_summary(feature)
            for feature in _features(text)
            if not tls_groups.group_syntax(library, feature)
        ]
        if refused:  # one finding a line: nginx -t stops there once
            said = "; nor ".join(refused)
            yield ctx.finding(RULE, stmt, f"{ctx.library()} does not accept {said}: nginx -t fails")
