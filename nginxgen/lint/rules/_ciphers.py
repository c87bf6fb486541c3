"""Shared by the cipher rules: each ssl_ciphers line that applies to a TLS server, evaluated once
by the cipher engine with the target library's model."""

from __future__ import annotations

import re
from collections.abc import Iterator

from nginxgen.base.records import record
from nginxgen.ciphers import suites as cipher_suites
from nginxgen.ciphers.engine import CipherList, evaluate
from nginxgen.ciphers.model import CipherModel, model_for
from nginxgen.conf.load import Stmt
from nginxgen.knowledge import nginx
from nginxgen.lint.context import Context

LEGACY = ("SSLv2", "SSLv3", "TLSv1", "TLSv1.1", "TLSv1.2")


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


def _scopes(ctx: Context) -> Iterator[tuple[list[Stmt], list[str]]]:
    """(ssl_ciphers lines in effect, protocols) for each place a cipher string applies."""
    for server in ctx.tls_servers():
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


def cipher_lines(ctx: Context) -> Iterator[tuple[Stmt, Evaluation]]:
    """Every effective ssl_ciphers that allows TLS <= 1.2 (each line once): of each TLS server,
    and of a snippet linted on its own."""
    seen: set[int] = set()
    for stmts, protocols in _scopes(ctx):
        if not stmts or id(stmts[-1]) in seen or not any(p in LEGACY for p in protocols):
            continue
        seen.add(id(stmts[-1]))
        yield stmts[-1], evaluate_line(ctx, stmts[-1])


def all_cipher_lines(ctx: Context) -> Iterator[tuple[Stmt, Evaluation]]:
    """Every ssl_ciphers line with a value, as written (a snippet's too: the string is checked
    wherever a TLS server inherits it), evaluated."""
    for stmt in ctx.all_statements():
        if stmt.directive == "ssl_ciphers" and stmt.args:
            yield stmt, evaluate_line(ctx, stmt)
