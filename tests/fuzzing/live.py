"""The model against live nginx (issue 25): random multi-server trees are served by a real build
and every name is probed with `probe --config`. Oracle, per name: every value the config model
(nginxgen/conf/per_name.py) predicts equals what the server did; a server just started with a
tree runs that tree, so no mismatch may say it does not; every other mismatch names a line that
the linter reports too (what the config meant there and why it is not in effect).

Trees: 2-4 servers on one or two TLS sockets (IPv4, or IPv4 and IPv6 loopback), each socket's
default server explicit (sometimes refusing handshakes) or by order; protocols, groups, tickets
and session caches at http{} level, in the servers, or in a snippet a server includes; certbot's
own options-ssl-nginx.conf included by several servers; a certificate per server; exact,
wildcard and regular-expression server names; HTTP/2 by `http2 on` or the listen parameter;
sometimes a `listen ... quic default_server` on the first socket's port by another server
(builds without HTTP/3 refuse such a tree);
HSTS with and without `always`, in a server or at http{} level; `location /` (and sometimes a
location that answers the probe's missing page) with add_header lines of its own or a `return`;
`add_header_inherit` off, merge or on at http{}, server and location level, on the builds whose
nginx has it (1.29.3; written without it elsewhere); one worker or two.
"""

from __future__ import annotations

import collections
import functools
import json
import re
import subprocess
import time
from dataclasses import dataclass, field, replace
from pathlib import Path

from hypothesis import strategies as st

from nginxgen.base.version import Version
from nginxgen.knowledge import libraries, nginx
from nginxgen.knowledge.target import Target
from tests.builds import Build
from tests.cli_process import nginxgen
from tests.live import Server, free_port, prepare_prefix
from tests.paths import REPO
from tests.pki import CertificateFactory

NAMES = ("s0.test", "s1.test", "s2.test", "s3.test")
SETTINGS = {
    "ssl_protocols": ("TLSv1.2 TLSv1.3", "TLSv1.3", "TLSv1.2"),
    "ssl_ecdh_curve": ("X25519:prime256v1", "prime256v1", "secp384r1:X25519", "X25519MLKEM768:X25519"),
    "ssl_session_tickets": ("on", "off"),
    "ssl_session_cache": ("shared:S:1m", "none", "off", "builtin:1000"),
}  # fmt: skip
HSTS = 'add_header Strict-Transport-Security "max-age=63072000"'
# http{}'s says another max-age: which level's line a response carries shows in its text
HTTP_HSTS = 'add_header Strict-Transport-Security "max-age=300; includeSubDomains"'
LOCATIONS = (  # {inherit}: an add_header_inherit line drawn for the location, or nothing
    "",
    "location / { {inherit}add_header X-Frame-Options DENY; }",
    'location / { {inherit}return 200 "ok"; }',
    "location / { {inherit}return 404; }",
    "location / { {inherit}}",
)
# a location that answers the probe's missing page (nginxgen/probe/checks/hsts.py), so that the
# probe's two pages come from different locations
PROBE_PAGE_LOCATIONS = (
    "",
    "location /nginxgen- { {inherit}}",
    "location /nginxgen- { {inherit}add_header X-Probe 1 always; }",
)
INHERIT = (
    "",
    "",
    "add_header_inherit off; ",
    "add_header_inherit merge; ",
    "add_header_inherit on; ",
)
ADD_HEADER_INHERIT = re.compile(r"add_header_inherit \w+; ?")
# Names a server may have besides its own (probed with the name after the arrow)
EXTRA_NAMES = {
    "": (),
    "*.w{i}.test": ("a.b.w{i}.test",),  # a leading wildcard covers every depth
    ".d{i}.test": ("d{i}.test", "x.d{i}.test"),  # the special form: the name itself too
    "r{i}.*": ("r{i}.example",),  # a trailing wildcard
    "~^re{i}-[0-9]+\\.test$": ("re{i}-42.test",),  # a regular expression
    "*.test": ("other.test",),  # every .test name no server names exactly
}
CERTBOT_OPTIONS = REPO / "tests" / "data" / "certbot" / "options-ssl-nginx.conf"
CERTBOT_DIRECTIVES = {"ssl_session_cache", "ssl_session_timeout", "ssl_session_tickets",
                      "ssl_protocols", "ssl_prefer_server_ciphers", "ssl_ciphers"}  # fmt: skip
