"""No TLS 1.2 cipher suite of a server's ssl_ciphers authenticates with its certificate's key:
`nginx -t` passes, but every TLS 1.2 handshake fails (`alert handshake failure`), and where TLS
1.3 is off, every handshake does.

A TLS 1.2 suite names how the server proves itself: aRSA suites need an RSA certificate, aECDSA
suites an ECDSA (or Ed25519) one. `ssl_ciphers 'EECDH+aRSA+AESGCM:!ECDSA'` beside an ECDSA
certificate (certbot's default key since 2.0) leaves none. TLS 1.3 suites do not depend on the
key. Judged where the certificate files are readable, with the target library's cipher engine
(the list its security level leaves), nginx's default list where no ssl_ciphers applies.

For example, with ecdsa.pem an ECDSA certificate (lint reads it: the examples of this rule
are run in tests/lint/test_lint_files.py, with real certificate files):
    server {
        listen 443 ssl;
        ssl_certificate ecdsa.pem; ssl_certificate_key ecdsa.key;
        ssl_protocols TLSv1.2 TLSv1.3;
        ssl_ciphers EECDH+aRSA+AESGCM:!ECDSA;
    }
and the mend (suites for both key types; or an RSA certificate beside the ECDSA one):
    server {
        listen 443 ssl;
        ssl_certificate ecdsa.pem; ssl_certificate_key ecdsa.key;
        ssl_protocols TLSv1.2 TLSv1.3;
        ssl_ciphers ECDHE-ECDSA-AES128-GCM-SHA256:ECDHE-RSA-AES128-GCM-SHA256;
    }

Sources: RFC 5246 7.4.2 and 7.4.3 (the certificate and the key exchange the suite names),
RFC 8422 5.3 (ECDSA suites); OpenSSL ssl/ssl_lib.c (ssl_set_masks: the suites a certificate
enables); found trying Mobilizon's recommended nginx config as a new user, seen with s_client
against Debian 13's nginx.
"""

from __future__ import annotations

from collections.abc import Iterator

from nginxgen.ciphers.suites import signs_for
from nginxgen.conf.config import Server
from nginxgen.knowledge import nginx
from nginxgen.lint.context import Context, Rule, server_label
from nginxgen.lint.findings import Finding, Severity
from nginxgen.lint.rules._ciphers import LEGACY, evaluate_text
from nginxgen.lint.rules._files import certificate_files

RULE = Rule(
    code="NGX413",
    name="no-suite-for-certificate",
    severity=Severity.WARNING,
    fix="add suites for the certificate's key type (ECDHE-ECDSA-... or ECDHE-RSA-...), or add a "
    "certificate of the other type",
    otherwise=((Severity.ERROR, "TLS 1.3 is off too: no handshake succeeds"),),
    triggers=("ssl_ciphers",),
)


def check(ctx: Context) -> Iterator[Finding]:
    kinds: dict[int, tuple[Server, set[str]]] = {}
    for cert in certificate_files(ctx):
        kind = cert.chain[0].key[0]
        entry = kinds.setdefault(id(cert.server), (cert.server, set()))
        entry[1].add(signs_for(kind))
    for server, auths in kinds.values():
        protocols = ctx.protocols(server)
        if not any(p in LEGACY for p in protocols):
            continue
        lines = server.effective("ssl_ciphers")
        text = " ".join(lines[-1].args) if lines else nginx.defaults().ssl_ciphers
        result = evaluate_text(ctx, text).result
        if result.error is not None:
            continue  # NGX410's
        legacy = [s for s in result.usable() if not s.tls13]
        if not legacy or any(s.au in auths for s in legacy):
            continue  # no TLS 1.2 suite at all is NGX408's
        tls13 = "TLSv1.3" in protocols
        where = lines[-1] if lines else server.stmt
        offered = sorted({s.au for s in legacy})
        yield ctx.finding(
            RULE,
            where,
            f"{server_label(server)} has {' and '.join(sorted(auths))} certificates, but its "
            f"TLS 1.2 suites authenticate with {' and '.join(offered)} only: "
            + ("TLS 1.2 handshakes fail" if tls13 else "no handshake succeeds")
            + " (nginx -t passes)",
            severity=None if tls13 else Severity.ERROR,
        )
