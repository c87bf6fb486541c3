"""Check a generator model against its target and resolve it into what the templates print.

Every refusal names the field, the value, why it cannot work on this target, and what to use
instead. All version and library facts come from `nginxgen.knowledge`.
"""

from __future__ import annotations

from pathlib import Path

from nginxgen.base import rule_codes
from nginxgen.base.records import field, record
from nginxgen.base.sockets import normalize_socket
from nginxgen.ciphers import suites as cipher_suites
from nginxgen.generate.backends import (
    ClientCertPlan,
    StreamPlan,
    UpstreamPlan,
    plan_client_certificates,
    plan_stream,
    plan_upstream,
    stream_module,
)
from nginxgen.generate.ech import EchPlan, plan_ech
from nginxgen.generate.models import GeneratorConfig, Site, TLSPolicy
from nginxgen.generate.plan_common import IgnoreComment as IgnoreComment  # templates read it
from nginxgen.generate.plan_common import ListenLine as ListenLine  # into/plan.py imports it here
from nginxgen.generate.plan_common import Problems as _Problems
from nginxgen.generate.plan_common import directive_ok as _directive_ok
from nginxgen.generate.plan_common import switch as _switch
from nginxgen.generate.presets import KeyLines
from nginxgen.knowledge import libraries, logs, nginx, tls_groups, web
from nginxgen.knowledge.target import Library, Target
from nginxgen.report.logformat import (  # into/plan.py imports the path from here
    default_access_log_path as default_access_log_path,
)
from nginxgen.report.logformat import generated_format_strings


@record
class ConfCommand:
    name: str
    value: str
    why: str


@record
class TLSPlan:
    protocols: list[str]
    ciphers: str | None
    ecdh_curve: str
    groups_why: str
    prefer_server: bool
    conf_commands: list[ConfCommand]
    session_cache: str
    session_timeout: str
    session_tickets: bool
    tickets_why: str
    early_data: bool
    stapling: bool
    trusted_certificate: str | None  # with it, stapled responses are verified
    resolver: list[str]
    dhparam: str | None
    buffer_size: str | None
    sendfile: bool
    keepalive_timeout: str
    keepalive_requests: int
    warnings: list[str] = field(default_factory=list)  # printed loudly at the top of the file
    suppress: dict[str, IgnoreComment] = field(default_factory=dict)  # by directive


@record
class AccessLog:
    """The TLS access log: a JSON line per request with what its connection negotiated."""

    format_name: str
    strings: list[str]  # the format's quoted strings, one field each
    path: str
    # in each site's server{} instead of http{}: a tree whose http{} says `access_log off;`,
    # which makes nginx ignore every access_log of that level (trial 15)
    in_servers: bool = False


@record
class SitePlan:
    name: str
    domains: list[str]
    listens: list[ListenLine]
    http2_directive: bool
    certificates: list[tuple[str, str]]
    hsts: str | None
    alt_svc: str | None
    root: str
    suppress: IgnoreComment | None = None  # for the server: a finding the user asked for
    upstream: UpstreamPlan | None = None  # every request passed to a TLS backend
    client_certificates: ClientCertPlan | None = None


@record
class Plan:
    target: Target
    tls: TLSPlan
    sites: list[SitePlan]
    default_listens: list[ListenLine]
    default_reject: bool
    # the first site's pairs, all of them: one key type alone may sign for none of the TLS 1.2
    # suites (an ECDSA and an RSA pair beside aRSA suites; the generator's fuzzer, NGX413)
    default_certificates: list[tuple[str, str]]  # empty: no http site, no http{} block
    redirect_listens: list[ListenLine]
    comments: bool
    access_log: AccessLog | None = None
    ech: EchPlan | None = None
    streams: list[StreamPlan] = field(default_factory=list)
    stream_session_cache: str = "off"  # stream{}'s own zone (http{}'s is another module's)
    load_modules: list[str] = field(default_factory=list)  # module files nginx.conf loads first


