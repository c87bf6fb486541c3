"""A probe check has one home (issue 24): a module of nginxgen/probe/checks/ says what it sends,
what it reads and what the config model predicts for it, and the runner, the comparison and
the text report take it from `CHECKS` alone."""

from __future__ import annotations

import pkgutil
from collections.abc import Mapping
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from nginxgen.conf.config import build
from nginxgen.conf.load import load_path
from nginxgen.conf.per_name import Answer
from nginxgen.knowledge.target import resolve
from nginxgen.probe import checks
from nginxgen.probe.check import Found, NameProbe, Prediction, expect
from nginxgen.probe.checks.resumption import OBSERVED
from nginxgen.probe.predict import compare
from nginxgen.probe.run import probe_name, text_report


def test_every_module_of_the_folder_is_a_listed_check() -> None:
    listed = {check.__name__.rsplit(".", 1)[-1] for check in checks.CHECKS}  # type: ignore[attr-defined]
    found = {m.name for m in pkgutil.iter_modules(checks.__path__)}
    assert listed == found
    for check in checks.CHECKS:
        assert check.__doc__, f"{check} says what it sends, reads and predicts"
        for part in ("KEYS", "runs", "observe", "predict", "text"):
            assert hasattr(check, part), (check, part)


def test_no_two_checks_fill_the_same_key() -> None:
    keys = [key for check in checks.CHECKS for key in check.KEYS]
    assert len(keys) == len(set(keys))


def _toy_check() -> ModuleType:
    """What adding a check takes: one module (here made on the spot, sending nothing)."""
    toy = ModuleType("toy")
    toy.KEYS = {"toy": None}  # type: ignore[attr-defined]

    def runs(found: Found) -> bool:
        return True

    def observe(probe: NameProbe) -> dict[str, Any]:
        return {"toy": f"seen for {probe.sni}"}

    def predict(model: Any, found: Found) -> list[Prediction]:
        said = Answer("toy_directive", "what the config says", None)
        return [expect(said, found["toy"], "toy")]

    def text(found: Mapping[str, Any]) -> list[str]:
        return [f"  toy: {found['toy']}"]

    for function in (runs, observe, predict, text):
        setattr(toy, function.__name__, function)
    return toy


def test_a_new_check_is_one_module(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "nginx.conf").write_text(
        "events {}\nhttp {\n  server {\n    listen 127.0.0.1:8443 ssl;\n"
        "    server_name a.example;\n  }\n}\n"
    )
    model = build(load_path(str(tmp_path / "nginx.conf")))
    monkeypatch.setattr(checks, "CHECKS", (_toy_check(),))

    found = probe_name(("127.0.0.1", 9), "a.example", 1.0)  # the toy sends nothing
    assert found["toy"] == "seen for a.example"
    assert found["connections"] == 0

    found["protocols"] = {"TLSv1.3": True}  # what the protocols check would have found
    mismatches, said = compare(model, resolve("1.26.3", "openssl-3.5"), 8443, found)
    toy = [s for s in said if s["setting"] == "toy_directive"]
    assert toy and toy[0]["value"] == "what the config says"
    assert toy[0]["observed"] == "seen for a.example"
    assert [m["setting"] for m in mismatches] == ["toy_directive"]

    found["mismatches"] = mismatches
    report = text_report([found])
    assert "  toy: seen for a.example" in report
    assert "MISMATCH" in report and "toy_directive" in report