NOT_RUNNING = "does not do what this config says"
UNKNOWN = ("unknown.invalid",)  # a name no server has (no `*.test` covers it)


@dataclass(frozen=True)
class LiveServer:
    lines: tuple[str, ...]  # settings, HSTS, location
    extra_name: str  # one of EXTRA_NAMES ("" for none), {i} filled in when written
    sockets: tuple[int, ...]  # the indexes of the sockets it listens on
    snippet: bool  # its lines are in a file it includes
    certbot: bool  # it includes certbot's options-ssl-nginx.conf
    http2: str  # "", "on" (http2 on;) or "listen" (the listen parameter)


@dataclass(frozen=True)
class LiveTree:
    servers: tuple[LiveServer, ...]
    http: tuple[str, ...]  # http{}-level lines
    ipv6: bool  # the second socket (if any) is on ::1
    defaults: tuple[int | None, ...]  # per socket: the explicit default server, if any
    reject: bool  # the first socket's explicit default refuses handshakes
    # A server that also listens with QUIC (UDP) on the first socket's port, as its default
    # server: a UDP socket of its own, which must not make it the TCP socket's default.
    quic: int | None = None
    # nginx's workers: with several, a ticket resumes on another worker only where they share
    # the keys (knowledge: ticket_keys_made_with_context)
    workers: int = 1
    # the refusing default server has no certificate (nginx needs none with
    # ssl_reject_handshake on): the names' own servers then keep their TLS contexts alone
    bare_reject: bool = False


def _lines(draw: st.DrawFn) -> list[str]:
    out = []
    for directive, values in SETTINGS.items():
        if draw(st.integers(0, 3)) == 0:
            out.append(f"{directive} {draw(st.sampled_from(values))};")
    return out


def server(lines: tuple[str, ...], sockets: tuple[int, ...] = (0,)) -> LiveServer:
    """A plain server on the first socket (regression tests build trees from these)."""
    return LiveServer(lines, "", sockets, snippet=False, certbot=False, http2="")


@st.composite
def live_trees(draw: st.DrawFn) -> LiveTree:
    count = draw(st.integers(2, 4))
    sockets = draw(st.sampled_from((1, 1, 2)))
    servers = []
    for _ in range(count):
        lines = _lines(draw)
        hsts = draw(st.sampled_from(("", f"{HSTS};", f"{HSTS} always;")))
        lines += [hsts, draw(st.sampled_from(INHERIT)).strip()]
        for choices in (LOCATIONS, PROBE_PAGE_LOCATIONS):
            template = draw(st.sampled_from(choices))
            lines.append(template.replace("{inherit}", draw(st.sampled_from(INHERIT))))
        listens = (0,) if sockets == 1 else draw(st.sampled_from(((0,), (1,), (0, 1))))
        servers.append(
            LiveServer(
                lines=tuple(b for b in lines if b),
                extra_name=draw(st.sampled_from(tuple(EXTRA_NAMES))),
                sockets=listens,
                snippet=draw(st.integers(0, 3)) == 0,
                certbot=draw(st.integers(0, 2)) == 0,
                http2=draw(st.sampled_from(("", "", "", "on", "listen"))),
            )
        )
    for socket in range(sockets):  # every socket has a server
        if not any(socket in s.sockets for s in servers):
            servers[socket] = _also_on(servers[socket], socket)
    defaults = []
    for socket in range(sockets):
        on = [i for i, s in enumerate(servers) if socket in s.sockets]
        defaults.append(draw(st.one_of(st.none(), st.sampled_from(on))))
    reject = defaults[0] is not None and draw(st.booleans())
    on_first = [i for i, s in enumerate(servers) if 0 in s.sockets and i != defaults[0]]
    quic = draw(st.sampled_from(on_first)) if on_first and draw(st.integers(0, 4)) == 0 else None
    http = [*_lines(draw), draw(st.sampled_from(INHERIT)).strip()]
    http.append(draw(st.sampled_from(("", "", "", f"{HTTP_HSTS} always;"))))
    return LiveTree(
        tuple(servers), tuple(h for h in http if h), draw(st.booleans()), tuple(defaults), reject,
        quic, draw(st.sampled_from((1, 1, 2))), reject and draw(st.booleans()),
    )  # fmt: skip


