"""The model against live nginx (issue 25): random multi-server trees served by each of the five
builds and probed per name with `probe --config` (tests/fuzzing/live.py says what must hold).
scripts/fuzz.py live runs it for as many trees as asked."""

from __future__ import annotations

import os
import socket
import tempfile
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings

from nginxgen.knowledge import libraries, tls_groups
from tests.builds import ALL_BUILD_NAMES, BUILD_NAMES, SOURCE_BUILD_NAMES, Build
from tests.conftest import require_build
from tests.fuzzing.live import (
    HSTS,
    LiveOutcome,
    LiveTree,
    check_live,
    check_live_fix,
    check_live_into,
    live_trees,
    server,
)
from tests.live import PortTaken, Server, listens, prepare_prefix

# CI's share (docs/fuzzing.md: longer runs with scripts/fuzz.py live), cut to keep a fresh CI run
# under half an hour
TREES = int(os.environ.get("NGINXGEN_LIVE_TREES", "3"))  # per build: 21 on the seven builds
FIXED_TREES = int(os.environ.get("NGINXGEN_LIVE_FIXED_TREES", "2"))  # per build
INTO_TREES = int(os.environ.get("NGINXGEN_LIVE_INTO_TREES", "2"))  # per build and preset


def _sample(
    build: Build, trees: int, check: Callable[[LiveTree, Build, Path], LiveOutcome]
) -> None:
    """A seeded sample of random trees through one of the harness's checks on one build."""
    outcomes: Counter[str] = Counter()
    shared = [0]

    @settings(max_examples=trees, deadline=None, database=None, derandomize=True,
              suppress_health_check=list(HealthCheck))  # fmt: skip
    @given(tree=live_trees())
    def one(tree: LiveTree) -> None:
        with tempfile.TemporaryDirectory() as folder:
            outcome = check(tree, build, Path(folder))
        outcomes[outcome.kind] += 1
        shared[0] += outcome.shared

    one()
    assert outcomes["agreed"] >= trees // 2, outcomes
    # the trees mix names of one TLS context (a server's wildcard names beside its own) with
    # names of others: the probe shared a context's values somewhere (probe/plan.py)
    assert shared[0] > 0, outcomes


# The sampled trees cost most of a minute a build: OpenSSL 3.6.3 is OpenSSL 3.5 in every fact
# they draw (default groups, ticket keys), OpenSSL 4.0.3 is not (its default groups), so only the
# latter of the newest builds is sampled; the single-case tests below run on every build.
SAMPLED_BUILDS = (*BUILD_NAMES, *SOURCE_BUILD_NAMES, "openssl40")


@pytest.mark.fuzz
@pytest.mark.parametrize("name", SAMPLED_BUILDS)
def test_a_server_just_started_runs_its_config(
    provisioned: tuple[dict[str, Build], dict[str, str]], name: str
) -> None:
    _sample(require_build(provisioned, name), TREES, check_live)


@pytest.mark.fuzz
@pytest.mark.parametrize("name", SAMPLED_BUILDS)
def test_unsafe_fixes_then_the_server_does_what_the_lines_meant(
    provisioned: tuple[dict[str, Build], dict[str, str]], name: str
) -> None:
    """The editor on random trees (tests/fuzzing/live.py, check_live_fix): lint --unsafe-fixes,
    then the live server shows each moved setting in effect for the names it was written for."""
    _sample(require_build(provisioned, name), FIXED_TREES, check_live_fix)


@pytest.mark.fuzz
@pytest.mark.parametrize("preset", ["intermediate", "pq"])
@pytest.mark.parametrize("name", SAMPLED_BUILDS)
def test_generate_into_keeps_its_promises_and_says_what_else_changes(
    provisioned: tuple[dict[str, Build], dict[str, str]], name: str, preset: str
) -> None:
    """The other editor on random trees (check_live_into): generate --into adds a site; the
    live server gives its names the preset's protocols, h2 and HSTS, and every other name what
    it got before except for settings the report names."""
    build = require_build(provisioned, name)
    if preset == "pq" and not libraries.has(build.library, "mlkem_hybrid"):
        preset = "modern"  # the pq preset is refused where the library has no ML-KEM

    def into(tree: LiveTree, build: Build, folder: Path) -> LiveOutcome:
        return check_live_into(tree, build, folder, preset)

    _sample(build, INTO_TREES, into)