def test_a_check_after_a_failed_handshake_keeps_its_not_run_value(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    broken = _toy_check()

    def observe(probe: NameProbe) -> dict[str, Any]:
        raise ConnectionResetError("reset by peer")

    broken.observe = observe  # type: ignore[attr-defined]
    broken.KEYS = {"broken": "not run"}  # type: ignore[attr-defined]
    monkeypatch.setattr(checks, "CHECKS", (broken, _toy_check()))
    found = probe_name(("127.0.0.1", 9), None, 1.0)
    assert found["broken"] == "not run"
    assert found["toy"] is None  # after the failure: its KEYS, not run
    assert found["error"].startswith("full handshake failed: reset by peer")
    # the checks that did not run are not answered: the name is inconclusive (exit 1)
    assert found["inconclusive"] == [f"{found['error']}; the checks after it did not run"]


def test_client_certificate_request_is_read_in_both_versions() -> None:
    """The CA names of a CertificateRequest as TLS 1.2 (RFC 5246 7.4.4) and TLS 1.3 (RFC 8446
    4.3.2, the certificate_authorities extension) lay them out, in the model's RFC 4514 terms.
    The live tests compare the same reading with openssl s_client's."""
    from cryptography import x509
    from cryptography.x509.oid import NameOID

    from nginxgen.probe.checks.client_certificate import authorities, name_text

    subjects = [
        x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "client CA é")]),
        x509.Name(
            [
                x509.NameAttribute(NameOID.COUNTRY_NAME, "DE"),
                x509.NameAttribute(NameOID.ORGANIZATION_NAME, "Example, Inc."),
            ]
        ),
    ]
    ders = [s.public_bytes() for s in subjects]
    listed = b"".join(len(d).to_bytes(2, "big") + d for d in ders)
    names = len(listed).to_bytes(2, "big") + listed
    tls12 = b"\x02\x01\x40" + b"\x00\x02\x04\x03" + names  # types, sigalgs, names
    extension = (47).to_bytes(2, "big") + len(names).to_bytes(2, "big") + names
    sigalgs = (13).to_bytes(2, "big") + b"\x00\x04\x00\x02\x04\x03"
    extensions = sigalgs + extension
    tls13 = b"\x00" + len(extensions).to_bytes(2, "big") + extensions
    for body, version13 in ((tls12, False), (tls13, True)):
        assert [name_text(n) for n in authorities(body, version13)] == [
            s.rfc4514_string() for s in subjects
        ]
    no_names = b"\x00" + len(sigalgs).to_bytes(2, "big") + sigalgs
    assert authorities(no_names, True) == []
    assert authorities(b"\x01\x40\x00\x02\x04\x03\x00\x00", False) == []


def test_a_421_the_config_returns_is_not_a_mismatch(tmp_path: Path) -> None:
    """A default server's own `return 421` is on the wire what nginx's misdirected-request check
    answers: where the model says "served" it is not compared; where the model says a
    certificate is required, a served answer is a mismatch (found by tests/probe/test_probe_scenarios,
    whose default servers return 421)."""
    from nginxgen.probe.checks import client_certificate

    conf = tmp_path / "nginx.conf"
    conf.write_text(
        "events {}\nhttp {\n"
        "server { listen 443 ssl default_server; ssl_certificate c; ssl_certificate_key k; "
        "return 421; }\n"
        "server { listen 443 ssl; server_name b.example; ssl_certificate c; "
        "ssl_certificate_key k; ssl_verify_client on; ssl_client_certificate ca.pem; }\n}\n"
    )
    config = build(load_path(str(conf)))
    target = resolve("1.26.3", "openssl-3.5.7")
    from nginxgen.conf.effective import Effective
    from nginxgen.conf.per_name import NameModel

    def seen(sni: str | None, host: str, without: str) -> list[Prediction]:
        model = NameModel(Effective(config, target), "*:443", sni)
        found = {
            "client_certificate": {
                "requested": sni is not None,
                "ca_names": None,  # ca.pem is not readable here
                "host": host,
                "without": without,
            }
        }
        return [
            p for p in client_certificate.predict(model, found) if p.setting == "ssl_verify_client"
        ]

    default = seen(None, "127.0.0.1", "misdirected")
    assert [(p.value, p.seen) for p in default] == [(False, False), (None, "misdirected")]
    required = seen("b.example", "b.example", "served")
    assert [(p.value, p.seen) for p in required] == [(True, True), ("no-certificate", "served")]


