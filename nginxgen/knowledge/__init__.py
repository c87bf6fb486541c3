"""The knowledge base: every nginx and TLS library fact nginxgen relies on, as data with sources.


The data lives in the TOML and JSON files beside this module; this module only answers questions
about it for a target ("has this target kTLS?", "how does this library spell P-256?"). The
generator's validation and the linter's rules both ask here and nowhere else.
"""

from __future__ import annotations

from functools import cache, lru_cache

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


@record(frozen=True)
class DirectiveEntry:
    """One definition of a directive (nginx_directives.json): where nginx allows it, how many
    arguments it takes, whether it opens a block, how its value is read."""

    module: str
    contexts: frozenset[str]  # main, events, http, server, location, ... or any
    args: str | tuple[int, ...]  # counts, or flag / any / 1more / 2more
    block: bool
    value: str | None  # flag, size, msec, sec, num: nginx's own setter reads it
    third_party: str | None = None  # the module's repository, for a third-party module

    def allows(self, context: str) -> bool:
        return context in self.contexts or "any" in self.contexts

    def takes(self, count: int) -> bool:
        if self.args == "any":
            return True
        if self.args == "flag":
            return count == 1
        if self.args == "1more":
            return count >= 1
        if self.args == "2more":
            return count >= 2
        return count in self.args


def _entry(data: dict[str, Any], third_party: str | None = None) -> DirectiveEntry:
    args = data["args"]
    return DirectiveEntry(
        data["module"],
        frozenset(data["contexts"]),
        args if isinstance(args, str) else tuple(args),
        data["block"],
        data.get("value"),
        third_party,
    )


@cache
def _release_index(version: str) -> int:
    """The index of the newest known release at or before this version."""
    releases = [Version(v) for v in _json("nginx_directives")["releases"]]
    wanted = Version(version)
    return max((i for i, r in enumerate(releases) if r <= wanted), default=0)


@lru_cache(maxsize=4096)  # bounded: names come from the text being edited (the language server)
def _release_entries(version: str, name: str) -> tuple[DirectiveEntry, ...] | None:
    entries = _json("nginx_directives")["directives"].get(name)
    if entries is None:
        return None
    at = _release_index(version)
    return tuple(
        _entry(e)
        for e in entries
        if any(first <= at and (end is None or at < end) for first, end in e["ranges"])
    )


def nginx_directive(target: Target, name: str) -> tuple[DirectiveEntry, ...] | None:
    """The definitions of a directive in the target's nginx release, those of modules the
    target is known to lack left out; None when no module of that release has the name."""
    entries = _release_entries(str(target.nginx), name)
    if not entries:
        return None
    return tuple(e for e in entries if module_built(target, e.module) is not False)


def module_built(target: Target, module: str) -> bool | None:
    """Whether the target's nginx has one of its own modules: from `nginx -V` when the target
    came from a binary (None: not known; modules without a configure option are always in)."""
    info = _json("nginx_directives")["modules"].get(module)
    if info is not None and info.get("platform"):  # another system's event module
        return None if target.modules is None else False
    family = module.split("_")[1]  # ngx_stream_ssl_module needs stream itself
    if family in ("stream", "mail") and target.modules is not None and family not in target.modules:
        return False
    if info is None or not info["option"] or target.modules is None:
        return True if info is None or not info["option"] else None
    key = info["option"].removeprefix("--with-").removeprefix("--without-").removesuffix("_module")
    if info["default"]:
        return key not in (target.without or frozenset())
    return key in target.modules


def known_in_some_release(name: str) -> bool:
    return name in _json("nginx_directives")["directives"]


@cache
def _third_party() -> dict[str, tuple[DirectiveEntry, ...]]:
    out: dict[str, list[DirectiveEntry]] = {}
    for repo, data in _json("third_party_directives")["modules"].items():
        for name, entries in data["directives"].items():
            out.setdefault(name, []).extend(_entry(e, repo) for e in entries)
    return {name: tuple(entries) for name, entries in out.items()}


def third_party_directive(name: str) -> tuple[DirectiveEntry, ...]:
    """Definitions of the name in the common third-party modules (headers-more, lua, njs, ...)."""
    return _third_party().get(name, ())


@record(frozen=True)
class ValueTable:
    """What one module's own setter reads as a directive's value in a release
    (nginx_values.json, read off nginx's sources): enum or bitmask names (any letter case),
    num bounds, an offset (k, m and g), or a listen handler's parameters."""

    module: str
    enum: tuple[str, ...] | None = None
    bitmask: tuple[str, ...] | None = None
    bounds: tuple[int, int | None] | None = None
    offset: bool = False
    words: tuple[str, ...] = ()  # listen: parameters compared whole
    prefixes: tuple[str, ...] = ()  # listen: parameters compared by their start (backlog=)


