"""Resumption as the probe reports it, on real nginx, checked with openssl s_client (issue 35,
item 7): `ssl_session_tickets off` with a shared cache was reported as "TLSv1.2 ticket yes"
because the session resumed by its ID; no ticket had been issued. Each way of resuming now has
a name of its own, and a TLS 1.2 ticket resumption is one where a ticket was issued and the next
connection resumed with it (RFC 5077 3.3-3.4)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from nginxgen.base.version import Version
from nginxgen.conf.config import build as build_config
from nginxgen.conf.effective import Effective
from nginxgen.conf.load import load_path
from nginxgen.conf.per_name import NameModel
from nginxgen.knowledge import libraries
from nginxgen.knowledge.target import resolve
from nginxgen.probe.checks.resumption import OBSERVED as OBSERVED_KEYS
from tests.builds import BUILD_NAMES, SOURCE_BUILD_NAMES, Build
from tests.cli_process import nginxgen as run_nginxgen
from tests.conftest import require_build
from tests.fuzzing.live import LiveTree, Written, _lint_findings, server, write
from tests.fuzzing.observer import Where, _resumption, clients, compare
from tests.fuzzing.observer import s_client as observer_client
from tests.live import Server, parse_s_client
from tests.pki import CertificateFactory, _pem

BUILDS = [*BUILD_NAMES, *SOURCE_BUILD_NAMES]
CACHE = "ssl_session_cache shared:S:1m;"
BOTH = "ssl_protocols TLSv1.2 TLSv1.3;"


def _served(
    tmp_path: Path, build: Build, default: str, vhost: str
) -> tuple[LiveTree, Any]:  # (the tree, as written)
    tree = LiveTree(
        servers=(server((f"ssl_session_tickets {default};",)), server((f"ssl_session_tickets {vhost};",))),
        http=(CACHE, BOTH),
        ipv6=False,
        defaults=(0,),
        reject=False,
    )  # fmt: skip
    return tree, write(tree, tmp_path, build)


def _probe(
    build: Build, port: int, conf: Path, name: str, output: str = "json"
) -> subprocess.CompletedProcess[str]:
    return run_nginxgen(
        "probe",
        f"127.0.0.1:{port}",
        "--sni",
        name,
        "--format",
        output,
        "--config",
        str(conf),
        *build.target_flags,
        timeout=120,
    )


def _probed_and_seen(
    builds: dict[str, Build], build: Build, written: Written, folder: Path, tls13: bool
) -> tuple[subprocess.CompletedProcess[str], dict[str, Any]]:
    """The served tree's s1.test probed with --config (JSON), then its resumption observed by
    s_client (TLS 1.2 always, TLS 1.3 with `tls13`)."""
    port = written.ports[0]
    with Server(build, written.conf, [port]):
        done = _probe(build, port, written.conf, "s1.test")
        seen = _resumption(
            Where("127.0.0.1", port, "s1.test"), clients(build, builds)[0], folder,
            tls12=True, tls13=tls13,
        )  # fmt: skip
    return done, seen


@pytest.mark.parametrize("name", BUILDS)
def test_tickets_off_with_a_shared_cache_is_no_ticket(
    provisioned: tuple[dict[str, Build], dict[str, str]], tmp_path: Path, name: str
) -> None:
    """The issue's case: tickets off, a shared cache, TLS 1.2. The session resumes by its ID,
    no ticket is issued, and s_client sees the same; `--config` predicts each under its own
    name (a TLS 1.3 session resumes from the cache only where the library keeps stateful
    tickets), and the text report no longer says "ticket yes"."""
    build = require_build(provisioned, name)
    _, written = _served(tmp_path, build, "off", "off")
    port = written.ports[0]
    with Server(build, written.conf, [port]):
        done = _probe(build, port, written.conf, "s1.test")
        text = _probe(build, port, written.conf, "s1.test", "text")
        seen = _resumption(
            Where("127.0.0.1", port, "s1.test"), clients(build, provisioned[0])[0], tmp_path,
            tls12=True, tls13=True,
        )  # fmt: skip
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr
    found = json.loads(done.stdout)[0]
    stateful = libraries.has(build.library, "tls13_stateful_resumption")
    assert found["resumption"] == {
        "session_id_resumed": True,
        "tls12_ticket_issued": False,
        "tls12_ticket_resumed": False,
        "tls13_psk_resumed": stateful,
        "host": "s1.test",
        "tls13_answered": True,
    }
    # openssl s_client: no "TLS session ticket" in the TLS 1.2 session, "Reused" by the ID
    assert seen["resumption.tls12_ticket_issued"] is False
    assert seen["resumption.tls12_ticket_resumed"] is False
    assert seen["resumption.session_id_resumed"] is True
    assert seen["resumption.tls13_psk_resumed"] is stateful
    said = {s["key"]: s for s in found["config"]}
    ticket = said["resumption.tls12_ticket_resumed"]
    assert (ticket["setting"], ticket["value"], ticket["predicted"]) == (
        "ssl_session_tickets",
        False,
        True,
    )
    assert said["resumption.tls13_psk_resumed"]["value"] is stateful
    assert said["resumption.session_id_resumed"]["setting"] == "ssl_session_cache"
    assert "TLS 1.2 by ticket no" in text.stdout and "TLS 1.2 ticket issued no" in text.stdout


@pytest.mark.parametrize(
    "tickets", [("off", "on"), ("on", "off")], ids=["on-under-off", "off-under-on"]
)
@pytest.mark.parametrize("name", BUILDS)
def test_a_vhost_whose_tickets_differ_from_the_default_servers(
    provisioned: tuple[dict[str, Build], dict[str, str]],
    tmp_path: Path,
    name: str,
    tickets: tuple[str, str],
) -> None:
    """The default server's tickets one way, the vhost's the other (knowledge:
    tickets_on_under_off, tickets_off_under_on): before nginx 1.29.2 OpenSSL issues a TLS 1.2
    ticket only where both have them on; nginx 1.31.3, BoringSSL and AWS-LC follow the vhost.
    The probe and s_client agree on the vhost's name, and the model predicts it."""
    build = require_build(provisioned, name)
    default, vhost = tickets
    _, written = _served(tmp_path, build, default, vhost)
    done, seen = _probed_and_seen(provisioned[0], build, written, tmp_path, tls13=False)
    assert done.returncode in (0, 1), done.stderr
    found = json.loads(done.stdout)[0]
    both_needed = build.library.kind == "openssl" and Version(build.nginx_version) < Version(
        "1.29.2"
    )
    issued = vhost == "on" and not both_needed
    assert found["resumption"]["tls12_ticket_issued"] is issued
    assert found["resumption"]["tls12_ticket_resumed"] is issued
    assert seen["resumption.tls12_ticket_issued"] is issued
    assert seen["resumption.tls12_ticket_resumed"] is issued
    said = {s["key"]: s for s in found["config"]}["resumption.tls12_ticket_resumed"]
    assert said["predicted"] and said["value"] is issued, said


