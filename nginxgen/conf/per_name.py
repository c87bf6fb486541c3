"""What applies to one name on one TLS socket: the server nginx picks for it, and for each TLS
setting nginxgen reasons about the value in effect, the line that decides it, and the lines
written for that name that do not apply, with why.

The one answer to that question: lint's default-server rules, `probe --config` (which compares
each answer with what the live server did) and the live differential (tests/fuzzing/live.py)
read it. Values are in the terms a client observes: protocol names, group ids, suite names,
whether a session resumes, whether a header is sent. A value of None means "not predicted":
the library's own default, or a combination whose outcome no build has shown consistently
(each such case is a knowledge entry).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cached_property

from nginxgen.base.records import record, replace
from nginxgen.base.sockets import socket_answering
from nginxgen.conf.client_certificates import ClientCertificates, ca_names, client_certificates
from nginxgen.conf.client_certificates import request_outcome as _request_outcome
from nginxgen.conf.config import Config, Server, listen_socket, server_for_name
from nginxgen.conf.effective import Effective, handshake_server, in_context, server_label
from nginxgen.conf.files import for_name, missing_for_name, read
from nginxgen.conf.groups import parse_groups
from nginxgen.conf.load import Loaded, Stmt, walk
from nginxgen.conf.responses import HSTS, header_sent
from nginxgen.conf.stream_config import build_stream
from nginxgen.conf.words import flag_on
from nginxgen.knowledge import libraries, nginx, tls_groups

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from nginxgen.base.der import Certificate


@record(frozen=True)
class Ignored:
    """A line written for this name that does not apply to it."""

    line: Stmt
    meant: Any  # what it would give, in the terms of the Answer it belongs to
    why: str
    cause: Stmt  # the line that makes it not apply (the deciding or the replacing one)


@record(frozen=True)
class Answer:
    key: str  # the directive (or `ssl_conf_command NAME`) that sets it
    value: Any  # in effect for this name; None: not predicted
    line: Stmt | None  # the deciding line; None: nginx's or the library's default
    ignored: tuple[Ignored, ...] = ()


@record(frozen=True)
class EchKeys:
    """What an ECH client meets: the configs that decrypt, as (config_id, public key), and the
    retry configs a client with any other config gets (the wire form of the first file's
    ECHConfigList; None: no ECH, the outer hello is answered as any other)."""

    decrypts: frozenset[tuple[int, bytes]]
    retry_configs: bytes | None


def by_name(effective: Effective) -> bool:
    """Whether a name selects a server among those of an address:port: always in http{}; in
    stream{} from nginx 1.25.5 (before, one address:port takes one stream server)."""
    return effective.config.block != "stream" or nginx.stream_virtual_servers(effective.target)


def tls_socket_for_port(config: Config, port: int, host: str | None = None) -> str | None:
    """The TLS socket of the config that answers a connection to `host` on `port` (an IPv4
    and an IPv6 socket can share a port and have other default servers)."""
    sockets = [s for s in config.sockets if s.endswith(f":{port}") and config.tls_socket(s)]
    return socket_answering(sockets, host)


def key_of(stmt: Stmt) -> str:
    """The setting a line sets, as NameModel names it: its directive, or `ssl_conf_command
    NAME` (each command a setting of its own)."""
    if stmt.directive == "ssl_conf_command" and stmt.args:
        return f"ssl_conf_command {stmt.args[0]}"
    return stmt.directive


def lines_of(server: Server, key: str, own: bool = False) -> list[Stmt]:
    """The lines of a directive (or `ssl_conf_command NAME`) in effect in a server, or only
    its own."""
    if key.startswith("ssl_conf_command "):
        return server.conf_command(key.split(" ", 1)[1], own=own)
    return server.own(key) if own else server.effective(key)


def _stores_sessions(stmts: list[Stmt], one_worker: bool) -> bool | None:
    """Whether a session cache line stores sessions that every worker finds: `shared:` does;
    `builtin` alone is each worker's own, so with several workers a session resumes only on
    the one that stored it (None: not predicted); `none` and `off`, the default, store none."""
    args = stmts[-1].args if stmts else ["none"]
    if any(a.startswith("shared:") for a in args):
        return True
    if any(a == "builtin" or a.startswith("builtin:") for a in args):
        return True if one_worker else None
    return False


def _tickets_on(stmts: list[Stmt]) -> bool:
    return not stmts or stmts[-1].args != ["off"]


class NameModel:
    """What applies to `sni` (None: a client that sends no name) on a TLS `socket`; with
    `server`, to the names of that server of the socket. The socket is an http{} one or, where
    the effective model is stream{}'s (conf/stream.py), a stream one: the same answers, with the
    knowledge of that block.

    Three servers may speak for a name: `server`, the one its SNI selects (the request's, and
    the lines nginx reads from it); `context`, the one whose TLS context the handshake runs on
    (the selected server where it has a certificate of its own, else the default server:
    effective.handshake_server); and `default`, the address's default server, which alone
    decides some settings on some targets (knowledge: default_server_only)."""

    def __init__(
        self,
        effective: Effective,
        socket: str,
        sni: str | None,
        server: Server | None = None,
        default: Server | None = None,  # the socket's, when the caller has it already
    ) -> None:
        self.effective = effective
        self.config = effective.config
        self.target = effective.target
        self.socket = socket
        self.sni = sni
        self.default = default or self.config.default_server(socket)
        found = server or (
            server_for_name(self.config.sockets[socket], sni) if by_name(effective) else None
        )
        self.server = found or self.default
        self.context = handshake_server(self.server, self.default)
        target, block = self.target, self.config.block  # once per model, not once per name
        self.decided = effective.memo("decided", lambda: nginx.default_server_only(target, block))

    def decider(self, key: str) -> Server:
        """The server whose lines decide `key` for this name: the default server where only it
        decides on this target; for the other settings of the TLS context, the server whose
        context the handshake runs on; else the name's own."""
        if key in self.decided:
            return self.default
        return self.context if in_context(key) else self.server

    def why_decides(self, key: str, what: str) -> str | None:
        """Why a server other than the name's own decides `key` (`what` it gives, in words);
        None: the name's own server does."""
        if self.decider(key) is self.server:
            return None
        if self.context is not self.server and in_context(key):
            return (
                f"{server_label(self.server)} has no certificate of its own: its handshakes run "
                f"on the TLS context of {server_label(self.default)}, the default server of "
                f"{self.socket}, which decides {what}"
            )
        reason = self.decided[key].why
        if key == "ssl_session_tickets" and self._tickets_differ(lines_of(self.default, key)):
            # the table's reason is for one way round; the name's own line says which way
            reason = self._tickets_fact(self.context.effective(key)).why
        return (
            f"{server_label(self.default)} is the default server of {self.socket} and "
            f"decides {what} ({reason})"
        )

    def answer(
        self,
        key: str,
        meaning: Callable[[list[Stmt]], Any],
        what: str,
        predict: Callable[[list[Stmt]], Any] | None = None,
        meant: Callable[[list[Stmt]], Any] | None = None,
    ) -> Answer:
        """`meaning(lines)`: what a server with these lines in effect gives. The deciding server
        is the default one for settings only it decides on this target, else the name's own;
        `predict` replaces `meaning` for the value in effect where the name's own lines change
        the outcome under the deciding server's; `meant` replaces it for what the name's own
        ignored line means beside the rest of its own server's lines."""
        decider = self.decider(key)
        lines = lines_of(decider, key)
        value = (predict or meaning)(lines)
        ignored: tuple[Ignored, ...] = ()
        own = lines_of(self.server, key, own=True) if self.server is not decider else []
        why = self.why_decides(key, what or key) if own else None  # words only where needed
        if own and why is not None:
            means = (meant or meaning)(own)
            ignored = (Ignored(own[-1], means, why, lines[-1] if lines else decider.stmt),)
        return Answer(key, value, lines[-1] if lines else None, ignored)

    def setting(self, key: str) -> Answer:
        """The line in effect for a directive, as written (value: its arguments)."""
        return self.answer(key, lambda s: s[-1].args if s else None, key)

    def ech_files(self) -> Answer:
        """The ECH key files that decrypt for this name, in order (the first one's configs are
        the retry configs): the default server's lines, where only it decides (knowledge:
        default_server_only.ssl_ech_file)."""
        return self.answer(
            "ssl_ech_file", lambda s: tuple(x.args[0] for x in s if x.args), "the ECH keys"
        )

    # --- what a client observes --------------------------------------------------------------

    def ech_keys(self) -> Answer:
        """What the deciding ssl_ech_file lines (ech_files) give an ECH client: every file with
        its private key decrypts its configs, the first such file's configs are the retry
        configs (knowledge: ech.rotation), a file with no key decrypts nothing (ech.key_file);
        nothing where the library lacks OpenSSL's ECH API (capability ech). None where a file
        cannot be read here."""
        from nginxgen.base.ech_configs import EchError, read_key_file

        def meaning(stmts: list[Stmt]) -> EchKeys | None:
            decrypts: set[tuple[int, bytes]] = set()
            retry = None
            if not libraries.has(self.target.library, "ech"):
                return EchKeys(frozenset(), None)
            for stmt in (s for s in stmts if s.args):
                data = read(self.config.loaded, stmt.args[0])
                if data is None:
                    return None
                try:
                    keys = read_key_file(data.decode("utf-8", "replace"))
                except EchError:
                    continue
                decrypts |= {(c.config_id, c.public_key) for c in keys.config_list.configs}
                retry = keys.config_list.raw if retry is None else retry
            return EchKeys(frozenset(decrypts), retry)

        return self.answer("ssl_ech_file", meaning, "the ECH keys")

    def refused(self) -> Answer:
        """Whether the handshake is refused: `ssl_reject_handshake on` in the name's server, or
        a certificate nginx cannot load for this name (unloadable)."""
        rejected = self.answer(
            "ssl_reject_handshake", lambda s: bool(s) and flag_on(s[-1].args), ""
        )
        return rejected if rejected.value else self.unloadable() or rejected

    def unloadable(self) -> Answer | None:
        """A certificate or key the handshake for this name cannot load: a path with variables
        is read per handshake (ngx_http_ssl_certificate, ngx_stream_ssl_certificate), and
        where the file it names for this name is not there (files.missing_for_name: a client
        without SNI makes `$ssl_server_name` empty) the handshake fails (internal_error).
        Then the answer "refused" with that ssl_certificate line; else None."""
        certificates = self.context.effective("ssl_certificate")
        keys = self.context.effective("ssl_certificate_key")
        for index, line in enumerate(certificates):
            paths = [line.args[0]] if line.args else []
            if index < len(keys) and keys[index].args:
                paths.append(keys[index].args[0])
            if any(missing_for_name(self.config.loaded, p, self.sni) for p in paths):
                return Answer("ssl_certificate", True, line)
        return None

    def protocols(self) -> Answer:
        """The protocol versions the server negotiates (those its line, else this nginx's
        default, allows that the library can negotiate)."""
        legacy = self.effective.legacy_protocols_negotiable()

        def allowed(stmts: list[Stmt]) -> frozenset[str]:
            listed = stmts[-1].args if stmts else nginx.default_protocols(self.target)
            return frozenset(p for p in listed if p in ("TLSv1.2", "TLSv1.3") or legacy)

        answer = self.answer("ssl_protocols", allowed, "the protocols")
        if isinstance(answer.value, frozenset) and answer.value - {"TLSv1.3"}:
            # no TLS 1.2 suite signs with the name's certificates (aRSA suites beside an ECDSA
            # certificate: lint's NGX413): those versions fail, whatever ssl_protocols says
            # (trial 9, Mobilizon's config: the probe called the server "not reloaded")
            suites = self.tls12_suites()
            if suites.value is not None and not suites.value:
                return replace(answer, value=answer.value & {"TLSv1.3"})
        return answer

    def groups(self) -> Answer:
        """The ids of the groups the server takes: its line's, else (no line, or `auto`) the
        library's default ones where that is known (None: not predicted)."""

        def listed(stmts: list[Stmt]) -> frozenset[str] | None:
            if not stmts or not stmts[-1].args or stmts[-1].args[0] == "auto":
                return tls_groups.default_groups(self.target.library)
            entries = parse_groups(stmts[-1].args[0])
            return frozenset(g.id for e in entries if (g := tls_groups.find_group(e.name)))

        return self.answer("ssl_ecdh_curve", listed, "the groups")

    def session_id_resumption(self, host: str | None = None) -> Answer:
        """Whether a TLS 1.2 session ID resumes (a cache that stores sessions); with `host`,
        the session of a client without a certificate whose connection carried a request for
        `host` (session_dropped)."""
        plain = self._session_id_resumption()
        dropped = self.session_dropped(host)
        return plain if dropped is None or plain.value is False else dropped

    def session_dropped(self, host: str | None) -> Answer | None:
        """Where a client without a certificate made a request for `host` on its connection
        for this name and nginx refused it for want of a certificate (400: the answering
        server's `ssl_verify_client on`), nginx removed the session from the session cache
        first (conf/client_certificates.py): it resumes from the cache no more, whatever the
        cache lines say. Then the answer "not resumed" with that ssl_verify_client line; else
        (no request, or a request nginx served) None. In http{} only: a stream server has no
        request."""
        if host is None or self.config.block != "http":
            return None
        outcome = _request_outcome(self.config, self.socket, self.sni, host, certificate=False)
        if not outcome.drops_session:
            return None
        line = client_certificates(self.config, outcome.answering).verify.line
        return Answer("ssl_verify_client", False, line)

    def _session_id_resumption(self) -> Answer:
        fact = nginx.vhost_session_cache_off()
        one_worker = self.effective.sessions.single_worker()

        def stores(stmts: list[Stmt]) -> bool | None:
            return _stores_sessions(stmts, one_worker)

        def predicted(stmts: list[Stmt]) -> bool | None:
            own = self.context.effective("ssl_session_cache")
            off_here = self.context is not self.default and own and own[-1].args == ["off"]
            if off_here and not fact.session_id_resumption_predicted:
                return None
            return stores(stmts)

        return self.answer("ssl_session_cache", stores, "the session cache", predict=predicted)

    def tls12_ticket_resumption(self) -> Answer:
        """Whether a TLS 1.2 session resumes by a ticket (RFC 5077): the server issues one only
        where tickets are on, and it resumes where every worker shares the ticket keys (else
        only on the worker that issued it: not predicted). With tickets off a session may
        still resume by its ID (session_id_resumption), never by a ticket. Where the default
        server decides tickets and the name's server turns them the other way, the outcome is
        a fact of its own (knowledge: tickets_on_under_off, tickets_off_under_on)."""
        keys = self.effective.sessions.ticket_keys_shared(self.default)

        def resumes(stmts: list[Stmt]) -> bool | None:
            if not _tickets_on(stmts):
                return False
            return True if keys else None

        def predicted(stmts: list[Stmt]) -> bool | None:
            vhost = self.context.effective("ssl_session_tickets")
            if self._tickets_differ(stmts):
                fact = self._tickets_fact(vhost)
                if self.target.library.kind in fact.libraries:
                    return fact.tls12_ticket_resumes
                return resumes(vhost)
            return resumes(stmts)

        return self.answer("ssl_session_tickets", resumes, "TLS 1.2 tickets", predict=predicted)

    def _tickets_differ(self, decided: list[Stmt]) -> bool:
        """Whether the default server decides tickets for this name and the name's own server
        turns them the other way."""
        vhost_on = _tickets_on(self.context.effective("ssl_session_tickets"))
        return (
            "ssl_session_tickets" in self.decided
            and self.context is not self.default
            and vhost_on != _tickets_on(decided)
        )

    def _tickets_fact(self, vhost: list[Stmt]) -> nginx.TicketsAgainstDefault:
        if _tickets_on(vhost):
            return nginx.tickets_on_under_off()
        return nginx.tickets_off_under_on()

    def tls13_resumption(self, host: str | None = None) -> Answer:
        """Whether a TLS 1.3 session resumes: by tickets when they are on and every worker
        shares their keys (else a ticket resumes only on the worker that issued it: not
        predicted), else from the session cache where the library resumes statefully. With
        `host`, the session of a client without a certificate whose connection carried a
        request for `host`: where nginx refused it and dropped the session (session_dropped),
        a resumption from the cache is gone; a ticket the client holds still resumes."""
        plain = self._tls13_resumption(dropped=False)
        dropped = self.session_dropped(host)
        if dropped is None or plain.value is False:
            return plain
        after = self._tls13_resumption(dropped=True)
        if after.value == plain.value:
            return plain
        return Answer(dropped.key, after.value, dropped.line, after.ignored)

    def _tls13_resumption(self, dropped: bool) -> Answer:
        stateful = libraries.has(self.target.library, "tls13_stateful_resumption")
        one_worker = self.effective.sessions.single_worker()

        def resumes_in(server: Server) -> Callable[[list[Stmt]], bool | None]:
            """What tickets lines mean beside `server`'s own session cache and ticket keys,
            where it writes them, else the default server's."""
            cache_from = server if server.own("ssl_session_cache") else self.default
            keys_from = server if server.own("ssl_session_ticket_key") else self.default
            cache = _stores_sessions(cache_from.effective("ssl_session_cache"), one_worker)
            keys = self.effective.sessions.ticket_keys_shared(keys_from)

            def resumes(stmts: list[Stmt]) -> bool | None:
                if _tickets_on(stmts):
                    return True if keys else None
                return False if dropped else cache and stateful

            return resumes

        resumes = resumes_in(self.default)

        def predicted(stmts: list[Stmt]) -> bool | None:
            """Where the default server decides tickets and the name's server turns them the
            other way, what happens is a fact of its own (knowledge: tickets_on_under_off,
            tickets_off_under_on); libraries it does not name follow the name's own value."""
            if self._tickets_differ(stmts):
                vhost = self.context.effective("ssl_session_tickets")
                fact = self._tickets_fact(vhost)
                if self.target.library.kind not in fact.libraries:
                    return resumes(vhost)
                groups = self.groups().value  # the deciding server's
                share = tls_groups.find_group(fact.unless_retry_from_key_share)
                if groups is not None and share is not None and share.id not in groups:
                    return None  # a retried handshake: depends on the client's share
                return fact.tls13_resumes
            return resumes(stmts)

        # a vhost's tickets line means what it gives beside the vhost's own session cache (its
        # own `ssl_session_cache` is ignored too, NGX102): tickets off with a shared cache
        # meant resumption from that cache (Mozilla's intermediate, as a vhost writes it)
        return self.answer(
            "ssl_session_tickets",
            resumes,
            "TLS 1.3 resumption",
            predict=predicted,
            meant=resumes_in(self.server),
        )

    def early_data(self) -> Answer:
        """Whether the server's TLS 1.3 tickets offer 0-RTT."""
        return self.answer("ssl_early_data", lambda s: bool(s) and flag_on(s[-1].args), "0-RTT")

    def tls13_suites(self) -> Answer:
        """The TLS 1.3 suite names the server takes: its `ssl_conf_command Ciphersuites` (none:
        the library's default); without that command (BoringSSL, AWS-LC) the library's fixed
        set. LibreSSL takes them from ssl_ciphers: not predicted (None)."""
        from nginxgen.ciphers.engine import evaluate_ciphersuites
        from nginxgen.ciphers.model import model_for

        def taken(stmts: list[Stmt]) -> frozenset[str] | None:
            if not self.effective.has("tls13_suites_via_conf_command"):
                fixed = libraries.tls13_fixed_suites(self.target.library)
                return None if fixed is None else frozenset(fixed)
            model = model_for(self.target.library)
            if not stmts:
                return frozenset(model.default_ciphersuites)
            result = evaluate_ciphersuites(stmts[-1].args[1], model)
            return None if result.error else frozenset(s.name for s in result.suites)

        return self.answer("ssl_conf_command Ciphersuites", taken, "the TLS 1.3 suites")

    @cached_property
    def _leaves(self) -> dict[str, Certificate] | None:
        """Path -> the first certificate of each of the server's ssl_certificate files, those
        with variables as they are read for this name (None when one cannot be read: a
        variable other than $ssl_server_name, a missing or unreadable file); read once per
        server however many names' models ask (a fleet probe has thousands), once per name
        where a path has a variable."""
        context, loaded, sni = self.context, self.config.loaded, self.sni
        per_name = any("$" in s.args[0] for s in context.effective("ssl_certificate"))
        key = f"leaves of {context.stmt.file}:{context.stmt.line}"
        key += f" for {sni}" if per_name else ""
        return self.effective.memo(key, lambda: _leaves(loaded, context, sni))

    def certificates(self) -> Answer:
        """sha256 of each leaf the server may send -> its ssl_certificate path."""
        lines = self.context.effective("ssl_certificate")
        leaves = self._leaves
        value = None if leaves is None else {leaf.sha256(): p for p, leaf in leaves.items()}
        return Answer("ssl_certificate", value, lines[-1] if lines else None)

    def tls12_suites(self) -> Answer:
        """The TLS 1.2 suite names the server takes: those its ssl_ciphers selects (the cipher
        engine, with the library's model and security level) that its certificates can serve,
        DHE ones only with ssl_dhparam.
        Not predicted where the library's cipher strings follow rules nginxgen models only
        approximately (BoringSSL, AWS-LC: the model says which)."""
        from nginxgen.ciphers.engine import allowed_at, evaluate
        from nginxgen.ciphers.model import model_for
        from nginxgen.ciphers.suites import signs_for

        lines = self.context.effective("ssl_ciphers")
        line = lines[-1] if lines else None
        model = model_for(self.target.library)
        leaves = self._leaves
        if leaves is None or model.approximate:
            return Answer("ssl_ciphers", None, line)
        keys = {signs_for(cert.key[0]) for cert in leaves.values()}  # "ECDSA", "RSA", ...
        text = " ".join(line.args) if line else nginx.defaults().ssl_ciphers
        # once per string for all the names of a fleet (the protocols ask too)
        result = self.effective.memo(f"ciphers {text}", lambda: evaluate(text, model))
        if result.error:
            return Answer("ssl_ciphers", None, line)

        # the DH parameters travel with the name's context after SNI
        dh = self.effective.dhe_usable(self.context)

        def usable(suite: Any) -> bool:
            level_ok = (
                allowed_at(suite, result.seclevel, model)
                if result.seclevel is not None
                else suite.default_seclevel
            )
            return bool(level_ok) and suite.au in keys and (dh or suite.kx != "DH")

        names = frozenset(s.name for s in result.suites if not s.tls13 and usable(s))
        return Answer("ssl_ciphers", names, line)

    def alpn(self) -> Answer:
        """The protocol a client offering h2 and http/1.1 gets: h2 where HTTP/2 is on for the
        name's server (`http2 on`, nginx >= 1.25.1) or for the address (`listen ... http2` on
        any server of the socket)."""
        lines = self.server.effective("http2")
        per_address = [
            lst.stmt
            for server in self.config.sockets[self.socket]
            for lst in server.listens
            if lst.socket == self.socket and lst.http2
        ]
        if lines and flag_on(lines[-1].args):
            return Answer("http2", "h2", lines[-1])
        if per_address:
            return Answer("listen", "h2", per_address[0])
        return Answer("http2", "http/1.1", lines[-1] if lines else None)

    def stapling(self) -> Answer:
        """Whether an OCSP response is stapled: never with `ssl_stapling off` (the default);
        with it on, that depends on the responder (not predicted)."""
        lines = self.context.effective("ssl_stapling")
        on = bool(lines) and flag_on(lines[-1].args)
        return Answer("ssl_stapling", None if on else False, lines[-1] if lines else None)

    # --- client certificates (conf/client_certs.py says how nginx decides) -------------------

    @cached_property
    def client_certificates(self) -> ClientCertificates:
        """The client-certificate settings of the handshake for this name: those of the server
        whose TLS context it runs on (nginx switches the verify mode with the context)."""
        return client_certificates(self.config, self.context)

    def client_certificate_request(self) -> Answer:
        """Whether the handshake asks for a client certificate (`ssl_verify_client` not off)."""
        verify = self.client_certificates.verify
        return Answer("ssl_verify_client", self.client_certificates.asks, verify.line)

    def client_ca_names(self) -> Answer:
        """The CA names of the CertificateRequest (RFC 4514; None: the file cannot be read)."""
        settings = self.client_certificates
        names = ca_names(self.config, settings, self.target)
        return Answer("ssl_client_certificate", names, settings.client_certificate.line)

    def without_client_certificate(self, host: str) -> Answer:
        """What a request for `host` on a connection for this name gets from a client without a
        certificate: "misdirected" (421), "no-certificate" (400, a certificate is required) or
        "served" (as the config says); the line is the answering server's `ssl_verify_client`."""
        outcome = _request_outcome(self.config, self.socket, self.sni, host, certificate=False)
        line = client_certificates(self.config, outcome.answering).verify.line
        return Answer("ssl_verify_client", outcome.kind, line)

    def hsts(self, uri: str, status: int) -> Answer:
        """Whether a response to `uri` with `status` carries Strict-Transport-Security: the
        add_header lines in effect for it (conf/effective: replace, merge, off), without
        `always` only for the statuses add_header serves. Where no HSTS line is in effect, an
        outer level's that does not reach the response is an ignored line, with the line that
        drops it. Not predicted
        where an `if` block of the location sets add_header lines of its own."""
        headers = self.effective.responses.headers(self.server, uri)
        sent = headers.named(HSTS)
        value: bool | None = any(header_sent(h, status) for h in sent)
        if headers.conditional:
            value = None
        # an outer HSTS line dropped where one of the level's own is in effect is not what
        # decides: the line in effect is (lint: NGX702 where it lacks `always`, not NGX704)
        dropped = [] if sent else headers.dropped_named(HSTS)[-1:]
        ignored = tuple(
            Ignored(d.line, header_sent(d.line, status), d.why, d.cause) for d in dropped
        )
        line = sent[-1] if sent else None
        return Answer("add_header Strict-Transport-Security", value, line, ignored)

    def hsts_text(self, uri: str, status: int) -> Answer:
        """The Strict-Transport-Security text of a response to `uri` with `status`, where one
        add_header line in effect sends it and names no variable: nginx sends the value as
        written (ngx_http_headers_filter). Not predicted where several lines send it (a client
        reads one of them), with variables, or where an `if` block sets lines of its own; None
        where none sends it (hsts says so)."""
        headers = self.effective.responses.headers(self.server, uri)
        sent = [h for h in headers.named(HSTS) if header_sent(h, status)]
        value = None
        if len(sent) == 1 and not headers.conditional and "$" not in sent[0].args[1]:
            value = sent[0].args[1].strip()
        return Answer("add_header Strict-Transport-Security", value, sent[-1] if sent else None)