def _also_on(server: LiveServer, socket: int) -> LiveServer:
    return LiveServer(server.lines, server.extra_name, (*server.sockets, socket), server.snippet,
                      server.certbot, server.http2)  # fmt: skip


# A tree is drawn once and written for the build at hand, in what that build takes: a
# tree's features the build lacks would only make nginx -t refuse it (and the sample smaller).


@functools.cache
def _has_http3(build: Build) -> bool:
    return "http_v3_module" in build.nginx("-V").stderr


def _http2_spelling(build: Build) -> dict[str, str]:
    """How a tree's HTTP/2 choice is written: `http2 on` only from nginx 1.25.1."""
    new = Version(build.nginx_version) >= Version("1.25.1")
    return {"on": "on" if new else "listen", "listen": "listen"}


def _adapted(line: str, build: Build) -> str:
    if line.startswith("ssl_ecdh_curve ") and not libraries.has(build.library, "mlkem_hybrid"):
        return line.replace("X25519MLKEM768:", "")
    if not _has_add_header_inherit(build):  # no directive before 1.29.3: nginx -t would fail
        return ADD_HEADER_INHERIT.sub("", line)
    return line


@functools.cache
def _has_add_header_inherit(build: Build) -> bool:
    target = Target(Version(build.nginx_version), build.library)
    status = nginx.directive_status(target, "add_header_inherit")
    return status is not None and status.available


@dataclass(frozen=True)
class Written:
    conf: Path
    ports: tuple[int, ...]
    hosts: tuple[str, ...]  # per socket, as probe takes it
    names: tuple[tuple[str, ...], ...]  # per socket: the names to ask for


def write(tree: LiveTree, folder: Path, build: Build) -> Written:
    factory = CertificateFactory(folder / "certs", "ecdsa")
    ports = tuple(free_port() for _ in tree.defaults)
    hosts = tuple("[::1]" if tree.ipv6 and n == 1 else "127.0.0.1" for n in range(len(ports)))
    (folder / "snippets").mkdir()
    if any(s.certbot for s in tree.servers):
        (folder / "options-ssl-nginx.conf").write_bytes(CERTBOT_OPTIONS.read_bytes())
    blocks = []
    names: list[list[str]] = [[] for _ in ports]
    http2 = _http2_spelling(build)
    for i, spec in enumerate(tree.servers):
        extra = spec.extra_name.format(i=i)
        probed = [NAMES[i], *(n.format(i=i) for n in EXTRA_NAMES[spec.extra_name])]
        certs = factory.leaf(NAMES[i], "ecdsa", sans=tuple(probed[1:]))
        body = [f"server_name {NAMES[i]}{' ' + extra if extra else ''};"]
        for socket in spec.sockets:
            flags = " default_server" if tree.defaults[socket] == i else ""
            flags += " http2" if http2.get(spec.http2) == "listen" else ""
            body.insert(0, f"listen {hosts[socket]}:{ports[socket]} ssl{flags};")
            names[socket] += probed
        if tree.quic == i and _has_http3(build):
            body.insert(0, f"listen {hosts[0]}:{ports[0]} quic default_server;")
        rejects = tree.reject and tree.defaults[0] == i
        if not (rejects and tree.bare_reject):
            body.append(f"ssl_certificate {certs.fullchain}; ssl_certificate_key {certs.key};")
        if rejects:
            body.append("ssl_reject_handshake on;")
        else:
            lines = [
                _adapted(line, build)
                for line in spec.lines
                if not spec.certbot or line.split()[0] not in CERTBOT_DIRECTIVES
            ]
            if spec.certbot:
                body.append(f"include {folder / 'options-ssl-nginx.conf'};")
            if http2.get(spec.http2) == "on":
                body.append("http2 on;")
            if spec.snippet:
                snippet = folder / "snippets" / f"s{i}.conf"
                snippet.write_text("".join(f"{line}\n" for line in lines))
                body.append(f"include {snippet};")
            else:
                body += lines
        blocks.append("    server {\n" + "".join(f"        {b}\n" for b in body) + "    }\n")
    conf = folder / "nginx.conf"
    http = "".join(f"    {_adapted(line, build)}\n" for line in tree.http)
    conf.write_text("worker_processes auto;\nevents {}\nhttp {\n" + http + "".join(blocks) + "}\n")
    prepare_prefix(conf, build, workers=tree.workers)
    every = tuple(tuple(dict.fromkeys([*n, *UNKNOWN])) for n in names)
    return Written(conf, ports, hosts, every)


