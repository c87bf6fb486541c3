"""What nginx does as a client of a backend (nginx.toml `upstream_tls`, `upstream_keepalive`,
`request_passes`): the pass directives that may speak TLS, their defaults, keeping connections
to backends, and the header lines each pass hands the backend."""

from __future__ import annotations

from functools import cache

from nginxgen.base.records import record
from nginxgen.base.version import Version
from nginxgen.knowledge.data import from_table, toml_file
from nginxgen.knowledge.nginx import default_protocols

TYPE_CHECKING = False  # typing is not imported at run time: it slows every pre-commit start
if TYPE_CHECKING:
    from nginxgen.knowledge.builds import Target


@record(frozen=True)
class PassModule:
    """A module whose pass directive can speak TLS to the backend (nginx.toml upstream_tls)."""

    directive: str  # proxy_pass, grpc_pass, uwsgi_pass
    prefix: str  # of its client-side directives: proxy -> proxy_ssl_verify ...
    schemes: tuple[str, ...]  # the URL schemes that mean TLS
    keeps_connections: str  # "http11", "always", "never"


@cache
def pass_modules() -> dict[str, PassModule]:
    """The pass directives that may lead to a TLS backend, by directive name."""
    return {
        name: from_table(PassModule, data, directive=name)
        for name, data in toml_file("nginx")["upstream_tls"]["pass"].items()
    }


@cache
def request_passes() -> dict[str, str]:
    """The directives that hand a request to a backend, each with the list directive that adds
    a header or parameter to what the backend receives (nginx.toml request_passes):
    proxy_pass -> proxy_set_header, fastcgi_pass -> fastcgi_param, ..."""
    table = toml_file("nginx")["request_passes"]
    return {name: value for name, value in table.items() if name != "source"}


@record(frozen=True)
class UpstreamTlsDefaults:
    """What nginx does towards a TLS backend where no line says otherwise (every release)."""

    verify: bool
    server_name: bool
    session_reuse: bool
    verify_depth: int
    ciphers: str
    name: str  # as the docs write it ($proxy_host): the host of the pass's URL


@cache
def upstream_tls_defaults() -> UpstreamTlsDefaults:
    return from_table(UpstreamTlsDefaults, toml_file("nginx")["upstream_tls"]["defaults"])


def upstream_default_protocols(target: Target) -> tuple[str, ...]:
    """proxy_ssl_protocols' default (and grpc_, uwsgi_): ssl_protocols' own, changed in the
    same releases (nginx.toml upstream_tls.protocols)."""
    return default_protocols(target)


@record(frozen=True)
class UpstreamKeepaliveDefaults:
    """What an upstream{} block and proxy_pass do about keeping backend connections where no
    line says (nginx.toml upstream_keepalive)."""

    connections: int  # cached per worker by a block without a keepalive line (0: none)
    proxy_http11: bool  # proxy_http_version 1.1 and no Connection header by default
    since: str  # the release that changed both
    closing_option: str  # the Connection option that ends the connection after the request
    http10_keeping_option: str  # the option an HTTP/1.0 request needs for it to be kept
    local_since: str  # the release with `keepalive N local` (connections kept per location)
    default_local: bool  # whether a block without a keepalive line keeps them per location


def upstream_keepalive_defaults(target: Target) -> UpstreamKeepaliveDefaults:
    data = toml_file("nginx")["upstream_keepalive"]
    on = target.nginx >= Version(data["default_since"])
    return UpstreamKeepaliveDefaults(
        connections=data["default_connections"] if on else 0,
        proxy_http11=target.nginx >= Version(data["proxy_http11_since"]),
        since=data["default_since"],
        closing_option=data["closing_option"],
        http10_keeping_option=data["http10_keeping_option"],
        local_since=data["local_since"],
        default_local=data["default_local"],
    )
