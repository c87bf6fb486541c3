"""The server names of an address:port that nginx cannot hash: a name too long for a bucket
stops `nginx -t` with `could not build server_names_hash, you should increase
server_names_hash_bucket_size: 64`; names too many for the max size draw `could not build
optimal server_names_hash, you should increase either server_names_hash_max_size: 512 or
server_names_hash_bucket_size: 64; ignoring server_names_hash_bucket_size`. nginx's own words,
naming no file or line.

Where more than one server listens on an address:port, nginx puts their exact names in one hash
(ngx_hash_init, as for the header hashes: NGX015), lower-cased, a conflicting name (NGX017) left
out. A bucket is server_names_hash_bucket_size bytes (by default the CPU's cache line, taken as
64 here: x86-64), aligned up to the cache line; a name takes 8 bytes and its length plus 2,
aligned to 8, and a bucket keeps 8 bytes for its end: with 64-byte buckets no name of 47
characters or more fits, however many servers there are. The error is on each server_name line
that gives such a name; the warning on the address's last server_name line (or the max size's
line where one is set). In stream{} from nginx 1.25.5, with its own sizes.

Not judged: the wildcard names' hashes (`.name`, `*.name`, `name.*`: split at the dots, each part
hashed on its own), `$hostname` (the machine's name), an address with one server whose name is a regular
expression with captures (nginx hashes its names too), and a tree with an include not read.

Fail:
    http {
        server { listen 8080; server_name a.example; return 204; }
        server {
            listen 8080;
            server_name the-name-of-a-service.eu-west-1.region.example.com;
            return 204;
        }
    }
Fix (or a shorter name):
    http {
        server_names_hash_bucket_size 128;
        server { listen 8080; server_name a.example; return 204; }
        server {
            listen 8080;
            server_name the-name-of-a-service.eu-west-1.region.example.com;
            return 204;
        }
    }

Sources: nginx src/http/ngx_http.c (ngx_http_optimize_servers, ngx_http_server_names),
src/http/ngx_http_core_module.c (ngx_http_core_init_main_conf: the defaults and the alignment),
src/core/ngx_hash.c (ngx_hash_init, ngx_hash_add_key) and their stream{} twins; nginx docs
"Server names" (Optimization); seen with nginx -t on Debian 12's and 13's nginx and nginx 1.31.3
(tests/lint/test_server_names_live.py).
"""

from __future__ import annotations

from collections.abc import Iterator

from nginxgen.base.sockets import address_text
from nginxgen.conf.config import Config, Server
from nginxgen.conf.load import Stmt
from nginxgen.conf.per_name import by_name
from nginxgen.knowledge import header_hashes
from nginxgen.knowledge.header_hashes import CACHELINE, POINTER
from nginxgen.lint.context import Context, Rule
from nginxgen.lint.findings import Finding, Severity
from nginxgen.lint.rules._server_names import hashed

RULE = Rule(
    code="NGX018",
    name="server-names-hash",
    severity=Severity.WARNING,
    fix="raise server_names_hash_max_size (or _bucket_size) in the block of the servers",
    otherwise=((Severity.ERROR, "a server name too long for a bucket: nginx -t fails"),),
    triggers=("server_name", "server_names_hash_max_size", "server_names_hash_bucket_size"),
)
HASH = "server_names_hash"
MAX_SIZE = 512  # ngx_http_core_init_main_conf's default


def check(ctx: Context) -> Iterator[Finding]:
    if ctx.unread_include():
        return  # an include not read may hold names or sizes
    for family in ctx.families():
        if by_name(family):
            yield from _hashes(ctx, family.config)


def _size(config: Config, name: str, default: int) -> tuple[int, Stmt | None]:
    lines = config.http.get(name, [])
    if not lines or not lines[-1].args[0].isdigit():
        return default, None  # a value nginx refuses is NGX010's
    return int(lines[-1].args[0]), lines[-1]


def _hashes(ctx: Context, config: Config) -> Iterator[Finding]:
    max_size, max_line = _size(config, f"{HASH}_max_size", MAX_SIZE)
    bucket, bucket_line = _size(config, f"{HASH}_bucket_size", CACHELINE)
    bucket = header_hashes.align(bucket)
    too_long: set[int] = set()
    for socket, servers in config.sockets.items():
        if len(servers) < 2:
            continue  # one server: nginx builds no hash for the address
        names = list(_exact(servers, socket))
        if any(name == "$hostname" for _, name in names):
            continue
        keys = tuple(name.encode("utf-8", "surrogateescape") for _, name in names)
        outcome = header_hashes.build(HASH, keys, frozenset(), max_size, bucket)
        address = address_text(socket)
        if outcome.kind == "emerg" and outcome.culprit is not None:
            # every name too long, not only nginx's first: each needs the same mending
            for stmt, name in names:
                size = header_hashes.element_size(name.encode()) + POINTER
                if size > bucket and id(stmt) not in too_long:
                    too_long.add(id(stmt))
                    yield ctx.finding(
                        RULE,
                        stmt,
                        f"{outcome.message}: nginx -t fails (the name {name!r}, {len(name)} "
                        f"characters, on {address} beside other servers)",
                        f"server_names_hash_bucket_size {header_hashes.align(size)} in "
                        f"{config.block}{{}}, or a shorter name",
                        Severity.ERROR,
                    )
        elif outcome.kind == "emerg":
            yield ctx.finding(
                RULE, max_line or names[-1][0], f"{outcome.message}: nginx -t fails",
                severity=Severity.ERROR,
            )  # fmt: skip
        elif outcome.kind == "warn":
            where = max_line or bucket_line or names[-1][0]
            yield ctx.finding(
                RULE,
                where,
                f"{outcome.message} (nginx -t warns so, naming no line, for the {len(names)} "
                f"names of {address})",
            )


def _exact(servers: list[Server], socket: str) -> Iterator[tuple[Stmt, str]]:
    """The exact names nginx hashes for the address (NGX017's reading of them), each with its
    server_name line; `.name` is a wildcard's (it matches `name` through the wildcard hash)."""
    for stmt, name, taken in hashed(servers, socket):
        wild = name.startswith((".", "*.")) or name.endswith(".*")
        if not taken and not wild:
            yield stmt, name
