"""A value nginx's own setter cannot read: `nginx -t` stops with `invalid value "yes" in
"ssl_session_tickets" directive, it must be "on" or "off"`, `"ssl_buffer_size" directive invalid
value`, `invalid value "TLSv13"` or `invalid session cache "shared:SSL"`, nginx's own words.

Flags take on or off (any letter case); sizes a number with k or m (offsets also g); times a
number with units in falling order (1h30m; y and M only in settings kept in seconds, ms only in
those kept in milliseconds; a last bare number is seconds); numbers digits, within the bounds
nginx checks (gzip_comp_level 1-9). Enum and bitmask values (ssl_protocols, ssl_verify_client,
ssl_ocsp, proxy_ssl_protocols, ...) are the names of the target release's table, in any letter
case. ssl_session_cache takes off, none, builtin, builtin:N and shared:NAME:SIZE of at least 32k
(exact case), ssl_ocsp_cache off or shared:NAME:SIZE; listen an address with a port 1-65535
(an IPv6 one with its `]`) and the parameters the target release knows, each prefix parameter
with a value it reads (backlog=N, fastopen=N, rcvbuf=size, sndbuf=size, ipv6only=on|off; no
setfib=, FreeBSD's, on Linux); an upstream block's server the parameters the target release
knows (`resolve` and `service=` from nginx 1.27.3, in http{} and stream{}), weight= above 0,
max_conns= and max_fails= numbers, fail_timeout= a time; keepalive_timeout one or two times; add_header and add_trailer
only `always` as a third word; ssl_certificate_cache (and proxy_, grpc_, uwsgi_) max=N, inactive=,
valid= and off, with max= unless off; http2_streams_index_size a power of two, http2_pool_size
112 or more and a multiple of 16, http2_chunk_size not 0. proxy_ssl_verify on (and grpc_,
uwsgi_) where the pass goes to TLS (https://, or a variable) needs trusted certificates in
effect there: nginx checks it when it merges the location, and so a backend's client
certificate (proxy_ssl_certificate, grpc_, uwsgi_, stream's) needs its key there; an empty one
is no certificate, except in nginx 1.21.0 to 1.22.x, which take "" for a certificate file. In a
server nginx sets TLS up for,
ssl_verify_client on or optional needs ssl_client_certificate (from 1.27.2 also
ssl_trusted_certificate), and ssl_ocsp on or leaf a library with OCSP (not BoringSSL): nginx
checks them when it merges the server. No automatic fix of any rule is written on a line with
this error. Likewise when a
TLS server's configuration is merged: `ssl_ocsp` cannot go with `optional_no_ca`; nginx says so
without a file and line, this rule names the `ssl_verify_client` (or `ssl_ocsp`) line in effect.
Two lines one block may not hold: mail's `ssl on` beside `starttls on` or `only` (before 1.25.1,
which removed `ssl`): the later of the two stops nginx -t (`"starttls" directive conflicts with
"ssl on"`), and the fix is to take one out. A pass to a name without a port (fastcgi_pass,
uwsgi_pass, scgi_pass, memcached_pass, grpc_pass; stream's proxy_pass) needs an upstream{} of
that name, in any letter case: without one nginx stops with `no port in upstream "php-cgi"` at
the pass's line. location's two-word form takes a modifier first (=, ^~, ~, ~*): `location /a
b/ {` stops nginx -t with `invalid location modifier "/a"`. rewrite's third word is last,
break, redirect or permanent (exact case); error_page's codes are numbers from 300 to 599 but
499, and its `=code` is a number (or nothing) after the `=`; expires takes epoch, max, off or
a time (after `@`, a time of day within 24h; after `+` or `-`), or `modified` and a time;
`if` a condition in parentheses: a variable alone, a variable, =, !=, ~, ~*, !~ or !~* and one
value, or a file test (-f, -d, -e, -x, each also after `!`) and one value, each a word of its
own; server_name no `*` first without `.` and more, and not `.` alone (`server name "*x" is
invalid`), and where more than one server listens on an address, no name its hash declines (two
`*`, `..`, a `*` elsewhere than `*.` or `.*`: `invalid server name or wildcard`);
allow and deny all, unix: or a network nginx reads (ngx_ptocidr: four decimals up to 255 but
not 255.255.255.255, or IPv6; a mask up to 32 or 128), a geo block's lines one such network
(or default, delete, proxy, include) and one value; a cache path's folder no other path's (two
cache paths, or a cache path and a temp path: `the same path name`); a proxy's (fastcgi's,
uwsgi's, scgi's) buffers as each server and location merges them (at least two; busy buffers
at least the larger of the buffer size and one buffer, and at most all buffers but one;
temp_file_write_size and a max_temp_file_size other than 0 at least that size), named at the end
of http{} as nginx names them, with a memory page of 4k; access_log's parameters after its format buffer= (a size above 0), flush= (a time above 0, with
a buffer), gzip or gzip=1..9, if=, and no buffer where its path has a variable or is syslog:,
and one buffer (size, flush, gzip) for every buffered line of one file;
error_log's levels after its file are emerg to debug (one of them) and debug_core, debug_http,
... (not after one of the others); set's first argument starts with `$`; limit_req_zone and
limit_conn_zone take zone=NAME:SIZE of at least 32k (and limit_req_zone rate=N, r/s or r/m, N
above 0), nothing else; proxy_cache_path (and fastcgi_, scgi_, uwsgi_) keys_zone=NAME:SIZE
of at least 8k and the parameters nginx reads, each with a value it reads (levels= one to three
of 1 or 2, inactive= a time, max_size= a size, use_temp_path= on or off, ...); resolver's
valid= a time, ipv6= and (from 1.23.1) ipv4= on or off, not both off. In an upstream{}, a server line
after hash, ip_hash or random may not be a `backup` (`balancing method does not support
parameter "backup"`: the last method line above it decides, least_conn gives it back), and an
upstream whose every server is a backup has none to balance over (`no servers in upstream`).

Fail: ssl_protocols TLSv1.2 TLSv13;
Fix:  ssl_protocols TLSv1.2 TLSv1.3;

Sources: nginx src/core/ngx_conf_file.c (ngx_conf_set_flag_slot, ngx_conf_set_size_slot,
ngx_conf_set_off_slot, ngx_conf_set_msec_slot, ngx_conf_set_sec_slot, ngx_conf_set_num_slot,
ngx_conf_set_enum_slot, ngx_conf_set_bitmask_slot, ngx_conf_check_num_bounds); src/core/ngx_parse.c
(ngx_parse_size, ngx_parse_offset, ngx_parse_time); the tables of each release tag
(nginxgen/knowledge/nginx_values.json); the custom setters' source lines, cited in
nginxgen/knowledge/nginx_values.toml: ngx_http_ssl_session_cache, ngx_http_core_listen and
ngx_parse_url, ngx_http_core_keepalive, ngx_http_headers_add, ngx_http_proxy_set_ssl,
ngx_http_ssl_ocsp_cache, ngx_http_ssl_certificate_cache, the http2 post handlers,
ngx_http_ssl_merge_srv_conf, ngx_ssl_ocsp
(https://github.com/nginx/nginx/blob/release-1.30.0/src/http/modules/ngx_http_ssl_module.c#L1174-L1268);
ngx_http_proxy_set_ssl (nginx commit f08dbefad for 1.23.0's empty certificates);
ngx_http_rewrite, ngx_http_rewrite_set, ngx_http_core_error_page, ngx_http_headers_expires,
ngx_log_set_levels, ngx_http_limit_req_zone, ngx_http_limit_conn_zone,
ngx_http_file_cache_set_slot, ngx_resolver_create, ngx_http_upstream_server and the balancing methods'
flags, ngx_http_upstream_init_round_robin (and stream's);
ngx_http_ssl_merge_srv_conf for the client-certificate checks
(https://github.com/nginx/nginx/blob/release-1.31.3/src/http/modules/ngx_http_ssl_module.c#L849-L895,
nginx commit 18afcda93 for 1.27.2), seen with nginx -t on 1.22.1, 1.26.3 and 1.31.3.
"""