def _plan_protocols(policy: TLSPolicy, target: Target, problems: _Problems) -> None:
    lib = target.library
    if "TLSv1.3" in policy.protocols:
        status = nginx.directive_status(target, "TLSv1.3", "protocol_param")
        if status and not status.available:
            problems.add(
                "policy.protocols",
                "TLSv1.3",
                f"nginx accepts TLSv1.3 only from {status.since}",
                "upgrade nginx or use the compat preset",
            )
        if not libraries.has(lib, "tls13"):
            problems.add(
                "policy.protocols",
                "TLSv1.3",
                libraries.capability(lib, "tls13").refusal,
                "use OpenSSL 1.1.1 or newer",
            )
    legacy = [p for p in policy.protocols if p in web.legacy_protocols()]
    if legacy and not libraries.has(lib, "legacy_protocols"):
        problems.add(
            "policy.protocols",
            " ".join(legacy),
            libraries.capability(lib, "legacy_protocols").refusal,
            "drop them (this library cannot offer them through nginx)",
        )
    elif legacy and libraries.has(lib, "legacy_protocols_need_seclevel0") and policy.seclevel != 0:
        problems.add(
            "policy.protocols",
            " ".join(legacy),
            f"{lib.display} only speaks TLS 1.0/1.1 at security level 0",
            "set policy.seclevel: 0 (the compat preset does) or drop them",
        )


def _policy_suites(policy: TLSPolicy, problems: _Problems) -> list[cipher_suites.Suite]:
    """The policy's TLS 1.2-and-older suites that can go into ssl_ciphers, each other one a
    problem (unknown, TLS 1.3, insecure, or CBC-SHA1 without the legacy protocols needing it)."""
    legacy = any(p in web.legacy_protocols() for p in policy.protocols)
    suites: list[cipher_suites.Suite] = []
    for i, name in enumerate(policy.ciphers):
        where = f"policy.ciphers[{i}]"
        suite = cipher_suites.find_suite(name)
        if suite is None:
            problems.add(
                where,
                name,
                "no TLS library knows this suite name",
                "use OpenSSL names such as ECDHE-ECDSA-AES128-GCM-SHA256",
            )
        elif suite.tls13:
            problems.add(
                where,
                name,
                "TLS 1.3 suites in ssl_ciphers make nginx refuse the config (no cipher match)",
                "put it in policy.ciphersuites",
            )
        elif weakness := cipher_suites.suite_weakness(suite):
            problems.add(where, name, f"it is insecure: {weakness}", "remove it")
        elif cipher_suites.suite_is_cbc_sha1(suite) and not legacy:
            problems.add(
                where,
                name,
                "CBC with SHA-1 is only needed for TLS 1.0/1.1 clients",
                "use an AES-GCM or ChaCha20 suite",
            )
        else:
            suites.append(suite)
    return suites


def _check_dhparam(
    policy: TLSPolicy, suites: list[cipher_suites.Suite], problems: _Problems
) -> None:
    """DHE suites and ssl_dhparam go together: nginx disables DHE without the parameters."""
    has_dhe = any(suite.kx == "DH" for suite in suites)
    if has_dhe and not policy.dhparam:
        problems.add(
            "policy.ciphers",
            "DHE",
            "nginx disables DHE suites without ssl_dhparam",
            "set policy.dhparam or drop the DHE suites",
        )
    if policy.dhparam and not has_dhe:
        problems.add(
            "policy.dhparam",
            policy.dhparam,
            "no DHE suite is listed, so it is unused",
            "drop policy.dhparam",
        )


def _plan_ciphers(policy: TLSPolicy, target: Target, problems: _Problems) -> str | None:
    tls12 = any(p != "TLSv1.3" for p in policy.protocols)
    suites = _policy_suites(policy, problems)
    _check_dhparam(policy, suites, problems)
    names = [suite.name for suite in suites]
    if (
        libraries.has(target.library, "tls13_suites_via_ssl_ciphers")
        and "TLSv1.3" in policy.protocols
    ):
        names.extend(policy.ciphersuites)
    if not names:
        if tls12 and not policy.ciphers:
            problems.add(
                "policy.ciphers",
                [],
                "TLS 1.2 is on but no suite is listed",
                "list suites or drop TLS 1.2",
            )
        return None
    if policy.seclevel is not None and libraries.has(target.library, "security_levels"):
        # only OpenSSL knows security levels; elsewhere the cipher string would be refused
        names.append(f"@SECLEVEL={policy.seclevel}")
    return ":".join(names)


