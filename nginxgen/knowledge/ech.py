"""Encrypted Client Hello in nginx (ech.toml): the directive that serves it, the variables nginx
logs it in, and whether a target can serve it at all (nginx_directives.json for the directive's
releases, libraries.toml [capability.ech] for the library)."""

from __future__ import annotations

from functools import cache

from nginxgen.base.records import record
from nginxgen.knowledge.data import from_table, toml_file
from nginxgen.knowledge.directives import directive_first_release, nginx_directive
from nginxgen.knowledge.libraries import capability

TYPE_CHECKING = False  # typing is not imported at run time: it slows every pre-commit start
if TYPE_CHECKING:
    from nginxgen.knowledge.builds import Target


@record(frozen=True)
class EchDirective:
    """The directive that gives a server its ECH keys."""

    name: str  # ssl_ech_file
    docs: str
    source: str


@cache
def directive() -> EchDirective:
    return from_table(EchDirective, toml_file("ech")["directive"])


@record(frozen=True)
class EchStatus:
    """What nginx logs of ECH: `variable` holds one of `values`, `accepted` when the inner
    hello was decrypted; `outer_variable` the outer name, on success only."""

    variable: str  # ssl_ech_status
    outer_variable: str
    accepted: str
    values: tuple[str, ...]
    source: str


@cache
def status() -> EchStatus:
    return from_table(EchStatus, toml_file("ech")["status"])


def ech_refusal(target: Target) -> str | None:
    """Why the target cannot serve Encrypted Client Hello (None: it can): its nginx lacks
    ssl_ech_file, or its library lacks OpenSSL's ECH API."""
    name = directive().name
    if nginx_directive(target, name) is None:
        return f"nginx has {name} only from {directive_first_release(name)}"
    ech = capability(target.library, "ech")
    return None if ech.available else ech.refusal
