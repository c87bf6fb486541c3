"""Shared by the cipher rules: each ssl_ciphers line that applies to a TLS server (and nginx's
own default list where none does), evaluated once by the cipher engine with the target
library's model."""

from __future__ import annotations

import re
from collections.abc import Iterator

from nginxgen.base.records import record
from nginxgen.ciphers import suites as cipher_suites
from nginxgen.ciphers.engine import CipherList, evaluate
from nginxgen.ciphers.model import CipherModel, model_for
from nginxgen.conf.client_certificates import refuses_handshakes
from nginxgen.conf.config import Server
from nginxgen.conf.load import Stmt
from nginxgen.knowledge import nginx, web
from nginxgen.lint.context import Context, server_label
from nginxgen.lint.findings import Fix
from nginxgen.lint.rules import _fixes
from nginxgen.lint.rules._values import applied_tls_lines

# the cipher strings of nginx as a client, one per module that passes to TLS
BACKEND_LINES = ("proxy_ssl_ciphers", "grpc_ssl_ciphers", "uwsgi_ssl_ciphers")
LEGACY = ("SSLv2", "SSLv3", "TLSv1", "TLSv1.1", "TLSv1.2")
# what NGX402's and NGX403's automatic fix does (default_fix): unsafe, since clients that have
# only the suites it drops can no longer connect
DEFAULT_FIX = (
    "where nginx's default list is in effect (no ssl_ciphers), adds ssl_ciphers with Mozilla's "
    "intermediate suites to http{} (or stream{}, mail{})"
)


@record
class Evaluation:
    """A cipher list plus what a rule wants to say about the words of the string."""

    result: CipherList
    tls13_names: list[str]  # TLS 1.3 suite names, which ssl_ciphers ignores
    asked_for_weak: list[str]  # broken families this library lacks but the string asks for

    @property
    def suites(self) -> list[cipher_suites.Suite]:
        return self.result.suites


def model(ctx: Context) -> CipherModel:
    return model_for(ctx.target.library)


def evaluate_line(ctx: Context, stmt: Stmt) -> Evaluation:
    """The evaluation of an ssl_ciphers line with the target's model. NGX402/403/404 and the DH
    rules read the same lines, and fleets repeat one string in every vhost: each distinct string
    is evaluated once per lint."""
    return evaluate_text(ctx, " ".join(stmt.args))


def evaluate_text(ctx: Context, text: str) -> Evaluation:
    """The evaluation of a cipher string (an ssl_ciphers line's, `ssl_conf_command
    CipherString`'s) with the target's model, once per distinct string."""
    cache: dict[str, Evaluation] = ctx.memo("cipher_evaluations", dict)
    if text not in cache:
        cache[text] = _evaluate(text, model(ctx))
    return cache[text]


def _evaluate(text: str, cipher_model: CipherModel) -> Evaluation:
    result = evaluate(text, cipher_model)
    words = {w.lstrip("!-+") for w in re.split(r"[:, ;+]+", text) if w}
    tls13 = {s.name for s in cipher_model.tls13} | {s.iana for s in cipher_model.tls13}
    return Evaluation(
        result=result,
        tls13_names=sorted(words & tls13),
        asked_for_weak=[w for w in result.unknown_added if cipher_suites.is_weak_cipher_word(w)],
    )


@record(frozen=True, eq=False)
class Judged:
    """A cipher string in effect for TLS servers that allow TLS 1.2 or older, evaluated: an
    ssl_ciphers line, or nginx's own default where no line is in effect (`default_for`)."""

    line: Stmt  # the ssl_ciphers line; for the default, the http{}, stream{} or mail{} block
    evaluation: Evaluation
    default_for: tuple[Server, ...] = ()  # the servers nginx's default applies to

    @property
    def subject(self) -> str:
        """What a finding says it is about: nothing for a line; for the default, which servers
        have no ssl_ciphers and what nginx then uses."""
        if not self.default_for:
            return ""
        first, more = self.default_for[0], len(self.default_for) - 1
        others = f" and {more} more" if more else ""
        return (
            f"no ssl_ciphers for {server_label(first)}{others}: nginx's default "
            f"{nginx.defaults().ssl_ciphers!r} "
        )


def _scopes(ctx: Context) -> Iterator[tuple[list[Stmt], list[str]]]:
    """(ssl_ciphers lines in effect, protocols) for each place a cipher string applies."""
    for server in (*ctx.tls_servers(), *_stream_tls_servers(ctx), *ctx.mail_tls_servers()):
        yield server.effective("ssl_ciphers"), ctx.protocols(server)
    config = ctx.config
    if not config.loaded.http_level_top:
        return
    # A file linted on its own (an include snippet such as ssl.conf, or a server whose listen
    # lives elsewhere): its lines apply to whatever TLS server includes it, so judge them too.
    default = list(nginx.default_protocols(ctx.target))
    http_protocols = config.http.get("ssl_protocols")
    yield config.http.get("ssl_ciphers", []), http_protocols[-1].args if http_protocols else default
    for server in config.servers:
        if not server.own("listen"):
            yield server.effective("ssl_ciphers"), ctx.protocols(server)


