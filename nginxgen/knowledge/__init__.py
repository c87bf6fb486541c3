"""The knowledge base: every nginx and TLS library fact nginxgen relies on, as data with sources.


The data lives in the TOML and JSON files beside this module; this module only answers questions
about it for a target ("has this target kTLS?", "how does this library spell P-256?"). The
generator's validation and the linter's rules both ask here and nowhere else.
"""

from __future__ import annotations

from functools import cache

from nginxgen.knowledge.data import json_file, toml_file
from nginxgen.knowledge.libraries import behaves_as
from nginxgen.records import record
from nginxgen.version import Version, in_range

TYPE_CHECKING = False  # typing is not imported at run time: it slows every pre-commit start
if TYPE_CHECKING:
    from typing import Any

    from nginxgen.target import Target


def _toml(name: str) -> dict[str, Any]:
    return toml_file(name)


def _json(name: str) -> dict[str, Any]:
    return json_file(name)


# --- releases ------------------------------------------------------------------------------------


# --- nginx ---------------------------------------------------------------------------------------


def current_nginx() -> Version:
    return Version(_toml("nginx")["current"]["stable"])


@record(frozen=True)
class DirectiveStatus:
    name: str
    available: bool
    deprecated: bool
    since: str | None
    removed: str | None
    plus_only: bool
    replacement: str | None
    source: str
    module: str | None


def directive_status(target: Target, name: str, table: str = "directive") -> DirectiveStatus | None:
    """What the target's nginx makes of a directive (`table` also: listen_param, protocol_param).

    None when the knowledge base has nothing to say about the name.
    """
    data = _toml("nginx").get(table, {}).get(name)
    if data is None:
        return None
    version = target.nginx
    since, removed = data.get("since"), data.get("removed")
    available = in_range(version, since, removed)
    module = data.get("module")
    if data.get("plus_only") and not target.plus:
        available = False
    if module and target.modules is not None and module not in target.modules:
        available = False
    deprecated = data.get("deprecated") is not None and version >= Version(data["deprecated"])
    return DirectiveStatus(
        name=name,
        available=available,
        deprecated=deprecated,
        since=since,
        removed=removed,
        plus_only=bool(data.get("plus_only")),
        replacement=data.get("replacement"),
        source=data["source"],
        module=module,
    )


def known_names(table: str = "directive") -> frozenset[str]:
    """Directive (or listen/protocol parameter) names the knowledge base has facts about."""
    return frozenset(_toml("nginx").get(table, {}))


def default_protocols(target: Target) -> tuple[str, ...]:
    return _default_protocols(target.nginx)


@cache
def _default_protocols(nginx: Version | None) -> tuple[str, ...]:
    for row in _toml("nginx")["default_protocols"]:
        if in_range(nginx, row.get("since"), row.get("until")):
            return tuple(row["protocols"])
    raise LookupError(f"no default ssl_protocols for nginx {nginx}")


def listen_param_needs_protocol(param: str) -> str | None:
    """The protocol ssl_protocols must enable for a listen parameter (quic: TLSv1.3)."""
    value = _toml("nginx")["listen_param"].get(param, {}).get("needs_protocol")
    return str(value) if value else None


def feature_available(target: Target, name: str) -> bool:
    """An nginx feature without a directive of its own (`ssl_sendfile`, ...)."""
    data = _toml("nginx")["feature"][name]
    return in_range(target.nginx, data.get("since"), data.get("until"))


def feature_since(name: str) -> str:
    return str(_toml("nginx")["feature"][name]["since"])


def nginx_fact(key: str) -> dict[str, Any]:
    """A named table of nginx facts (`defaults`, `ticket_rotation`, ...)."""
    data: dict[str, Any] = _toml("nginx")[key]
    return data


def auto_ticket_rotation(target: Target) -> bool:
    return target.nginx >= Version(nginx_fact("ticket_rotation")["since"])


@record(frozen=True)
class DefaultServerOnly:
    key: str  # a directive, or "ssl_conf_command NAME"
    why: str
    source: str  # for the block asked about: in stream{}, the stream evidence
    only_value: str | None


def default_server_only(target: Target, block: str = "http") -> dict[str, DefaultServerOnly]:
    """Settings that, on this target, only the default server of an address:port decides, in
    http{} or in stream{} servers (an entry holds in stream where it names its stream
    evidence)."""
    result: dict[str, DefaultServerOnly] = {}
    kind = behaves_as(target.library)
    for key, data in _toml("nginx")["default_server_only"].items():
        blocks = data.get("blocks") or ["http", *(["stream"] if "stream" in data else [])]
        if block not in blocks:
            continue
        libraries = data.get("libraries")
        if libraries is not None and kind not in libraries and target.library.kind not in libraries:
            continue
        per_vhost_since = data.get("per_vhost_since")
        if per_vhost_since and target.nginx >= Version(per_vhost_since):
            per_vhost_libs = data.get("per_vhost_libraries")
            if per_vhost_libs is None or kind in per_vhost_libs:
                continue
        source = data["source"] if block == "http" else f"{data['source']}; {data['stream']}"
        result[key] = DefaultServerOnly(
            key=key, why=data["why"], source=source, only_value=data.get("only_value")
        )
    return result


def stream_virtual_servers(target: Target) -> bool:
    """Whether stream{} servers share an address:port by name (server_name, since 1.25.5)."""
    return target.nginx >= Version(nginx_fact("stream")["virtual_servers_since"])


# --- access logs ---------------------------------------------------------------------------------


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
        name: PassModule(
            directive=name,
            prefix=data["prefix"],
            schemes=tuple(data["schemes"]),
            keeps_connections=data["keeps_connections"],
        )
        for name, data in _toml("nginx")["upstream_tls"]["pass"].items()
    }


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
    data = _toml("nginx")["upstream_tls"]["defaults"]
    return UpstreamTlsDefaults(
        verify=data["verify"],
        server_name=data["server_name"],
        session_reuse=data["session_reuse"],
        verify_depth=data["verify_depth"],
        ciphers=data["ciphers"],
        name=data["name"],
    )


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


def upstream_keepalive_defaults(target: Target) -> UpstreamKeepaliveDefaults:
    data = _toml("nginx")["upstream_keepalive"]
    on = target.nginx >= Version(data["default_since"])
    return UpstreamKeepaliveDefaults(
        connections=data["default_connections"] if on else 0,
        proxy_http11=target.nginx >= Version(data["proxy_http11_since"]),
        since=data["default_since"],
    )