def test_ca_names_are_not_asked_of_a_config_that_requests_no_certificate(tmp_path: Path) -> None:
    """Trial 23: a server asked for client certificates, its config then said `ssl_verify_client
    off` (not reloaded): besides the request, the probe blamed the unchanged
    ssl_client_certificate line for CA names `[]`, which nginx never sends without a request."""
    from nginxgen.conf.effective import Effective
    from nginxgen.conf.per_name import NameModel
    from nginxgen.probe.checks import client_certificate

    conf = tmp_path / "nginx.conf"
    conf.write_text(
        "events {}\nhttp {\nserver { listen 443 ssl default_server; server_name a.example; "
        "ssl_certificate c; ssl_certificate_key k; ssl_client_certificate ca.pem; "
        "ssl_verify_client off; }\n}\n"
    )
    model = NameModel(Effective(build(load_path(str(conf))), resolve("1.26.3", "openssl-3.5.7")),
                      "*:443", "a.example")  # fmt: skip
    found = {
        "client_certificate": {
            "requested": True,
            "ca_names": ["O=Example,CN=Client CA"],
            "host": "a.example",
            "without": None,
        }
    }
    said = [(p.key, p.setting) for p in client_certificate.predict(model, found)]
    assert said == [("client_certificate.requested", "ssl_verify_client")], said


def _resumed(sni: str, resumption: dict[str, bool]) -> dict[str, Any]:
    """What a probe of `sni` found over TLS 1.2 and 1.3: these resumption observations, every
    other check not run."""
    found: dict[str, Any] = {
        "sni": sni,
        "protocols": {"TLSv1.2": True, "TLSv1.3": True},
        "resumption": resumption,
    }
    for check in checks.CHECKS:
        found.update({k: v for k, v in check.KEYS.items() if k not in found})
    return found


def test_resumption_is_predicted_under_what_was_observed(tmp_path: Path) -> None:
    """Issue 35: `ssl_session_tickets off` with a shared cache was shown as
    `ssl_session_tickets: true` (the value was TLS 1.3 resumption from the cache). Each record
    of `--config` now names the observation it predicts (`key`, a path into the probe's JSON)
    beside the directive deciding it (`setting`), and a mismatch says both."""
    (tmp_path / "nginx.conf").write_text(
        "events {}\nhttp {\n  ssl_session_cache shared:S:1m;\n  server {\n"
        "    listen 127.0.0.1:8443 ssl;\n    server_name a.example;\n"
        "    ssl_session_tickets off;\n  }\n}\n"
    )
    model = build(load_path(str(tmp_path / "nginx.conf")))
    found = _resumed(
        "a.example",
        {
            "session_id_resumed": True,
            "tls12_ticket_issued": False,
            "tls12_ticket_resumed": True,  # what the probe claimed before (a lie, for the test)
            "tls13_psk_resumed": True,
        },
    )
    mismatches, said = compare(model, resolve("1.26.3", "openssl-3.5"), 8443, found)
    by_key = {s["key"]: (s["setting"], s["value"], s["observed"]) for s in said}
    assert by_key["resumption.session_id_resumed"] == ("ssl_session_cache", True, True)
    assert by_key["resumption.tls12_ticket_resumed"] == ("ssl_session_tickets", False, True)
    # OpenSSL resumes TLS 1.3 from the cache with tickets off (tls13_stateful_resumption)
    assert by_key["resumption.tls13_psk_resumed"] == ("ssl_session_tickets", True, True)
    assert [(m["key"], m["setting"], m["line"]) for m in mismatches] == [
        ("resumption.tls12_ticket_resumed", "ssl_session_tickets", 7)
    ]
    report = text_report([{**found, "inconclusive": [], "mismatches": mismatches}])
    assert "nginx.conf:7 (ssl_session_tickets): resumption.tls12_ticket_resumed False expected" in (
        report
    ), report
    filled = {key for check in checks.CHECKS for key in check.KEYS}
    # every observation is a path into the JSON the checks fill
    assert all(record["key"].split(".")[0] in {*filled, "refused"} for record in said), said


