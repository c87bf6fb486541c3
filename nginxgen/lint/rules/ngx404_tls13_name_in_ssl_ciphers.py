"""TLS 1.3 suite names in ssl_ciphers.

With OpenSSL, ssl_ciphers only sets TLS 1.2-and-older suites. A string made only of TLS 1.3
names makes nginx refuse the config (`SSL_CTX_set_cipher_list(...) failed (no cipher match)`);
mixed with others they are silently ignored. LibreSSL is the exception: its ssl_ciphers also
governs TLS 1.3.

Fail: ssl_ciphers TLS_AES_128_GCM_SHA256:TLS_AES_256_GCM_SHA384;
Fix:  ssl_conf_command Ciphersuites TLS_AES_128_GCM_SHA256:TLS_AES_256_GCM_SHA384;

Sources: trac #1529; OpenSSL ciphers(1) (TLS 1.3 names belong to
-ciphersuites); LibreSSL SSL_CTX_set_cipher_list(3) CAVEATS (its cipher list does include them).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from nginxgen.lint.context import Context, Rule
from nginxgen.lint.findings import Applicability, Finding, Severity
from nginxgen.lint.rules import _fixes
from nginxgen.lint.rules._ciphers import BACKEND_LINES, all_cipher_lines

RULE = Rule(
    code="NGX404",
    name="tls13-name-in-ssl-ciphers",
    severity=Severity.WARNING,
    fix="set TLS 1.3 suites with ssl_conf_command Ciphersuites",
    otherwise=(
        (Severity.ERROR, "ssl_ciphers has only TLS 1.3 names: no cipher matches, nginx -t fails"),
    ),
    autofix=(
        Applicability.SAFE,
        "takes the TLS 1.3 names out of ssl_ciphers (the library ignores them there)",
    ),
    triggers=("ssl_ciphers", *BACKEND_LINES),
    target_bound=("library",),
)


def check(ctx: Context) -> Iterator[Finding]:
    if ctx.has("tls13_suites_via_ssl_ciphers"):
        return
    for stmt, ev in all_cipher_lines(ctx):
        if not ev.tls13_names:
            continue
        if ev.result.error:
            yield ctx.finding(
                RULE,
                stmt,
                "only TLS 1.3 names: no cipher match, nginx refuses the config",
                severity=Severity.ERROR,
            )
        else:
            # Safe fix: drop the names the library ignores here; nothing negotiated changes.
            names = set(ev.tls13_names)
            kept = [
                w
                for w in re.split(r"[:, ]+", " ".join(stmt.args))
                if w and w.lstrip("!-+") not in names
            ]
            yield ctx.finding(
                RULE,
                stmt,
                f"{', '.join(ev.tls13_names)} ignored here: ssl_ciphers does not set TLS 1.3 suites",
                edits=_fixes.set_args(ctx, stmt, [":".join(kept)]),
            )
