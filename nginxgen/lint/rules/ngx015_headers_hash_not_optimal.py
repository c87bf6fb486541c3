"""Header lists nginx cannot hash well: `nginx -t` warns `could not build optimal
proxy_headers_hash, you should increase either proxy_headers_hash_max_size: 512 or
proxy_headers_hash_bucket_size: 64; ignoring proxy_headers_hash_bucket_size` (grpc_set_header:
`grpc_headers_hash`), nginx's own words, naming no file or line; or, for a name too long for a
bucket, stops with `could not build proxy_headers_hash, you should increase
proxy_headers_hash_bucket_size: 64`.

nginx hashes the names of each list of headers it sends upstream: a level's proxy_set_header
lines followed by the defaults they do not name (Host, Connection, Content-Length, ...; with
`proxy_cache` on, a second list adds If-Modified-Since, Range, ...), and the headers it hides
from the client (proxy_hide_header, less proxy_pass_header). Equal names always share a bucket:
`proxy_set_header X-Forwarded-For ...` twice (15 to 22 characters: 32 bytes each, a 64-byte
bucket holds 56) can never fit, whatever the max size. A level (server, location) without lines
of its own takes the outer level's list and its hash, built once; each level with lines of its
own, or a size of its own where it builds, builds one, and so warns again. The finding is on the
line that makes the list fail (the repeated header), or on the size line where the defaults
alone fail; each such line once.

Fail:
    location / {
        proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
        proxy_set_header X-Forwarded-For $remote_addr;
        proxy_pass http://127.0.0.1:8080;
    }
Fix (each header once; or a larger proxy_headers_hash_bucket_size, e.g. 128):
    location / {
        proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
        proxy_pass http://127.0.0.1:8080;
    }

grpc's sizes are fixed (512, 64): a grpc list that does not fit has no size to raise. Not
covered here: fastcgi, uwsgi and scgi (their `*_hide_headers_hash` and `*_params` hashes), and
the map, types, variables and server_names hashes.

Sources: nginx src/core/ngx_hash.c (ngx_hash_init), src/http/modules/ngx_http_proxy_module.c
and ngx_http_grpc_module.c (merge_loc_conf, init_headers), src/http/ngx_http_upstream.c
(ngx_http_upstream_hide_headers_hash), per release in nginxgen/knowledge/nginx_header_hashes.json
(scripts/build_header_hash_tables.py); seen with nginx -t on Debian 12's and 13's nginx and
nginx 1.31.3 (tests/lint/test_headers_hash_live.py); found trying Authelia's nginx config.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from functools import cache, lru_cache

from nginxgen.base.records import record
from nginxgen.conf.config import Config, Location, Server
from nginxgen.conf.load import Stmt
from nginxgen.knowledge import header_hashes
from nginxgen.knowledge.header_hashes import HashModule, Outcome
from nginxgen.lint.context import Context, Rule, server_label
from nginxgen.lint.findings import Finding, Severity

RULE = Rule(
    code="NGX015",
    name="headers-hash-not-optimal",
    severity=Severity.WARNING,
    fix="set each header once; or raise proxy_headers_hash_bucket_size (128) or _max_size",
    otherwise=((Severity.ERROR, "a header name too long for a bucket: nginx -t fails"),),
    triggers=(
        "proxy_set_header",
        "proxy_hide_header",
        "proxy_pass_header",
        "proxy_headers_hash_max_size",
        "proxy_headers_hash_bucket_size",
        "grpc_set_header",
        "grpc_hide_header",
        "grpc_pass_header",
    ),
)


LISTS = ("set_header", "hide_header", "pass_header")
SIZES = ("headers_hash_max_size", "headers_hash_bucket_size")


class _Unset:
    """NGX_CONF_UNSET_PTR: a list a level does not set (nginx compares the pointers)."""


UNSET = _Unset()


@record(eq=False)
class _Lines:
    """One level's lines of a list directive; compared by identity, as nginx's pointers."""

    stmts: tuple[Stmt, ...]


@record(frozen=True)
class _Size:
    value: int
    stmt: Stmt | None  # the line that sets it; None: the default


@record(eq=False)
class _Conf:
    """The parts of a level's ngx_http_proxy_loc_conf_t (grpc's) that the hashes read."""

    server: Server | None  # at a server's own level
    block: Stmt | None  # the server's or location's line (None: http{} of a file alone)
    source: _Lines | _Unset | None  # headers_source; None: NULL
    hide: _Lines | _Unset
    passed: _Lines | _Unset
    max_size: _Size | None = None  # None: unset (http{} level)
    bucket_size: _Size | None = None
    cache: int | None = None
    store: int | None = None
    headers_built: bool = False  # headers.hash.buckets != NULL
    cache_built: bool = False
    hide_built: bool = False


@record(frozen=True)
class Build:
    """A hash nginx builds that it warns about or refuses: the line it is reported on."""

    module: HashModule
    what: str  # "headers", "cache headers", "hidden headers"
    where: str
    outcome: Outcome
    stmt: Stmt
    twice: str = ""  # the repeated name that makes it, if one does


class _Refused(Exception):
    """nginx -t stopped: nothing after this build is read."""


def check(ctx: Context) -> Iterator[Finding]:
    reported: dict[tuple[int, str], int] = {}
    found: list[Build] = []
    for build in builds(ctx.config, str(ctx.target.nginx), ctx.all_statements()):
        key = (id(build.stmt), build.outcome.message)
        reported[key] = reported.get(key, 0) + 1
        if reported[key] == 1:
            found.append(build)
    for build in found:
        times = reported[(id(build.stmt), build.outcome.message)]
        yield _finding(ctx, build, times)


def _finding(ctx: Context, build: Build, times: int) -> Finding:
    module = build.module
    again = f"; {times} times, once per level that builds it" if times > 1 else ""
    why = (
        f'"{build.twice}" is in this list twice, and equal names always share one bucket'
        if build.twice
        else f"its names do not fit {module.hash}'s buckets"
    )
    context = f"the {build.what} for {build.where}"
    if build.outcome.kind == "emerg":
        message = f"{build.outcome.message}: nginx -t fails building {context}"
        return ctx.finding(RULE, build.stmt, message, _fix(module, build), Severity.ERROR)
    message = f"{build.outcome.message} (nginx -t warns so, naming no line, building {context}: {why}{again})"
    return ctx.finding(RULE, build.stmt, message, _fix(module, build))


def _fix(module: HashModule, build: Build) -> str:
    if build.twice:
        return f'set "{build.twice}" once in this list'
    if build.outcome.culprit is not None and build.stmt.directive.endswith("_set_header"):
        if not module.sizes_directives:
            return f"shorten the name: {module.hash}'s sizes cannot be set"
        # the bucket that holds this one name: its element and the bucket's end pointer
        name = build.stmt.args[0].encode("utf-8", "surrogateescape")
        needed = header_hashes.align(header_hashes.element_size(name) + header_hashes.POINTER)
        return f"raise {module.module}_headers_hash_bucket_size to {needed}, or shorten the name"
    if module.sizes_directives:
        return f"raise {module.module}_headers_hash_bucket_size (128) or _max_size"
    return f"shorten or drop a header: {module.hash}'s sizes cannot be set"


def builds(config: Config, version: str, statements: Iterable[Stmt]) -> Iterator[Build]:
    """Each header hash nginx builds for this config (`statements`: all of its lines) that it
    warns about, in nginx's order (module by module, each server, then its locations,
    outermost first), up to the first it refuses (nginx -t stops there)."""
    present = set()
    for stmt in statements:
        if stmt.unread:
            return  # an include not read may set any of it
        present.add(stmt.directive)
    if config.block != "http":
        return
    removed = header_hashes.sizes_removed(version)
    try:
        for module in header_hashes.modules(version):
            # the default lists fit the default sizes: a module without lines or sizes is done
            if not present.isdisjoint(f"{module.module}_{d}" for d in (*LISTS, *SIZES)):
                yield from _module_builds(config, module, removed)
    except _Refused:
        return


def _module_builds(config: Config, module: HashModule, removed: bool) -> Iterator[Build]:
    read = _directives(module.module)
    http = _own(module, config.http, None, config.http_stmt)
    if http is None:
        return
    for server in config.servers:
        conf = _own(module, server.directives, server, server.stmt)
        if conf is None:
            return
        yield from _merge(module, http, conf, removed)
        confs: dict[int, _Conf] = {}
        for chain in server.all_locations():
            location: Location = chain[-1]
            prev = confs[id(chain[-2])] if len(chain) > 1 else conf
            if read.isdisjoint(location.directives):
                # nothing of its own: it takes the outer level's lists and built hashes whole
                confs[id(location)] = prev
                continue
            own = _own(module, location.directives, None, location.stmt)
            if own is None:
                return
            confs[id(location)] = own
            yield from _merge(module, prev, own, removed)


@cache
def _directives(module: str) -> frozenset[str]:
    """The directives whose lines change what a level of this module hashes."""
    read = ("set_header", "hide_header", "pass_header", "cache", "store", *SIZES)
    return frozenset(f"{module}_{directive}" for directive in read)


def _own(
    module: HashModule,
    directives: dict[str, list[Stmt]],
    server: Server | None,
    block: Stmt | None,
) -> _Conf | None:
    """A level's own settings (None: a size nginx cannot read, which NGX010 reports)."""
    name = module.module

    def lines(directive: str, args: int) -> _Lines | _Unset:
        stmts = tuple(s for s in directives.get(f"{name}_{directive}", []) if len(s.args) == args)
        return _Lines(stmts) if stmts else UNSET

    conf = _Conf(server, block, lines("set_header", 2), lines("hide_header", 1),
                 lines("pass_header", 1))  # fmt: skip
    if module.sizes_directives:
        for field in ("max_size", "bucket_size"):
            stmts = directives.get(f"{name}_headers_hash_{field}", [])
            if stmts:
                value = stmts[0].args[0] if len(stmts[0].args) == 1 else ""
                if not value.isdigit():
                    return None
                setattr(conf, field, _Size(int(value), stmts[0]))
    if name == "proxy":  # the cache variant (ngx_http_proxy_cache_headers)
        for field in ("cache", "store"):
            stmts = directives.get(f"proxy_{field}", [])
            if stmts and stmts[0].args:
                setattr(conf, field, 0 if stmts[0].args[0] == "off" else 1)
    return conf


