"""`nginxgen probe` against real nginx serving generated presets (issue 16, first part): what the
probe reports per name equals what the generated config says the server will do - versions from
the preset, each group accepted exactly when the config lists it, ML-KEM enforced where the
config enforces it, and whose TLS 1.2 suite order wins."""

from __future__ import annotations

import contextlib
import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from nginxgen.generate.presets import list_presets, load_preset
from nginxgen.knowledge import libraries, tls_groups
from tests.builds import Build
from tests.cli_process import nginxgen as run_nginxgen
from tests.generate.test_live_presets import NAME, Served, generate, promised_groups
from tests.live import Server

# every preset on 1.26.3/OpenSSL 3.5 (the "probes as the preset promises"), and some
# on the other builds
CASES = [
    *(("trixie", preset.name) for preset in list_presets()),
    ("bookworm", "intermediate"),
    ("boringssl", "pq"),
    ("awslc", "intermediate"),
]


def expected_pq(tls_conf: str, build: Build) -> str:
    curve = re.search(r"^ssl_ecdh_curve (\S+);", tls_conf, re.M)
    assert curve is not None
    names = curve.group(1).replace("/", ":").split(":")
    pq = [n for n in names if (g := tls_groups.find_group(n)) is not None and g.pq]
    if not pq:
        return "none"
    if "/" in curve.group(1):
        return "enforced"
    prefer = re.search(r"^ssl_prefer_server_ciphers on;", tls_conf, re.M) is not None
    server_order = libraries.has(build.library, "server_group_preference") and prefer
    first_is_pq = names[0] in pq
    return "enforced" if server_order and first_is_pq else "supported"