@cache
def _value_release_index(version: str) -> int:
    releases = [Version(v) for v in _json("nginx_values")["releases"]]
    wanted = Version(version)
    return max((i for i, r in enumerate(releases) if r <= wanted), default=0)


def value_tables(target: Target, name: str) -> tuple[ValueTable, ...]:
    """The value tables of a directive in the target's nginx release, one per module."""
    return _value_tables(str(target.nginx), name)


@lru_cache(maxsize=1024)  # bounded: names come from the text being edited (the language server)
def _value_tables(version: str, name: str) -> tuple[ValueTable, ...]:
    at = _value_release_index(version)
    out = []
    for e in _json("nginx_values")["directives"].get(name, ()):
        if not any(first <= at and (end is None or at < end) for first, end in e["ranges"]):
            continue
        bounds = e.get("bounds")
        out.append(
            ValueTable(
                e["module"],
                tuple(e["enum"]) if "enum" in e else None,
                tuple(e["bitmask"]) if "bitmask" in e else None,
                (bounds[0], bounds[1]) if bounds else None,
                bool(e.get("offset")),
                tuple(e.get("words", ())),
                tuple(e.get("prefixes", ())),
            )
        )
    return tuple(out)


@record(frozen=True)
class SharedCacheGrammar:
    """A cache's words, builtin[:N] where it has one and shared:NAME:SIZE (nginx_values.toml:
    ssl_session_cache, ssl_ocsp_cache)."""

    words: frozenset[str]
    builtin: bool
    min_shared_size: int
    invalid: str
    too_small: str


@record(frozen=True)
class ParametersGrammar:
    """Arguments that are each a word or `prefix=value`, the value read by a generic parser;
    `required` must be given unless a word of `unless` is (ssl_certificate_cache's max=)."""

    words: frozenset[str]
    prefixes: dict[str, str]  # prefix -> the parser of what follows (positive, sec, ...)
    invalid: str
    required: str | None
    unless: frozenset[str]
    missing: str


@record(frozen=True)
class PostCheck:
    """One test a setter's post handler makes of the number the generic slot read."""

    test: str  # more_than | at_least | at_most | multiple_of | power_of_two
    number: int
    message: str


@record(frozen=True)
class ListenPrefix:
    reads: str  # number | positive | size | ipv6only | any
    message: str | None
    only_on: str | None = None  # the platform whose builds have it (setfib: FreeBSD)


@record(frozen=True)
class ListenGrammar:
    invalid: str
    port: str
    host: str
    # http's parameters refused beside `quic`, in nginx's order, from each release on
    quic_refuses: tuple[tuple[str, tuple[str, ...]], ...]
    quic_message: str
    # stream's parameters refused beside `udp`, likewise
    udp_refuses: tuple[tuple[str, tuple[str, ...]], ...]
    udp_message: str

    def refused_beside_quic(self, version: Version) -> tuple[str, ...]:
        return _by_release(self.quic_refuses, version)

    def refused_beside_udp(self, version: Version) -> tuple[str, ...]:
        return _by_release(self.udp_refuses, version)

    prefixes: dict[str, ListenPrefix]


def _by_release(
    entries: tuple[tuple[str, tuple[str, ...]], ...], version: Version
) -> tuple[str, ...]:
    """The last entry whose release is at most `version` (none before the first)."""
    known = [p for since, p in entries if version >= Version(since)]
    return known[-1] if known else ()


@record(frozen=True)
class ArgumentsGrammar:
    """A custom setter that reads argument i with the generic parser reads[i] (msec, sec)."""

    reads: tuple[str, ...]
    message: str


@record(frozen=True)
class LastWordGrammar:
    position: int  # 1-based argument that may only be one of `words`
    words: frozenset[str]
    message: str


@record(frozen=True)
class Requirement:
    """`switch on` in effect where `pass` goes to TLS needs `needs` in effect there too."""

    switch: str
    needs: str
    pass_directive: str
    schemes: tuple[str, ...]
    message: str


@record(frozen=True)
class ServerCheck:
    """What nginx checks when it merges a TLS server's settings: `switch` in effect with one of
    `values` needs one of `needs` in effect (in the releases since..until), or, with `capability`,
    a library that has it."""

    switch: str
    values: frozenset[str]
    message: str
    needs: tuple[str, ...] = ()
    capability: str | None = None
    since: str | None = None
    until: str | None = None