def test_a_line_that_does_not_apply_is_said_to_mean_not_expected(tmp_path: Path) -> None:
    """Issue 44, trial 5: a vhost's session lines under a default server that refuses
    handshakes and has no certificate. The model's values are what the server showed (no
    resumption); the vhost's cache and tickets lines do not give what they mean (NGX102,
    NGX105). The text said "True expected, but the server showed False", read as a wrong
    prediction; it now says the line means True and does not apply, and why, the right way
    round (tickets turned off in the vhost, not on)."""
    (tmp_path / "nginx.conf").write_text(
        "events {}\nhttp {\n  server {\n    listen 127.0.0.1:8443 ssl default_server;\n"
        "    ssl_reject_handshake on;\n  }\n  server {\n    listen 127.0.0.1:8443 ssl;\n"
        "    server_name ha.example.com;\n    ssl_certificate c.pem;\n"
        "    ssl_certificate_key k.pem;\n    ssl_session_timeout 1d;\n"
        "    ssl_session_cache shared:MozSSL:10m;\n    ssl_session_tickets off;\n  }\n}\n"
    )
    model = build(load_path(str(tmp_path / "nginx.conf")))
    found = _resumed("ha.example.com", dict.fromkeys(OBSERVED, False))
    mismatches, said = compare(model, resolve("1.26.3", "openssl-3.5"), 8443, found)
    assert all(s["value"] == s["observed"] for s in said), said
    assert [(m["setting"], m["line"], m["expected"]) for m in mismatches] == [
        ("ssl_session_cache", 13, True),
        ("ssl_session_tickets", 14, True),
    ]
    report = text_report([{**found, "inconclusive": [], "mismatches": mismatches}])
    mine = [line for line in report.splitlines() if "MISMATCH" in line]
    assert len(mine) == 2 and not any("expected" in line for line in mine), report
    assert (
        "nginx.conf:13 (ssl_session_cache): this line means resumption.session_id_resumed "
        "True, but does not apply here (the server showed False): " in mine[0]
    ), report
    assert "tickets turned off in a vhost under a default server with them on" in mine[1]


def test_names_probed_at_once_do_not_wait_for_each_other_s_handshakes() -> None:
    """Each NameProbe keeps its full handshakes (check.per_probe): one name's slow handshake
    must not hold another's. functools.cached_property did, on Python 3.11: one lock for every
    instance, so a fleet's names took their handshakes one at a time. Two names of a server
    that accepts and never answers: the one with the short timeout gives up after it, not after
    the other's."""
    import socket
    import threading
    import time

    with socket.create_server(("127.0.0.1", 0)) as silent:
        address = silent.getsockname()[:2]
        slow = NameProbe(address, "slow.test", 3.0, None)
        quick = NameProbe(address, "quick.test", 0.3, None)

        def handshake(probe: NameProbe) -> None:
            with pytest.raises(OSError):
                probe.handshake  # noqa: B018 (the property makes the handshake)

        holding = threading.Thread(target=handshake, args=(slow,))
        holding.start()
        time.sleep(0.3)  # the slow name is in its handshake
        started = time.monotonic()
        handshake(quick)
        waited = time.monotonic() - started
        holding.join()
    assert waited < 1.5, waited


def test_an_answer_that_is_not_http_is_not_read_as_a_page() -> None:
    """Trial 23: a stream port probed as HTTP, whose backend echoed the request, was reported
    "without one: served (status None)" and "HSTS on / (None): none", as if a page had been
    read. An answer without a status line is no page: the checks say they did not check."""
    from nginxgen.probe.pages import pages_in

    echoed = b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\nGET /nginxgen-probe-404 HTTP/1.1\r\n\r\n"
    (page,) = pages_in(echoed)
    assert page.status is None and page.unanswered is not None, page
    assert "not HTTP" in page.unanswered and "GET / HTTP/1.1" in page.unanswered
    answered = pages_in(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
    assert [(p.status, p.unanswered) for p in answered] == [(200, None)]
