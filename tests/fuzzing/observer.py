"""An independent observer of what `nginxgen probe` reports (issue 35): a random multi-server
tree (the live differential's, tests/fuzzing/live.py) is served by a real build, every name of
every socket is probed, and the same things are observed again with clients that share no code
with the probe: `openssl s_client` (the build's own where it has one, else the machine's; the
trixie build's OpenSSL 3.5 for the groups the first one does not know, ML-KEM among them) and
`curl` for the HTTP responses. Nothing of nginxgen is imported here: an oracle must not share
what it checks (a fault the probe and the config model shared was invisible to the live
differential, which compares those two).

Oracle, per name and per key of the probe's JSON an outside client can observe: equal values.

- `protocols.V`: `s_client -tls1_x` completes a handshake of that version (TLS 1.0/1.1 with
  `@SECLEVEL=0`, so that the client offers them at all);
- `groups.G` (TLS 1.3): `-tls1_3 -groups G` completes with G; (TLS 1.2, for a server without
  TLS 1.3): `-tls1_2 -groups G:P-256:P-384:P-521` with ECDHE suites negotiates G. With the
  server's suite order winning in TLS 1.2 the server's first group wins too, and the probe's
  value is compared as it is;
- `tls12.accepted`: the suites the server takes among every one the client knows (`openssl
  ciphers ALL:COMPLEMENTOFALL`), found by offering them all, dropping the one chosen, until the
  server refuses; `tls12.cipher` and `tls12.server_order`: that list forward and reversed;
- `tls13.accepted`: each TLS 1.3 suite offered alone;
- `alpn`: `-alpn h2,http/1.1`;
- `certificate.sha256` (the leaf sent for the name) and `certificate.chain_length`
  (`-showcerts`);
- `resumption.session_id_resumed`: `-tls1_2 -no_ticket -sess_out`, then `-sess_in`: "Reused";
  `resumption.tls12_ticket_issued`: the TLS 1.2 session s_client keeps has a "TLS session
  ticket" (a NewSessionTicket with a ticket in it, RFC 5077 3.3);
  `resumption.tls12_ticket_resumed`: that session offered again is "Reused" and the server sent
  no Certificate (`-msg`: an abbreviated handshake, RFC 5077 3.1), false where no ticket came;
  `resumption.tls13_psk_resumed`: `-tls1_3`, a request so that the tickets arrive, then
  `-sess_in`: "Reused, TLSv1.3";
- `early_data.offered`, `early_data.max_early_data`: "Max Early Data" of that TLS 1.3 session;
- `hsts.root`, `hsts.root_status`, `hsts.not_found`, `hsts.not_found_status`: `curl --http1.1`
  on `/` and on the probe's documented missing page (docs/probe.md).

The probe runs with `--config`, so names nginx answers from one TLS context take what that
context decides from one name's probe (nginxgen/probe/plan.py): the observer checks every name
all the same, so a value shared wrongly shows as a disagreement for the name it was shared to.

Trees are served with one worker: with several, whether a session resumes can depend on which
worker takes the connection (each worker's own ticket keys or `builtin` cache), and the probe and
the observer would meet different servers.
"""

from __future__ import annotations

import collections
import hashlib
import json
import re
import ssl
import subprocess
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from hypothesis import strategies as st

from tests.builds import Build
from tests.cli_process import nginxgen
from tests.fuzzing.live import LiveTree, Written, _text, live_trees, write
from tests.live import Server, nginx_check, parse_s_client

SYSTEM_OPENSSL = ("/usr/bin/openssl",)
MISSING_PAGE = "/nginxgen-probe-404"  # the probe's page a site most likely lacks (docs/probe.md)
VERSIONS = {"TLSv1": "-tls1", "TLSv1.1": "-tls1_1", "TLSv1.2": "-tls1_2", "TLSv1.3": "-tls1_3"}
LEGACY = ("-cipher", "ALL:@SECLEVEL=0")  # a client of OpenSSL 3 offers TLS 1.0/1.1 only so
# Every TLS 1.2 suite the client knows (docs/probe.md: the probe offers every suite it knows),
# in the client's own order
EVERY_SUITE = "ALL:COMPLEMENTOFALL:@SECLEVEL=0"
TLS13_SUITES = ("TLS_AES_128_GCM_SHA256", "TLS_AES_256_GCM_SHA384",
                "TLS_CHACHA20_POLY1305_SHA256", "TLS_AES_128_CCM_SHA256")  # fmt: skip