from __future__ import annotations

from collections.abc import Iterator

from nginxgen.base.sockets import address_text, ptocidr
from nginxgen.conf.config import Config, first_unread
from nginxgen.conf.load import Stmt, handler_line, walk
from nginxgen.conf.per_name import by_name
from nginxgen.knowledge import nginx, nginx_values
from nginxgen.knowledge.equal_values import parse_size
from nginxgen.lint.context import Context, Rule, seen_at
from nginxgen.lint.findings import Finding, Severity
from nginxgen.lint.rules._blocks import closing_line, entries
from nginxgen.lint.rules._client_certs import verifying
from nginxgen.lint.rules._grammar import findings
from nginxgen.lint.rules._server_names import declined, printable
from nginxgen.lint.rules._values import access_log_buffer, atoi, condition_words, if_condition

RULE = Rule(
    code="NGX010",
    name="invalid-value",
    severity=Severity.ERROR,
    fix="write a value nginx reads: on or off, a size like 16k or 1m, a time like 10m or 1d, a "
    "name of the directive's table (TLSv1.3)",
)


def check(ctx: Context) -> Iterator[Finding]:
    yield from findings(ctx, RULE)
    yield from _location_modifiers(ctx)
    yield from _if_conditions(ctx)
    yield from _networks(ctx)
    yield from _same_paths(ctx)
    yield from _conflicting_logs(ctx)
    yield from _proxy_pass_urls(ctx)
    if not ctx.config.loaded.http_level_top and not ctx.target.plus:  # a whole tree: merged
        if ctx.config.loaded.stopped is None:  # else nginx never reached its merge and checks
            yield from _client_verify(ctx)
            yield from _declined_server_names(ctx)
            yield from _buffer_sizes(ctx)
            yield from _no_port(ctx)
        yield from _upstream_blocks(ctx)
    if not ctx.target.plus:  # NGINX Plus has methods of its own
        yield from _method_parameters(ctx)