def test_a_vhost_without_a_session_cache_under_a_default_with_one(
    provisioned: tuple[dict[str, Build], dict[str, str]], tmp_path: Path
) -> None:
    """Found by scripts/fuzz.py live on nginx 1.22.1/OpenSSL 3.0: the vhost's own
    `ssl_session_cache off` took session-ID resumption away although the default server decides
    the cache; probe --config called it 'not reloaded'."""
    tree = LiveTree(
        servers=(
            server(("ssl_ecdh_curve X25519:prime256v1;", "ssl_session_cache off;")),
            server(("ssl_session_cache shared:S:1m;",)),
        ),
        http=("ssl_protocols TLSv1.2 TLSv1.3;",),
        ipv6=False,
        defaults=(1,),
        reject=False,
    )
    assert check_live(tree, require_build(provisioned, "bookworm"), tmp_path).kind == "agreed"


@pytest.mark.parametrize(
    "lines",
    [
        ("add_header_inherit off;",),  # no response of the server carries it: NGX701
        # its `location /nginxgen-` sends HSTS, `/` (the server's own) does not: NGX704
        ("add_header_inherit off;", f"location /nginxgen- {{ {HSTS} always; }}"),
        ("add_header X-Frame-Options DENY;",),  # replaced in the server: NGX701
        # its own HSTS without always decides a 404 (NGX702), not http{}'s it replaces
        (f"{HSTS};", "add_header_inherit off;"),
    ],
)
def test_http_hsts_dropped_by_a_server(
    provisioned: tuple[dict[str, Build], dict[str, str]], tmp_path: Path, lines: tuple[str, ...]
) -> None:
    """Found by the live differential on nginx 1.31.3 once it drew add_header_inherit (issue
    37): http{}'s HSTS, dropped by a server's `add_header_inherit off`; probe --config explained
    the missing header by that line, and lint reported the server's block instead."""
    tree = LiveTree(
        servers=(server(("ssl_session_tickets on;",)), server(lines)),
        http=(f"{HSTS} always;",),
        ipv6=False,
        defaults=(None,),
        reject=False,
    )
    assert check_live(tree, require_build(provisioned, "wheel"), tmp_path).kind == "agreed"


def test_tickets_on_in_a_vhost_after_a_retry(
    provisioned: tuple[dict[str, Build], dict[str, str]], tmp_path: Path
) -> None:
    """Found by scripts/fuzz.py live (seed 31) on nginx 1.26.3/OpenSSL 3.5: with the default
    server's tickets off and groups without X25519, a client's X25519 key share is retried and
    the vhost's tickets then resume TLS 1.3 sessions; the model had predicted none."""
    tree = LiveTree(
        servers=(
            server(
                (
                    "ssl_session_cache shared:le:10m;",
                    "ssl_session_tickets off;",
                    "ssl_ecdh_curve prime256v1;",
                )
            ),
            server(("ssl_session_tickets on;",)),
        ),
        http=(),
        ipv6=False,
        defaults=(None,),
        reject=False,
    )
    assert check_live(tree, require_build(provisioned, "trixie"), tmp_path).kind == "agreed"


def test_a_quic_default_server_is_not_the_tcp_default(
    provisioned: tuple[dict[str, Build], dict[str, str]], tmp_path: Path
) -> None:
    """`listen ... quic default_server` in the second server names the default of a UDP socket
    of its own: the TCP socket's default stays the first server, whose groups, protocols and
    session cache apply to every name over TCP (nginx 1.26.3 with HTTP/3, Debian 13)."""
    tree = LiveTree(
        servers=(
            server(("ssl_ecdh_curve secp384r1:X25519;", "ssl_session_cache none;")),
            server(("ssl_ecdh_curve prime256v1;", "ssl_session_cache shared:S:1m;")),
        ),
        http=("ssl_protocols TLSv1.2 TLSv1.3;",),
        ipv6=False,
        defaults=(None,),
        reject=False,
        quic=1,
    )
    outcome = check_live(tree, require_build(provisioned, "trixie"), tmp_path)
    assert outcome.kind == "agreed"
    assert outcome.mismatches > 0  # the second server's groups and cache are not in effect


def test_a_vhosts_groups_moved_by_the_fix_take_effect_for_its_name(
    provisioned: tuple[dict[str, Build], dict[str, str]], tmp_path: Path
) -> None:
    """The vhost's `ssl_ecdh_curve` is ignored (the default server decides); after
    `lint --unsafe-fixes` the server negotiates the vhost's group for the vhost's name."""
    tree = LiveTree(
        servers=(server(()), server(("ssl_ecdh_curve secp384r1;",))),
        http=(),
        ipv6=False,
        defaults=(0,),
        reject=False,
    )
    outcome = check_live_fix(tree, require_build(provisioned, "trixie"), tmp_path)
    assert outcome.kind == "agreed" and outcome.mismatches >= 1, outcome