def test_the_observer_reports_the_issues_fault(
    provisioned: tuple[dict[str, Build], dict[str, str]], tmp_path: Path
) -> None:
    """The oracle can fail: the probe's old claim on the issue's case (a TLS 1.2 ticket
    resumed, where only the session ID did) is a disagreement with what s_client observed."""
    build = require_build(provisioned, "trixie")
    _, written = _served(tmp_path, build, "off", "off")
    port = written.ports[0]
    with Server(build, written.conf, [port]):
        seen = _resumption(
            Where("127.0.0.1", port, "s1.test"), clients(build, provisioned[0])[0], tmp_path,
            tls12=True, tls13=False,
        )  # fmt: skip
    old_claim = {
        "sni": "s1.test",
        "protocols": {"TLSv1.2": True},
        "resumption": {"session_id_resumed": True, "tls12_ticket_issued": True,
                       "tls12_ticket_resumed": True},
    }  # fmt: skip
    disagree = {key for key, mine, theirs in compare(old_claim, seen) if mine != theirs}
    assert disagree == {"resumption.tls12_ticket_issued", "resumption.tls12_ticket_resumed"}


@pytest.mark.live
@pytest.mark.parametrize(("verify", "tickets"), [("on", "off"), ("on", "on"), ("optional", "off")])
@pytest.mark.parametrize("name", BUILDS)
def test_a_session_refused_for_want_of_a_certificate_is_dropped(
    provisioned: tuple[dict[str, Build], dict[str, str]],
    tmp_path: Path,
    name: str,
    verify: str,
    tickets: str,
) -> None:
    """Issue 44: under `ssl_verify_client on`, a client without a certificate completes the
    handshake, and its request gets 400; before answering, nginx removes the session from its
    cache (ngx_ssl_remove_cached_session). The probe's client, which has no certificate, makes
    a request on each first connection: its session ID (and on OpenSSL, with tickets off, its
    TLS 1.3 session, kept in the cache) no longer resumes, while a ticket it holds still does.
    The model predicted a resumed session ("not reloaded?"); it now says what such a client
    can resume, with the ssl_verify_client line deciding, as s_client shows: the same requests
    drop the session, a handshake without a request keeps it. With `optional` the request is
    served and the session kept."""
    build = require_build(provisioned, name)
    pki = CertificateFactory(tmp_path / "pki")
    ca = tmp_path / "clients-ca.pem"
    ca.write_bytes(_pem(pki.intermediate) + _pem(pki.root))
    lines = (f"ssl_verify_client {verify};", f"ssl_client_certificate {ca};")
    tree = LiveTree(
        servers=(server(lines),),
        http=(CACHE, BOTH, f"ssl_session_tickets {tickets};"),
        ipv6=False,
        defaults=(0,),
        reject=False,
    )
    written = write(tree, tmp_path, build)
    port = written.ports[0]
    where = Where("127.0.0.1", port, "s1.test")
    first = clients(build, provisioned[0])[0]
    with Server(build, written.conf, [port]):
        done = _probe(build, port, written.conf, "s1.test")
        seen = _resumption(where, first, tmp_path, tls12=True, tls13=True)
        session = tmp_path / "no-request.pem"  # a handshake alone: no request, nothing dropped
        observer_client(first, where, "-tls1_2", "-no_ticket", "-sess_out", str(session))
        again = observer_client(first, where, "-tls1_2", "-no_ticket", "-sess_in", str(session))
    refused = verify == "on"
    stateful = libraries.has(build.library, "tls13_stateful_resumption")
    expected = {
        "session_id_resumed": not refused,
        "tls12_ticket_issued": tickets == "on",
        "tls12_ticket_resumed": tickets == "on",
        "tls13_psk_resumed": tickets == "on" or (stateful and not refused),
    }
    assert parse_s_client(again).reused  # without a request, the session stays
    assert {k: seen[f"resumption.{k}"] for k in expected} == expected, seen
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr
    found = json.loads(done.stdout)[0]
    assert found["mismatches"] == []
    assert found["resumption"] == {**expected, "host": "s1.test", "tls13_answered": True}
    said = {s["key"]: s for s in found["config"]}["resumption.session_id_resumed"]
    assert said["setting"] == ("ssl_verify_client" if refused else "ssl_session_cache"), said
    # the model, without the request: the session resumes by its ID
    target = resolve(build.nginx_version, build.tls_library)
    model = NameModel(
        Effective(build_config(load_path(str(written.conf))), target), f"127.0.0.1:{port}",
        "s1.test",
    )  # fmt: skip
    assert model.session_id_resumption().value is True
    assert model.session_id_resumption("s1.test").value is not refused