def _location_modifiers(ctx: Context) -> Iterator[Finding]:
    """`location /a b/ {` (trial 8, an Xray example): two words, the first no modifier."""
    grammar = nginx_values.custom_grammars().location
    for stmt in ctx.all_statements():
        if (
            stmt.directive == "location"
            and len(stmt.args) == 2
            and stmt.args[0] not in grammar.modifiers
        ):
            yield ctx.finding(
                RULE,
                stmt,
                grammar.message.format(value=stmt.args[0]),
                fix="one path (quote it if it has a space), or a modifier (=, ^~, ~, ~*) first",
                handled=True,
            )


def _if_conditions(ctx: Context) -> Iterator[Finding]:
    """An `if` condition nginx cannot read (`invalid condition "$a"`, `unexpected "==" in
    condition`), judged on the words as nginx reads them."""
    grammar = nginx_values.custom_grammars().if_condition
    loaded = ctx.config.loaded
    for stmt in ctx.named("if"):
        if stmt.directive != "if" or stmt.block is None:
            continue
        line = loaded.line_text(stmt.file, stmt.line)
        problem = if_condition(grammar, condition_words(stmt, line))
        if problem:
            yield ctx.finding(RULE, stmt, f"{problem}: nginx -t fails",
                              fix="write ($variable), ($variable = value), ($variable ~ regex) or "
                              "(-f $path), each word apart", handled=True)  # fmt: skip


def _networks(ctx: Context) -> Iterator[Finding]:
    """A network nginx cannot read (ngx_ptocidr): allow's and deny's (`invalid parameter`), a
    geo block's (`invalid network`, or a line of other than two words: `invalid number of the
    geo parameters`); nginx stops at the first line of a geo block it refuses. A geo block
    with `ranges` reads ranges, not judged here."""
    grammar = nginx_values.custom_grammars().networks
    for stmt in ctx.named(*grammar.access):
        if stmt.directive not in grammar.access or len(stmt.args) != 1:
            continue
        value = stmt.args[0]
        if value not in grammar.access_words and ptocidr(value) == "error":
            yield ctx.finding(RULE, stmt, f"{grammar.access_message.format(value=value)}: "
                              "nginx -t fails", fix="write all, or an address or network "
                              "(10.0.0.0/8, 2001:db8::/32)", handled=True)  # fmt: skip
    for block in ctx.named("geo"):
        if block.directive != "geo" or block.block is None:
            continue
        problem = _geo_problem(grammar, entries(block))
        if problem is not None:
            line, message = problem
            yield ctx.finding(RULE, line, f"{message}: nginx -t fails",
                              fix="one network (10.0.0.0/8) and one value a line",
                              handled=True)  # fmt: skip


