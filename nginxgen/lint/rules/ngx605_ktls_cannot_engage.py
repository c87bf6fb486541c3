"""kTLS asked for (`ssl_conf_command Options KTLS`) but it cannot engage.

nginx uses SSL_sendfile() only with `sendfile on` (off by default), OpenSSL >= 3.0 built with
ktls, nginx >= 1.21.4 and the kernel's tls module. BoringSSL, AWS-LC and LibreSSL have no kTLS
path in nginx at all.

Fail: ssl_conf_command Options KTLS;
Fix (and `modprobe tls` on the host): ssl_conf_command Options KTLS; sendfile on;

Sources: nginx commit 1fc61b7b1 (CHANGES 1.21.4, ssl_conf_command Options KTLS);
OpenSSL SSL_CTX_set_options.pod (SSL_OP_ENABLE_KTLS); Linux Documentation/networking/tls.rst.
"""

from __future__ import annotations

from collections.abc import Iterator

from nginxgen.conf.words import flag_on
from nginxgen.knowledge import libraries, nginx
from nginxgen.lint.context import Context, Rule
from nginxgen.lint.findings import Finding, Severity

RULE = Rule(
    code="NGX605",
    name="ktls-cannot-engage",
    severity=Severity.INFO,
    fix="sendfile on;",
    triggers=("ssl_conf_command",),
)


def check(ctx: Context) -> Iterator[Finding]:
    for server, ktls in ctx.options_on("KTLS"):
        if not libraries.has(ctx.target.library, "ktls"):
            yield ctx.finding(
                RULE, ktls, f"{ctx.library()} has no kTLS path in nginx", "remove the KTLS option"
            )
        elif not nginx.feature_available(ctx.target, "ssl_sendfile"):
            yield ctx.finding(
                RULE,
                ktls,
                f"nginx uses kTLS only from {nginx.feature_since('ssl_sendfile')}",
                "upgrade nginx",
            )
        elif not flag_on(server.value("sendfile")):
            yield ctx.finding(RULE, ktls, "kTLS only engages with sendfile on (the default is off)")