def _plan_ciphersuites(
    policy: TLSPolicy, target: Target, problems: _Problems
) -> ConfCommand | None:
    if "TLSv1.3" not in policy.protocols or not policy.ciphersuites:
        return None
    lib = target.library
    for i, name in enumerate(policy.ciphersuites):
        suite = cipher_suites.find_suite(name)
        if suite is None or not suite.tls13:
            problems.add(
                f"policy.ciphersuites[{i}]",
                name,
                "not a TLS 1.3 suite",
                "use TLS_AES_128_GCM_SHA256, TLS_AES_256_GCM_SHA384 or "
                "TLS_CHACHA20_POLY1305_SHA256",
            )
    if libraries.has(lib, "tls13_suites_via_ssl_ciphers"):
        return None  # they go into ssl_ciphers
    fixed = libraries.tls13_fixed_suites(lib)
    if libraries.has(lib, "tls13_suites_via_conf_command") and _directive_ok(
        target, "ssl_conf_command"
    ):
        return ConfCommand(
            "Ciphersuites",
            ":".join(policy.ciphersuites),
            "TLS 1.3 suites are not set by ssl_ciphers (trac #1529)",
        )
    if fixed is not None and set(fixed) == set(policy.ciphersuites):
        return None  # the library offers exactly these anyway
    problems.add(
        "policy.ciphersuites",
        ":".join(policy.ciphersuites),
        libraries.capability(lib, "tls13_suites_via_conf_command").refusal
        if not libraries.has(lib, "tls13_suites_via_conf_command")
        else "ssl_conf_command needs nginx 1.19.4",
        "drop policy.ciphersuites (take the library's TLS 1.3 suites) or use OpenSSL",
    )
    return None


def _resolve_groups(
    policy: TLSPolicy, target: Target, problems: _Problems
) -> list[tls_groups.Group]:
    """The policy's groups this target has, in order; `?name` dropped where missing, every
    other missing, unknown or repeated group a problem."""
    lib = target.library
    resolved: list[tls_groups.Group] = []
    for i, entry in enumerate(policy.groups):
        optional, name = entry.startswith("?"), entry.removeprefix("?")
        group = tls_groups.find_group(name)
        where = f"policy.groups[{i}]"
        if group is None:
            problems.add(
                where,
                name,
                f"{tls_groups.unknown_group(name)}, and nginxgen has no data to generate it",
                "use X25519, prime256v1, secp384r1 or X25519MLKEM768",
            )
        elif any(g.id == group.id for g in resolved):
            problems.add(
                where,
                name,
                f"it is {group.id} again, already listed (libraries refuse a group twice)",
                "list each group once",
            )
        elif group.available(lib):
            resolved.append(group)
        elif not optional:
            problems.add(where, name, group.requirement(lib), _group_instead(lib, group, name))
    if not resolved and not problems.items:
        problems.add(
            "policy.groups",
            policy.groups,
            "none of these groups exists here",
            "add X25519 or prime256v1",
        )
    if len(resolved) > 1 and not nginx.feature_available(target, "ecdh_curve_list"):
        problems.add(
            "policy.groups",
            policy.groups,
            f"nginx takes a list of groups only from {nginx.feature_since('ecdh_curve_list')}",
            "list one group",
        )
    return resolved


def _group_instead(lib: Library, group: tls_groups.Group, name: str) -> str:
    """What to list instead of a group the library lacks: its replacement, else the groups the
    library has, or `?name` to drop it where missing."""
    if group.replacement:
        return f"use {group.replacement}"
    others = tls_groups.groups_instead(lib, group)
    return (f"use one of {', '.join(others)} instead, or " if others else "") + (
        f"write '?{name}' to drop it where missing"
    )


def _pq_enforce(
    policy: TLSPolicy, target: Target, lead: int, problems: _Problems
) -> tuple[bool, bool]:
    """Whether ML-KEM is enforced (the `lead` post-quantum groups listed first), and whether
    by a tuple (else by the server's group order)."""
    lib = target.library
    tuples = libraries.has(lib, "group_tuples")
    can_enforce = lead > 0 and (tuples or libraries.has(lib, "server_group_preference"))
    if policy.pq_enforce == "on" and not can_enforce and not problems.items:
        why = (
            "no post-quantum group is listed first"
            if lead == 0
            else f"{lib.display} cannot ask a client for a group it sent no key share for"
        )
        problems.add(
            "policy.pq_enforce",
            "on",
            why,
            "use OpenSSL >= 3.5, BoringSSL, AWS-LC or LibreSSL >= 4.3 with X25519MLKEM768 first",
        )
    return policy.pq_enforce != "off" and can_enforce, tuples