@record(frozen=True)
class CustomGrammars:
    """The grammars of nginx's custom setters, written once in nginx_values.toml."""

    caches: dict[str, SharedCacheGrammar]
    listen: ListenGrammar
    arguments: dict[str, ArgumentsGrammar]
    parameters: dict[str, ParametersGrammar]
    post: dict[str, tuple[PostCheck, ...]]
    last_word: dict[str, LastWordGrammar]
    requires: tuple[Requirement, ...]
    server_checks: tuple[ServerCheck, ...]
    stream_by_certificate_since: str


@cache
def custom_grammars() -> CustomGrammars:
    data = _toml("nginx_values")
    listen = data["listen"]
    return CustomGrammars(
        caches={
            name: SharedCacheGrammar(
                frozenset(c["words"]),
                c["builtin"],
                c["min_shared_size"],
                c["invalid"],
                c["too_small"],
            )
            for c in data["shared_caches"]
            for name in c["directives"]
        },
        listen=ListenGrammar(
            listen["invalid"],
            listen["port"],
            listen["host"],
            tuple((q["since"], tuple(q["parameters"])) for q in listen["quic"]),
            listen["quic_message"],
            tuple((u["since"], tuple(u["parameters"])) for u in listen["udp"]),
            listen["udp_message"],
            {
                p: ListenPrefix(v["reads"], v.get("message"), v.get("only_on"))
                for p, v in listen["prefixes"].items()
            },
        ),
        arguments={
            name: ArgumentsGrammar(tuple(a["reads"]), a["message"])
            for a in data["arguments"]
            for name in a["directives"]
        },
        parameters={
            name: ParametersGrammar(
                frozenset(p["words"]),
                dict(p["prefixes"]),
                p["invalid"],
                p.get("required"),
                frozenset(p.get("unless", ())),
                p.get("missing", ""),
            )
            for p in data["parameters"]
            for name in p["directives"]
        },
        post={
            name: tuple(_post_check(c) for c in p["checks"])
            for p in data["post"]
            for name in p["directives"]
        },
        last_word={
            name: LastWordGrammar(w["position"], frozenset(w["words"]), w["message"])
            for w in data["last_word"]
            for name in w["directives"]
        },
        requires=tuple(
            Requirement(r["switch"], r["needs"], r["pass"], tuple(r["schemes"]), r["message"])
            for r in data["requires"]
        ),
        server_checks=tuple(
            ServerCheck(
                c["switch"],
                frozenset(c["values"]),
                c["message"],
                tuple(c.get("needs", ())),
                c.get("capability"),
                c.get("since"),
                c.get("until"),
            )
            for c in (*data["server_requires"], *data["server_unsupported"])
        ),
        stream_by_certificate_since=data["tls_servers"]["stream_by_certificate_since"],
    )


def _post_check(data: dict[str, Any]) -> PostCheck:
    (test,) = [k for k in data if k != "message"]
    return PostCheck(test, int(data[test]), data["message"])


@record(frozen=True)
class DirectiveShapes:
    """Which directives take a block, as real nginx builds answered (directives.json)."""

    block: frozenset[str]
    simple: frozenset[str]
    mixed: dict[str, dict[str, str]]  # name -> enclosing block ("(top)" at a file's top) -> kind
    free_content: frozenset[str]  # blocks that hold values, not directives (map, types, ...)

    def kind(self, name: str, parent: str | None) -> str | None:
        """`block`, `simple`, or None when unknown (another module's directive, or a name whose
        kind depends on an enclosing block we cannot see)."""
        if name in self.simple:
            return "simple"
        if name in self.block:
            return "block"
        by_parent = self.mixed.get(name)
        if by_parent is None:
            return None
        kind = by_parent.get(parent or "(top)")
        return kind if kind in ("block", "simple") else None


@cache
def directive_shapes() -> DirectiveShapes:
    """The builds' answers, and for a name none of them answered for (ssl_conf_command and
    ssl_alpn were missed by the probes, other modules are not built there) the NGX_CONF_BLOCK
    flag of its `ngx_command_t` entries in nginx's source, where every release agrees: nginx
    refuses a `{` after a directive without it (issue 36: a `;` lost before a block)."""
    data = _json("directives")
    block, simple = set(data["block"]), set(data["simple"])
    probed = block | simple | set(data["mixed"])
    for name, entries in _json("nginx_directives")["directives"].items():
        kinds = {bool(e["block"]) for e in entries}
        if name not in probed and len(kinds) == 1:
            (block if kinds.pop() else simple).add(name)
    return DirectiveShapes(
        block=frozenset(block),
        simple=frozenset(simple),
        mixed=dict(data["mixed"]),
        free_content=frozenset(data["free_content"]),
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