@pytest.mark.parametrize("name", ALL_BUILD_NAMES)
@pytest.mark.parametrize("reject", [False, True], ids=["serving", "refusing"])
def test_tickets_off_in_a_vhost_under_a_default_with_them_on(
    provisioned: tuple[dict[str, Build], dict[str, str]], tmp_path: Path, name: str, reject: bool
) -> None:
    """Found by scripts/fuzz.py live (seed 40) on nginx 1.26.3/OpenSSL 3.5: certbot's options
    file turns tickets off in a vhost under a default server with tickets on (a shared cache at
    http{} level). With OpenSSL before 1.29.2 that name resumes no TLS 1.3 session at all; the
    probe claimed the line was ignored and lint said nothing. Now the model predicts it per
    build and NGX105 reports the line (the harness checks both)."""
    tree = LiveTree(
        servers=(server(()), server(("ssl_session_tickets off;",))),
        http=("ssl_session_cache shared:S:1m;", "ssl_protocols TLSv1.2 TLSv1.3;"),
        ipv6=False,
        defaults=(0,),
        reject=reject,
    )
    assert check_live(tree, require_build(provisioned, name), tmp_path).kind == "agreed"


@pytest.mark.parametrize("name", ["bookworm", "trixie"])
def test_tickets_off_beside_a_vhosts_own_cache_under_a_default_with_none(
    provisioned: tuple[dict[str, Build], dict[str, str]], tmp_path: Path, name: str
) -> None:
    """Found trying Home Assistant's add-on config (as Mozilla's intermediate writes it, in
    the vhost): the vhost's `ssl_session_cache shared:...` and `ssl_session_tickets off` under
    a default server (on IPv4 and IPv6) with neither. The cache line is ignored (NGX102); the
    tickets line meant resumption from that cache, and its names resume no TLS 1.3 session:
    NGX105 was silent, as the model weighed the line beside the default server's cache (none)
    instead of its own server's. Then the fixes (both lines moved to the default server) give
    the names what the lines meant."""
    tree = LiveTree(
        servers=(
            server((), sockets=(0, 1)),
            server(("ssl_session_cache shared:S:1m;", "ssl_session_tickets off;"), sockets=(0, 1)),
        ),
        http=("ssl_protocols TLSv1.2 TLSv1.3;",),
        ipv6=True,
        defaults=(0, None),
        reject=False,
    )
    build = require_build(provisioned, name)
    assert check_live(tree, build, tmp_path / "live").kind == "agreed"
    outcome = check_live_fix(tree, build, tmp_path / "fix")
    assert outcome.kind == "agreed" and outcome.mismatches >= 1, outcome


def test_into_leaves_http2_off_where_the_listen_would_give_it_to_every_server(
    provisioned: tuple[dict[str, Build], dict[str, str]], tmp_path: Path
) -> None:
    """Found by check_live_into on nginx 1.22.1: the new site's `listen ... http2` turned
    HTTP/2 on for the tree's two servers of that address, and the report did not say so."""
    tree = LiveTree(
        servers=(server(("ssl_protocols TLSv1.2 TLSv1.3;",)), server(())),
        http=(),
        ipv6=False,
        defaults=(0,),
        reject=False,
    )
    build = require_build(provisioned, "bookworm")
    assert check_live_into(tree, build, tmp_path, "intermediate").kind == "agreed"


def test_a_port_another_process_listens_on_is_not_taken_for_nginxs(
    provisioned: tuple[dict[str, Build], dict[str, str]], tmp_path: Path
) -> None:
    """Seen in a long run with two processes: one drew a port the other's nginx had just
    bound; its own nginx could not bind it, the other one answered, and the probe compared
    that server with this tree. The harness must not start probing until its own nginx holds
    the port (tests/live.py: `listens`), and says when another process does."""
    build = require_build(provisioned, "trixie")
    with socket.socket() as other:
        other.bind(("127.0.0.1", 0))
        other.listen()
        port = other.getsockname()[1]
        conf = tmp_path / "nginx.conf"
        conf.write_text(
            "worker_processes auto;\nevents {}\nhttp {\n"
            f"    server {{ listen 127.0.0.1:{port}; return 204; }}\n}}\n"
        )
        prepare_prefix(conf, build, workers=1)
        assert listens(os.getpid(), port)  # this process holds it, nginx does not
        with pytest.raises(PortTaken), Server(build, conf, [port]):
            pass
    with Server(build, conf, [port]) as running:  # free again: nginx takes it
        assert running.process is not None and listens(running.process.pid, port)


