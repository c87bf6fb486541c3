"""A server on a `listen ... ssl` address with no certificate for it.

nginx sets TLS up per address once the configuration is read (ngx_http_ssl_init, and in stream
ngx_stream_ssl_init from 1.25.5): the address's default server must have an `ssl_certificate`
in effect (its own, or the http{} or stream{} level's) or `ssl_reject_handshake on`, else
`nginx -t` refuses with `no "ssl_certificate" is defined for the "listen ... ssl" directive`;
where the default server rejects handshakes, every server of the address needs one or the
other. A non-default server with neither passes `nginx -t` and fails at run time instead: it
gets no TLS context of its own, so its names are answered with the default server's certificate
(and its content), which a client that checks the name refuses. The same on every nginx from
1.22.1 to 1.31.3; before 1.25.5 stream checked each server with `listen ... ssl` when merging
it, one server per address then, and named its last `listen ... ssl` line. QUIC addresses (`listen ... quic`) likewise. The old `ssl on;`
(until nginx 1.25.1) is checked apart, in every server it is in effect in (its own line or
http{}'s), default or not: without a certificate (or `ssl_reject_handshake on`) nginx -t refuses
it at that `ssl` line, `no "ssl_certificate" is defined for the "ssl" directive`.

mail{} checks each server: where one of its listens has `ssl`, `ssl on` is in effect (until
1.25.1) or `starttls` is on or only (its own line or mail{}'s), it needs ssl_certificate and
ssl_certificate_key in effect, else nginx -t refuses it with `no "ssl_certificate" is defined
for the "starttls" directive` (or `"listen ... ssl"`, `"ssl"`; or the key's message) at the line
of that mode: the server's last `listen ... ssl`, else its last `ssl` or `starttls` line, else
mail{}'s.

Fail:
    server { listen 443 ssl default_server; ssl_certificate a.pem; ssl_certificate_key a.key; }
    server { listen 443 ssl; server_name b.example; }
Fix:
    server { listen 443 ssl; server_name b.example;
             ssl_certificate b.pem; ssl_certificate_key b.key; }

No automatic fix: the certificate is the admin's (or, for a server that must not answer TLS,
`ssl_reject_handshake on`).

Sources: nginx src/http/modules/ngx_http_ssl_module.c (ngx_http_ssl_init) and
src/stream/ngx_stream_ssl_module.c (ngx_stream_ssl_init; ngx_stream_ssl_merge_srv_conf before
1.25.5); ngx_http_ssl_merge_srv_conf for `ssl on;`; src/mail/ngx_mail_ssl_module.c
(ngx_mail_ssl_merge_conf, cited in nginxgen/knowledge/nginx.toml [listen_certificate]); seen with
nginx -t and openssl s_client on nginx 1.22.1, 1.26.3, 1.28.3 and 1.31.3
(tests/lint/test_listen_certificate_live.py), mail{} with nginx -t on Debian 12's and 13's nginx
(tests/lint/test_mail_certificate_live.py).
"""

from __future__ import annotations

from collections.abc import Iterator

from nginxgen.base.version import Version
from nginxgen.conf.config import Server
from nginxgen.conf.effective import Uncertified
from nginxgen.conf.load import Stmt
from nginxgen.knowledge import nginx, nginx_values
from nginxgen.lint.context import Context, Rule, server_label
from nginxgen.lint.findings import Finding, Severity

RULE = Rule(
    code="NGX715",
    name="listen-ssl-without-certificate",
    severity=Severity.WARNING,
    fix="give the server its ssl_certificate and ssl_certificate_key (or ssl_reject_handshake on)",
    otherwise=(
        (
            Severity.ERROR,
            "nginx -t refuses it: the address's default server, or any server where the default rejects handshakes",
        ),
    ),
)