def _geo_problem(grammar: nginx_values.Networks, lines: list[Stmt]) -> tuple[Stmt, str] | None:
    """The first line of a geo block nginx refuses (ngx_http_geo), with its words."""
    ranges = False
    for line in lines:
        words = [line.directive, *line.args]
        if len(words) == 1 and words[0] in grammar.geo_alone:
            ranges = ranges or words[0] == "ranges"
            continue
        if len(words) != 2:
            return line, grammar.geo_count
        key = words[0]
        if key == "include" or key == "default" or (ranges and key != "proxy"):
            continue
        net = words[1] if key in ("proxy", "delete") else key
        if net != "255.255.255.255" and ptocidr(net) == "error":
            return line, grammar.geo_network.format(value=net)
    return None


def _same_paths(ctx: Context) -> Iterator[Finding]:
    """A cache path (proxy_cache_path and its twins) and another path of the same name, in
    reading order: nginx stops at the second (ngx_add_path), its message ending in the first's
    file and line. Names compare as nginx makes them: a relative one under the prefix."""
    custom = nginx_values.custom_grammars()
    caches, temp = custom.cache_paths, custom.same_path.temp
    if not any(ctx.named(*caches)):
        return
    loaded = ctx.config.loaded
    seen: dict[str, tuple[Stmt, bool]] = {}
    for stmt in walk(loaded.statements):
        cache = stmt.directive in caches
        if not stmt.args or not (cache or stmt.directive in temp):
            continue
        name = _full_name(loaded.prefix, stmt.args[0])
        first = seen.get(name)
        if first is None:
            seen[name] = (stmt, cache)
        elif cache or first[1]:
            # ngx_add_path keeps the first's line as its setter stood on it: its last
            said = custom.same_path.message.format(name=name, first=f"{first[0].file}:"
                                                   f"{handler_line(first[0])}")  # fmt: skip
            yield ctx.finding(RULE, stmt, f"{said}: nginx -t fails",
                              fix="give each cache its own folder", handled=True)  # fmt: skip


def _full_name(prefix: str | None, name: str) -> str:
    """A file or folder name as nginx makes it to compare (ngx_conf_full_name): as written, a
    relative one under the prefix; never normalized."""
    if name.startswith("/") or not prefix:
        return name
    return f"{prefix.rstrip('/')}/{name}"


def _conflicting_logs(ctx: Context) -> Iterator[Finding]:
    """Two buffered access_log lines of one file with another buffer size, flush time or gzip
    level, in reading order and in any block: nginx opens a file once, keeps the buffer of its
    first buffered line, and stops at the other (ngx_http_log_set_log). A line without a buffer
    is never compared. Names compare as nginx opens files (ngx_conf_open_file): as written, a
    relative one under the prefix (`/x/./a.log` is another file to it); stream{}'s lines are
    compared among themselves."""
    grammar = nginx_values.custom_grammars().access_log
    lines = ctx.named(*grammar.directives)
    if len(lines) < 2:
        return
    prefix = ctx.config.loaded.prefix
    first: dict[tuple[str, str], tuple[int, int, int]] = {}
    for stmt in lines:
        read = access_log_buffer(grammar, stmt.args) if stmt.args else None
        if read is None or isinstance(read, str) or not read[0]:
            continue  # refused on its own (the value check), or not buffered
        key = (ctx.top_block(stmt) or "", _full_name(prefix, stmt.args[0]))
        kept = first.setdefault(key, read)
        if kept != read:
            said = grammar.conflicting.format(value=stmt.args[0])
            yield ctx.finding(
                RULE, stmt, f"{said}: nginx -t fails", handled=True,
                fix="give the lines of one log file the same buffer=, flush= and gzip",
            )  # fmt: skip