def _stream_tls_servers(ctx: Context) -> list[Server]:
    """stream{}'s TLS servers (none built where the tree has no stream{})."""
    return list(ctx.stream.tls_servers()) if "stream" in ctx.directive_names() else []


def cipher_lines(ctx: Context) -> Iterator[Judged]:
    """Every effective ssl_ciphers that allows TLS <= 1.2 (each line once): of each TLS server
    (http{}, stream{} and mail{}), and of a snippet linted on its own; then nginx's default list, once
    per block, where TLS servers that allow TLS <= 1.2 have no line in effect."""
    seen: set[int] = set()
    for stmts, protocols in _scopes(ctx):
        if not stmts or id(stmts[-1]) in seen or not any(p in LEGACY for p in protocols):
            continue
        seen.add(id(stmts[-1]))
        yield Judged(stmts[-1], evaluate_line(ctx, stmts[-1]))
    yield from _defaults(ctx)


def _defaults(ctx: Context) -> Iterator[Judged]:
    """nginx's default ssl_ciphers (knowledge: defaults, the same in http{}, stream{} and mail{}
    in every release), located at the block where a line would go: for each http{}, stream{} or
    mail{} whose TLS servers that allow TLS <= 1.2 and complete handshakes (a certificate in
    effect) have no ssl_ciphers in effect. Not judged for a file of http{} content linted on its own
    (the http{} that includes it may set one), nor for a server whose include could not be
    read or whose `ssl_conf_command CipherString` replaces the list."""
    if ctx.config.loaded.http_level_top:
        return
    blocks = [(ctx.config.http_stmt, list(ctx.tls_servers()))]
    if "stream" in ctx.directive_names():
        blocks.append((ctx.stream.config.http_stmt, _stream_tls_servers(ctx)))
    mail = ctx.mail_tls_servers()  # trial 22: a mail proxy's suites were never judged
    if mail:
        blocks.append((ctx.mail.config.http_stmt, mail))
    for block, servers in blocks:
        bare = tuple(s for s in servers if _takes_default(ctx, s))
        if block is not None and bare:
            yield Judged(block, evaluate_text(ctx, nginx.defaults().ssl_ciphers), bare)


def _takes_default(ctx: Context, server: Server) -> bool:
    return (
        not server.effective("ssl_ciphers")
        and not server.conf_command("CipherString")
        and bool(server.effective("ssl_certificate"))
        and not refuses_handshakes(server)
        and any(p in LEGACY for p in ctx.protocols(server))
        and server.unknown("ssl_ciphers") is None  # last: it reads every include
    )


def default_fix(ctx: Context, judged: Judged) -> Fix | None:
    """For nginx's default list: an ssl_ciphers line with Mozilla's intermediate suites first
    in the block (knowledge: web.intermediate_ciphers); none for a written line, nor where the
    library takes TLS 1.3 suites from ssl_ciphers too (LibreSSL: the line would turn them off)."""
    if not judged.default_for or ctx.has("tls13_suites_via_ssl_ciphers"):
        return None
    line = f"ssl_ciphers {':'.join(web.intermediate_ciphers())};"
    return _fixes.insert_into(ctx, judged.line, line, first=True)


def all_cipher_lines(ctx: Context) -> Iterator[tuple[Stmt, Evaluation]]:
    """Every ssl_ciphers line with a value, as written (a snippet's too: the string is checked
    wherever a TLS server inherits it), and each proxy_ssl_ciphers (grpc_, uwsgi_) line nginx
    hands to the library as a client, evaluated. nginx sets a client context up only where a pass
    goes to TLS (ngx_http_proxy_set_ssl, in the location's merge): there a string that matches
    nothing stops nginx -t as ssl_ciphers does, elsewhere the line is never read."""
    for stmt in ctx.named("ssl_ciphers"):
        if stmt.directive == "ssl_ciphers" and stmt.args:
            yield stmt, evaluate_line(ctx, stmt)
    lines = [s for s in ctx.named(*BACKEND_LINES) if s.directive in BACKEND_LINES and s.args]
    if lines:
        applied = applied_tls_lines(ctx.config.loaded.statements, ctx.target, "ciphers")
        for stmt in lines:
            if applied is None or id(stmt) in applied:
                yield stmt, evaluate_line(ctx, stmt)