@pytest.mark.parametrize("name", ALL_BUILD_NAMES)
def test_tickets_resume_on_another_worker_where_the_library_made_the_keys_before_the_fork(
    provisioned: tuple[dict[str, Build], dict[str, str]], tmp_path: Path, name: str
) -> None:
    """Tickets on, no key file, no shared cache, four workers. OpenSSL makes the ticket keys
    with the context, in the master: every worker has them and a ticket resumes wherever the
    next connection lands, so the model predicts resumption (it left it open before, and the
    one-worker trees of the harness could not tell). BoringSSL and AWS-LC make them in each
    worker on first use: not predicted there. Checked by hand over 30 pairs of connections per
    build and version (knowledge: ticket_keys_made_with_context)."""
    build = require_build(provisioned, name)
    tree = LiveTree(
        servers=(server(("ssl_protocols TLSv1.2 TLSv1.3;",)), server(())),
        http=(),
        ipv6=False,
        defaults=(0,),
        reject=False,
        workers=4,
    )
    outcome = check_live(tree, build, tmp_path)
    assert outcome.kind == "agreed"
    shared = libraries.has(build.library, "ticket_keys_made_with_context")
    assert shared == (build.library.kind == "openssl")
    for observation in ("resumption.tls12_ticket_resumed", "resumption.tls13_psk_resumed"):
        assert (outcome.unpredicted[observation] == 0) == shared, outcome.unpredicted


@pytest.mark.parametrize("name", ALL_BUILD_NAMES)
def test_the_librarys_default_groups_where_no_server_names_any(
    provisioned: tuple[dict[str, Build], dict[str, str]], tmp_path: Path, name: str
) -> None:
    """No ssl_ecdh_curve anywhere: nginx leaves the groups to the library, and the model
    predicts that library's default list where the version tells it (knowledge:
    default_groups); BoringSSL, whose version nginx -V does not give, stays open."""
    build = require_build(provisioned, name)
    tree = LiveTree(
        servers=(server(("ssl_protocols TLSv1.2 TLSv1.3;",)), server(("ssl_protocols TLSv1.2;",))),
        http=(),
        ipv6=False,
        defaults=(0,),
        reject=False,
    )
    outcome = check_live(tree, build, tmp_path)
    assert outcome.kind == "agreed"
    known = tls_groups.default_groups(build.library) is not None
    assert known == (build.library.kind != "boringssl")
    assert (outcome.unpredicted["groups"] == 0) == known, outcome.unpredicted


def test_a_moved_line_stays_where_its_server_decides_another_address(
    provisioned: tuple[dict[str, Build], dict[str, str]], tmp_path: Path
) -> None:
    """Found by scripts/fuzz.py live-fix (seed 62) on 1.26.3/AWS-LC: the default server of the
    IPv4 address also listens on IPv6, where another server decides, and its groups there are
    ignored. The move took its line out, so the IPv4 address lost its groups; the next pass
    moved them back, and `--unsafe-fixes` stopped after 10 passes. The line now stays (the
    value is copied to the IPv6 default server)."""
    tree = LiveTree(
        servers=(
            server(("ssl_session_tickets off;",)),
            server((), sockets=(0, 1)),
            server(("ssl_ecdh_curve X25519MLKEM768:X25519;",), sockets=(0, 1)),
        ),
        http=("ssl_protocols TLSv1.2 TLSv1.3;",),
        ipv6=True,
        defaults=(2, None),
        reject=False,
    )
    build = require_build(provisioned, "awslc")
    assert check_live_fix(tree, build, tmp_path).kind == "agreed"


def test_a_line_ignored_on_two_addresses_is_not_dropped_after_one_move(
    provisioned: tuple[dict[str, Build], dict[str, str]], tmp_path: Path
) -> None:
    """Found by scripts/fuzz.py live-fix (seed 62) on 1.22.1: a vhost's groups, ignored on
    both of its addresses, were moved to the second address's default server and dropped; on
    the first, where two vhosts disagree and nothing is moved, a later pass then moved the
    other vhost's groups over what this line had asked for."""
    tree = LiveTree(
        servers=(
            server(("ssl_session_cache shared:S:1m;",)),
            server((), sockets=(1,)),
            server(("ssl_ecdh_curve X25519:prime256v1;",)),
            server(("ssl_ecdh_curve prime256v1;",), sockets=(0, 1)),
        ),
        http=(),
        ipv6=False,
        defaults=(None, None),
        reject=False,
    )
    build = require_build(provisioned, "bookworm")
    assert check_live_fix(tree, build, tmp_path).kind == "agreed"
    # the vhost's line is still there, besides its copy in the second address's default server
    assert (tmp_path / "nginx.conf").read_text().count("ssl_ecdh_curve prime256v1;") == 2