@dataclass(frozen=True)
class LiveOutcome:
    kind: str  # "agreed", "refused by nginx -t"
    names: int
    mismatches: int  # explained mismatches (a line and why it is not in effect)
    seconds: float
    predicted: int = 0  # values the model predicted and the server showed
    # values the model left open, by observation
    unpredicted: collections.Counter[str] = field(default_factory=collections.Counter)
    # names that took their TLS context's values from another name's probe (probe/plan.py)
    shared: int = 0


def _lint(conf: Path, build: Build, *extra: str) -> subprocess.CompletedProcess[str]:
    return nginxgen("lint", str(conf), *extra, *build.target_flags, timeout=120)


def _lint_findings(written: Written, build: Build) -> list[dict[str, object]]:
    done = _lint(written.conf, build, "--format", "json")
    assert done.returncode in (0, 1), done.stderr[-2000:]
    findings: list[dict[str, object]] = json.loads(done.stdout)["findings"]
    return findings


# (sni, address:port, observation, page): observed. An observation is the probe's JSON key the model's
# answer is compared with (`resumption.tls13_psk_resumed`), not the directive that decides it:
# one directive can decide several (ssl_session_tickets: TLS 1.2 tickets and TLS 1.3 resumption)
Seen = dict[tuple[str | None, str, str, str | None], object]


@dataclass
class _Probed:
    names: int = 0
    shared: int = 0  # names that took their context's values from another's probe (plan.py)
    explained: int = 0
    predicted: int = 0
    unpredicted: collections.Counter[str] = field(default_factory=collections.Counter)
    # what each original mismatch expected, by (sni, address:port, observation, page), and its
    # line (an IPv4 and an IPv6 socket can share a port, with other default servers)
    mismatches: list[tuple[tuple[str | None, str, str, str | None], object, tuple[str, int]]] = (
        field(default_factory=list)
    )
    seen: Seen = field(default_factory=dict)
    # the groups the probe asked each name about (nginxgen/probe/checks/groups.py): through
    # TLS 1.3 every group it knows, without TLS 1.3 only the curves TLS 1.2's ECDHE can use
    asked: dict[tuple[str | None, str, str, str | None], frozenset[str]] = field(
        default_factory=dict
    )
    # what the config model said, by (sni, address:port) and then (observation, page)
    said: dict[tuple[str | None, str], dict[tuple[str, str | None], dict[str, object]]] = field(
        default_factory=dict
    )


def _probe_all(written: Written, build: Build) -> _Probed:
    """Serve the tree and probe every name of every socket with --config; the oracle of the
    module's docstring holds for each answer."""
    reported = {(f["file"], f["line"]) for f in _lint_findings(written, build)}
    out = _Probed()
    with Server(build, written.conf, [written.ports[0]]):
        for host, port, names in zip(written.hosts, written.ports, written.names, strict=True):
            sni = [arg for name in names for arg in ("--sni", name)]
            done = nginxgen("probe", f"{host}:{port}", *sni, "--format", "json",
                            "--config", str(written.conf), *build.target_flags,
                            timeout=300)  # fmt: skip
            out.names += len(names) + 1
            if done.returncode == 2:  # no name answered: every one must be refused
                said = done.stderr  # refused with alerts, or not answered at all
                assert "refused every handshake" in said or "no TLS answer" in said, said
                assert _all_refused(written, build, host, port, names), (port, done.stderr)
                continue
            assert done.returncode in (0, 1), (done.stdout[-2000:], done.stderr[-2000:])
            for answer in json.loads(done.stdout):
                at = f"{host}:{port}"
                where = (answer["sni"], at)
                context = answer.get("context") or {}
                out.shared += bool(context) and not context.get("refuted")
                if answer.get("groups") is not None:
                    out.asked[answer["sni"], at, "groups", None] = frozenset(answer["groups"])
                for said in answer["config"]:
                    out.said.setdefault(where, {})[said["key"], said.get("page")] = said
                    out.seen[answer["sni"], at, said["key"], said.get("page")] = said["observed"]
                    if not said["predicted"]:
                        out.unpredicted[said["key"]] += 1
                        continue
                    assert said["value"] == said["observed"], (where, said, _text(written))
                    out.predicted += 1
                for mismatch in answer["mismatches"]:
                    assert NOT_RUNNING not in mismatch["why"], (where, mismatch, _text(written))
                    because = mismatch.get("because") or {}
                    lines = {
                        (mismatch["file"], mismatch["line"]),
                        (because.get("file"), because.get("line")),
                    }
                    assert lines & reported, (where, mismatch, "not reported by lint")
                    out.explained += 1
                    key = (answer["sni"], at, mismatch["key"], mismatch.get("page"))
                    line = (mismatch["file"], mismatch["line"])
                    out.mismatches.append((key, mismatch["expected"], line))
    return out