def _merge(module: HashModule, prev: _Conf, conf: _Conf, removed: bool) -> Iterator[Build]:
    """ngx_http_proxy_merge_loc_conf's (grpc's) part that builds the hashes."""
    if conf.store:
        conf.cache = 0
    if conf.cache is None:
        conf.cache = prev.cache or 0
    default_max = _Size(module.max_size, None)
    default_bucket = _Size(module.bucket_size, None)
    if module.sizes_directives:
        merged_max = conf.max_size or prev.max_size or default_max
        merged_bucket = conf.bucket_size or prev.bucket_size or default_bucket
        conf.max_size = merged_max
        conf.bucket_size = _Size(header_hashes.align(merged_bucket.value), merged_bucket.stmt)
    else:
        conf.max_size, conf.bucket_size = default_max, default_bucket
    yield from _hide(module, prev, conf, removed)
    # the list of lines: a level without its own takes the outer level's (NULL, from 1.19.4,
    # where the outer level has none either) and, where that is the same list, its hashes
    if isinstance(conf.source, _Unset):
        conf.source = (
            None if module.source_unset and isinstance(prev.source, _Unset) else prev.source
        )
    if conf.source is prev.source:
        conf.headers_built, conf.cache_built = prev.headers_built, prev.cache_built
    if not conf.headers_built:
        yield from _headers(module, conf, module.headers, "headers")
        conf.headers_built = True
    if conf.cache and not conf.cache_built:
        yield from _headers(module, conf, module.cache_headers, "cache headers")
        conf.cache_built = True
    # "special handling to preserve conf->headers in the http section to inherit it to all
    # servers": the first server that shares http{}'s list gives it its hashes
    if not prev.headers_built and conf.source is prev.source:
        prev.headers_built, prev.cache_built = conf.headers_built, conf.cache_built