def probe_served(build: Build, served: Served) -> subprocess.CompletedProcess[str]:
    """`nginxgen probe --format json --config` of a served preset, for its name."""
    return subprocess.run(
        [
            *(sys.executable, "-m", "nginxgen", "probe", f"127.0.0.1:{served.port}"),
            *("--sni", NAME, "--format", "json"),
            *("--config", str(served.conf), *build.target_flags),
        ],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


@pytest.mark.parametrize(("build", "preset"), CASES, indirect=["build"])
def test_probe_reports_what_the_config_says(build: Build, preset: str, tmp_path: Path) -> None:
    served = generate(preset, build, tmp_path)
    assert isinstance(served, Served), served.stderr
    tls_conf = (served.conf.parent / "tls.conf").read_text()
    with Server(build, served.conf, [served.port]):
        done = probe_served(build, served)  # against the config it came from: nothing differs
    assert done.returncode == 0, done.stderr
    results = json.loads(done.stdout)
    assert [r["sni"] for r in results] == [NAME, None]
    assert [r["mismatches"] for r in results] == [[], []]
    named = results[0]
    listed = set(load_preset(preset)["policy"]["protocols"])
    assert {v for v, ok in named["protocols"].items() if ok} == listed
    promised = promised_groups(served.conf.parent / "tls.conf")
    for group, accepted in named["groups"].items():
        known = tls_groups.find_group(group)
        assert accepted == (known is not None and known.id in promised), group
    assert named["pq"] == expected_pq(tls_conf, build)
    # the probe's ML-KEM key share is taken wherever the config lists X25519MLKEM768
    mlkem_only = "X25519MLKEM768" if "X25519MLKEM768" in promised else None
    assert named["tls13"]["group_mlkem_only"] == mlkem_only
    if "TLSv1.2" in listed:
        prefer = re.search(r"^ssl_prefer_server_ciphers on;", tls_conf, re.M) is not None
        assert named["tls12"]["server_order"] == prefer
        assert named["tls12"]["cipher"] in named["tls12"]["accepted"]
    assert named["alpn"] == ("h2" if served.http2 else "http/1.1")
    # each way the config allows resumes (a shared cache; tickets where their keys rotate), and
    # no TLS 1.2 ticket where it turns them off (nginx 1.22.1), the session ID resuming still
    tickets = re.search(r"^ssl_session_tickets on;", tls_conf, re.M) is not None
    tls12 = "TLSv1.2" in listed
    assert named["resumption"] == {
        "session_id_resumed": True if tls12 else None,
        "tls12_ticket_issued": tickets if tls12 else None,
        "tls12_ticket_resumed": tickets if tls12 else None,
        "tls13_psk_resumed": True,
        "host": named["sni"],
        "tls13_answered": True,
    }
    assert named["hsts"]["root_status"] == 200 and named["hsts"]["root"]
    assert named["hsts"]["not_found_status"] == 404 and named["hsts"]["not_found"]
    cert = named["certificate"]
    assert cert["covers_sni"] and cert["days_left"] >= 29
    # the chain as sent: decrypted from the TLS 1.3 handshake (every preset has TLS 1.3)
    assert cert["chain_from"] == "TLSv1.3"
    assert cert["leaf_first"] and cert["in_order"] and cert["intermediates"]
    assert cert["ocsp_stapled"] is False
    assert named["early_data"] == {"offered": False, "max_early_data": None}  # no preset has 0-RTT
    # without SNI the default server answers: it refuses the handshake (ssl_reject_handshake)
    assert not any(results[1]["protocols"].values())


def _probe_cli(target: str, *args: str) -> subprocess.CompletedProcess[str]:
    return run_nginxgen("probe", target, "--timeout", "2", *args, timeout=60)


def test_nothing_listening_is_one_line_and_exit_2() -> None:
    """A refused connection is said as such (issue 35, item 8: it was "no TLS answer", as for
    a name that does not resolve)."""
    from tests.live import free_port

    port = free_port()
    done = _probe_cli(f"127.0.0.1:{port}")
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [
        f"nginxgen: error: probe: 127.0.0.1:{port}: connection refused"
    ]
    via = _probe_cli(f"a.test:{port}", "--connect", "127.0.0.1")  # the address is what refused
    assert (via.returncode, via.stderr) == (2, done.stderr)


def test_a_name_that_does_not_resolve_is_its_own_line_and_exit_2() -> None:
    """`.invalid` never resolves (RFC 6761 6.4): the line says so, not "no TLS answer"."""
    done = _probe_cli("nginxgen-probe.invalid:443")
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(
        "nginxgen: error: probe: cannot resolve nginxgen-probe.invalid: "
    ), lines


def test_a_listener_that_speaks_no_tls_is_no_tls_answer() -> None:
    """Something accepts the connection but answers no ClientHello (it closes at once): the
    port is open, and the line says that no TLS version answered."""
    import socket
    import threading

    with socket.create_server(("127.0.0.1", 0)) as listener:
        port = listener.getsockname()[1]
        listener.settimeout(30)

        def close_each() -> None:
            try:
                while True:
                    connection, _ = listener.accept()
                    connection.close()
            except OSError:  # the listener is closed: the test is over
                return

        threading.Thread(target=close_each, daemon=True).start()
        done = _probe_cli(f"127.0.0.1:{port}")
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [
        f"nginxgen: error: probe: no TLS answer from 127.0.0.1:{port} for any version"
    ]


def test_a_server_that_refuses_the_name_is_said_with_its_alert(
    provisioned: tuple[dict[str, Build], dict[str, str]], client: Build, tmp_path: Path
) -> None:
    """A default server with `ssl_reject_handshake on` answers a name it does not serve with an
    alert, which is not "no TLS answer": the line names the alerts per version (exit 2, nothing
    answered); beside a name it serves, the refused name's report line shows them. The alert is
    checked against OpenSSL's s_client."""
    from tests.conf.test_stream_live import _main
    from tests.conftest import require_build
    from tests.live import free_port, s_client
    from tests.pki import CertificateFactory

    build = require_build(provisioned, "trixie")
    chain = CertificateFactory(tmp_path / "pki").leaf("a.example", sans=("a.example",))
    port = free_port()
    (tmp_path / "logs").mkdir()
    (tmp_path / "temp").mkdir()
    conf = tmp_path / "nginx.conf"
    conf.write_text(_main(f"""http {{ access_log off; {" ".join(build.temp_path_directives)}
    server {{ listen 127.0.0.1:{port} ssl default_server; ssl_reject_handshake on; }}
    server {{ listen 127.0.0.1:{port} ssl; server_name a.example; return 200;
              ssl_certificate {chain.fullchain}; ssl_certificate_key {chain.key}; }}
}}
"""))  # fmt: skip
    with Server(build, conf, [port]):
        oracle = s_client(client, port, "nobody.example", path=None)
        refused = _probe_cli(f"127.0.0.1:{port}", "--sni", "nobody.example")
        both = _probe_cli(f"127.0.0.1:{port}", "--sni", "nobody.example", "--sni", "a.example")
    assert not oracle.ok and "SSL alert number 112" in oracle.output, oracle.output[-600:]
    assert refused.returncode == 2, refused.stderr
    assert refused.stderr.strip().splitlines() == [
        f"nginxgen: error: probe: 127.0.0.1:{port} refused every handshake for nobody.example "
        "and without SNI: alert 70 (protocol_version) to TLSv1 and TLSv1.1; alert 112 "
        "(unrecognized_name) to TLSv1.2 and TLSv1.3 (unrecognized_name: no server there serves "
        "the name, e.g. a default server with ssl_reject_handshake on)"
    ], refused.stderr
    assert both.returncode == 0, both.stderr
    assert (
        "nobody.example:\n  protocols: none (refused: alert 70 (protocol_version) to TLSv1 and "
        "TLSv1.1; alert 112 (unrecognized_name) to TLSv1.2 and TLSv1.3)\n"
    ) in both.stdout, both.stdout


def test_config_explains_the_ignored_vhost_line(
    provisioned: tuple[dict[str, Build], dict[str, str]], tmp_path: Path
) -> None:
    """The seed's case: b.test's own ssl_ecdh_curve lists ML-KEM, the default server of the
    address does not: the probe shows the default server's groups for b.test and says why;
    after `lint --unsafe-fixes` moves the groups there, config and server agree."""
    from tests.conftest import require_build
    from tests.fix.test_lint_fix_live import seed_tree, unsafe_fixes

    build = require_build(provisioned, "trixie")
    conf, port = seed_tree(build, tmp_path)
    argv = [
        *(sys.executable, "-m", "nginxgen", "probe", f"127.0.0.1:{port}", "--sni", "b.test"),
        *("--config", str(conf), *build.target_flags, "--format", "json"),
    ]
    with Server(build, conf, [port]):
        before = subprocess.run(argv, capture_output=True, text=True, timeout=120, check=False)
    assert before.returncode == 1, before.stdout + before.stderr
    found = json.loads(before.stdout)[0]["mismatches"]
    assert len(found) == 1, found
    assert found[0]["setting"] == "ssl_ecdh_curve"
    assert found[0]["file"] == str(tmp_path / "conf.d" / "b.ssl.conf") and found[0]["line"] == 6
    assert found[0]["expected"] == ["X25519", "X25519MLKEM768"]
    assert found[0]["observed"] == ["X25519", "secp256r1"]
    assert f"is the default server of 127.0.0.1:{port} and decides the groups" in found[0]["why"]
    # the vhost's own file given, with the main file that includes it: the same answer
    vhost_file = str(tmp_path / "conf.d" / "b.ssl.conf")
    by_root = [*argv[: argv.index("--config") + 1], vhost_file, "--root", str(conf),
               *argv[argv.index("--config") + 2 :]]  # fmt: skip
    with Server(build, conf, [port]):
        rooted = subprocess.run(by_root, capture_output=True, text=True, timeout=120, check=False)
    assert rooted.returncode == 1 and json.loads(rooted.stdout)[0]["mismatches"] == found

    fixed = unsafe_fixes(build, conf)
    assert "internal error" not in fixed.stderr, fixed.stderr
    with Server(build, conf, [port]):
        after = subprocess.run(argv, capture_output=True, text=True, timeout=120, check=False)
    assert after.returncode == 0, after.stdout + after.stderr
    assert json.loads(after.stdout)[0]["pq"] == "enforced"


def test_config_explains_hsts_lost_in_a_location(
    provisioned: tuple[dict[str, Build], dict[str, str]], tmp_path: Path
) -> None:
    """A location with add_header lines of its own drops the server's HSTS there (nginx does
    not merge add_header levels): the probe shows it missing and names the location."""
    from tests.conftest import require_build

    build = require_build(provisioned, "trixie")
    served = generate("intermediate", build, tmp_path)
    assert isinstance(served, Served)
    site = served.conf.parent / f"{NAME}.ssl.conf"
    text = site.read_text()
    site.write_text(
        text.replace("\n}\n", "\n    location / { add_header X-Frame-Options DENY; }\n}\n", 1)
    )
    with Server(build, served.conf, [served.port]):
        done = probe_served(build, served)
    assert done.returncode == 1, done.stdout + done.stderr
    found = json.loads(done.stdout)[0]["mismatches"]
    assert [m["page"] for m in found] == ["/ (status 200)", "a 404 (status 404)"], found
    for mismatch in found:
        assert mismatch["expected"] is True and mismatch["observed"] is False
        assert f"{site}:" in mismatch["why"] and "replace the inherited ones" in mismatch["why"]
        assert mismatch["because"]["file"] == str(site)  # the location's add_header line


@pytest.mark.parametrize(
    ("location", "statuses"),
    [
        ('location / { return 200 "ok"; }', ["/ (200)", "a 404 (200)"]),  # the 404 is a 200 here
        ("location / { return 404; }", ["/ (404)", "a 404 (404)"]),  # / is a 404 here
    ],
)
def test_hsts_is_judged_for_the_response_the_server_gave(
    provisioned: tuple[dict[str, Build], dict[str, str]],
    tmp_path: Path,
    location: str,
    statuses: list[str],
) -> None:
    """Issue 25: add_header without `always` applies only to some statuses, and a `return` in
    `location /` decides the status of every page: the probe compares HSTS with what the config
    says for the response it got, so a server just started with the config shows no mismatch."""
    from tests.conftest import require_build

    build = require_build(provisioned, "trixie")
    served = generate("intermediate", build, tmp_path)
    assert isinstance(served, Served)
    site = served.conf.parent / f"{NAME}.ssl.conf"
    text = site.read_text()
    assert '" always;' in text
    text = text.replace('includeSubDomains" always;', 'includeSubDomains";')
    site.write_text(text.replace("\n}\n", f"\n    {location}\n}}\n", 1))
    with Server(build, served.conf, [served.port]):
        done = probe_served(build, served)
    assert done.returncode == 0, done.stdout + done.stderr
    hsts = json.loads(done.stdout)[0]["hsts"]
    seen = [f"/ ({hsts['root_status']})", f"a 404 ({hsts['not_found_status']})"]
    assert seen == statuses, hsts
    assert json.loads(done.stdout)[0]["mismatches"] == []


class ResettingRelay:
    """A loopback relay in front of a server that resets (RST) every connection whose
    ClientHello asks for TLS 1.1, as some middleboxes do, and passes the rest through."""

    def __init__(self, port: int) -> None:
        import socket
        import threading

        self.upstream = port
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        self.thread = threading.Thread(target=self._serve, daemon=True)

    def __enter__(self) -> ResettingRelay:
        self.thread.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.listener.close()

    def _serve(self) -> None:
        import socket
        import struct
        import threading

        while True:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            first = client.recv(65536)
            if first[9:11] == b"\x03\x02":  # ClientHello.client_version TLS 1.1
                client.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
                client.close()  # linger 0: a reset, not a FIN
                continue
            server = socket.create_connection(("127.0.0.1", self.upstream))
            server.sendall(first)
            for a, b in ((client, server), (server, client)):
                threading.Thread(target=self._pipe, args=(a, b), daemon=True).start()

    @staticmethod
    def _pipe(source: Any, sink: Any) -> None:
        try:
            while data := source.recv(65536):
                sink.sendall(data)
        except OSError:
            pass
        finally:
            for end in (source, sink):
                with contextlib.suppress(OSError):
                    end.shutdown(2)


def test_a_reset_is_inconclusive_not_refused(
    provisioned: tuple[dict[str, Build], dict[str, str]], tmp_path: Path
) -> None:
    from tests.conftest import require_build

    build = require_build(provisioned, "trixie")
    served = generate("intermediate", build, tmp_path)
    assert isinstance(served, Served)
    with Server(build, served.conf, [served.port]), ResettingRelay(served.port) as relay:
        done = run_nginxgen(
            "probe",
            f"127.0.0.1:{relay.port}",
            "--sni",
            NAME,
            "--format",
            "json",
            "--timeout",
            "3",
            timeout=120,
        )
    assert done.returncode == 1, done.stdout + done.stderr
    named = json.loads(done.stdout)[0]
    assert named["protocols"] == {
        "TLSv1": False, "TLSv1.1": None, "TLSv1.2": True, "TLSv1.3": True
    }  # fmt: skip
    assert named["inconclusive"] == ["TLSv1.1: connection reset"]
    assert named["connections"] > 10
    assert re.search(r"probe: 1 names and 1 without SNI, \d+ connections to", done.stderr)


def test_config_notices_changes_not_loaded(
    provisioned: tuple[dict[str, Build], dict[str, str]], tmp_path: Path
) -> None:
    """The config names another certificate, other TLS 1.2 suites and another HSTS max-age than
    the server uses (changed on disk, not reloaded): one mismatch each, on the lines that
    changed (the HSTS line's once for each page it is sent on; trial 23: its text was not
    compared)."""
    from tests.conftest import require_build
    from tests.pki import CertificateFactory

    build = require_build(provisioned, "trixie")
    served = generate("intermediate", build, tmp_path)
    assert isinstance(served, Served)
    with Server(build, served.conf, [served.port]):
        site = served.conf.parent / f"{NAME}.ssl.conf"
        other = CertificateFactory(tmp_path / "other").leaf(NAME, sans=(f"www.{NAME}",))
        text = site.read_text()
        first = re.search(r"ssl_certificate (\S+);", text)
        assert first is not None
        text = text.replace(first.group(1), str(other.fullchain), 1)
        assert '"max-age=63072000; includeSubDomains" always;' in text
        site.write_text(text.replace("max-age=63072000;", "max-age=300;", 1))
        tls_conf = served.conf.parent / "tls.conf"
        tls_conf.write_text(
            re.sub(r"^ssl_ciphers .*;$", "ssl_ciphers ECDHE-ECDSA-AES256-GCM-SHA384;",
                   tls_conf.read_text(), count=1, flags=re.M)
        )  # fmt: skip
        done = probe_served(build, served)
    assert done.returncode == 1, done.stdout + done.stderr
    found = json.loads(done.stdout)[0]["mismatches"]
    hsts = "add_header Strict-Transport-Security"
    assert [m["setting"] for m in found] == ["ssl_ciphers", "ssl_certificate", hsts, hsts], found
    assert found[0]["expected"] == ["ECDHE-ECDSA-AES256-GCM-SHA384"]
    assert "ECDHE-ECDSA-AES128-GCM-SHA256" in found[0]["observed"]
    assert "not reloaded" in found[1]["why"] and str(other.fullchain) in found[1]["expected"]
    pages = [
        ("hsts.root", "/ (status 200), value"),
        ("hsts.not_found", "a 404 (status 404), value"),
    ]
    for mismatch, (key, page) in zip(found[2:], pages, strict=True):
        assert (mismatch["key"], mismatch["page"]) == (key, page), mismatch
        assert mismatch["expected"] == "max-age=300; includeSubDomains", mismatch
        assert mismatch["observed"] == "max-age=63072000; includeSubDomains", mismatch
        assert "not reloaded" in mismatch["why"] and mismatch["file"].endswith(".ssl.conf")


@pytest.mark.parametrize("build", ["trixie", "bookworm", "boringssl", "awslc"], indirect=True)
def test_early_data_is_read_from_the_tickets(build: Build, tmp_path: Path) -> None:
    """`ssl_early_data on`: the TLS 1.3 tickets carry max_early_data_size (decrypted from the
    probe's own handshake), and --config agrees; the chain of a TLS 1.3-only server is read."""
    served = generate("modern", build, tmp_path)
    assert isinstance(served, Served), served.stderr
    tls_conf = served.conf.parent / "tls.conf"
    tls_conf.write_text(tls_conf.read_text() + "ssl_early_data on;\n")
    with Server(build, served.conf, [served.port]):
        done = probe_served(build, served)
    assert done.returncode == 0, done.stdout + done.stderr
    named = json.loads(done.stdout)[0]
    assert named["protocols"]["TLSv1.2"] is False  # TLS 1.3 only: no clear-text chain
    size = libraries.max_early_data(build.library)  # 16384 from nginx; BoringSSL's own 14336
    assert named["early_data"] == {"offered": True, "max_early_data": size}
    cert = named["certificate"]
    assert cert["chain_from"] == "TLSv1.3" and cert["chain_length"] == 2 and cert["leaf_first"]
