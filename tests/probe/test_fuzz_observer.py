"""The probe checked by an independent observer (issue 35): random multi-server trees served by
each of the five builds, every name probed, and every key of the probe's JSON that an outside
client can observe observed again with openssl s_client and curl (tests/fuzzing/observer.py
says how). CI's sample; scripts/fuzz.py observe runs it for as many trees as asked."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import HealthCheck, find, given, settings

from tests.builds import BUILD_NAMES, SOURCE_BUILD_NAMES, Build
from tests.conftest import require_build
from tests.fuzzing.live import LiveTree, server
from tests.fuzzing.observer import (
    SYSTEM_OPENSSL,
    Disagreement,
    check_observed,
    compare,
    observed_trees,
)
from tests.helpers import require_program
from tests.paths import REPO

TREES = int(os.environ.get("NGINXGEN_OBSERVED_TREES", "2"))  # per build: 10 in all


def _clients_present() -> None:
    for tool in ("curl", SYSTEM_OPENSSL[0]):
        require_program(tool, "the observer's independent client")


@pytest.mark.parametrize("name", [*BUILD_NAMES, *SOURCE_BUILD_NAMES])
def test_an_independent_client_sees_what_the_probe_reports(
    provisioned: tuple[dict[str, Build], dict[str, str]], name: str
) -> None:
    build = require_build(provisioned, name)
    _clients_present()
    outcomes: Counter[str] = Counter()
    observed: Counter[str] = Counter()
    found: list[Disagreement] = []

    @settings(max_examples=TREES, deadline=None, database=None, derandomize=True,
              suppress_health_check=list(HealthCheck))  # fmt: skip
    @given(tree=observed_trees())
    def one(tree: LiveTree) -> None:
        with tempfile.TemporaryDirectory() as folder:
            outcome = check_observed(tree, build, provisioned[0], Path(folder))
        outcomes[outcome.kind] += 1
        observed.update(outcome.observations)
        found.extend(outcome.disagreements)

    one()
    assert outcomes["observed"] >= 1, outcomes
    assert not found, [(d.address, d.sni, d.key, d.probe, d.observer, d.tree) for d in found]
    # what was compared: at least the protocols, ALPN, the certificate and HSTS of every name
    for key in ("protocols", "alpn", "certificate.sha256", "hsts.root"):
        assert observed[key] > 0, observed
    assert observed["shared contexts"] > 0, observed  # names of one context were compared too


def test_the_observer_imports_no_probe_code() -> None:
    """An oracle must not share what it checks: loading the observer loads no module of
    nginxgen.probe (it speaks to the server with openssl s_client and curl only)."""
    code = (
        "import sys; import tests.fuzzing.observer; "
        "print(sorted(m for m in sys.modules if m.startswith('nginxgen.probe')))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, check=True
    )
    assert done.stdout.strip() == "[]", done.stdout


def test_the_observers_comparison_reports_each_key_that_differs() -> None:
    """compare() yields every key the observer saw that the probe decided, with both values;
    keys the probe left undecided (null: not run) are not compared, except those whose null is
    an answer (no ALPN, no HSTS header)."""
    probe = {
        "sni": "a.test",
        "protocols": {"TLSv1.2": True, "TLSv1.3": False},
        "alpn": None,
        "resumption": {"session_id_resumed": True, "tls12_ticket_issued": True},
        "hsts": {"root": None, "root_status": 200},
    }
    seen = {
        "protocols.TLSv1.2": True,
        "protocols.TLSv1.3": True,
        "alpn": "h2",
        "resumption.session_id_resumed": True,
        "resumption.tls12_ticket_issued": False,
        "resumption.tls13_psk_resumed": True,  # the probe did not try: not compared
        "hsts.root": "max-age=63072000",
        "hsts.root_status": 200,
    }
    differ = {k: (mine, theirs) for k, mine, theirs in compare(probe, seen) if mine != theirs}
    assert differ == {
        "protocols.TLSv1.3": (False, True),
        "alpn": (None, "h2"),
        "resumption.tls12_ticket_issued": (True, False),
        "hsts.root": (None, "max-age=63072000"),
    }


def test_legacy_versions_are_judged_by_the_session_not_the_suite(
    provisioned: tuple[dict[str, Build], dict[str, str]], tmp_path: Path
) -> None:
    """Found by scripts/fuzz.py observe (seed 36, AWS-LC): nginx 1.26.3's default protocols
    include TLS 1.0 and 1.1, which AWS-LC negotiates; the probe said so and the observer did
    not, having read the version from s_client's "New, TLSv1.0, Cipher is ..." line, which
    names the suite's version (ECDHE-ECDSA-AES256-SHA: TLSv1.0, also on a TLS 1.1 or 1.2
    connection). The observer now reads the session's "Protocol" and agrees."""
    build = require_build(provisioned, "awslc")
    _clients_present()
    tree = LiveTree(
        servers=(server(()), server(("ssl_protocols TLSv1.3;",))),
        http=("ssl_ecdh_curve prime256v1;",),
        ipv6=False,
        defaults=(0,),
        reject=False,
    )
    outcome = check_observed(tree, build, provisioned[0], tmp_path)
    assert outcome.kind == "observed"
    assert not outcome.disagreements, [
        (d.sni, d.key, d.probe, d.observer) for d in outcome.disagreements
    ]
    assert outcome.observations["protocols"] == 4 * outcome.names


