"""A shared memory zone nginx cannot set up: `nginx -t` stops with `the shared memory zone "SSL"
is already declared for a different use`, `the size 20971520 of shared memory zone "SSL"
conflicts with already declared size 10485760`, `"fastcgi_cache" zone "php" is unknown`, `zero
size shared memory zone "perip"`, `duplicate zone "php"` or `limit_req_zone "one" is already
bound to key "$binary_remote_addr"`, nginx's own words.

nginx adds every zone a line names (ssl_session_cache and ssl_ocsp_cache `shared:NAME:SIZE`, a
cache path's `keys_zone=`, limit_req_zone and limit_conn_zone `zone=`, an upstream's `zone`, and
the uses: proxy_cache and its fastcgi, scgi and uwsgi twins, limit_req, limit_conn) by name, in
reading order, to one list for the whole configuration. A name belongs to one module in one of
http{}, stream{} and mail{}: the same `ssl_session_cache shared:SSL:10m;` in http{} and in
stream{} is refused at the second, as is a fastcgi_cache naming a proxy_cache_path's zone. Every
line that declares a zone gives it the same size. A cache path and a limit zone are declared
once. Once everything is read, a cache no cache path declared, and a limit_req or limit_conn zone
nothing declared, stop nginx (the first without naming a line that helps: the end of http{};
the second without any): this rule names the line that uses it. Those two are judged only where
the whole tree is read (a file alone may use a zone its nginx.conf declares).

Fail:
    http {
        ssl_session_cache shared:SSL:10m;
        server { listen 443 ssl default_server; server_name a.example; ssl_certificate c.pem; ssl_certificate_key c.key; }
    }
    stream {
        ssl_session_cache shared:SSL:10m;
    }
Fix:
    http {
        ssl_session_cache shared:SSL:10m;
        server { listen 443 ssl default_server; server_name a.example; ssl_certificate c.pem; ssl_certificate_key c.key; }
    }
    stream {
        ssl_session_cache shared:STREAM:10m;
    }

Sources: nginx src/core/ngx_cycle.c (ngx_shared_memory_add; ngx_init_cycle's zero size check),
the modules each cites in nginxgen/knowledge/nginx_values.toml, [shared_zones]; seen with nginx
-t on Debian 12's and 13's nginx and nginx 1.28.3 (tests/lint/test_shared_zones_live.py).
"""

from __future__ import annotations

from collections.abc import Iterator

from nginxgen.base.records import record
from nginxgen.conf.load import Stmt, walk
from nginxgen.knowledge import nginx_values
from nginxgen.knowledge.equal_values import parse_size
from nginxgen.lint.context import Context, Rule
from nginxgen.lint.findings import Finding, Severity

RULE = Rule(
    code="NGX012",
    name="shared-memory-zone",
    severity=Severity.ERROR,
    fix="give each use of a zone its own name, one size, and one declaration",
    # every directive that adds a zone (knowledge: nginx_values.toml, shared_zones)
    triggers=tuple(nginx_values.custom_grammars().shared_zones.adders),
)
FAMILIES = ("http", "stream", "mail")


@record(frozen=True)
class _Add:
    stmt: Stmt
    adder: nginx_values.ZoneAdder
    family: str
    name: str
    size: int  # bytes; 0: a use


@record
class _Zone:
    first: _Add
    tag: tuple[str, str]  # (family, use)
    size: int
    declared: _Add | None = None  # the declaration that keeps data (`again`)


def check(ctx: Context) -> Iterator[Finding]:
    if ctx.target.plus:
        return  # NGINX Plus declares zones in directives of its own (keyval_zone, sticky)
    loaded = ctx.config.loaded
    zones_fact = nginx_values.custom_grammars().shared_zones
    top = {s.directive for s in loaded.statements}
    whole = bool(top & {"http", "stream", "events"})
    zones: dict[str, _Zone] = {}
    for add in _adds(loaded.statements, whole, zones_fact.adders):
        tag = (add.family, add.adder.use)
        zone = zones.get(add.name)
        if zone is None:
            zone = zones[add.name] = _Zone(add, tag, add.size)
        elif zone.tag != tag:
            message = zones_fact.other_use.format(name=add.name)
            fix = f"give this {add.stmt.directive} a zone name of its own"
            yield _found(ctx, add, message, zone.first, fix)
            continue
        elif add.size and zone.size and add.size != zone.size:
            message = zones_fact.size_conflict.format(
                size=add.size, name=add.name, declared=zone.size
            )
            fix = f'give zone "{add.name}" one size everywhere, or this line another name'
            yield _found(ctx, add, message, zone.first, fix)
            continue
        zone.size = zone.size or add.size
        if add.adder.again:
            if zone.declared is not None:
                key = _key(zone.declared)
                message = add.adder.again.format(directive=add.stmt.directive, name=add.name,
                                                 key=key)  # fmt: skip
                fix = "remove one of the two declarations, or give one another name"
                yield _found(ctx, add, message, zone.declared, fix)
            else:
                zone.declared = add
    if not whole or ctx.unread_include():
        return  # a zone used here may be declared in a file not read here
    if loaded.stopped is not None:
        return  # nginx stopped reading (an unclosed quote): it never reached these checks
    yield from _undeclared(ctx, zones, zones_fact)