def _buffer_sizes(ctx: Context) -> Iterator[Finding]:
    """A proxy's (fastcgi's, uwsgi's, scgi's) buffers nginx refuses where a server or location
    merges them (knowledge: buffer_sizes): the first level that fails, for each module, named
    at the end of http{} as nginx names it. A level an unread include may set is not judged."""
    grammar = nginx_values.custom_grammars().buffer_sizes
    http = ctx.config.http_stmt
    if http is None or not ctx.config.servers:
        return
    names = {f"{p}_{n}" for p in grammar.prefixes for n in _BUFFER_NAMES}
    if not any(ctx.named(*names)):
        return
    closed = closing_line(http, ctx.config.loaded)
    if closed is None:
        return
    end = Stmt("http", [], closed, http.file)
    for prefix in grammar.prefixes:
        for chain in _merge_levels(ctx.config):
            if any(first_unread(level) for level in chain):
                break
            said = _buffers_refused(grammar, prefix, chain)
            if said is not None:
                yield ctx.finding(RULE, end, f"{said}: nginx -t fails",
                                  fix=f"size {prefix}_buffers, {prefix}_buffer_size and "
                                  f"{prefix}_busy_buffers_size together")  # fmt: skip
                break


_BUFFER_NAMES = ("buffer_size", "buffers", "busy_buffers_size", "temp_file_write_size",
                 "max_temp_file_size")  # fmt: skip


def _merge_levels(config: Config) -> Iterator[list[dict[str, list[Stmt]]]]:
    """The lines of each level nginx merges a location configuration at, outermost first:
    http{} and a server; then each of its locations, nested ones after their parent."""
    for server in config.servers:
        top = [config.http, server.directives]
        yield top
        for chain in server.all_locations():
            yield [*top, *(location.directives for location in chain)]


def _buffers_refused(
    grammar: nginx_values.BufferSizes, prefix: str, chain: list[dict[str, list[Stmt]]]
) -> str | None:
    """nginx's words for a merged level's buffers it refuses, or None."""

    def value(name: str) -> list[str] | None:
        for level in reversed(chain):
            lines = level.get(f"{prefix}_{name}")
            if lines:
                return lines[-1].args
        return None

    def size(name: str) -> int | None:
        args = value(name)
        return parse_size(args[0]) if args and len(args) == 1 else None

    page = grammar.page_size
    buffers = value("buffers") or [str(8), str(page)]
    count, each = (atoi(buffers[0]), parse_size(buffers[1])) if len(buffers) == 2 else (None, None)
    buffer_size = size("buffer_size") if value("buffer_size") else page
    if count is None or each is None or buffer_size is None:
        return None  # a value the grammar refuses: NGX010's finding at its line
    if count < 2:
        return grammar.two.format(p=prefix)
    least = max(buffer_size, each)
    busy = size("busy_buffers_size") if value("busy_buffers_size") else 2 * least
    write = size("temp_file_write_size") if value("temp_file_write_size") else 2 * least
    most = size("max_temp_file_size") if value("max_temp_file_size") else 1024**3
    if busy is None or write is None or most is None:
        return None
    if busy < least:
        return grammar.busy_small.format(p=prefix)
    if busy > (count - 1) * each:
        return grammar.busy_large.format(p=prefix)
    if write < least:
        return grammar.write_small.format(p=prefix)
    if most != 0 and most < least:
        return grammar.max_small.format(p=prefix)
    return None


def _declined_server_names(ctx: Context) -> Iterator[Finding]:
    """A server name the hash of its address declines (trial 16, zlind0's `....xyz`: `generate
    --into` added a second server to *:443 and nginx stopped). nginx builds that hash only for
    an address more than one server listens on, and stops at the first such name, naming no
    line: this rule names the server_name line."""
    message = nginx_values.custom_grammars().server_name_declined
    for family in ctx.families():
        if not by_name(family):
            continue  # before 1.25.5 a stream address takes one server: no hash of names
        for socket, servers in family.config.sockets.items():
            if len(servers) < 2 or not printable(socket, servers):
                continue
            found = declined(servers, socket)
            if found is not None:
                stmt, name = found
                text = message.format(name=name, address=address_text(socket))
                yield ctx.finding(RULE, stmt, f"{text}: nginx -t fails",
                                  fix="write an exact name, *.example.com, .example.com, "
                                  "www.example.* or a regex (~...)")  # fmt: skip