def _plan_groups(policy: TLSPolicy, target: Target, problems: _Problems) -> tuple[str, str, bool]:
    """ssl_ecdh_curve value, the comment explaining it, and whether server preference is needed."""
    resolved = _resolve_groups(policy, target, problems)
    if not resolved:
        return "auto", "", False
    spelled = [g.spell(target.library) for g in resolved]
    lead = 0
    while lead < len(resolved) and resolved[lead].pq:
        lead += 1
    enforce, tuples = _pq_enforce(policy, target, lead, problems)
    if enforce and tuples and lead < len(spelled):
        value = ":".join(spelled[:lead]) + "/" + ":".join(spelled[lead:])
        why = (
            "post-quantum enforced: a client that sent a classical key share but supports "
            "ML-KEM is asked for it (one extra round trip)"
        )
        return value, why, False
    value = ":".join(spelled)
    if enforce:
        why = (
            "post-quantum enforced: the server's group order wins, so ML-KEM is asked for "
            "when the client supports it"
        )
        return value, why, True
    if lead:
        why = "post-quantum offered first; classical groups for older clients"
    else:
        why = (
            "no post-quantum group on this target"
            if any(
                (g := tls_groups.find_group(n.removeprefix("?"))) and g.pq for n in policy.groups
            )
            else "classical groups"
        )
    return value, why, False


def _plan_tls(policy: TLSPolicy, target: Target, problems: _Problems) -> TLSPlan:
    _plan_protocols(policy, target, problems)
    ciphers = _plan_ciphers(policy, target, problems)
    curve, groups_why, needs_pref = _plan_groups(policy, target, problems)
    prefer = policy.server_preference or needs_pref
    commands, ktls = _plan_options(policy, target, prefer, problems)
    _check_stapling(policy, target, problems)
    cache, tickets, tickets_why = _plan_session(policy, target, problems)
    warnings, suppress = _chosen_findings(policy, curve)
    return TLSPlan(
        protocols=list(policy.protocols),
        ciphers=ciphers,
        ecdh_curve=curve,
        groups_why=groups_why,
        prefer_server=prefer,
        conf_commands=commands,
        session_cache=cache,
        session_timeout=policy.session.timeout,
        session_tickets=tickets,
        tickets_why=tickets_why,
        early_data=policy.early_data,
        stapling=policy.ocsp_stapling,
        trusted_certificate=policy.ocsp_trusted_certificate,
        resolver=list(policy.resolver),
        dhparam=policy.dhparam,
        buffer_size=policy.buffer_size,
        sendfile=ktls,
        keepalive_timeout=f"{policy.keepalive.timeout}s",
        keepalive_requests=policy.keepalive.requests,
        warnings=warnings,
        suppress=suppress,
    )


def _plan_options(
    policy: TLSPolicy, target: Target, prefer: bool, problems: _Problems
) -> tuple[list[ConfCommand], bool]:
    """The ssl_conf_command lines (TLS 1.3 suites, PrioritizeChaCha, KTLS, AntiReplay), and
    whether kernel TLS is on; all refused together where the library has no SSL_CONF."""
    lib = target.library
    conf_ok = libraries.has(lib, "ssl_conf_command") and _directive_ok(target, "ssl_conf_command")
    commands: list[ConfCommand] = []
    suites = _plan_ciphersuites(policy, target, problems)
    if suites:
        commands.append(suites)
    chacha_possible = conf_ok and libraries.has(lib, "prioritize_chacha") and prefer
    if _switch(policy.prioritize_chacha, chacha_possible, problems, "policy.prioritize_chacha",
               "PrioritizeChaCha needs ssl_conf_command and server preference",
               "set server_preference: true on an OpenSSL target, or use auto"):  # fmt: skip
        why = "ChaCha20 first for clients that prefer it (no AES-NI)"
        commands.append(ConfCommand("Options", "PrioritizeChaCha", why))
    ktls_possible = (
        conf_ok and libraries.has(lib, "ktls") and nginx.feature_available(target, "ssl_sendfile")
    )
    no_ktls = (
        libraries.capability(lib, "ktls").refusal
        if not libraries.has(lib, "ktls")
        else f"nginx uses kernel TLS only from {nginx.feature_since('ssl_sendfile')}"
    )
    ktls = _switch(policy.ktls, ktls_possible, problems, "policy.ktls", no_ktls,
                   "use ktls: auto or off")  # fmt: skip
    if ktls:
        why = "kernel TLS: sendfile() sends encrypted file data (needs the tls kernel module)"
        commands.append(ConfCommand("Options", "KTLS", why))
    if policy.early_data and _early_data_possible(target, conf_ok, problems):
        why = "0-RTT data can be replayed: OpenSSL's anti-replay on"
        commands.append(ConfCommand("Options", "AntiReplay", why))
    if commands and not conf_ok:
        for command in commands:
            problems.add(
                "policy",
                f"ssl_conf_command {command.name} {command.value}",
                libraries.capability(lib, "ssl_conf_command").refusal,
                "drop the setting that needs it",
            )
        commands = []
    return commands, ktls


