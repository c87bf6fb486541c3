"""The model against live nginx (issue 25): random multi-server trees served by each of the five
builds and probed per name with `probe --config` (tests/fuzzing/live.py says what must hold).
scripts/fuzz.py live runs it for as many trees as asked."""

from __future__ import annotations

import os
import tempfile
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings

from tests.builds import BUILD_NAMES, SOURCE_BUILD_NAMES, Build
from tests.conftest import require_build
from tests.fuzzing.live import LiveTree, check_live, live_trees, server

TREES = int(os.environ.get("NGINXGEN_LIVE_TREES", "12"))  # per build: 60 in all


@pytest.mark.parametrize("name", [*BUILD_NAMES, *SOURCE_BUILD_NAMES])
def test_a_server_just_started_runs_its_config(
    provisioned: tuple[dict[str, Build], dict[str, str]], name: str
) -> None:
    build = require_build(provisioned, name)
    outcomes: Counter[str] = Counter()

    @settings(max_examples=TREES, deadline=None, database=None, derandomize=True,
              suppress_health_check=list(HealthCheck))  # fmt: skip
    @given(tree=live_trees())
    def one(tree: LiveTree) -> None:
        with tempfile.TemporaryDirectory() as folder:
            outcomes[check_live(tree, build, Path(folder)).kind] += 1

    one()
    assert outcomes["agreed"] >= TREES // 2, outcomes


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