CLASSICAL = "X25519:secp256r1:secp384r1"
NIST = ("secp256r1", "secp384r1", "secp521r1")
# s_client's spellings of a group (OpenSSL 3.0 prints the curve's ASN.1 name)
SPELLED = {"prime256v1": "secp256r1", "x25519": "X25519", "x448": "X448"}


@st.composite
def observed_trees(draw: st.DrawFn) -> LiveTree:
    """The live differential's trees, a third of them with `ssl_early_data on` at http{}
    level, so that the 0-RTT offer in the tickets is sometimes there to observe."""
    tree = draw(live_trees())
    if draw(st.integers(0, 2)) == 0:
        tree = replace(tree, http=(*tree.http, "ssl_early_data on;"))
    return tree


@dataclass(frozen=True)
class Client:
    """An `openssl` binary and the environment it runs in."""

    name: str
    argv: tuple[str, ...]
    env: dict[str, str] | None

    def run(self, *args: str, stdin: str = "", timeout: float = 20) -> str:
        done = subprocess.run(
            [*self.argv, *args], input=stdin, capture_output=True, text=True, errors="replace",
            timeout=timeout, check=False, env=self.env,
        )  # fmt: skip
        return done.stdout + done.stderr


def clients(build: Build, builds: dict[str, Build]) -> list[Client]:
    """The build's own openssl, else the machine's; then OpenSSL 3.5 (the trixie build) for
    what the first does not know."""
    out = []
    if build.openssl_argv is not None:
        out.append(Client(f"{build.name} openssl", build.openssl_argv, build.env()))
    else:
        out.append(Client("/usr/bin/openssl", SYSTEM_OPENSSL, None))
    trixie = builds.get("trixie")
    if trixie is not None and trixie is not build and trixie.openssl_argv is not None:
        out.append(Client("trixie openssl", trixie.openssl_argv, trixie.env()))
    return out


@dataclass(frozen=True)
class Where:
    host: str  # as s_client and curl take it: 127.0.0.1 or [::1]
    port: int
    sni: str | None


def s_client(client: Client, where: Where, *args: str, request: str | None = None) -> str:
    name = ["-servername", where.sni] if where.sni else ["-noservername"]
    stdin = ""
    extra: list[str] = []
    if request is not None:  # the server closes after answering: every ticket is read by then
        extra.append("-ign_eof")
        host = where.sni or where.host
        stdin = f"HEAD {request} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n"
    connect = f"{where.host}:{where.port}"
    return client.run("s_client", "-connect", connect, *name, *args, *extra, stdin=stdin)


def _unknown_option(output: str) -> bool:
    """s_client refused a group or suite name it does not know (the server was not asked)."""
    return "CONNECTED(" not in output


def _group(output: str) -> str | None:
    """The group s_client says it got: "Negotiated TLS1.3 group: G" (OpenSSL 3.5), else its
    temporary key, which for a finite-field group says only "DH, 2048 bits" (RFC 7919's groups
    have one size each)."""
    dh = re.search(r"Temp Key: DH, (\d+) bits", output)
    if dh and "Negotiated TLS1.3 group" not in output:
        return f"ffdhe{dh.group(1)}"
    group = parse_s_client(output).group
    return SPELLED.get(group, group) if group else None


