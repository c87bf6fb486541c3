"""A group name the target's TLS library does not have, or spells differently.

nginx passes the list to SSL_CTX_set1_curves_list(); one unknown name and `nginx -t` fails
(`SSL_CTX_set1_curves_list(...) failed`). Common cases: X25519MLKEM768 below OpenSSL 3.5,
AWS-LC 1.35.1 or LibreSSL 4.3; X25519Kyber768Draft00 after BoringSSL and AWS-LC removed it;
`secp256r1` on BoringSSL, AWS-LC, LibreSSL and OpenSSL 1.1.1 (they say prime256v1 or P-256);
a name in a letter case the library does not list (p-256 or PRIME256V1 before OpenSSL 3.5,
which takes any case; x25519 on LibreSSL, whose group names are case-sensitive - OpenSSL 3.0,
BoringSSL and AWS-LC list x25519 beside X25519); `auto` in `ssl_conf_command Groups` or `Curves`
(nginx reads `auto` only in ssl_ecdh_curve: OpenSSL says "group 'auto' cannot be set"). A `?name`
is skipped where the library supports
`?` (OpenSSL >= 3.3).

Whether the library takes a name is first what a build of its release series did under nginx -t
(nginxgen/knowledge/tls_tables/, made by scripts/build_library_tables.py), then groups.toml. So
no error for what nginx starts with: OpenSSL 3.0 to 3.5 take secp256k1, secp224r1,
brainpoolP512r1 and the binary curves (sect571r1), the BoringSSL build takes
X25519Kyber768Draft00; NGX204 warns about those instead.

Fail (OpenSSL 3.0): ssl_ecdh_curve X25519MLKEM768:X25519;
Fix (or OpenSSL >= 3.5): ssl_ecdh_curve X25519:prime256v1;

Automatic fix: a spelling the library does not accept becomes the one it does (safe: the same
group); a draft name whose standard successor the target has becomes that successor
(X25519Kyber768Draft00 -> X25519MLKEM768, unsafe: another code point, so clients that only speak
the draft negotiate something else). Other fixes wait until this error is gone: a tuple built
around an unknown name would still fail `nginx -t`.

Sources: OpenSSL providers/common/capabilities.c and CHANGES 3.5.0; BoringSSL and AWS-LC
ssl/ssl_key_share.cc (kNamedGroups); LibreSSL t1_lib.c; nginx -t on the real builds
(knowledge/tls_tables; tests/lint/test_live_rules.py, tests/knowledge/test_library_tables.py).
"""

from __future__ import annotations

from collections.abc import Iterator

from nginxgen.knowledge import tls_groups
from nginxgen.knowledge.target import Library
from nginxgen.lint.context import Context, Rule
from nginxgen.lint.findings import Applicability, Finding, Severity
from nginxgen.lint.rules._groups import group_entries, renamed, successor, verdict

RULE = Rule(
    code="NGX201",
    name="group-unavailable",
    severity=Severity.ERROR,
    fix="use a group the library has (X25519, prime256v1 or secp384r1, where it has them) or upgrade the library",
    autofix=(
        Applicability.SAFE,
        "respells a group the library knows under another name; with --unsafe-fixes, a draft "
        "name becomes its standard successor where the target has it",
    ),
    triggers=("ssl_ecdh_curve", "ssl_conf_command"),
    target_bound=("library",),
)


def check(ctx: Context) -> Iterator[Finding]:
    library = ctx.target.library
    for stmt, entry in group_entries(ctx):
        answer = verdict(library, entry)
        group = tls_groups.find_group(entry.name)
        if stmt.directive == "ssl_conf_command" and entry.name.lower() == "auto":
            # nginx reads `auto` itself in ssl_ecdh_curve; SSL_CONF_cmd gets it as a name
            yield ctx.finding(
                RULE, stmt, f"{ctx.library()} has no group 'auto' (only ssl_ecdh_curve takes "
                "it): nginx -t fails", "list the groups, or use ssl_ecdh_curve auto",
            )  # fmt: skip
        elif answer == "unknown":
            yield ctx.finding(RULE, stmt, f"{tls_groups.unknown_group(entry.name)}: nginx -t fails")
        elif answer == "refused":
            yield ctx.finding(
                RULE,
                stmt,
                f"{ctx.library()} refuses the group {entry.name!r} (this build has no such "
                "curve): nginx -t fails",
            )
        elif answer == "unavailable" and group is not None:
            fix = f"use {group.replacement}" if group.replacement else _instead(library, group)
            name = successor(library, group)
            yield ctx.finding(
                RULE,
                stmt,
                f"{group.requirement(library)} ({ctx.target.describe()}): nginx -t fails",
                fix,
                autofix=Applicability.UNSAFE,  # another code point: clients that only speak the draft
                edits=renamed(ctx, stmt, entry, name) if name is not None else None,
            )
        elif answer == "spelling" and group is not None:
            spelled = group.spell(library)
            case = (
                " (group names are case-sensitive there)"
                if tls_groups.spelling_differs_in_case_only(group, entry.name, library)
                else ""
            )
            yield ctx.finding(
                RULE,
                stmt,
                f"{ctx.library()} does not accept the spelling {entry.name!r}{case}: "
                "nginx -t fails",
                f"write {spelled}",
                edits=renamed(ctx, stmt, entry, spelled),
            )


def _instead(library: Library, lacking: tls_groups.Group) -> str:
    """What to use instead: groups the library has (never the lacking one), else an upgrade."""
    instead = tls_groups.groups_instead(library, lacking)
    if not instead:
        return "upgrade the library"
    return f"use one of {', '.join(instead)} instead, or upgrade the library"
