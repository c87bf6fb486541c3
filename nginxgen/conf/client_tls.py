"""nginx as a TLS client towards a backend: what it checks and sends, each with the line that
decides it (None: nginx's default, knowledge upstream_tls_defaults).

The module asks only for the lines in effect at the level that connects (`lines(directive)`),
so that the caller does the inheritance of its block: a stream server over stream{}
(conf/stream.py), a location over its server and http{} for proxy_pass https://, grpcs:// and
suwsgi://. The directive family is a prefix: `proxy_ssl` (http and stream), `grpc_ssl`,
`uwsgi_ssl`. One reading of these directives for every block that has them.
"""

from __future__ import annotations

from collections.abc import Callable

from nginxgen.conf.load import Stmt
from nginxgen.conf.per_name import Answer
from nginxgen.knowledge.upstream import upstream_default_protocols, upstream_tls_defaults
from nginxgen.records import record
from nginxgen.target import Target


@record(frozen=True)
class ClientTls:
    """The client side of one connection to a backend. Every field is an Answer: the value in
    effect and the line that decides it (None: the default)."""

    prefix: str  # "proxy_ssl", "grpc_ssl", "uwsgi_ssl"
    verify: Answer  # bool: whether the backend's certificate (and name) is checked
    trusted_certificate: Answer  # str | None: the CA file verification uses
    name: Answer  # str | None: the name checked and sent; None: not known from the tree
    server_name: Answer  # bool: whether SNI is sent
    protocols: Answer  # frozenset[str]: the versions offered
    session_reuse: Answer  # bool: whether a session is reused on the next connection
    ciphers: Answer  # str: the cipher string, as written
    certificate: Answer  # str | None: the client certificate offered (mutual TLS)

    @property
    def unverified(self) -> bool:
        """Whether anyone on the path can stand in for the backend: verification is off."""
        return self.verify.value is False


def _flag(lines: list[Stmt], default: bool) -> bool:
    return lines[-1].args[:1] == ["on"] if lines and lines[-1].args else default


def client_tls(
    prefix: str,
    lines: Callable[[str], list[Stmt]],
    target: Target,
    default_name: str | None,
) -> ClientTls:
    """The client-side TLS of a level whose lines in effect `lines` gives. `default_name`: the
    name nginx uses without `PREFIX_name`, the host of the pass line (an upstream{} block's
    name where the pass names one); None where the caller cannot tell (a variable)."""
    defaults = upstream_tls_defaults()

    def answer(suffix: str, value: Callable[[list[Stmt]], object]) -> Answer:
        key = f"{prefix}_{suffix}"
        found = lines(key)
        return Answer(key, value(found), found[-1] if found else None)

    def protocols(found: list[Stmt]) -> frozenset[str]:
        return frozenset(found[-1].args if found else upstream_default_protocols(target))

    def text(found: list[Stmt]) -> str | None:
        return found[-1].args[0] if found and found[-1].args else None

    return ClientTls(
        prefix=prefix,
        verify=answer("verify", lambda f: _flag(f, defaults.verify)),
        trusted_certificate=answer("trusted_certificate", text),
        name=answer("name", lambda f: text(f) or default_name),
        server_name=answer("server_name", lambda f: _flag(f, defaults.server_name)),
        protocols=answer("protocols", protocols),
        session_reuse=answer("session_reuse", lambda f: _flag(f, defaults.session_reuse)),
        ciphers=answer("ciphers", lambda f: text(f) or defaults.ciphers),
        certificate=answer("certificate", text),
    )