def test_nothing_moves_into_a_default_server_whose_own_line_is_meant_elsewhere(
    provisioned: tuple[dict[str, Build], dict[str, str]], tmp_path: Path
) -> None:
    """Found by scripts/fuzz.py live-fix (seed 63) on 1.26.3/OpenSSL 3.5: the IPv6 default
    server's own groups were also meant for its names on IPv4, where another server decides.
    Moving an IPv6 vhost's groups overwrote that line, and the next pass carried the vhost's
    groups to the IPv4 default server: the names the line was written for got neither."""
    tree = LiveTree(
        servers=(
            server(()),
            server(("ssl_ecdh_curve prime256v1;",), sockets=(0, 1)),
            server(("ssl_ecdh_curve X25519MLKEM768:X25519;",), sockets=(1,)),
        ),
        http=(),
        ipv6=True,
        defaults=(None, None),
        reject=False,
    )
    build = require_build(provisioned, "trixie")
    assert check_live_fix(tree, build, tmp_path).kind == "agreed"
    assert "ssl_ecdh_curve prime256v1;" in (tmp_path / "nginx.conf").read_text()


def test_another_rules_fix_on_an_ignored_line_is_not_taken_for_a_move(
    provisioned: tuple[dict[str, Build], dict[str, str]], tmp_path: Path
) -> None:
    """Found by scripts/fuzz.py live-fix (seed 63) on 1.26.3/OpenSSL 3.5: two vhosts want
    other groups than the default server (so nothing is moved), and NGX203 made one of them a
    tuple; the harness took that fix for a move and expected the mismatch gone."""
    tree = LiveTree(
        servers=(
            server(()),
            server(("ssl_ecdh_curve X25519:prime256v1;",)),
            server(("ssl_ecdh_curve X25519MLKEM768:X25519;",)),
        ),
        http=("ssl_protocols TLSv1.2 TLSv1.3;",),
        ipv6=False,
        defaults=(None,),
        reject=False,
    )
    build = require_build(provisioned, "trixie")
    assert check_live_fix(tree, build, tmp_path).kind == "agreed"


def test_a_moved_line_another_rule_also_fixes(
    provisioned: tuple[dict[str, Build], dict[str, str]], tmp_path: Path
) -> None:
    """Found by scripts/fuzz.py live-fix (seed 64) on 1.22.1: a vhost's ignored
    `ssl_protocols TLSv1.2` is moved into the default server (NGX103) and NGX409 adds TLS 1.3
    to it: the names get TLS 1.2 and 1.3, neither the line as written nor what they had. The
    harness takes a line two rules fix as resolved when it is no longer a mismatch."""
    tree = LiveTree(
        servers=(server(()), server(("ssl_protocols TLSv1.2;",))),
        http=("ssl_protocols TLSv1.3;",),
        ipv6=False,
        defaults=(None,),
        reject=False,
    )
    build = require_build(provisioned, "bookworm")
    assert check_live_fix(tree, build, tmp_path).kind == "agreed"


@pytest.mark.parametrize("name", ["awslc", "boringssl", "trixie"])  # the builds with ML-KEM
def test_groups_moved_while_another_fix_turns_tls13_on(
    provisioned: tuple[dict[str, Build], dict[str, str]], tmp_path: Path, name: str
) -> None:
    """Found by the live differential on 1.26.3/AWS-LC: the default server speaks TLS 1.2
    only, so the first probe asks a vhost's name about TLS 1.2's ECDHE curves, and the vhost's
    ignored `X25519MLKEM768:X25519` meant X25519 in those terms. NGX101 moves the line into the
    default server and NGX409 adds TLS 1.3 to the default server's protocols: the second probe
    asks through TLS 1.3 and sees both groups, which is what the line meant, but the harness
    compared them with X25519 alone. (On 1.26.3/OpenSSL 3.5, NGX203 also fixes the line, and
    the harness only asked that the mismatch be gone.) Groups are now compared among those both
    probes asked about, and the move counts on each build."""
    tree = LiveTree(
        servers=(
            server(("ssl_ecdh_curve X25519MLKEM768:X25519;",)),
            server(("ssl_protocols TLSv1.2;",)),
        ),
        http=(),
        ipv6=False,
        defaults=(1,),
        reject=False,
    )
    outcome = check_live_fix(tree, require_build(provisioned, name), tmp_path)
    assert outcome.kind == "agreed" and outcome.mismatches == 1, outcome