def _hide(module: HashModule, prev: _Conf, conf: _Conf, removed: bool) -> Iterator[Build]:
    """ngx_http_upstream_hide_headers_hash."""
    if isinstance(conf.hide, _Unset) and isinstance(conf.passed, _Unset):
        conf.hide, conf.passed, conf.hide_built = prev.hide, prev.passed, prev.hide_built
        if conf.hide_built:
            return
    else:
        conf.hide = prev.hide if isinstance(conf.hide, _Unset) else conf.hide
        conf.passed = prev.passed if isinstance(conf.passed, _Unset) else conf.passed
    passed = _stmts(conf.passed)

    def listed(given: tuple[Stmt, ...]) -> _List:
        names = [_lower(n) for n in module.hide_headers]
        for stmt in given:  # each name once (ngx_strcasecmp)
            if _lower(stmt.args[0]) not in names:
                names.append(_lower(stmt.args[0]))
        taken: set[int] = set()
        for stmt in passed:  # the first name still listed that a pass_header line names
            name = _lower(stmt.args[0])
            at = next((i for i, n in enumerate(names) if n == name and i not in taken), None)
            if at is not None:
                taken.add(at)
        return tuple(names), frozenset(taken)

    yield from _built(module, conf, "hidden headers", _stmts(conf.hide), listed, removed)
    conf.hide_built = True
    if not prev.hide_built and conf.hide is prev.hide and conf.passed is prev.passed:
        prev.hide_built = True