def _early_data_possible(target: Target, conf_ok: bool, problems: _Problems) -> bool:
    """0-RTT where the library and nginx have it, with OpenSSL's replay protection."""
    lib = target.library
    status = nginx.directive_status(target, "ssl_early_data")
    if not libraries.has(lib, "early_data") or (status and not status.available):
        refusal = libraries.capability(lib, "early_data").refusal
        problems.add("policy.early_data", True, refusal, "set early_data: false")
        return False
    if not conf_ok:
        problems.add(
            "policy.early_data",
            True,
            "replay protection (ssl_conf_command Options AntiReplay) is not available",
            "set early_data: false, or protect replays in the application ($ssl_early_data)",
        )
        return False
    return True


def _check_stapling(policy: TLSPolicy, target: Target, problems: _Problems) -> None:
    """OCSP stapling needs a library that staples and a resolver for the responder."""
    if not policy.ocsp_stapling:
        return
    lib = target.library
    if not libraries.has(lib, "ocsp_stapling"):
        refusal = libraries.capability(lib, "ocsp_stapling").refusal
        problems.add("policy.ocsp_stapling", True, refusal, "set ocsp_stapling: false")
    if not policy.resolver:
        problems.lacks(
            "policy.ocsp_stapling",
            True,
            "a resolver for the OCSP responder's host, and policy.resolver is empty",
            "set policy.resolver (e.g. [127.0.0.53]) or ocsp_stapling: false",
        )


def _plan_session(policy: TLSPolicy, target: Target, problems: _Problems) -> tuple[str, bool, str]:
    """The shared session cache, and tickets only where nginx rotates their keys itself."""
    session = policy.session
    cache = (
        f"shared:{session.cache_name}:{session.cache_size_mb}m" if session.cache_size_mb else "off"
    )
    rotates = nginx.auto_ticket_rotation(target) and session.cache_size_mb is not None
    since = nginx.ticket_rotation().since
    tickets = _switch(session.tickets, rotates, problems, "policy.session.tickets",
                      "ticket keys would never rotate (nginx rotates them itself only from "
                      f"{since} and with a shared cache)", "use tickets: auto or off")  # fmt: skip
    tickets_why = (
        "tickets on: nginx rotates their keys with the shared cache"
        if tickets
        else "tickets off: their keys would not rotate here, the shared cache resumes instead"
    )
    return cache, tickets, tickets_why


def _chosen_findings(policy: TLSPolicy, curve: str) -> tuple[list[str], dict[str, IgnoreComment]]:
    """What the policy chose knowingly: said loudly at the top of the file, and told to the
    linter as suppressions with the reason, so the output never draws its own warnings."""
    warnings = []
    suppress: dict[str, IgnoreComment] = {}
    if any(p in web.legacy_protocols() for p in policy.protocols):
        warnings.append(
            "TLS 1.0 and 1.1 are on for legacy clients: they have no AEAD suites, "
            "rely on SHA-1, need security level 0 and fail PCI DSS and NIST SP 800-52r2."
        )
        reason = "chosen for legacy clients (compat policy)"
        _suppress(suppress, "ssl_protocols", rule_codes.LEGACY_PROTOCOL, reason)
        _suppress(suppress, "ssl_ciphers", rule_codes.CBC_SHA1_CIPHER, reason)
    weak = _policy_weak_groups(curve)
    if weak:
        # the policy lists groups NGX204 warns about (BSI TR-02102-2's Brainpool curves)
        by = {b for g in weak if g.not_recommended for b in g.not_recommended.recommended_by}
        reason = f"policy.groups lists {', '.join(g.display for g in weak)}" + (
            f" ({' and '.join(sorted(by))} recommends them)" if by else ""
        )
        _suppress(suppress, "ssl_ecdh_curve", rule_codes.GROUP_NOT_RECOMMENDED, reason)
    if "TLSv1.3" not in policy.protocols:
        # the user's protocols leave TLS 1.3 out: what NGX409 warns about, asked for by name
        reason = "policy.protocols leaves TLSv1.3 out"
        _suppress(suppress, "ssl_protocols", rule_codes.TLS13_DISABLED, reason)
    return warnings, suppress


def _plan_access_log(
    wanted: str | None, target: Target, problems: _Problems, warnings: list[str]
) -> AccessLog | None:
    """The generated log format with the variables this nginx has, and the log it writes."""
    if wanted == "off":
        return None
    fmt = logs.generated_log()
    if not nginx.feature_available(target, "log_escape_json"):
        since = nginx.feature_since("log_escape_json")
        why = f"log_format escape=json (one JSON object per line) needs nginx {since}"
        if wanted is None:
            warnings.append(f"no TLS access log: {why}")
        else:
            problems.add("access_log", wanted, why, "use --access-log off")
        return None
    fields = [(f.key, f.variable) for f in logs.log_fields(target)]
    strings = generated_format_strings(fields)
    # in the binary's own log folder where nginx -V was read (trial 22: a source build's logs
    # are in its prefix, and /var/log/nginx, the packages' folder, need not exist there)
    return AccessLog(fmt.format_name, strings, wanted or default_access_log_path(target.log_folder))


