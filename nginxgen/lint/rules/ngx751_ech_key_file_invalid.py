"""An `ssl_ech_file` that is not a working ECH key file. nginx reads each file whole at start:
one that does not parse stops it (`OSSL_ECHSTORE_read_pem(...) failed`, nginx -t fails); one
with the ECHCONFIG block but no PRIVATE KEY passes `nginx -t` and decrypts nothing; one whose
key is not the one its ECHCONFIG publishes makes every client encrypt to a key nginx lacks.

Failing (the rule reads the file, so this example does not run as the others do):
    ssl_ech_file ech.pem;   # ech.pem holds only the ECHCONFIG block
Fixed:
    ssl_ech_file ech.pem;   # as `openssl ech -public_name NAME -out ech.pem` writes it

Sources: ngx_http_ssl_module docs (ssl_ech_file); nginx ngx_ssl_ech_files()
(OSSL_ECHSTORE_read_pem, OSSL_ECHSTORE_num_keys); nginx 1.30.4 with OpenSSL 4.0.3,
scripts/ech_nginx_proof.py (nginx -t of garbage, key-only and config-only files; config-only).
"""

from __future__ import annotations

from collections.abc import Iterator

from nginxgen.lint.context import Context, Rule
from nginxgen.lint.findings import Finding, Severity
from nginxgen.lint.rules._ech import key_file

RULE = Rule(
    code="NGX751",
    name="ech-key-file-invalid",
    severity=Severity.ERROR,
    fix="make the file with `openssl ech -public_name NAME -out FILE` (or nginxgen generate)",
    triggers=("ssl_ech_file",),
)


def check(ctx: Context) -> Iterator[Finding]:
    seen: set[int] = set()
    for stmt in ctx.named("ssl_ech_file"):
        if stmt.directive != "ssl_ech_file" or not stmt.args or id(stmt) in seen:
            continue
        seen.add(id(stmt))
        found = key_file(ctx, stmt.args[0])
        if found is not None and found.problem:
            yield ctx.finding(RULE, stmt, f"{stmt.args[0]}: {found.problem}")
