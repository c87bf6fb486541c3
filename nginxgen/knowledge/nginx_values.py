"""How nginx reads directive values (nginx_values.json, read off nginx's sources per release by
scripts/build_value_tables.py), and the grammars of its custom setters with the checks nginx
makes when it merges a server (nginx_values.toml)."""

from __future__ import annotations

from functools import cache, lru_cache

from nginxgen.base.records import record
from nginxgen.base.version import Version
from nginxgen.knowledge.data import from_table, holds, json_file, release_index, toml_file

TYPE_CHECKING = False  # typing is not imported at run time: it slows every pre-commit start
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any, TypeVar

    from nginxgen.knowledge.builds import Target

    T = TypeVar("T")


@record(frozen=True)
class ValueTable:
    """What one module's own setter reads as a directive's value in a release
    (nginx_values.json, read off nginx's sources): enum or bitmask names (any letter case),
    num bounds, an offset (k, m and g), or the parameters of a listen handler or of an
    upstream block's server handler."""

    module: str
    enum: tuple[str, ...] | None = None
    bitmask: tuple[str, ...] | None = None
    bounds: tuple[int, int | None] | None = None
    offset: bool = False
    words: tuple[str, ...] = ()  # listen, server: parameters compared whole
    prefixes: tuple[str, ...] = ()  # compared by their start (backlog=, weight=)

    def reads_parameter(self, value: str) -> bool:
        """Whether the handler compares some parameter with this one: one of its words, or
        starting with one of its prefixes (else nginx: invalid parameter)."""
        return value in self.words or any(value.startswith(p) for p in self.prefixes)


def value_tables(target: Target, name: str) -> tuple[ValueTable, ...]:
    """The value tables of a directive in the target's nginx release, one per module."""
    return _value_tables(str(target.nginx), name)


def parameter_since(target: Target, name: str, module: str, value: str) -> str | None:
    """The first release after the target's whose `module` handler of `name` reads this
    parameter (`resolve` in an upstream's server: 1.27.3); None: none does."""
    releases: list[str] = json_file("nginx_values")["releases"]
    after = release_index(tuple(releases), str(target.nginx)) + 1
    for release in releases[after:]:
        tables = _value_tables(release, name)
        if any(t.module == module and t.reads_parameter(value) for t in tables):
            return release
    return None


@lru_cache(maxsize=1024)  # bounded: names come from the text being edited (the language server)
def _value_tables(version: str, name: str) -> tuple[ValueTable, ...]:
    table = json_file("nginx_values")
    at = release_index(tuple(table["releases"]), version)
    out = []
    for e in table["directives"].get(name, ()):
        if not holds(e["ranges"], at):
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
    # the parameters that set the socket's options: at most one listen of an address has them
    socket_options: tuple[str, ...]
    options_again: str
    protocols_again: str
    protocols_again_since: str
    link_local: str  # the bind nginx -t tries on an IPv6 link-local address, and fails

    def sets_options(self, words: list[str]) -> bool:
        """Whether a listen (its words, the address first) sets the socket's options."""
        return any(
            parameter.startswith(o) if o.endswith("=") else parameter == o
            for parameter in words[1:]
            for o in self.socket_options
        )

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
class AddressGrammar:
    """A pass whose address takes no URI: after one of `schemes` (which the module strips,
    any letter case), a `/` or `?` in a host[:port] (for an IPv6 address, a `/` after its `]`)
    is refused with `message` (`{value}`: the address as nginx prints it)."""

    schemes: tuple[str, ...]
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
class BackendCertificates:
    """A client certificate for a backend where a pass goes to TLS: the certificate directive
    each sender (a pass, or stream's `proxy_ssl`) uses, whose key is `<certificate>_key`;
    nginx's message for a certificate without its key; the releases [since, until) that take an
    empty value for a certificate (nginx then fails to load it)."""

    senders: dict[str, str]
    missing_key: str
    empty_is_certificate_since: str
    empty_is_certificate_until: str
    empty_unloadable: str


@record(frozen=True)
class VariableGrammar:
    """Where a config defines variables, and which arguments nginx does not compile (their `$`
    names are text): nginx_values.toml, [variables]."""

    message: str  # nginx's words for a name nothing defines (`{name}`)
    defines: dict[str, int]  # directive -> the argument naming the variable (1-based, -1 last)
    text: frozenset[str]
    text_since: dict[str, str]  # directive -> the release from which its arguments are text
    text_first: frozenset[str]
    regex_when_tilde: frozenset[str]
    if_regex_operators: frozenset[str]
    text_blocks: frozenset[str]
    dollar_whole: frozenset[str]


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
class BlockConflict:
    """Two settings nginx refuses in one block (in the releases that have both directives):
    the later line of the two stops nginx -t, with `message_first` where it is the `first`
    one."""

    contexts: frozenset[str]
    first: str
    first_values: frozenset[str]
    second: str
    second_values: frozenset[str]
    message_first: str
    message_second: str


