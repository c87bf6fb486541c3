"""A group nginx and the library accept, but that is deprecated or not recommended for TLS.

nginx -t passes and the server starts; the group is merely weak, obsolete or unused by clients:
- the curves RFC 8422 section 5.1.1 deprecates (code points 1-22: secp256k1, secp224r1, the
  binary curves sect163k1 to sect571r1, ...), which OpenSSL 3.0 to 3.5 still accept;
- the Brainpool curves, not Recommended in the IANA TLS Supported Groups registry and offered by
  no browser; BSI TR-02102-2 recommends them, so a config generated under the
  bsi-tr-02102-2 preset (any policy that lists them) carries an `ignore[NGX204]` comment saying so;
- the pre-standard Kyber draft names (X25519Kyber768Draft00), obsolete in the registry.
Where the library refuses the name, NGX201 reports the error instead.

Fail: ssl_ecdh_curve X25519:X448:secp384r1:secp256k1;
Fix:  ssl_ecdh_curve X25519:X448:secp384r1;

Automatic fix (unsafe): a draft name becomes its standard successor where the target has it
(X25519Kyber768Draft00 -> X25519MLKEM768), any other such group is dropped from the list (not
when it is the only one): clients that offer only that group, or only the draft, negotiate
something else or fail.

Sources: RFC 8422 section 5.1.1; the IANA TLS Supported Groups registry (Recommended column);
RFC 7027 and RFC 8734 (Brainpool); BSI TR-02102-2; accepted by nginx -t on the real builds
(knowledge/tls_tables; tests/knowledge/test_library_tables.py).
"""

from __future__ import annotations

from collections.abc import Iterator

from nginxgen.base import rule_codes
from nginxgen.knowledge import tls_groups
from nginxgen.lint.context import Context, Rule
from nginxgen.lint.findings import Applicability, Finding, Severity
from nginxgen.lint.rules._groups import group_entries, renamed, successor, verdict

RULE = Rule(
    code=rule_codes.GROUP_NOT_RECOMMENDED,  # the generator names it too
    name="group-not-recommended",
    severity=Severity.WARNING,
    fix="drop the group (X25519, prime256v1 and secp384r1 cover every client)",
    autofix=(
        Applicability.UNSAFE,
        "with --unsafe-fixes, drops the group from the list, or turns a draft name into its "
        "standard successor where the target has it",
    ),
    triggers=("ssl_ecdh_curve", "ssl_conf_command"),
)


def check(ctx: Context) -> Iterator[Finding]:
    library = ctx.target.library
    for stmt, entry in group_entries(ctx):
        group = tls_groups.find_group(entry.name)
        if (
            group is None
            or group.not_recommended is None
            or "-" in entry.prefixes  # removing it from DEFAULT: the opposite of using it
            or verdict(library, entry) != "accepted"
        ):
            continue
        reason = group.not_recommended
        by = (
            f"; {' and '.join(reason.recommended_by)} recommends it: if that is your "
            "policy, say so with a `# nginxgen: ignore[NGX204] ...` comment"
            if reason.recommended_by
            else ""
        )
        name = successor(library, group)  # None: the fix drops the entry
        yield ctx.finding(
            RULE,
            stmt,
            f"{entry.name} is accepted but {reason.why}{by}",
            f"use {name}" if name is not None else None,
            edits=renamed(ctx, stmt, entry, name),
        )