def check_live(tree: LiveTree, build: Build, folder: Path) -> LiveOutcome:
    from tests.live import nginx_check

    started = time.monotonic()
    written = write(tree, folder, build)
    if nginx_check(build, written.conf).returncode != 0:
        return LiveOutcome("refused by nginx -t", 0, 0, time.monotonic() - started)
    probed = _probe_all(written, build)
    return LiveOutcome(
        "agreed", probed.names, probed.explained, time.monotonic() - started, probed.predicted,
        probed.unpredicted, probed.shared,
    )  # fmt: skip


def _fixable_by_address(
    written: Written, findings: list[dict[str, object]]
) -> set[tuple[object, object, str]]:
    """(file, line, address:port) of each finding whose fix moves a line where it takes effect (the
    default-server rules: another rule's fix on the same line, such as a group list made a
    tuple, does not answer why the line is ignored), for the addresses its message names (a
    line ignored on two addresses has a finding for each, and only some may have a fix); a
    finding that names none of them counts for every address."""
    from nginxgen.lint.rules import catalog
    from nginxgen.lint.rules._default_server import MOVE_TO_DEFAULT

    moves = {code for code, entry in catalog().items() if entry.rule.autofix == MOVE_TO_DEFAULT}
    out = set()
    for finding in findings:
        if not finding.get("autofix") or finding["code"] not in moves:
            continue
        addresses = [f"{h}:{p}" for h, p in zip(written.hosts, written.ports, strict=True)]
        named = [a for a in addresses if a in str(finding["message"])]
        for address in named or addresses:
            out.add((finding["file"], finding["line"], address))
    return out


def check_live_fix(tree: LiveTree, build: Build, folder: Path) -> LiveOutcome:
    """The editor on the same trees: probe, `lint --unsafe-fixes`, then serve and probe the
    fixed tree. nginx -t accepts it, the oracle holds on it, and each mismatch of the first
    probe whose line had a fix (a setting meant for its names but not in effect there) is gone:
    either the server now does for those names what the line meant (the line was moved where
    it takes effect; counted in `mismatches`), or it does what it did and the line now says so
    (aligned with what is in effect)."""
    from tests.live import nginx_check

    started = time.monotonic()
    written = write(tree, folder, build)
    if nginx_check(build, written.conf).returncode != 0:
        return LiveOutcome("refused by nginx -t", 0, 0, time.monotonic() - started)
    before = _probe_all(written, build)
    findings = _lint_findings(written, build)
    fixable = _fixable_by_address(written, findings)
    # lines another rule's fix changes too: the line takes effect as both fixes leave it, not
    # as it was written. A vhost's ssl_protocols that NGX103 moves into the default server is
    # judged by the rules that mend protocols (NGX401, NGX409) once it decides there, in a
    # later pass, not where it is ignored (trial 11, F10)
    codes: dict[tuple[object, object], set[object]] = {}
    for f in findings:
        if f.get("autofix"):
            codes.setdefault((f["file"], f["line"]), set()).add(f["code"])
    also_fixed = {line for line, by in codes.items() if len(by) > 1 or "NGX103" in by}
    done = _lint(written.conf, build, "--unsafe-fixes")
    assert "internal error" not in done.stderr and done.returncode in (0, 1), done.stderr
    checked = nginx_check(build, written.conf)
    assert checked.returncode == 0, (checked.stderr, _text(written))
    after = _probe_all(written, build)
    still = {key for key, _, _ in after.mismatches}
    moved = 0
    for key, expected, line in before.mismatches:
        if (*line, key[1]) not in fixable or key not in after.seen:
            continue
        meant, was, now = _in_terms_of_both(key, before, after, expected, before.seen[key],
                                            after.seen[key])  # fmt: skip
        if now == meant:
            moved += 1  # the line was moved where it takes effect
            continue
        if line in also_fixed:
            assert key not in still, (key, "still a mismatch after the fix", _text(written))
            continue
        # ... or the line was aligned with what is in effect: the server does what it did, and
        # the fixed tree no longer says otherwise
        assert now == was, (key, meant, was, now, _text(written))
        assert key not in still, (key, "still a mismatch after the fix", _text(written))
    return LiveOutcome(
        "agreed", after.names, moved, time.monotonic() - started, after.predicted,
        after.unpredicted, after.shared,
    )  # fmt: skip