def check(ctx: Context) -> Iterator[Finding]:
    if ctx.config.loaded.http_level_top:  # a snippet: its certificates may be http{}'s, elsewhere
        return
    facts = nginx.listen_certificate()
    message = facts.message
    switched: set[int] = set()  # servers whose `ssl on;` nginx refuses: that is their finding
    if (status := nginx.directive_status(ctx.target, "ssl")) is None or status.available:
        for server, line in ctx.switched_on_uncertified():
            switched.add(id(server))
            yield ctx.finding(
                RULE,
                line,  # where nginx points: the `ssl` line, wherever the server is
                f"{server_label(server)} has `ssl on;` and no ssl_certificate: nginx -t refuses "
                f"it ({facts.ssl_directive_message})",
                severity=Severity.ERROR,
            )
    yield from _mail(ctx)
    for gap, sockets in _merged(ctx):
        server, default = gap.server, gap.default
        if id(server) in switched:
            continue
        listen = next(lst for lst in server.listens if lst.socket == gap.socket)
        kind = "quic" if listen.quic else "ssl"
        on = " and ".join(sockets)  # one server's line, once, naming each of its addresses
        if gap.refused:
            why = (
                "it is the default server"
                if server is default
                else f"{server_label(default)}, the default server, rejects handshakes"
            )
            yield ctx.finding(
                RULE,
                _where(ctx, server),
                f"{server_label(server)} has no ssl_certificate for {on} and {why}: "
                f"nginx -t refuses it ({message.format(kind=kind)})",
                severity=Severity.ERROR,
            )
            continue
        yield ctx.finding(
            RULE,
            server.stmt,
            f"{server_label(server)} has no ssl_certificate for {on}: nginx -t "
            f"accepts it, and its names are answered with the certificate of "
            f"{server_label(default)}, the default server, which clients checking the name "
            "refuse",
        )


def _where(ctx: Context, server: Server) -> Stmt:
    """Where nginx -t points: the server's line; in stream{} before 1.25.5, which checked each
    server as it merged it, the line ngx_stream_core_listen kept, its last `listen ... ssl`
    (trial 16, BIND's DoT example on Debian 12)."""
    since = Version(nginx_values.custom_grammars().stream_by_certificate_since)
    if ctx.target.nginx < since and ctx.top_block(server.stmt) == "stream":
        listens = [listen.stmt for listen in server.listens if listen.ssl]
        if listens:
            return listens[-1]
    return server.stmt


def _mail(ctx: Context) -> Iterator[Finding]:
    """Each mail{} server with TLS on (Effective.mail_tls) and no certificate (or key) in
    effect, as ngx_mail_ssl_merge_conf refuses it, at the line nginx names (knowledge:
    listen_certificate, mail_*)."""
    facts = nginx.listen_certificate()
    mail = ctx.mail
    block = mail.config.http_stmt
    if block is None or any(s.unread for s in block.block or [] if s.directive != "server"):
        return  # no mail{}, or what its level sets is unknown
    for server in ctx.mail_tls_servers():
        if any(s.unread for s in server.stmt.block or []):
            continue
        mode, line = mail.mail_tls(server) or ("", server.stmt)
        certificates = server.effective("ssl_certificate")
        keys = server.effective("ssl_certificate_key")
        if not certificates:
            message = facts.mail_message.format(mode=mode)
        elif not keys:
            message = facts.mail_key_message.format(mode=mode)
        elif len(keys) < len(certificates) and certificates[-1].args:
            certificate = certificates[-1].args[0]
            message = facts.mail_keys_message.format(certificate=certificate, mode=mode)
        else:
            continue
        yield ctx.finding(RULE, line, f"{message}: nginx -t refuses it", severity=Severity.ERROR)


def _merged(ctx: Context) -> list[tuple[Uncertified, list[str]]]:
    """Each server without a certificate once per verdict (refused or not, the same default
    server), with every address it has that verdict on: a server on *:443 and [::]:443 is one
    line to mend (found trying public configs: two errors where nginx -t gives one)."""
    out: dict[tuple[int, bool, int], tuple[Uncertified, list[str]]] = {}
    for block in ctx.families():
        for gap in block.uncertified():
            key = (id(gap.server), gap.refused, id(gap.default))
            out.setdefault(key, (gap, []))[1].append(gap.socket)
    return list(out.values())