def _plan_site(
    site: Site,
    index: int,
    policy: TLSPolicy,
    target: Target,
    reuseport_done: set[str],
    problems: _Problems,
    old_http2: bool,
) -> SitePlan:
    where = f"sites[{index}]"
    http2_directive = _directive_ok(target, "http2")
    listens = _tls_listens(site, old_http2)
    alt_svc = None
    if site.http3:
        _check_http3(where, policy, target, problems)
        listens += _quic_listens(site, reuseport_done)
        port = normalize_socket(site.listen[0]).rsplit(":", 1)[1]
        alt_svc = f'h3=":{port}"; ma=86400'
    _check_certificates(site, where, target, problems)
    _check_suites_for_keys(site, where, policy, problems)
    _check_stapling_certificates(site, where, policy, problems)
    return SitePlan(
        name=site.primary,
        domains=list(site.domains),
        listens=listens,
        http2_directive=site.http2 and http2_directive,
        certificates=[(c.cert, c.key) for c in site.certificates],
        hsts=_hsts_value(site),
        alt_svc=alt_svc,
        root=site.root,
        suppress=None if site.hsts else _no_hsts(),
        upstream=plan_upstream(
            site.upstream, site.primary, f"{where}.upstream", policy, target, problems
        )
        if site.upstream
        else None,
        client_certificates=plan_client_certificates(
            site.client_certificates, f"{where}.client_certificates", policy, target, problems
        )
        if site.client_certificates
        else None,
    )


def http2_on_every_listen(sites: list[Site], target: Target) -> bool:
    """Whether every TLS listen gets the `http2` parameter: before nginx 1.25.1 (no `http2`
    directive) where a site asks for HTTP/2. The parameter turns HTTP/2 on for the whole
    address, and a listen of it without the parameter makes nginx -t warn `protocol options
    redefined` (NGX014; the fuzzer found it: a site with http2 false beside one with it); the
    default server listens on every site's address, so every site serves HTTP/2 then."""
    return not _directive_ok(target, "http2") and any(s.http2 for s in sites)


def _tls_listens(site: Site, old_http2: bool) -> list[ListenLine]:
    """A site's TCP listens; `http2` as a listen parameter where nginx has no `http2` directive
    and a site asks for it (http2_on_every_listen)."""
    http2 = ["http2"] if old_http2 else []
    return [ListenLine([sock, "ssl", *http2]) for sock in site.listen]


def _check_http3(where: str, policy: TLSPolicy, target: Target, problems: _Problems) -> None:
    """HTTP/3 needs nginx's QUIC listen parameter and TLS 1.3 in the policy."""
    status = nginx.directive_status(target, "quic", "listen_param")
    if status is None or not status.available:
        since = status.since if status else "?"
        problems.add(
            f"{where}.http3",
            True,
            f"HTTP/3 needs nginx {since} built with --with-http_v3_module",
            "set http3: false",
        )
    needed = nginx.listen_param_needs_protocol("quic")
    if needed and needed not in policy.protocols:
        problems.add(
            f"{where}.http3",
            True,
            "QUIC is TLS 1.3 only and nginx refuses a quic listen without TLSv1.3",
            "add TLSv1.3 to policy.protocols or set http3: false",
        )


def _quic_listens(site: Site, reuseport_done: set[str]) -> list[ListenLine]:
    """A site's QUIC listens; `reuseport` only where no listen of the socket has it yet (nginx
    takes it once per socket)."""
    listens = []
    for sock in site.listen:
        args = [sock, "quic"]
        if normalize_socket(sock) not in reuseport_done:
            args.append("reuseport")
            reuseport_done.add(normalize_socket(sock))
        listens.append(ListenLine(args))
    return listens