@record(frozen=True)
class BuildOption:
    """A value a setter reads only where nginx was configured with an option (`aio on` needs
    --with-file-aio): elsewhere `nginx -t` refuses it with `message`."""

    words: frozenset[str]  # the first argument's words (or `word=...` prefixes) that need it
    option: str  # the configure option, as Target.modules names it (`file-aio`, `threads`)
    message: str


@record(frozen=True)
class ZoneAdder:
    """One directive that adds a shared memory zone by name (nginx_values.toml, shared_zones):
    a declaration where it gives a size, a use where it does not."""

    directive: str
    families: frozenset[str]
    use: str  # the tag: lines of one use (and family) name one zone
    form: str  # shared, parameter or first
    parameter: str = ""
    size_argument: int = 0
    again: str = ""  # a second declaration of the name is refused with this
    unknown: str = ""  # a use no declaration with `again` (a cache path) answers


@record(frozen=True)
class SharedZones:
    other_use: str
    size_conflict: str
    zero_size: str
    adders: dict[str, ZoneAdder]


@record(frozen=True)
class LogFormats:
    """One family's access log formats (nginx_values.toml, log_formats)."""

    family: str
    builtin: tuple[str, ...]
    implied: str  # the format of `access_log PATH;` ("": refused with `unspecified`)
    unknown: str
    duplicate: str
    unspecified: str


@record(frozen=True)
class LocationGrammar:
    """location's modifiers (its two-word form) and nginx's words for another first word."""

    modifiers: frozenset[str]
    message: str


@record(frozen=True)
class IfCondition:
    """`if`'s condition: the operators nginx reads and its words for the rest
    (nginx_values.toml [if_condition])."""

    comparisons: frozenset[str]
    regex_matches: frozenset[str]
    file_tests: frozenset[str]
    invalid: str
    unexpected: str


@record(frozen=True)
class StatusCodes:
    """A setter that reads status codes (error_page): nginx_values.toml [[status_codes]]."""

    low: int
    high: int
    refused: frozenset[int]
    invalid: str  # `{value}`: the argument
    out_of_range: str


@record(frozen=True)
class ExpiresGrammar:
    """expires' value (nginx_values.toml [expires])."""

    directives: tuple[str, ...]
    words: frozenset[str]
    modified: str
    day: int  # seconds: a time of day (`@`) may not pass it
    invalid: str  # `{directive}`
    daily_modified: str
    daily_too_long: str


@record(frozen=True)
class BufferSizes:
    """A proxy's buffer settings and nginx's words for the ones it refuses at merge time
    (nginx_values.toml [buffer_sizes]); {p} the module's prefix."""

    prefixes: tuple[str, ...]
    page_size: int
    two: str
    busy_small: str
    busy_large: str
    write_small: str
    max_small: str


@record(frozen=True)
class SamePath:
    """Two paths of one name nginx refuses (nginx_values.toml [same_path]); the cache paths'
    directives are [[cache_paths]]'s."""

    temp: frozenset[str]
    message: str


@record(frozen=True)
class Networks:
    """allow's, deny's and geo's networks and nginx's words for what it refuses
    (nginx_values.toml [networks])."""

    access: tuple[str, ...]
    access_words: frozenset[str]
    access_message: str
    geo_alone: frozenset[str]
    geo_count: str
    geo_network: str


@record(frozen=True)
class AccessLogGrammar:
    """access_log's parameters and nginx's words for each refusal (nginx_values.toml
    [access_log])."""

    directives: tuple[str, ...]
    buffer: str
    flush: str
    level: str
    parameter: str
    no_buffer: str
    variables: str
    syslog: str
    conflicting: str  # a file's second buffered line with another buffer, flush or gzip


@record(frozen=True)
class LogLevels:
    """error_log's levels (nginx_values.toml [log_levels])."""

    directives: tuple[str, ...]
    levels: frozenset[str]
    debug: frozenset[str]
    unjudged: tuple[str, ...]  # file prefixes whose levels are not judged
    invalid: str
    duplicate: str