@pytest.mark.live
@pytest.mark.parametrize("name", ["bookworm", "trixie", "wheel"])
def test_a_vhosts_session_lines_under_a_default_without_a_certificate(
    provisioned: tuple[dict[str, Build], dict[str, str]], tmp_path: Path, name: str
) -> None:
    """Issue 44, trial 5: the default server has only `ssl_reject_handshake on` (no
    certificate), the named server Mozilla's intermediate session lines. Nothing resumes
    (s_client): sessions live in the default server's context, which has no cache. The
    model's values in effect are what s_client sees; the probe's mismatches are the vhost's
    lines that do not give what they mean, the same lines lint reports (NGX102 the cache,
    NGX105 the tickets, where the default server decides them), each with its own way round:
    the tickets line was said to be "turned on in a vhost" under a default that "turned them
    off", the other way from this config."""
    build = require_build(provisioned, name)
    lines = ("ssl_session_timeout 1d;", "ssl_session_cache shared:MozSSL:10m;",
             "ssl_session_tickets off;")  # fmt: skip
    tree = LiveTree(
        servers=(server(()), server(lines)),
        http=(BOTH,),  # TLS 1.3 on 1.22.1 too, whose default protocols stop at TLS 1.2
        ipv6=False,
        defaults=(0,),
        reject=True,
        bare_reject=True,
    )
    written = write(tree, tmp_path, build)
    text = written.conf.read_text()
    assert "ssl_certificate" not in text.split("server {")[1], text  # the trial's default
    done, seen = _probed_and_seen(provisioned[0], build, written, tmp_path, tls13=True)
    assert done.returncode in (0, 1), done.stdout[-3000:] + done.stderr
    found = json.loads(done.stdout)[0]
    assert {k: seen[f"resumption.{k}"] for k in OBSERVED_KEYS} == dict.fromkeys(
        OBSERVED_KEYS, False
    ), seen
    assert {k: found["resumption"][k] for k in OBSERVED_KEYS} == dict.fromkeys(
        OBSERVED_KEYS, False
    ), found["resumption"]
    said = {s["key"]: s for s in found["config"] if s["key"].startswith("resumption.")}
    assert said, found["config"]
    for key, entry in said.items():  # the value in effect: predicted, and what was seen
        assert entry["predicted"] and entry["value"] == seen[key], entry
    number = {line.strip(): n for n, line in enumerate(text.splitlines(), 1)}
    lint = {
        (f["code"], f["line"])
        for f in _lint_findings(written, build)
        if f["code"] in ("NGX102", "NGX105")
    }
    mismatches = {(m["setting"], m["line"]) for m in found["mismatches"]}
    per_vhost = Version(build.nginx_version) >= Version("1.29.2")  # tickets per name
    expected = {("ssl_session_cache", number[lines[1]])}
    expected |= set() if per_vhost else {("ssl_session_tickets", number[lines[2]])}
    assert mismatches == expected, found["mismatches"]
    assert lint == {
        ("NGX102", number[lines[0]]),
        ("NGX102", number[lines[1]]),
        *(() if per_vhost else [("NGX105", number[lines[2]])]),
    }, lint
    default_line = text.splitlines().index("    server {") + 1  # the first: the default
    for mismatch in found["mismatches"]:
        assert mismatch["because"]["line"] == default_line, mismatch
        assert "is the default server of" in mismatch["why"], mismatch
        if mismatch["setting"] == "ssl_session_tickets":
            assert "tickets turned off in a vhost" in mismatch["why"], mismatch
            assert "turned on in a vhost" not in mismatch["why"], mismatch