def _completed(output: str, version: str | None = None) -> bool:
    """A handshake completed (of that version). The version is the session's "Protocol  :"
    (TLS 1.0 is "TLSv1"); s_client prints that session in TLS 1.3 only when a ticket came,
    which a client that leaves at once may not wait for, and its "New, TLSv1.0, Cipher is"
    line names the version of the suite (SSL_CIPHER_get_version), not of the connection. With
    `-tls1_x` the client offers that version alone, so a completed handshake is of it."""
    done = re.search(r"^(?:New|Reused), \S+, Cipher is (\S+)", output, re.M)
    if done is None or done.group(1) == "(NONE)":
        return False
    session = re.search(r"^\s+Protocol\s+: (\S+)", output, re.M)
    return version is None or session is None or session.group(1) == version


def observe_name(
    found: dict[str, Any], where: Where, clients_: list[Client], folder: Path
) -> dict[str, Any]:
    """Every key of the probe's result `found` an outside client can observe, observed again
    for the same name (the probe's result says only which keys apply: the groups it asked
    about, and which versions to try resumption with are the observer's own)."""
    first = clients_[0]
    seen: dict[str, Any] = {}
    for version, flag in VERSIONS.items():
        legacy = LEGACY if version in ("TLSv1", "TLSv1.1") else ()
        seen[f"protocols.{version}"] = _completed(s_client(first, where, flag, *legacy), version)
    tls12, tls13 = seen["protocols.TLSv1.2"], seen["protocols.TLSv1.3"]
    if not (tls12 or tls13):
        return seen
    seen.update(_groups(found, where, clients_, tls13))
    if tls12:
        seen.update(_tls12_suites(where, first))
    if tls13:
        for suite in TLS13_SUITES:
            out = s_client(first, where, "-tls1_3", "-ciphersuites", suite, "-groups", CLASSICAL)
            seen[f"tls13.accepted.{suite}"] = parse_s_client(out).cipher == suite
    out = s_client(first, where, "-alpn", "h2,http/1.1", "-showcerts")
    seen["alpn"] = parse_s_client(out).alpn
    chain = re.findall(r"-----BEGIN CERTIFICATE-----.*?-----END CERTIFICATE-----", out, re.S)
    if chain:
        seen["certificate.sha256"] = hashlib.sha256(ssl.PEM_cert_to_DER_cert(chain[0])).hexdigest()
        seen["certificate.chain_length"] = len(chain)
    seen.update(_resumption(where, first, folder, tls12, tls13))
    seen.update(_hsts(where))
    return seen


def _groups(
    found: dict[str, Any], where: Where, clients_: list[Client], tls13: bool
) -> dict[str, Any]:
    seen: dict[str, Any] = {}
    for group in found.get("groups") or {}:
        if not tls13 and group not in ("X25519", "X448", *NIST):
            continue
        for client in clients_:  # the first that knows the group
            if tls13:
                out = s_client(client, where, "-tls1_3", "-groups", group)
            else:
                offered = ":".join([group, *(c for c in NIST if c != group)])
                out = s_client(client, where, "-tls1_2", "-groups", offered, "-cipher", "ECDHE")
            if not _unknown_option(out):
                seen[f"groups.{group}"] = _completed(out) and _group(out) == group
                break
    return seen


def _every_suite(client: Client) -> list[str]:
    """Every TLS 1.2 (and older) suite the client knows, in its own order."""
    listed = client.run("ciphers", EVERY_SUITE).strip().split(":")
    return [s for s in listed if s and not s.startswith("TLS_")]


def _tls12_suites(where: Where, client: Client) -> dict[str, Any]:
    seen: dict[str, Any] = {}
    every = _every_suite(client)
    left = list(every)
    accepted = []
    while left:  # the server's pick among what is left, until it refuses
        offered = ":".join(left) + ":@SECLEVEL=0"
        out = s_client(client, where, "-tls1_2", "-cipher", offered, "-groups", CLASSICAL)
        cipher = parse_s_client(out).cipher
        if cipher not in left:
            break
        accepted.append(cipher)
        left.remove(cipher)
    seen["tls12.accepted"] = sorted(accepted)
    picks = []
    for order in (every, every[::-1]):
        offered = ":".join(order) + ":@SECLEVEL=0"
        out = s_client(client, where, "-tls1_2", "-cipher", offered, "-groups", CLASSICAL)
        picks.append(parse_s_client(out).cipher)
    seen["tls12.cipher"] = picks[0]
    seen["tls12.server_order"] = picks[0] == picks[1]
    return seen


