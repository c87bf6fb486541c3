"""The config model rules read: servers, their listen sockets, the default server of each
address:port, and directive values after inheritance (http -> server -> location). The same
types hold stream{}'s servers (conf/stream.py builds them): a block is "http" or "stream"."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from functools import cached_property, lru_cache

from nginxgen.base.records import field, record
from nginxgen.base.sockets import normalize_socket
from nginxgen.conf.load import Loaded, Stmt
from nginxgen.knowledge import nginx_values


@record(eq=False)  # identity: servers are compared and hashed by object, never by value
class Listen:
    socket: str
    stmt: Stmt
    default: bool
    ssl: bool
    http2: bool
    quic: bool
    proxy_protocol: bool = False
    udp: bool = False  # stream{} `listen ... udp`: a socket of its own, never TLS


@record(eq=False)
class Location:
    stmt: Stmt
    directives: dict[str, list[Stmt]]
    locations: list[Location]


@record(eq=False)
class Server:
    stmt: Stmt
    index: int  # order in which nginx meets it
    listens: list[Listen]
    names: list[str]
    directives: dict[str, list[Stmt]]
    locations: list[Location]
    http: dict[str, list[Stmt]]  # the enclosing block's lines: http{}'s, or stream{}'s
    block: str = "http"  # or "stream"

    def own(self, name: str) -> list[Stmt]:
        return self.directives.get(name, [])

    def effective(self, name: str) -> list[Stmt]:
        """The lines that apply in this server: its own, else the enclosing block's (http{} or
        stream{})."""
        return self.directives.get(name) or self.http.get(name, [])

    def value(self, name: str) -> list[str] | None:
        stmts = self.effective(name)
        return stmts[-1].args if stmts else None

    def unknown(self, name: str) -> Stmt | None:
        """An include that could not be read (NGX002) and may set `name` for this server: one
        in the server itself, or at http{} level where the server does not set it. Then whether
        and how `name` is set here is unknown, and no rule may say it is absent."""
        own, enclosing = self._unread_includes
        return own if name in self.directives else own or enclosing

    @cached_property
    def _unread_includes(self) -> tuple[Stmt | None, Stmt | None]:
        """The first unread include of the server's lines, and of the enclosing block's: found
        once (rules ask `unknown` for each setting of each name; a tree of thousands of include
        lines made each question a walk over all of them)."""
        return first_unread(self.directives), first_unread(self.http)

    @cached_property
    def tls(self) -> bool:
        # asked by most rules of every server: a fleet's 2,000 servers, 20,000 times
        return any(listen.ssl for listen in self.listens)

    def conf_command(self, name: str, own: bool = False) -> list[Stmt]:
        """`ssl_conf_command NAME ...` lines that apply here (or only this server's own)."""
        stmts = self.own("ssl_conf_command") if own else self.effective("ssl_conf_command")
        return [s for s in stmts if len(s.args) > 1 and s.args[0].lower() == name.lower()]

    def conf_option(self, option: str) -> Stmt | None:
        """The `ssl_conf_command Options ...` line that turns `option` on, if any."""
        for stmt in self.conf_command("Options"):
            if option.lower() in stmt.args[1].lower().replace(",", " ").split():
                return stmt
        return None

    def all_locations(self) -> Iterator[tuple[Location, ...]]:
        """Each location, nested ones included, as the chain of locations that encloses it
        (outermost first, itself last). What applies in one is conf/effective's answer."""
        stack: list[tuple[Location, ...]] = [(loc,) for loc in reversed(self.locations)]
        while stack:
            chain = stack.pop()
            yield chain
            stack.extend((*chain, inner) for inner in reversed(chain[-1].locations))


@record
class Config:
    loaded: Loaded
    http: dict[str, list[Stmt]]
    http_stmt: Stmt | None
    servers: list[Server]
    sockets: dict[str, list[Server]] = field(default_factory=dict)
    block: str = "http"  # or "stream": which knowledge applies (nginx.default_server_only)

    def default_server(self, socket: str) -> Server:
        servers = self.sockets[socket]
        for server in servers:
            if any(lst.socket == socket and lst.default for lst in server.listens):
                return server
        return servers[0]

    def repeated_listens(self, wanted: Callable[[Listen], bool]) -> Iterator[tuple[Listen, Listen]]:
        """Each listen of an address:port that does what an earlier listen of it did already
        (`wanted`: marks the default server, sets the socket's options), with that first one,
        in nginx's reading order: nginx refuses the second."""
        for socket, servers in self.sockets.items():
            marked = [
                lst for s in servers for lst in s.listens if lst.socket == socket and wanted(lst)
            ]
            for listen in marked[1:]:
                yield listen, marked[0]

    def tls_socket(self, socket: str) -> bool:
        return any(
            lst.ssl for s in self.sockets[socket] for lst in s.listens if lst.socket == socket
        )


def decided_by(config: Config, server: Server, default: Server) -> bool:
    """Whether `default` is the default server of every TLS address `server` listens on: then a
    setting only the default server decides (knowledge: default_server_only) is `default`'s
    for each of `server`'s names, and `server`'s own line of it takes effect nowhere."""
    return all(
        config.default_server(lst.socket) is default
        for lst in server.listens
        if lst.socket in config.sockets and config.tls_socket(lst.socket)
    )


def first_unread(scope: dict[str, list[Stmt]]) -> Stmt | None:
    return next((stmt for stmt in scope.get("include", []) if stmt.unread), None)


def directives_of(block: list[Stmt]) -> dict[str, list[Stmt]]:
    """A block's own directives by name, in reading order (what includes bring stands where
    the include is); its servers, locations and ifs left out."""
    out: dict[str, list[Stmt]] = {}
    for stmt in block:
        name = stmt.directive
        if name not in _NESTED:
            some = out.get(name)  # not setdefault: no new list for a name met before
            if some is None:
                out[name] = [stmt]
            else:
                some.append(stmt)
    return out


_NESTED = frozenset({"location", "server", "if", "limit_except"})


def _locations(block: list[Stmt]) -> list[Location]:
    out = []
    for stmt in block:
        if stmt.directive == "location" and stmt.block is not None:
            out.append(Location(stmt, directives_of(stmt.block), _locations(stmt.block)))
    return out


def listen_socket(args: list[str]) -> str:
    """The socket a `listen` line's arguments name: address:port, `/udp` for QUIC."""
    return _read_listen(tuple(args))[0]


@lru_cache(maxsize=1024)
def _read_listen(args: tuple[str, ...]) -> tuple[str, frozenset[str]]:
    """The socket of a listen line's arguments, and its parameters' names: read once per
    distinct line (a fleet's thousands of servers repeat `listen 443 ssl`)."""
    try:
        socket = normalize_socket(args[0])
    except ValueError:
        socket = args[0]
    params = frozenset(a.split("=", 1)[0] for a in args[1:])
    if "quic" in params:
        socket += "/udp"  # QUIC listens on UDP: a socket of its own
    return socket, params


def ssl_switched_on(own: dict[str, list[Stmt]]) -> bool:
    """Whether a server has the old `ssl on;` (until nginx 1.25.1): TLS on each address:port it
    is the default server of, for every server there, as the `ssl` parameter would say
    (ngx_http_init_connection reads the address's default server's `ssl on` or the listen's
    parameter); where another server is the default, it changes nothing."""
    last = own.get("ssl", [])[-1:]
    return bool(last and last[0].args[:1] and last[0].args[0].lower() == "on")


def _listen(stmt: Stmt) -> Listen | None:
    if not stmt.args:
        return None
    socket, params = _read_listen(tuple(stmt.args))
    return Listen(
        socket=socket,
        stmt=stmt,
        default="default_server" in params or "default" in params,
        # QUIC is TLS 1.3: always a TLS socket (`ssl on;`: _switched_on_sockets)
        ssl="ssl" in params or "quic" in params,
        http2="http2" in params,
        quic="quic" in params,
        proxy_protocol="proxy_protocol" in params,
    )


def build(loaded: Loaded) -> Config:
    http_stmt: Stmt | None = None
    if loaded.http_level_top:
        http_block = loaded.statements
    else:
        http_stmts = [s for s in loaded.statements if s.directive == "http" and s.block is not None]
        http_stmt = http_stmts[0] if http_stmts else None
        # the first: nginx refuses a second (NGX006), and merged they drew its lines' twins
        http_block = list(http_stmt.block or []) if http_stmt is not None else []
    http = directives_of(http_block)
    servers: list[Server] = []
    for stmt in http_block:
        if stmt.directive != "server" or stmt.block is None:
            continue
        own = directives_of(stmt.block)
        listens = [lst for s in own.get("listen", []) if (lst := _listen(s))]
        # nginx stopped reading inside the server (Loaded.stopped): it never added the listen
        unfinished = loaded.stopped is not None and not stmt.close_line
        if not listens and not unfinished:
            # nginx adds it once it has read the server's block (ngx_http_core_server), and
            # what it says of it names the block's `}`: the line a handler's finding names
            implicit = Stmt("listen", ["*:80"], stmt.line, stmt.file, end_line=stmt.close_line)
            listens = [Listen("*:80", implicit, False, False, False, False)]
        names = [n for s in own.get("server_name", []) for n in s.args]
        servers.append(
            Server(stmt, len(servers), listens, names, own, _locations(stmt.block), http)
        )
    return _switched_on_sockets(index_sockets(Config(loaded, http, http_stmt, servers)))


def _switched_on_sockets(config: Config) -> Config:
    """Every listen of an address:port whose default server has `ssl on;` is TLS."""
    for socket, servers in config.sockets.items():
        if ssl_switched_on(config.default_server(socket).directives):
            for server in servers:
                for listen in server.listens:
                    if listen.socket == socket:
                        listen.ssl = True
    return tls_addresses(config)


def tls_addresses(config: Config) -> Config:
    """`ssl` is an option of the address:port, not of one listen line: where one listen of it
    says ssl, every server there is served TLS (ngx_http_add_addresses ORs the flag; a listen
    without it draws NGX014's warning), each with its own certificate and settings by SNI
    (trial 16, kobo-docker: lint judged none of such a server's ssl_* lines; s_client
    negotiated the AES128-SHA its ssl_ciphers allowed)."""
    for socket, servers in config.sockets.items():
        listens = [lst for s in servers for lst in s.listens if lst.socket == socket]
        if any(lst.ssl for lst in listens):
            for listen in listens:
                listen.ssl = True
    return config


def index_sockets(config: Config) -> Config:
    """Fill `config.sockets`: the servers of each address:port, in the order nginx meets them
    (the first is the default where no listen line says `default_server`)."""
    for server in config.servers:
        for socket in dict.fromkeys(listen.socket for listen in server.listens):
            config.sockets.setdefault(socket, []).append(server)
    return config


def dual_stack_ports(servers: list[Server]) -> dict[str, Listen]:
    """IPv4's wildcard `*:PORT` of each TCP port these servers listen on as `[::]:PORT` with
    `ipv6only=off`, and that listen: such a socket answers IPv4 too, so another one on *:PORT
    cannot bind (nginx -t passes; nginx stops: `bind() to 0.0.0.0:PORT failed (98: Address
    already in use)`). The option is the socket's, written on one of its listens."""
    return {
        f"*:{lst.socket.rsplit(':', 1)[1]}": lst
        for server in servers
        for lst in server.listens
        if lst.socket.startswith("[::]:")
        and not (lst.udp or lst.quic)
        and "ipv6only=off" in lst.stmt.args
    }


def server_for_name(servers: list[Server], name: str | None) -> Server | None:
    """The server nginx picks for a requested name among a socket's servers (ngx_http_find_
    virtual_server): an exact name; else the longest matching leading wildcard (`*.example.org`,
    and `.example.org` which also covers example.org itself); else the longest trailing
    wildcard (`www.example.*`); else the first regular expression (`~...`) that matches, in
    order. None: no server names it (the default server takes it). Names compare without case."""
    if not name:
        return None
    name = name.lower().rstrip(".")
    leading: tuple[int, Server] | None = None
    trailing: tuple[int, Server] | None = None
    for server in servers:
        for entry in (n.lower() for n in server.names):
            if entry == name:
                return server
            if entry.startswith(("*.", ".")):
                suffix = entry[1:]  # ".example.org"
                hit = name.endswith(suffix) or (entry[0] == "." and name == entry[1:])
                if hit and (leading is None or len(suffix) > leading[0]):
                    leading = (len(suffix), server)
            elif entry.endswith(".*"):
                prefix = entry[:-1]  # "www.example."
                if name.startswith(prefix) and (trailing is None or len(prefix) > trailing[0]):
                    trailing = (len(prefix), server)
    if leading or trailing:
        return (leading or trailing)[1]  # type: ignore[index]
    for server in servers:
        for entry in server.names:
            if entry.startswith("~"):
                from nginxgen.base import pcre  # only for a regex name: not on every start

                # caseless, as ngx_http_core_server_name compiles it; None: a PCRE construct
                # Python's re lacks, not predictable here
                regex = pcre.compiled(entry[1:], ignore_case=True)
                if regex is not None and regex.search(name):
                    return server
    return None


def redefined_protocols(listens: list[list[str]], block: str = "http") -> list[int]:
    """The indexes of the listens of one address (their words, in reading order) at which nginx
    warns `protocol options redefined` (knowledge: nginx_values.toml [listen]), following
    ngx_http_add_addresses' bookkeeping step by step: whether a listen set the socket's options,
    the protocols ORed so far (proxy_protocol 1, ssl 2, http2 4; stream{} has no http2) and the
    protocols the address settled on."""
    grammar = nginx_values.custom_grammars().listen

    def protocols(words: list[str]) -> int:
        said = set(words[1:])
        http2 = block == "http" and "http2" in said
        return ("proxy_protocol" in said) | ("ssl" in said) << 1 | http2 << 2

    if not listens:
        return []
    opened, ored = grammar.sets_options(listens[0]), protocols(listens[0])
    settled: int | None = None  # addr->protocols, once protocols_set
    changed = False
    out = []
    for index, words in enumerate(listens[1:], start=1):
        sets, own = grammar.sets_options(words), protocols(words)
        if own | ored != ored:  # it adds protocols
            warn = (opened and not sets) or changed or own | ored != own
            settled, changed = ored, True
        elif own != ored:  # it leaves protocols out
            warn = sets or (settled is not None and own != settled)
            settled, changed = own, True
        else:
            warn = (sets and changed) or (settled is not None and own != settled)
            settled = own
        opened = opened or sets
        ored |= own
        if warn:
            out.append(index)
    return out