def _in_terms_of_both(
    key: tuple[str | None, str, str, str | None], before: _Probed, after: _Probed, *values: object
) -> tuple[object, ...]:
    """`values` (a mismatch's expected value, what each probe saw) among the groups both probes
    asked the name about. A fix that turns TLS 1.3 on or off for a name (NGX409 adds it to the
    default server's protocols) changes how its groups are probed: a line meant
    `X25519MLKEM768:X25519` is X25519 in TLS 1.2's terms, and both groups through TLS 1.3."""
    first, second = before.asked.get(key), after.asked.get(key)
    if first is None or second is None or first == second:
        return values
    both = first & second
    return tuple(sorted(set(v) & both) if isinstance(v, list) else v for v in values)


NEW_NAMES = ("new.test", "www.new.test")  # the site generate --into adds
INTO_PRESETS = ("intermediate", "modern", "pq")
# The directive a report names when it changes an observation, where the observation's own
# deciding line does not say it: ALPN is decided by `http2 on` or a listen's parameter, HSTS by
# add_header lines.
REPORTED_AS = {"alpn": "http2", "hsts.root": "add_header", "hsts.not_found": "add_header"}
# What else can change what a client observes for a setting (the directive deciding it): a
# report that names one of these has said the observation may change.
ALSO_CHANGES = {
    "ssl_session_tickets": ("ssl_session_cache", "ssl_session_ticket_key", "ssl_ecdh_curve"),
    "ssl_conf_command Ciphersuites": ("ssl_ciphers",),
}