def _has_ticket(output: str) -> bool:
    """The session s_client printed has a ticket (OpenSSL prints it only when non-empty)."""
    return "TLS session ticket:" in output


def _server_sent_certificate(msg_output: str) -> bool:
    """`-msg` lines of messages received ("<<<") name a Certificate."""
    return any(
        line.startswith("<<<") and line.rstrip().endswith(", Certificate")
        for line in msg_output.splitlines()
    )


def _resumption(
    where: Where, client: Client, folder: Path, tls12: bool, tls13: bool
) -> dict[str, Any]:
    seen: dict[str, Any] = {}
    session = folder / f"session-{where.port}-{where.sni}.pem"
    if tls12:
        s_client(client, where, "-tls1_2", "-no_ticket", "-sess_out", str(session), request="/")
        again = s_client(client, where, "-tls1_2", "-no_ticket", "-sess_in", str(session))
        seen["resumption.session_id_resumed"] = parse_s_client(again).reused
        out = s_client(client, where, "-tls1_2", "-sess_out", str(session), request="/")
        issued = _has_ticket(out)
        seen["resumption.tls12_ticket_issued"] = issued
        resumed = False
        if issued:
            again = s_client(client, where, "-tls1_2", "-sess_in", str(session), "-msg")
            resumed = parse_s_client(again).reused and not _server_sent_certificate(again)
        seen["resumption.tls12_ticket_resumed"] = resumed
    if tls13:
        out = s_client(client, where, "-tls1_3", "-sess_out", str(session), request="/")
        early = re.search(r"Max Early Data: (\d+)", out)
        size = int(early.group(1)) if early else 0
        seen["early_data.offered"] = size > 0
        seen["early_data.max_early_data"] = size or None
        again = s_client(client, where, "-tls1_3", "-sess_in", str(session))
        seen["resumption.tls13_psk_resumed"] = parse_s_client(again).reused
    return seen


def _hsts(where: Where) -> dict[str, Any]:
    seen: dict[str, Any] = {}
    for key, path in (("root", "/"), ("not_found", MISSING_PAGE)):
        if where.sni:
            url = f"https://{where.sni}:{where.port}{path}"
            resolve = ["--resolve", f"{where.sni}:{where.port}:{where.host.strip('[]')}"]
        else:
            url, resolve = f"https://{where.host}:{where.port}{path}", []
        done = subprocess.run(
            ["curl", "-sk", "--http1.1", "-o", "/dev/null", "-D", "-", "--max-time", "10",
             *resolve, url],
            capture_output=True, text=True, timeout=30, check=False,
        )  # fmt: skip
        status = re.match(r"HTTP/1\.1 (\d{3})", done.stdout)
        header = re.search(r"^strict-transport-security:\s*(.*?)\r?$", done.stdout, re.M | re.I)
        seen[f"hsts.{key}_status"] = int(status.group(1)) if status else None
        seen[f"hsts.{key}"] = header.group(1) if header else None
    return seen


def probe_view(found: dict[str, Any]) -> dict[str, Any]:
    """The probe's result under the observer's keys (None where the probe has no value)."""
    view: dict[str, Any] = {}
    for version, ok in (found.get("protocols") or {}).items():
        view[f"protocols.{version}"] = ok
    for group, ok in (found.get("groups") or {}).items():
        view[f"groups.{group}"] = ok
    tls12 = found.get("tls12") or {}
    if tls12:
        view["tls12.accepted"] = sorted(tls12["accepted"])
        view["tls12.cipher"] = tls12["cipher"]
        view["tls12.server_order"] = tls12["server_order"]
    for suite in TLS13_SUITES:
        if found.get("tls13"):
            view[f"tls13.accepted.{suite}"] = suite in found["tls13"]["accepted"]
    view["alpn"] = found.get("alpn")
    certificate = found.get("certificate") or {}
    view["certificate.sha256"] = certificate.get("sha256")
    view["certificate.chain_length"] = certificate.get("chain_length")
    for key, value in (found.get("resumption") or {}).items():
        view[f"resumption.{key}"] = value
    early = found.get("early_data") or {}
    view["early_data.offered"] = early.get("offered")
    view["early_data.max_early_data"] = early.get("max_early_data")
    for key, value in (found.get("hsts") or {}).items():
        view[f"hsts.{key}"] = value
    return view