def _leaves(loaded: Loaded, server: Server, sni: str | None) -> dict[str, Certificate] | None:
    from nginxgen.base.der import load_chain  # only with a certificate to read: a lint start

    leaves = {}
    for stmt in server.effective("ssl_certificate"):
        path = for_name(stmt.args[0], sni)
        data = read(loaded, path) if path is not None else None
        chain = load_chain(data) if data else []
        if not chain:
            return None
        leaves[stmt.args[0]] = chain[0]
    return leaves or None


def names_on(config: Config, socket: str) -> list[str | None]:
    """The names worth asking for on a socket: every plain server_name (no wildcard or regex),
    a name no server has, and no name at all."""
    names: list[str | None] = []
    for server in config.sockets[socket]:
        for name in server.names:
            plain = name and not name.startswith(("~", "*", ".")) and not name.endswith("*")
            if plain and name not in names:
                names.append(name)
    return [*names, "nginxgen-unknown.invalid", None]


@record(frozen=True)
class Passthrough:
    """A stream{} server on the probed port that reads the client's hello (`ssl_preread on`)
    and passes the connection on: the TLS server behind it answers, not stream{}."""

    listen: Stmt
    backend: str | None  # the address:port it passes to, None: a variable or no literal one


def passthrough_for_port(config: Config, port: int, host: str | None = None) -> Passthrough | None:
    """The stream{} passthrough answering a connection to `host` on `port` (None: none)."""
    if not any(s.directive == "stream" for s in config.loaded.statements):
        return None
    stream = build_stream(config.loaded)
    socket = socket_answering([s for s in stream.sockets if s.endswith(f":{port}")], host)
    if socket is None:
        return None
    server = stream.default_server(socket)
    preread = server.value("ssl_preread")
    target = server.value("proxy_pass")
    if not preread or preread[0].lower() != "on" or not target:
        return None
    listen = next(lst.stmt for lst in server.listens if lst.socket == socket)
    backend = target[0]
    upstream = next(
        (s for s in walk(config.loaded.statements)
         if s.directive == "upstream" and s.args[:1] == [backend] and s.block),
        None,
    )  # fmt: skip
    if upstream is not None:
        first = next((s for s in upstream.block or [] if s.directive == "server" and s.args), None)
        backend = first.args[0] if first is not None else ""
    known = "$" not in backend and not backend.startswith("unix:") and ":" in backend
    return Passthrough(listen, backend if known else None)


def mail_listen_for_port(config: Config, port: int) -> Stmt | None:
    """A mail{} server's listen on this port: nginx's mail proxy answers there (IMAP, POP3,
    SMTP), which the http and stream models do not describe (trial 9, BlueMind's port 993)."""
    for top in config.loaded.statements:
        if top.directive != "mail" or top.block is None:
            continue
        for stmt in walk(top.block):
            on = stmt.args and listen_socket(stmt.args[:1]).rpartition(":")[2] == str(port)
            if stmt.directive == "listen" and on:
                return stmt
    return None