def free_zone_name(ctx: Context, wanted: str, family: str) -> str:
    """`wanted`, or where the tree names a zone so already, a name it does not use (the fix a
    rule advises must not draw this rule: trial 10, mynode's http{} and stream{})."""
    loaded = ctx.config.loaded
    whole = bool({s.directive for s in loaded.statements} & {"http", "stream", "events"})
    adders = nginx_values.custom_grammars().shared_zones.adders
    taken = {add.name for add in _adds(loaded.statements, whole, adders)}
    for name in (wanted, f"{wanted}_{family}", *(f"{wanted}{n}" for n in range(2, 100))):
        if name not in taken:
            return name
    return wanted


def _undeclared(
    ctx: Context, zones: dict[str, _Zone], zones_fact: nginx_values.SharedZones
) -> Iterator[Finding]:
    """A cache whose zone no cache path declared (nginx stops at http{}'s merge), and any zone
    nothing gave a size (at the cycle's start): once each, at the first line that uses it."""
    for name, zone in zones.items():
        use = zone.first
        if zone.declared is not None or (zone.size and not use.adder.unknown):
            continue
        fix = (
            f"declare it ({_declarer(use.adder, name, zones_fact)}), or use a zone that is declared"
        )
        if use.adder.unknown:
            message = use.adder.unknown.format(directive=use.stmt.directive, name=name)
            yield ctx.finding(RULE, use.stmt, f"{message}; nginx -t fails when it merges http{{}}",
                              fix)  # fmt: skip
        else:
            message = zones_fact.zero_size.format(name=name)
            yield ctx.finding(RULE, use.stmt, f"{message}: nothing declares it; nginx -t fails",
                              fix)  # fmt: skip


def _declarer(
    adder: nginx_values.ZoneAdder, name: str, zones_fact: nginx_values.SharedZones
) -> str:
    """How a zone of this use is declared: the line of its use that keeps data (a cache path,
    a limit zone) with its parameter, or else the use's own line with a size."""
    for other in zones_fact.adders.values():
        if other.use == adder.use and other.again:
            return f"{other.directive} ... {other.parameter}{name}:10m"
    return f"{adder.directive} {name} 64k"


def _found(ctx: Context, add: _Add, message: str, earlier: _Add, fix: str) -> Finding:
    """What ngx_shared_memory_add or the declaring setter says of a line as nginx reads it:
    at the line it stands on then, the statement's last (handled); the zones nothing declares
    are found later, when http{} is merged or the cycle starts, and keep the use's first line."""
    where = f"{earlier.stmt.file}:{earlier.stmt.line}"
    return ctx.finding(
        RULE, add.stmt, f"{message} ({earlier.stmt.directive} at {where})", fix, handled=True
    )


def _key(declared: _Add) -> str:
    """A limit zone's key: its argument that is not a parameter of the form `name=`."""
    return next((a for a in declared.stmt.args if "=" not in a), "")


def _adds(
    statements: list[Stmt], whole: bool, adders: dict[str, nginx_values.ZoneAdder]
) -> Iterator[_Add]:
    """Every zone a line adds, in reading order, with the family of its block (a file without
    http{} or stream{} is read as http{} content)."""
    if whole:
        blocks = [(s.directive, s.block) for s in statements if s.directive in FAMILIES]
    else:
        blocks = [("http", statements)]
    for family, block in blocks:
        for stmt in walk(block or []):
            adder = adders.get(stmt.directive)
            if adder is not None and family in adder.families:
                yield from _named(stmt, adder, family)


def _named(stmt: Stmt, adder: nginx_values.ZoneAdder, family: str) -> Iterator[_Add]:
    """The zones one line names, each with its size (0: a use); a word nginx cannot read as
    a zone is NGX010's (or NGX009's) to report."""
    args = stmt.args
    if adder.form == "shared":
        for arg in args:
            if arg.startswith("shared:"):
                name, _, size = arg[len("shared:") :].partition(":")
                read = parse_size(size)
                if name and read:
                    yield _Add(stmt, adder, family, name, read)
    elif adder.form == "parameter":
        for arg in args:
            if arg.startswith(adder.parameter):
                name, colon, size = arg[len(adder.parameter) :].partition(":")
                read = parse_size(size) if colon else 0
                if name and read is not None:
                    yield _Add(stmt, adder, family, name, read)
    elif args and args[0] != "off" and "$" not in args[0]:
        given = 0
        if adder.size_argument and len(args) >= adder.size_argument:
            given = parse_size(args[adder.size_argument - 1]) or 0
        yield _Add(stmt, adder, family, args[0], given)