@dataclass(frozen=True)
class Disagreement:
    build: str
    address: str
    sni: str | None
    key: str
    probe: Any
    observer: Any
    tree: str  # the files of the tree, to reproduce it


@dataclass
class ObserveOutcome:
    kind: str  # "observed", "refused by nginx -t"
    names: int = 0
    seconds: float = 0.0
    observations: collections.Counter[str] = field(default_factory=collections.Counter)
    disagreements: list[Disagreement] = field(default_factory=list)


def _family(key: str) -> str:
    """A key without its group or suite (`groups.X25519` -> `groups`), for the figures."""
    head, _, rest = key.partition(".")
    if head in ("groups", "protocols"):
        return head
    return f"{head}.{rest.split('.')[0]}" if rest else head


def _probe(written: Written, build: Build, socket: int) -> list[dict[str, Any]]:
    host, port = written.hosts[socket], written.ports[socket]
    sni = [arg for name in written.names[socket] for arg in ("--sni", name)]
    # with --config the probe shares what a TLS context decides among the names nginx answers
    # from one (nginxgen/probe/plan.py): each name's JSON must still be what that name shows
    done = nginxgen("probe", f"{host}:{port}", *sni, "--format", "json",
                    "--config", str(written.conf), *build.target_flags, timeout=300)  # fmt: skip
    if done.returncode == 2:  # nothing answered: every name was refused
        return [{"sni": name, "protocols": {}} for name in (*written.names[socket], None)]
    assert done.returncode in (0, 1), (done.stdout[-2000:], done.stderr[-2000:])
    results: list[dict[str, Any]] = json.loads(done.stdout)
    return results


def compare(probe: dict[str, Any], seen: dict[str, Any]) -> Iterator[tuple[str, Any, Any]]:
    """(key, probe's value, observer's value) for every key the observer saw and the probe
    decided (None there: not run, or inconclusive and listed as such)."""
    view = probe_view(probe)
    for key, value in seen.items():
        mine = view.get(key)
        if key.startswith("protocols.") and mine is None and not probe.get("inconclusive"):
            mine = False  # nothing answered at all: exit 2, every version refused
        if mine is None and not key.startswith(("alpn", "hsts.", "early_data.max")):
            continue
        yield key, mine, value


def check_observed(
    tree: LiveTree, build: Build, builds: dict[str, Build], folder: Path
) -> ObserveOutcome:
    """Serve the tree (one worker), probe every socket's names, observe each name again, and
    compare key by key."""
    started = time.monotonic()
    written = write(replace(tree, workers=1), folder, build)
    if nginx_check(build, written.conf).returncode != 0:
        return ObserveOutcome("refused by nginx -t", seconds=time.monotonic() - started)
    outcome = ObserveOutcome("observed")
    clients_ = clients(build, builds)
    with Server(build, written.conf, [written.ports[0]]), tempfile.TemporaryDirectory() as tmp:
        for socket, (host, port) in enumerate(zip(written.hosts, written.ports, strict=True)):
            for found in _probe(written, build, socket):
                where = Where(host, port, found["sni"])
                seen = observe_name(found, where, clients_, Path(tmp))
                outcome.names += 1
                context = found.get("context") or {}
                if context and not context.get("refuted"):  # values from another name's probe
                    outcome.observations["shared contexts"] += 1
                for key, mine, theirs in compare(found, seen):
                    outcome.observations[_family(key)] += 1
                    if mine != theirs:
                        where_ = f"{host}:{port}"
                        outcome.disagreements.append(
                            Disagreement(
                                build.name, where_, found["sni"], key, mine, theirs, _text(written)
                            )
                        )
    outcome.seconds = time.monotonic() - started
    return outcome
