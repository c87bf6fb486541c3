"""What a config says each probed name should get, with the linter's model, and where the live
server disagrees (`nginxgen probe --config`).

For each name: the server of the probed port whose server_name has it (else the default server
of that socket) and the default server of the socket. Settings the knowledge base says only the
default server decides (groups; before nginx 1.29.2 protocols) are predicted from the default
server; a vhost's own line for them is what people expect, so when the server shows the default
server's value instead, the difference is reported with the reason. Any other difference between
the prediction and what the server did is reported too: the server is then not running this
config (not reloaded, another file, another port).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from nginxgen import knowledge
from nginxgen.conf.config import Config, Server
from nginxgen.conf.effective import (
    Effective,
    header_sent,
    headers_for,
    locations_for,
    server_label,
)
from nginxgen.conf.files import key_description, load_chain, read
from nginxgen.conf.groups import parse_groups
from nginxgen.conf.load import Stmt
from nginxgen.probe.session import MISSING_PAGE, covers
from nginxgen.target import Target


def _socket_for(config: Config, port: int) -> str | None:
    for socket in config.sockets:
        if socket.endswith(f":{port}") and config.tls_socket(socket):
            return socket
    return None


def _server_for(config: Config, socket: str, sni: str | None) -> Server:
    if sni:
        for server in config.sockets[socket]:
            if covers(server.names, sni):
                return server
    return config.default_server(socket)


def _groups(stmts: list[Stmt], probed: list[str]) -> set[str] | None:
    """The probed groups a group line lists (None: no line, or `auto`: the library decides)."""
    if not stmts or not stmts[-1].args or stmts[-1].args[0] == "auto":
        return None
    listed = {g.id for e in parse_groups(stmts[-1].args[0]) if (g := knowledge.find_group(e.name))}
    return {p for p in probed if (g := knowledge.find_group(p)) is not None and g.id in listed}


def _protocols(ctx: Effective, stmts: list[Stmt]) -> set[str]:
    """The protocols an ssl_protocols line (none: this nginx's default) allows that the library
    can negotiate, as the linter reads them."""
    listed = stmts[-1].args if stmts else knowledge.default_protocols(ctx.target)
    legacy = ctx.legacy_protocols_negotiable()
    return {p for p in listed if p in ("TLSv1.2", "TLSv1.3") or legacy}


def mismatches(
    config: Config, target: Target, port: int, observed: dict[str, Any]
) -> list[dict[str, Any]]:
    socket = _socket_for(config, port)
    if socket is None:
        return [
            {
                "setting": "listen",
                "file": None,
                "line": None,
                "expected": f"a TLS server on port {port}",
                "observed": "the server answered TLS",
                "why": "the config has no TLS listen on this port",
            }
        ]
    sni = observed["sni"]
    default = config.default_server(socket)
    vhost = _server_for(config, socket, sni)
    decided = knowledge.default_server_only(target)
    out: list[dict[str, Any]] = []
    reject = vhost.effective("ssl_reject_handshake")
    if reject and reject[-1].args == ["on"]:  # no name of this server: the handshake is refused
        seen = sorted(v for v, ok in observed["protocols"].items() if ok)
        if seen:
            why = "the server does not do what this config says (not reloaded?)"
            out.append(_record("ssl_reject_handshake", reject[-1], [], seen, why))
        return out

    def compare(
        directive: str,
        expected_of: Any,
        seen: Any,
        what: str,
        lines: Callable[[Server, bool], list[Stmt]] | None = None,
        predict: Callable[[list[Stmt]], Any] | None = None,
    ) -> None:
        """`lines(server, own)`: the lines of `directive` in effect in a server, or only its
        own ones (by default the directive's lines, for a setting that is not a directive)."""

        def stmts(server: Server, own: bool) -> list[Stmt]:
            if lines is not None:
                return lines(server, own)
            return server.own(directive) if own else server.effective(directive)

        decider = default if directive in decided else vhost
        effective = stmts(decider, False)
        predicted = (predict or expected_of)(effective)
        own = stmts(vhost, True) if vhost is not decider else []
        if own and expected_of(own) is not None and expected_of(own) != seen:
            because = (
                f"{server_label(default)} is the default server of {socket} and decides {what}"
                if predicted == seen or predicted is None  # None: the library's own default
                else "the server does not do what this config says (not reloaded?)"
            )
            out.append(_record(directive, own[-1], expected_of(own), seen, because))
        elif predicted is not None and predicted != seen:
            line = effective[-1] if effective else None
            because = "the server does not do what this config says (not reloaded?)"
            out.append(_record(directive, line, predicted, seen, because))

    # TLS 1.2 groups are probed each offered first: with the server's order winning, the
    # server's first group is what every probe sees, so they say nothing about the rest
    server_order_tls12 = observed.get("groups_via") == "TLSv1.2" and bool(
        (observed.get("tls12") or {}).get("server_order")
    )
    if observed.get("groups") is not None and not server_order_tls12:
        probed = list(observed["groups"])
        seen_groups = {g for g, ok in observed["groups"].items() if ok}
        compare("ssl_ecdh_curve", lambda s: _groups(s, probed), seen_groups, "the groups")
    seen_protocols = {v for v, ok in observed["protocols"].items() if ok}
    ctx = Effective(config, target)
    compare("ssl_protocols", lambda s: _protocols(ctx, s), seen_protocols, "the protocols")
    resumed = observed.get("resumption_by") or {}
    if resumed.get("TLSv1.2 session id") is not None:
        seen = resumed["TLSv1.2 session id"]

        def cache_for_this_name(stmts: list[Stmt]) -> bool | None:
            """A vhost's own `ssl_session_cache off` took session-ID resumption away although
            the default server decides the cache (scripts/fuzz.py live, nginx 1.22.1/OpenSSL
            3.0): not predicted there until the rule is known."""
            own = vhost.effective("ssl_session_cache")
            if vhost is not default and own and own[-1].args == ["off"]:
                return None
            return _session_cache(stmts)

        compare(
            "ssl_session_cache",
            _session_cache,
            seen,
            "the session cache",
            predict=cache_for_this_name,
        )
    if resumed.get("TLSv1.3") is not None:
        cache = _session_cache(default.effective("ssl_session_cache"))
        keys = ctx.ticket_keys_shared(default)
        stateful = knowledge.has(target.library, "tls13_stateful_resumption")

        def tls13_resumes(stmts: list[Stmt]) -> bool | None:
            if _tickets_on(stmts):  # tickets: predictable only with keys all workers share
                return True if keys else None
            return cache and stateful

        def for_this_name(stmts: list[Stmt]) -> bool | None:
            """Where the default server decides tickets, what the vhost's own value does too:
            tickets on in the vhost (its own line or nginx's default) under a default server
            with tickets off resume no TLS 1.3 session (knowledge: tickets_on_under_off)."""
            own = vhost.effective("ssl_session_tickets")
            vhost_on = _tickets_on(own)
            if "ssl_session_tickets" in decided and vhost is not default:
                fact = knowledge.nginx_fact("tickets_on_under_off")
                if vhost_on and not _tickets_on(stmts):
                    if target.library.kind in fact["libraries"]:
                        return bool(fact["tls13_resumes"])
                    return tls13_resumes(own)  # the vhost's tickets work with this library
                if not vhost_on and _tickets_on(stmts):
                    return None  # not observed yet: no prediction
            return tls13_resumes(stmts)

        compare(
            "ssl_session_tickets",
            tls13_resumes,
            resumed["TLSv1.3"],
            "TLS 1.3 resumption",
            predict=for_this_name,
        )
    if observed.get("early_data") is not None:
        compare(
            "ssl_early_data",
            lambda stmts: bool(stmts) and stmts[-1].args == ["on"],
            observed["early_data"]["offered"],
            "0-RTT",
        )
    if observed.get("tls13") and "accepted" in observed["tls13"]:
        compare(
            "ssl_conf_command Ciphersuites",
            lambda stmts: _tls13_suites(ctx, stmts),
            set(observed["tls13"]["accepted"]),
            "the TLS 1.3 suites",
            lambda server, own: server.conf_command("Ciphersuites", own=own),
        )
    if observed.get("tls12") and "accepted" in observed["tls12"]:
        out.extend(_tls12_suites(ctx, vhost, observed["tls12"]["accepted"]))
    if observed.get("certificate"):
        out.extend(_certificate(ctx, vhost, observed["certificate"]))
    if observed.get("hsts") is not None:
        out.extend(_hsts(config, vhost, observed["hsts"]))
    return out


def _session_cache(stmts: list[Stmt]) -> bool:
    """Whether a session cache line stores sessions (`none` and `off`, the default, do not)."""
    args = stmts[-1].args if stmts else ["none"]
    return any(a == "builtin" or a.startswith(("builtin:", "shared:")) for a in args)


def _tickets_on(stmts: list[Stmt]) -> bool:
    return not stmts or stmts[-1].args != ["off"]


def _leaves(ctx: Effective, vhost: Server) -> dict[str, Any] | None:
    """Path -> the first certificate of each of the server's ssl_certificate files, read as
    the linter reads them (None when one cannot be: a variable in the path, a missing or
    unreadable file)."""
    leaves = {}
    for stmt in vhost.effective("ssl_certificate"):
        data = read(ctx.config.loaded, stmt.args[0])
        chain = load_chain(data) if data else []
        if not chain:
            return None
        leaves[stmt.args[0]] = chain[0]
    return leaves


def _tls13_suites(ctx: Effective, stmts: list[Stmt]) -> set[str] | None:
    """The probed TLS 1.3 suites a `ssl_conf_command Ciphersuites` line (none: the library's
    default) lets the server take. Without that command (BoringSSL, AWS-LC) the library's fixed
    set; LibreSSL takes them from ssl_ciphers, which is not predicted here (None)."""
    from nginxgen.ciphers import evaluate_ciphersuites, model_for
    from nginxgen.probe.hello import TLS13_SUITES

    if ctx.has("tls13_suites_via_conf_command"):
        model = model_for(ctx.target.library)
        if not stmts:
            names = set(model.default_ciphersuites)
        else:
            result = evaluate_ciphersuites(stmts[-1].args[1], model)
            if result.error:
                return None
            names = {s.name for s in result.suites}
    else:
        fixed = knowledge.tls13_fixed_suites(ctx.target.library)
        if fixed is None:
            return None
        names = set(fixed)
    return names & set(TLS13_SUITES.values())


def _tls12_suites(ctx: Effective, vhost: Server, seen: list[str]) -> list[dict[str, Any]]:
    """The probed TLS 1.2 suites the server takes are those its ssl_ciphers selects (the
    cipher engine, with the library's model and security level) that its certificates can
    serve (ECDSA suites need an ECDSA certificate, RSA ones an RSA certificate)."""
    from nginxgen.ciphers import allowed_at, evaluate, model_for
    from nginxgen.probe.hello import TLS12_SUITES

    leaves = _leaves(ctx, vhost)
    if not leaves:
        return []
    keys = {key_description(cert)[0] for cert in leaves.values()}  # "ECDSA", "RSA", ...
    lines = vhost.effective("ssl_ciphers")
    text = " ".join(lines[-1].args) if lines else knowledge.nginx_fact("defaults")["ssl_ciphers"]
    model = model_for(ctx.target.library)
    if model.approximate:
        # BoringSSL and AWS-LC read cipher strings by rules nginxgen has no model of yet (their
        # suite tables differ too: neither took ECDHE-ECDSA-AES128-SHA256 from nginx's default
        # string on 1.26.3, seen by scripts/fuzz.py live): no prediction rather than a false one
        return []
    result = evaluate(text, model)
    if result.error:
        return []

    def usable(suite: Any) -> bool:
        level_ok = (
            allowed_at(suite, result.seclevel, model)
            if result.seclevel is not None
            else suite.default_seclevel
        )
        return level_ok and suite.au in keys

    expected = {s.name for s in result.suites if not s.tls13 and usable(s)} & set(
        TLS12_SUITES.values()
    )
    if expected == set(seen):
        return []
    why = "the server does not do what this config says (not reloaded?)"
    line = lines[-1] if lines else vhost.stmt
    return [_record("ssl_ciphers", line, expected, set(seen), why)]


def _certificate(ctx: Effective, vhost: Server, seen: dict[str, Any]) -> list[dict[str, Any]]:
    """The leaf the server sent is one of the name's server's certificate files (where they
    can be read: no variables in the path)."""
    from cryptography.hazmat.primitives import hashes

    leaves = _leaves(ctx, vhost)
    lines = vhost.effective("ssl_certificate")
    if not leaves:
        return []
    expected = {leaf.fingerprint(hashes.SHA256()).hex(): path for path, leaf in leaves.items()}
    if seen.get("sha256") in expected:
        return []
    why = "the server does not do what this config says (not reloaded?)"
    observed = f"{seen.get('subject')} (sha256 {seen.get('sha256')})"
    return [_record("ssl_certificate", lines[-1], sorted(expected.values()), observed, why)]


def _hsts(config: Config, vhost: Server, seen: dict[str, Any]) -> list[dict[str, Any]]:
    """HSTS on / and on the probe's missing page, each judged for the response the server gave
    (issue 25): the add_header lines of the location that answered (levels replace, never
    merge), and without `always` only for the statuses add_header serves (a `return 200` in
    `location /` makes the missing page a 200; a `return 404` there takes HSTS off /)."""
    out = []
    for page, uri, status_key, header_key in (
        ("/", "/", "root_status", "root"),
        ("a 404", MISSING_PAGE, "not_found_status", "not_found"),
    ):
        status = seen.get(status_key)
        if status is None:
            continue  # no response: nothing to compare
        lines = headers_for(config, vhost, uri)
        sts = [h for h in lines if h.args and h.args[0].lower() == "strict-transport-security"]
        expected = bool(sts) and header_sent(sts[-1], status)
        observed = seen.get(header_key) is not None
        # the server's own HSTS line, which a location with add_header lines of its own shadows
        level = vhost.own("add_header") or config.http.get("add_header", [])
        meant = [h for h in level if h.args and h.args[0].lower() == "strict-transport-security"]
        shadowing = [
            loc.stmt for loc in locations_for(vhost, uri) if loc.directives.get("add_header")
        ]
        if expected == observed:
            if not (meant and not sts and shadowing and header_sent(meant[-1], status)):
                continue
            why = (
                f"the location at {shadowing[-1].file}:{shadowing[-1].line} has add_header lines "
                "of its own, so the server's are not sent there"
            )
            expected, line = True, meant[-1]
        else:
            why = "the server does not do what this config says (not reloaded?)"
            line = sts[-1] if sts else vhost.stmt
        record = _record("add_header Strict-Transport-Security", line, expected, observed, why)
        record["page"] = f"{page} (status {status})"
        out.append(record)
    return out


def _record(
    directive: str, line: Stmt | None, expected: Any, seen: Any, why: str
) -> dict[str, Any]:
    def shown(value: Any) -> Any:
        return sorted(value) if isinstance(value, set) else value

    return {
        "setting": directive,
        "file": line.file if line is not None else None,
        "line": line.line if line is not None else None,
        "expected": shown(expected),
        "observed": shown(seen),
        "why": why,
    }