def _headers(
    module: HashModule, conf: _Conf, defaults: tuple[str, ...], what: str
) -> Iterator[Build]:
    """ngx_http_proxy_init_headers (grpc's): the level's lines, then the defaults they do not
    name."""

    def listed(given: tuple[Stmt, ...]) -> _List:
        return _header_names(tuple(s.args[0] for s in given), defaults, module.host_skipped)

    yield from _built(module, conf, what, _stmts(conf.source), listed, False)


_List = tuple[tuple[bytes, ...], frozenset[int]]  # lowercased names, those taken out


@lru_cache(maxsize=256)  # a fleet repeats a few lists thousands of times
def _header_names(given: tuple[str, ...], defaults: tuple[str, ...], host_skipped: bool) -> _List:
    names = [_lower(name) for name in given]
    if host_skipped:  # kept apart as the Host value, from 1.31.4
        names = [name for name in names if name != b"host"]
    names += [_lower(d) for d in defaults if _lower(d) not in names]
    return tuple(names), frozenset()


def _built(
    module: HashModule,
    conf: _Conf,
    what: str,
    given: tuple[Stmt, ...],
    listed: Callable[[tuple[Stmt, ...]], _List],
    removed: bool,
) -> Iterator[Build]:
    """ngx_hash_init of the list `listed` makes of the level's lines `given`: a Build where
    nginx warns or refuses, on the line that makes it (the first of `given` with which the list
    no longer fits), else on the size line in effect."""
    assert conf.max_size is not None and conf.bucket_size is not None
    sizes = (conf.max_size.value, conf.bucket_size.value, removed)
    outcome = header_hashes.build(module.hash, *listed(given), *sizes)
    if outcome.kind == "ok":
        return
    size_line = conf.bucket_size.stmt or conf.max_size.stmt
    stmt: Stmt | None = None
    twice = ""
    if outcome.kind == "emerg" and outcome.culprit is not None:
        # a name too long: the line that gives it, if a line does (the lines come first)
        stmt = _line_of(given, listed(given)[0][outcome.culprit])
    elif outcome.kind == "emerg":
        stmt = conf.max_size.stmt if "max_size" in outcome.message else size_line
    else:
        for count in range(len(given) + 1):
            if header_hashes.build(module.hash, *listed(given[:count]), *sizes).kind != "ok":
                if count:
                    stmt = given[count - 1]
                    name = _lower(stmt.args[0])
                    if name in (_lower(s.args[0]) for s in given[: count - 1]):
                        twice = stmt.args[0]
                break
        stmt = stmt or conf.max_size.stmt or size_line
    yield Build(module, what, _where(conf), outcome, stmt or conf.block or _nowhere(), twice)
    if outcome.kind == "emerg":
        raise _Refused


def _where(conf: _Conf) -> str:
    if conf.server is not None:
        return server_label(conf.server)
    if conf.block is not None and conf.block.directive == "location":
        return f"location {' '.join(conf.block.args)} ({conf.block.file}:{conf.block.line})"
    return "http{}"


def _line_of(given: tuple[Stmt, ...], name: bytes) -> Stmt | None:
    return next((s for s in given if _lower(s.args[0]) == name), None)


def _stmts(lines: _Lines | _Unset | None) -> tuple[Stmt, ...]:
    return lines.stmts if isinstance(lines, _Lines) else ()


def _lower(name: str) -> bytes:
    return name.encode("utf-8", "surrogateescape").lower()


def _nowhere() -> Stmt:
    return Stmt("http", [], 1, "")