def _session_lines_under_a_bare_refusing_default(tree: LiveTree) -> bool:
    """Issue 44, trial 5's shape: the first socket's default refuses handshakes and has no
    certificate, and a named server on that socket has a shared cache and tickets off."""
    if not (tree.reject and tree.bare_reject):
        return False
    named = [s for i, s in enumerate(tree.servers) if 0 in s.sockets and i != tree.defaults[0]]
    wanted = {"ssl_session_cache shared:S:1m;", "ssl_session_tickets off;"}
    return any(wanted <= set(s.lines) and not s.certbot for s in named)


@pytest.mark.fuzz  # a search of up to 5,000 drawn trees: 20 s of the quick part otherwise
def test_the_trees_include_session_lines_under_a_default_without_a_certificate() -> None:
    """The observer's trees (and the live differential's) can have a refusing default server
    without a certificate, the session settings on a named server: before, every refusing
    default had a certificate."""
    found = find(
        observed_trees(),
        _session_lines_under_a_bare_refusing_default,
        settings=settings(max_examples=5000, database=None, derandomize=True,
                          suppress_health_check=list(HealthCheck)),
    )  # fmt: skip
    assert _session_lines_under_a_bare_refusing_default(found)


@pytest.mark.parametrize("name", ["bookworm", "trixie"])
def test_the_observer_on_session_lines_under_a_default_without_a_certificate(
    provisioned: tuple[dict[str, Build], dict[str, str]], tmp_path: Path, name: str
) -> None:
    """Such a tree served: the probe's resumption values are what s_client sees for every
    name (nothing resumes: the sessions live in the refusing default's context)."""
    build = require_build(provisioned, name)
    _clients_present()
    lines = ("ssl_session_cache shared:S:1m;", "ssl_session_tickets off;",
             "ssl_session_timeout 1d;")  # fmt: skip
    tree = LiveTree(
        servers=(server(()), server(lines)),
        http=("ssl_protocols TLSv1.2 TLSv1.3;",),
        ipv6=False,
        defaults=(0,),
        reject=True,
        bare_reject=True,
    )
    assert _session_lines_under_a_bare_refusing_default(tree)
    outcome = check_observed(tree, build, provisioned[0], tmp_path)
    assert outcome.kind == "observed"
    assert not outcome.disagreements, [
        (d.sni, d.key, d.probe, d.observer) for d in outcome.disagreements
    ]
    assert outcome.observations["resumption.session_id_resumed"] >= 1, outcome.observations
    assert outcome.observations["resumption.tls13_psk_resumed"] >= 1, outcome.observations