@record(frozen=True)
class VariableFirst:
    directives: tuple[str, ...]
    message: str


@record(frozen=True)
class KeyZone:
    """A limit module's zone declaration (nginx_values.toml [[key_zones]])."""

    rate: bool  # takes rate= (limit_req_zone)
    min_size: int
    invalid_size: str
    too_small: str
    invalid_rate: str
    invalid: str
    missing: str  # `{directive}`


@record(frozen=True)
class CachePath:
    """A cache path directive's parameters (nginx_values.toml [[cache_paths]])."""

    prefixes: dict[str, str]  # prefix -> how its value is read
    since: dict[str, str]  # prefix -> the first release that reads it
    messages: dict[str, str]  # prefix -> nginx's words refusing its value (`{value}`)
    zone_min: int
    too_small: str
    invalid: str
    missing: str  # `{directive}`


@record(frozen=True)
class ResolverGrammar:
    """resolver's parameters (nginx_values.toml [resolver])."""

    directives: tuple[str, ...]
    valid: str
    switches: dict[str, str]  # prefix -> the first release that reads it
    invalid: str  # `{value}`
    both_off: str
    both_off_since: str


@record(frozen=True)
class MethodRedefined:
    """A second balancing method in one upstream{} (nginx_values.toml [method_redefined])."""

    message: str
    keepalive: str  # the directive that counts as one before `keepalive_until`
    keepalive_until: str


@record(frozen=True)
class BalancingMethod:
    """A balancing method's directive in one family (http, stream), and the server parameters
    its flags lack: a server line after it with one of them stops nginx -t (`message`)."""

    unsupported: frozenset[str]
    message: str  # `{value}`: the parameter


@record(frozen=True)
class NoPort:
    """Passes whose name without a port needs an upstream{} of that name (by family)."""

    http: tuple[str, ...]
    stream: tuple[str, ...]
    schemes: tuple[str, ...]  # stripped before the name is read
    message: str


@record(frozen=True)
class CustomGrammars:
    """The grammars of nginx's custom setters, written once in nginx_values.toml."""

    caches: dict[str, SharedCacheGrammar]
    listen: ListenGrammar
    arguments: dict[str, ArgumentsGrammar]
    parameters: dict[str, ParametersGrammar]
    post: dict[str, tuple[PostCheck, ...]]
    last_word: dict[str, LastWordGrammar]
    addresses: dict[str, AddressGrammar]
    requires: tuple[Requirement, ...]
    server_checks: tuple[ServerCheck, ...]
    block_conflicts: tuple[BlockConflict, ...]
    backend_certificates: BackendCertificates
    variables: VariableGrammar
    stream_by_certificate_since: str
    build_options: dict[str, tuple[BuildOption, ...]]
    shared_zones: SharedZones
    log_formats: dict[str, LogFormats]  # by family
    server_name_conflict: str  # the warning for a name two servers of an address give
    server_name_declined: str  # the error for a name the address's hash declines
    server_name_invalid: str  # the error for a name server_name itself refuses
    no_port: NoPort
    location: LocationGrammar
    if_condition: IfCondition
    status_codes: dict[str, StatusCodes]
    balancing_methods: dict[tuple[str, str], BalancingMethod]  # by (family, directive)
    expires: ExpiresGrammar
    log_levels: LogLevels
    access_log: AccessLogGrammar
    networks: Networks
    same_path: SamePath
    buffer_sizes: BufferSizes
    variable_first: VariableFirst
    server_values: dict[str, str]  # an upstream's server parameter prefix -> its parser
    key_zones: dict[str, KeyZone]
    method_redefined: MethodRedefined
    cache_paths: dict[str, CachePath]
    resolver: ResolverGrammar


@cache
def off_alone() -> frozenset[str]:
    """Directives whose `off` stands alone in a block (nginx_values.toml [off_alone]): a second
    line after it, or it after another line, is refused as duplicate."""
    return frozenset(toml_file("nginx_values")["off_alone"]["directives"])