def _check_suites_for_keys(site: Site, where: str, policy: TLSPolicy, problems: _Problems) -> None:
    """TLS 1.2 suites none of the site's certificates signs for: every TLS 1.2 handshake would
    fail (lint's NGX413; the generator's fuzzer drew aRSA suites beside an ECDSA certificate).
    Judged where each certificate file can be read now."""
    from nginxgen.base.der import load_chain

    if all(p == "TLSv1.3" for p in policy.protocols):
        return
    suites = [s for n in policy.ciphers if (s := cipher_suites.find_suite(n)) and not s.tls13]
    kinds: set[str] = set()
    for pair in site.certificates:
        try:
            chain = load_chain(Path(pair.cert).read_bytes())
        except (OSError, ValueError):
            return
        if not chain:
            return
        kinds.add(cipher_suites.signs_for(chain[0].key[0]))
    if suites and kinds and not any(s.au in kinds for s in suites):
        problems.add(
            f"{where}.certificates",
            " and ".join(sorted(kinds)),
            f"no TLS 1.2 suite of policy.ciphers signs with this {' and '.join(sorted(kinds))} "
            "certificate: every TLS 1.2 handshake would fail",
            "list suites for its key type (ECDHE-ECDSA-... or ECDHE-RSA-...), or drop TLS 1.2",
        )


def _check_stapling_certificates(
    site: Site, where: str, policy: TLSPolicy, problems: _Problems
) -> None:
    """Stapling for a certificate whose file holds no issuer after it: nginx finds no issuer,
    warns and ignores ssl_stapling (lint's NGX726 warning; a leaf-only file, cert.pem where
    fullchain.pem was meant). Judged where the file can be read. A certificate that names no
    OCSP responder (every Let's Encrypt one since 2025-05-07) staples nothing either, which
    harms nothing: lint says so as an info, and the pq preset's stapling stays."""
    if not policy.ocsp_stapling:
        return
    from nginxgen.base.der import load_chain

    for pair in site.certificates:
        try:
            chain = load_chain(Path(pair.cert).read_bytes())
        except (OSError, ValueError):
            continue
        if not chain or not chain[0].ocsp_urls:
            continue
        if chain[0].subject == chain[0].issuer or any(
            c.subject == chain[0].issuer for c in chain[1:]
        ):
            continue
        problems.add(
            f"{where}.certificates",
            pair.cert,
            "policy.ocsp_stapling is on, but nginx cannot staple for this certificate: its file "
            "holds no issuer after it (nginx -t warns and ignores ssl_stapling)",
            "give the full chain (fullchain.pem), or set policy.ocsp_stapling: false",
        )


def _check_certificates(site: Site, where: str, target: Target, problems: _Problems) -> None:
    """More than one certificate pair needs a library that serves several."""
    if len(site.certificates) > 1 and not libraries.has(target.library, "multiple_certificates"):
        capability = libraries.capability(target.library, "multiple_certificates")
        problems.add(
            f"{where}.certificates",
            f"{len(site.certificates)} pairs",
            capability.refusal,
            "give one certificate (ECDSA P-256 serves every current client)",
        )


def _hsts_value(site: Site) -> str | None:
    """The Strict-Transport-Security header's value, or None without `hsts`."""
    if not site.hsts:
        return None
    hsts = f"max-age={site.hsts.max_age}"
    if site.hsts.include_subdomains:
        hsts += "; includeSubDomains"
    if site.hsts.preload:
        hsts += "; preload"
    return hsts


def _no_hsts() -> IgnoreComment:
    return IgnoreComment(
        [rule_codes.HSTS_MISSING], ["hsts: null in the config: no HSTS was asked for"]
    )


def _policy_weak_groups(curve: str) -> list[tls_groups.Group]:
    """The groups of the generated ssl_ecdh_curve that NGX204 would warn about."""
    from nginxgen.conf.groups import parse_groups

    found = (tls_groups.find_group(e.name) for e in parse_groups(curve) if "-" not in e.prefixes)
    return [g for g in found if g is not None and g.not_recommended is not None]


def _suppress(suppress: dict[str, IgnoreComment], directive: str, code: str, reason: str) -> None:
    """Tell the linter a line's finding was chosen."""
    suppress.setdefault(directive, IgnoreComment([], [])).add(code, reason)


def _unique_sockets(sockets: list[str]) -> list[str]:
    seen: dict[str, str] = {}
    for sock in sockets:
        seen.setdefault(normalize_socket(sock), sock)
    return list(seen.values())