def check_live_into(tree: LiveTree, build: Build, folder: Path, preset: str) -> LiveOutcome:
    """`generate --into` on the same trees: probe, add a site with `preset` on the first
    socket's address, then nginx -t, serve and probe again, new names included.

    - nginx -t accepts the tree as --into leaves it, and the oracle above holds on it;
    - the new names get what the preset promises: its protocols (those the library
      negotiates), h2, HSTS on `/` and on the probe's missing page, and a group line in effect,
      unless the report says a deciding line was kept (in a file another tool manages);
    - every other name gets what it got before, except for settings the report names (a line
      changed in place, the default server's line, the new http{}-level file): --into may
      change those for every name of an address, and must say so.
    """
    from nginxgen.generate.models import TLSPolicy
    from nginxgen.generate.presets import load_preset
    from tests.live import nginx_check

    started = time.monotonic()
    written = write(tree, folder, build)
    if nginx_check(build, written.conf).returncode != 0:
        return LiveOutcome("refused by nginx -t", 0, 0, time.monotonic() - started)
    before = _probe_all(written, build)
    chain = CertificateFactory(folder / "new-certs", "ecdsa").leaf(
        NEW_NAMES[0], "ecdsa", sans=NEW_NAMES[1:]
    )
    names = [arg for name in NEW_NAMES for arg in ("--domain", name)]
    done = nginxgen(
        "generate", "--preset", preset, *names,
        "--cert", str(chain.fullchain), "--key", str(chain.key),
        "--listen", f"{written.hosts[0]}:{written.ports[0]}", "--http-listen", "none",
        "--access-log", str(folder / "tls.log"), "--into", str(folder), *build.target_flags,
        timeout=120,
    )  # fmt: skip
    assert "Traceback" not in done.stderr and "internal error" not in done.stderr, done.stderr
    if done.returncode == 2:  # refused, with one line that says why
        assert done.stderr.count("nginxgen: error:") == 1, done.stderr
        return LiveOutcome("refused by generate --into", 0, 0, time.monotonic() - started)
    assert done.returncode == 0, (done.stdout, done.stderr, _text(written))
    report = done.stdout
    checked = nginx_check(build, written.conf)
    assert checked.returncode == 0, (checked.stderr, report, _text(written))
    grown = tuple(
        (*names_, *(NEW_NAMES if n == 0 else ())) for n, names_ in enumerate(written.names)
    )
    after = _probe_all(replace(written, names=grown), build)
    port = f"{written.hosts[0]}:{written.ports[0]}"
    policy = TLSPolicy.model_validate(load_preset(preset)["policy"])
    promised = {p for p in policy.protocols if p in ("TLSv1.2", "TLSv1.3")}
    kept = _kept(report)
    for name in NEW_NAMES:
        said = after.said[name, port]
        if "ssl_protocols" not in kept:
            assert after.seen[name, port, "protocols", None] == sorted(promised), (name, report)
        groups = said.get(("groups", None))
        if groups is not None and "ssl_ecdh_curve" not in kept:
            assert groups["file"] is not None, (name, said, report)  # a line, not the library's
        h2 = "http/1.1" if "http2 left off" in report else "h2"  # said: the others would get it
        assert after.seen[name, port, "alpn", None] == h2, (name, report)
        hsts = {
            k[3]: v for k, v in after.seen.items() if k[:2] == (name, port) and k[2][:5] == "hsts."
        }
        sent = [v for page, v in hsts.items() if not str(page).endswith(", value")]
        assert sent == [True, True], (name, hsts, report)  # `/` and the missing page
        # and, on both, the text of the line generate wrote
        texts = {v for page, v in hsts.items() if str(page).endswith(", value")}
        assert len(texts) == 1 and str(texts.pop()).startswith("max-age="), (name, hsts, report)
    changed = 0
    for key, seen in before.seen.items():
        if key not in after.seen or after.seen[key] == seen:
            continue
        sni, where, observation, page = key
        setting = str(before.said[sni, where][observation, page]["setting"])
        directive = REPORTED_AS.get(observation, setting)
        said_so = any(d in report for d in (directive, *ALSO_CHANGES.get(setting, ())))
        protocols = (sni, where, "protocols", None)
        by_protocols = before.seen.get(protocols) != after.seen.get(protocols)
        assert said_so or (by_protocols and "ssl_protocols" in report), (
            key, seen, after.seen[key], "changed for a name --into did not add, unsaid", report,
            _text(written),
        )  # fmt: skip
        changed += 1
    return LiveOutcome(
        "agreed", after.names, changed, time.monotonic() - started, after.predicted,
        after.unpredicted, after.shared,
    )  # fmt: skip


def _kept(report: str) -> set[str]:
    """The directives whose deciding line the report says was kept (another tool's file)."""
    return {
        line.split(": ", 1)[1].split()[0]
        for line in report.splitlines()
        if " kept (nginxgen would make it" in line and ": " in line
    }


def _all_refused(
    written: Written, build: Build, host: str, port: int, names: tuple[str, ...]
) -> bool:
    from nginxgen.conf.config import build as build_config
    from nginxgen.conf.load import load_path
    from nginxgen.knowledge.target import resolve
    from nginxgen.probe.predict import model_for

    config = build_config(load_path(str(written.conf)))
    target = resolve(build.nginx_version, build.tls_library, None)
    for name in (*names, None):
        model = model_for(config, target, port, name, host)
        if model is None or not model.refused().value:
            return False
    return True


def _text(written: Written) -> str:
    files = [written.conf, *sorted((written.conf.parent / "snippets").glob("*.conf"))]
    return "\n".join(f"# {f.name}\n{f.read_text()}" for f in files)