@cache
def custom_grammars() -> CustomGrammars:
    data = toml_file("nginx_values")
    return CustomGrammars(
        caches=_by_directive(data["shared_caches"], lambda c: from_table(SharedCacheGrammar, c)),
        listen=_listen_grammar(data["listen"]),
        arguments=_by_directive(data["arguments"], lambda a: from_table(ArgumentsGrammar, a)),
        parameters=_by_directive(data["parameters"], _parameters_grammar),
        post=_by_directive(data["post"], lambda p: tuple(_post_check(c) for c in p["checks"])),
        last_word=_by_directive(data["last_word"], lambda w: from_table(LastWordGrammar, w)),
        addresses=_by_directive(data["addresses"], lambda a: from_table(AddressGrammar, a)),
        requires=tuple(
            from_table(Requirement, r, pass_directive=r["pass"]) for r in data["requires"]
        ),
        server_checks=tuple(
            from_table(ServerCheck, c)
            for c in (*data["server_requires"], *data["server_unsupported"])
        ),
        block_conflicts=tuple(from_table(BlockConflict, c) for c in data["block_conflicts"]),
        backend_certificates=from_table(BackendCertificates, data["backend_certificates"]),
        variables=from_table(VariableGrammar, data["variables"]),
        stream_by_certificate_since=data["tls_servers"]["stream_by_certificate_since"],
        build_options={
            name: tuple(
                from_table(BuildOption, o) for o in data["build_options"] if name in o["directives"]
            )
            for name in {n for o in data["build_options"] for n in o["directives"]}
        },
        shared_zones=_shared_zones(data["shared_zones"]),
        log_formats={f["family"]: from_table(LogFormats, f) for f in data["log_formats"]},
        server_name_conflict=data["server_names"]["conflict"],
        server_name_declined=data["server_names"]["declined"],
        server_name_invalid=data["server_names"]["invalid"],
        no_port=from_table(NoPort, data["no_port"]),
        location=from_table(LocationGrammar, data["location"]),
        if_condition=from_table(IfCondition, data["if_condition"]),
        status_codes=_by_directive(data["status_codes"], lambda c: from_table(StatusCodes, c)),
        expires=from_table(ExpiresGrammar, data["expires"]),
        log_levels=from_table(LogLevels, data["log_levels"]),
        access_log=from_table(AccessLogGrammar, data["access_log"]),
        networks=from_table(Networks, data["networks"]),
        same_path=from_table(SamePath, data["same_path"]),
        buffer_sizes=from_table(BufferSizes, data["buffer_sizes"]),
        variable_first=from_table(VariableFirst, data["variable_first"]),
        server_values=dict(data["server_parameter_values"]["values"]),
        key_zones=_by_directive(data["key_zones"], lambda z: from_table(KeyZone, z)),
        method_redefined=from_table(MethodRedefined, data["method_redefined"]),
        cache_paths=_by_directive(data["cache_paths"], lambda c: from_table(CachePath, c)),
        resolver=from_table(ResolverGrammar, data["resolver"]),
        balancing_methods={
            (family, name): from_table(BalancingMethod, method)
            for method in data["balancing_methods"]
            for family in method["families"]
            for name in method["directives"]
        },
    )


def _shared_zones(zones: dict[str, Any]) -> SharedZones:
    adders = {
        name: from_table(
            ZoneAdder, adder, directive=name, use=adder["use"].format(prefix=name.split("_")[0])
        )
        for adder in zones["adders"]
        for name in adder["directives"]
    }
    return from_table(SharedZones, zones, adders=adders)


def _by_directive(
    tables: list[dict[str, Any]], make: Callable[[dict[str, Any]], T]
) -> dict[str, T]:
    """Each table's grammar under each directive it names (`directives`)."""
    return {name: make(table) for table in tables for name in table["directives"]}


def _listen_grammar(listen: dict[str, Any]) -> ListenGrammar:
    return ListenGrammar(
        listen["invalid"],
        listen["port"],
        listen["host"],
        tuple((q["since"], tuple(q["parameters"])) for q in listen["quic"]),
        listen["quic_message"],
        tuple((u["since"], tuple(u["parameters"])) for u in listen["udp"]),
        listen["udp_message"],
        tuple(listen["socket_options"]),
        listen["options_again"],
        listen["protocols_again"],
        listen["protocols_again_since"],
        listen["link_local"],
        {
            p: from_table(ListenPrefix, v, message=v.get("message"))
            for p, v in listen["prefixes"].items()
        },
    )


def _parameters_grammar(p: dict[str, Any]) -> ParametersGrammar:
    return ParametersGrammar(
        frozenset(p["words"]),
        dict(p["prefixes"]),
        p["invalid"],
        p.get("required"),
        frozenset(p.get("unless", ())),
        p.get("missing", ""),
    )


def _post_check(data: dict[str, Any]) -> PostCheck:
    (test,) = [k for k in data if k != "message"]
    return PostCheck(test, int(data[test]), data["message"])