def make_plan(
    config: GeneratorConfig,
    target: Target,
    kept_ech_key: str | None = None,
    lines: KeyLines | None = None,
) -> Plan:
    """The plan, or a ValidationError naming every problem (with its file:line where `lines`,
    the --config file's, has the key); `kept_ech_key`: the ECH key file already in --out
    (generate/ech.py)."""
    problems = _Problems(target, lines, config.presets, config.policy_from)
    tls = _plan_tls(config.policy, target, problems)
    ech = plan_ech(config, target, problems, kept_ech_key)
    access_log = _plan_access_log(config.access_log, target, problems, tls.warnings)
    # QUIC sockets get the default server too (two sites on 443/udp would otherwise make the
    # first one the default by order), and reuseport goes on its listen, once per socket.
    quic_sockets = _unique_sockets([s for site in config.sites if site.http3 for s in site.listen])
    reuseport: set[str] = {normalize_socket(sock) for sock in quic_sockets}
    old_http2 = http2_on_every_listen(config.sites, target)
    sites = [
        _plan_site(site, i, config.policy, target, reuseport, problems, old_http2)
        for i, site in enumerate(config.sites)
    ]
    streams = [
        plan_stream(stream, i, config.policy, target, problems)
        for i, stream in enumerate(config.streams)
    ]
    problems.raise_if_any()
    reject = config.default_server.reject_unknown_names and _directive_ok(
        target, "ssl_reject_handshake"
    )
    _suppress_misdirected(config.sites, sites, reject, old_http2)
    first = config.sites[0].certificates if config.sites else []
    return Plan(
        target=target,
        tls=tls,
        sites=sites,
        default_listens=_default_listens(config.sites, quic_sockets, old_http2),
        default_reject=reject,
        default_certificates=[(c.cert, c.key) for c in first],
        redirect_listens=_redirect_listens(config.sites),
        comments=config.comments,
        access_log=access_log,
        ech=ech,
        streams=streams,
        stream_session_cache=_stream_session_cache(config.policy),
        load_modules=[m for m in [stream_module(target)] if m and streams],
    )


def _default_listens(
    sites: list[Site], quic_sockets: list[str], old_http2: bool
) -> list[ListenLine]:
    """The default server's listens: every site's TCP socket (with `http2` where it is a listen
    parameter), then each QUIC socket with `reuseport`."""
    http2 = ["http2"] if old_http2 else []
    tcp = _unique_sockets([s for site in sites for s in site.listen])
    return [ListenLine([sock, "ssl", *http2, "default_server"]) for sock in tcp] + [
        ListenLine([sock, "quic", "default_server", "reuseport"]) for sock in quic_sockets
    ]


def _redirect_listens(sites: list[Site]) -> list[ListenLine]:
    """The HTTP-to-HTTPS redirect server's listens: each socket of the sites that redirect."""
    sockets = _unique_sockets([s for site in sites if site.redirect for s in site.http_listen])
    return [ListenLine([sock, "default_server"]) for sock in sockets]


def _suppress_misdirected(
    sites: list[Site], planned: list[SitePlan], reject: bool, old_http2: bool
) -> None:
    """Tell the linter where a site with client certificates can be asked for on another
    name's connection, as the user's choices make it (see _misdirected)."""
    for site, plan in zip(sites, planned, strict=True):
        if plan.client_certificates is not None:
            reason = _misdirected(site, sites, reject, old_http2)
            if reason:
                plan.client_certificates.suppress.add(rule_codes.CLIENT_VERIFY_MISDIRECTED, reason)


def _misdirected(site: Site, sites: list[Site], reject: bool, old_http2: bool) -> str | None:
    """Why a request for a site asking for client certificates can come on a connection made
    for another name over HTTP/2 and be answered 421 (NGX743), as the user's choices make it:
    the site's own second name, another site on its address, or a default server that
    completes handshakes (no ssl_reject_handshake); None: no such connection."""
    mine = {normalize_socket(s) for s in site.listen}
    beside = [o for o in sites if o is not site and mine & {normalize_socket(s) for s in o.listen}]
    # before `http2 on` (nginx 1.25.1) the listen parameter turns HTTP/2 on for the whole address
    http2 = site.http2 or (old_http2 and any(o.http2 for o in beside))
    if not http2:
        return None
    if len(site.domains) > 1:
        because = f"the site has {len(site.domains)} names ({' '.join(site.domains)})"
    elif beside:
        because = f"{', '.join(o.primary for o in beside)} share its address"
    elif not reject:
        because = "the default server completes handshakes (no ssl_reject_handshake here)"
    else:
        return None
    return (
        f"{because} and client_certificates is set with HTTP/2: a request for one name on a "
        "connection made for another is answered 421, which clients may retry on a new one"
    )


def _stream_session_cache(policy: TLSPolicy) -> str:
    """stream{}'s shared session cache: a zone of its own, as large as http{}'s."""
    session = policy.session
    if not session.cache_size_mb:
        return "off"
    return f"shared:{session.cache_name}_stream:{session.cache_size_mb}m"