def _upstream_blocks(ctx: Context) -> Iterator[Finding]:
    """upstream{} blocks nginx refuses (trial 11): a name given twice in one of http{} or
    stream{} (`duplicate upstream "b"`, names compared in any case), one without a server
    line (`no servers are inside upstream`, on its closing line), and one whose every server
    is a backup (`no servers in upstream "b"`, on its first line, from
    ngx_http_upstream_init_round_robin and stream's alike, in every release). NGINX Plus fills upstreams
    otherwise; an include not read may hold the servers."""
    if ctx.target.plus or ctx.unread_include():
        return
    loaded = ctx.config.loaded
    seen: dict[tuple[str, str], Stmt] = {}  # by family: http{} and stream{} name apart
    for stmt in ctx.named("upstream"):
        family = ctx.top_block(stmt)
        if family is None or family not in ("http", "stream") or len(stmt.args) != 1:
            continue
        if stmt.block is None:
            continue
        name = (family, stmt.args[0].lower())
        if name in seen:
            yield ctx.finding(
                RULE, stmt, f'duplicate upstream "{stmt.args[0]}" (the first at '
                f"{seen_at(seen[name], stmt)}): nginx -t fails",
                fix="give each upstream{} a name of its own", handled=True,
            )  # fmt: skip
            continue
        seen[name] = stmt
        servers = [s for s in walk(stmt.block) if s.directive == "server"]
        closed = closing_line(stmt, loaded)
        if closed is None:
            continue  # nginx stopped reading inside it: it judges the block at its `}`
        if not servers:
            where = Stmt("upstream", stmt.args, closed, stmt.file)
            yield ctx.finding(
                RULE, where, f"no servers are inside upstream {stmt.args[0]} "
                f"(line {stmt.line}): nginx -t fails", fix="add a server line to it",
            )  # fmt: skip
        elif loaded.stopped is None and all("backup" in s.args[1:] for s in servers):
            # the balancer counts only the servers that are not backups (..._init_round_robin),
            # naming the line ngx_http_upstream_add stood on for the block: its `{`
            yield ctx.finding(
                RULE, stmt, f'no servers in upstream "{stmt.args[0]}": every server line is a '
                "backup: nginx -t fails", fix="make one of its servers a primary (no backup)",
                handled=True,
            )  # fmt: skip


def _method_parameters(ctx: Context) -> Iterator[Finding]:
    """A server line of an upstream{} with a parameter its balancing method takes away
    (nginx_values.toml [[balancing_methods]]: `backup` after hash, ip_hash or random): the last
    method line above it decides. An include not read inside the block may hold another
    method line: that block is not judged."""
    methods = nginx_values.custom_grammars().balancing_methods
    for upstream in ctx.named("upstream"):
        lines = upstream.block
        if not lines or any(s.directive == "include" and s.unread for s in lines):
            continue
        family = ctx.top_block(upstream)
        method: nginx_values.BalancingMethod | None = None
        for stmt in lines:
            method = methods.get((family or "", stmt.directive), method)
            if method is None or stmt.directive != "server":
                continue
            for parameter in stmt.args[1:]:
                if parameter in method.unsupported:
                    message = method.message.format(value=parameter)
                    yield ctx.finding(RULE, stmt, f"{message}: nginx -t fails",
                                      fix=f"remove {parameter}, or balance with least_conn or "
                                      "round robin (no method line)", handled=True)  # fmt: skip
                    break


def _proxy_pass_urls(ctx: Context) -> Iterator[Finding]:
    """An http{} proxy_pass URL nginx cannot read (trial 11, Hiddify's `proxy_pass
    localhost:4433;`): no http:// or https:// (`invalid URL prefix`), no host (`no host in
    upstream ""`), a port past 65535, an IPv6 address not closed. One with variables is read
    at request time (ngx_http_proxy_pass). stream{}'s proxy_pass takes an address alone."""
    # http{}'s proxy_pass stands in a location (or an if or limit_except in one); stream's at
    # its server's level, with another grammar: only the first are judged
    passes = (
        s
        for s in ctx.named("proxy_pass")
        if any(outer.directive == "location" for outer in ctx.ancestors(s))
    )
    for stmt in passes:
        if len(stmt.args) != 1 or "$" in stmt.args[0]:
            continue
        problem = _url_problem(stmt.args[0])
        if problem is not None:
            yield ctx.finding(RULE, stmt, f"{problem}: nginx -t fails",
                              fix="proxy_pass http://HOST:PORT (or https://, or an upstream name)",
                              handled=True)  # fmt: skip


def _url_problem(url: str) -> str | None:
    """What nginx says of a proxy_pass URL (ngx_http_proxy_pass, ngx_parse_url), or None."""
    lowered = url.lower()
    scheme = next((p for p in ("http://", "https://") if lowered.startswith(p)), None)
    if scheme is None:
        return "invalid URL prefix"
    rest = url[len(scheme) :]
    if rest.lower().startswith("unix:"):
        return None
    host = rest
    for stop in ("/", "?"):
        host = host.split(stop, 1)[0]
    if host.startswith("["):
        if "]" not in host:
            return f'invalid host in upstream "{host}"'
        address, _, port = host.partition("]")
        port = port.removeprefix(":")
    else:
        address, _, port = host.rpartition(":") if ":" in host else (host, "", "")
    if not address:
        return f'no host in upstream "{host}"'
    if port and (not port.isdigit() or not 1 <= int(port) <= 65535):
        return f'invalid port in upstream "{host}"'
    return None


def _no_port(ctx: Context) -> Iterator[Finding]:
    """A pass to a name without a port that no upstream{} of the tree fills (trial 8, certbot's
    test config: `fastcgi_pass php-cgi;` beside `upstream phpcgi`)."""
    grammar = nginx_values.custom_grammars().no_port
    if ctx.unread_include():
        return  # an include not read may hold the upstream{}
    upstreams = {s.args[0].lower() for s in ctx.named("upstream") if s.args and s.block is not None}
    passes: list[tuple[Stmt, str]] = []
    for stmt in ctx.named(*grammar.http, *grammar.stream):
        family = ctx.top_block(stmt)
        wanted = grammar.http if family == "http" else grammar.stream if family == "stream" else ()
        if stmt.directive in wanted and len(stmt.args) == 1:
            passes.append((stmt, stmt.args[0]))
    for stmt, value in passes:
        host = _portless(value, grammar.schemes)
        if host is not None and host.lower() not in upstreams:
            yield ctx.finding(
                RULE,
                stmt,
                grammar.message.format(value=host),
                fix=f"give the address a port ({host}:9000), or name an upstream{{}} block",
                # the line ngx_http_upstream_add stood on for the pass (its setter's)
                handled=True,
            )


def _portless(value: str, schemes: tuple[str, ...]) -> str | None:
    """The host a pass names when it has no port (None: a port, a variable or a socket)."""
    if "$" in value or value.lower().startswith("unix:"):
        return None
    for scheme in schemes:
        if value.lower().startswith(scheme):
            value = value[len(scheme) :]
            break
    if not value or "/" in value or "?" in value:
        return None  # an invalid host: NGX010's address grammar
    if value.startswith("["):
        return value if value.endswith("]") else None
    return None if ":" in value else value


def _client_verify(ctx: Context) -> Iterator[Finding]:
    """ngx_http_ssl_merge_srv_conf's refusal of ssl_ocsp beside optional_no_ca (the CA list
    `on` and `optional` need is a server requirement of the value tables, nginx_values.toml)."""
    fact = nginx.client_certificates()
    ocsp_lines: set[int] = set()
    for settings in verifying(ctx):
        verify, ocsp = settings.verify, settings.ocsp
        if verify.line is None or settings.unknown is not None:
            continue
        if (
            verify.value == fact.ocsp_refused_with
            and ocsp.line is not None
            and ocsp.value != "off"
            and id(ocsp.line) not in ocsp_lines
        ):
            ocsp_lines.add(id(ocsp.line))
            yield ctx.finding(
                RULE,
                ocsp.line,
                fact.ocsp_message,
                fix="ssl_verify_client optional; with an ssl_client_certificate, or ssl_ocsp off",
            )
