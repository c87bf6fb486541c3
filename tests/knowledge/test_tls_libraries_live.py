"""The library facts of the knowledge base on real nginx built against AWS-LC and BoringSSL
(issue 15; scripts/source_builds.py): what `nginx -V` says and the target parser reads, which
directives the library refuses or ignores, which group spellings it takes, and whose group
order wins when a client sends a classical key share first."""

from __future__ import annotations

import socket
import ssl
import subprocess
from pathlib import Path

import pytest

from nginxgen.knowledge import libraries, tls_groups
from nginxgen.knowledge.target import parse_library
from tests.builds import ALL_BUILD_NAMES, SOURCE_BUILD_NAMES, Build
from tests.conftest import require_build
from tests.fuzzing.generate_check import build_target, real_files
from tests.live import Server, free_port, prepare_prefix, s_client

COMPATIBLE = {"awslc": "(compatible; AWS-LC 5.12.0)", "boringssl": "(compatible; BoringSSL)"}


@pytest.fixture(params=SOURCE_BUILD_NAMES)
def library_build(
    request: pytest.FixtureRequest, provisioned: tuple[dict[str, Build], dict[str, str]]
) -> Build:
    return require_build(provisioned, str(request.param))


def one_server(folder: Path, port: int, lines: str, block: str = "http") -> Path:
    """An nginx.conf with one TLS server on 127.0.0.1:port and these extra lines in it, in
    http{} or stream{}."""
    pair = real_files().certificates[0]
    conf = folder / "nginx.conf"
    conf.write_text(
        f"worker_processes 1;\nevents {{}}\n{block} {{\n"
        + ("access_log off;\n" if block == "http" else "")
        + f"server {{ listen 127.0.0.1:{port} ssl; ssl_certificate {pair['cert']}; "
        f"ssl_certificate_key {pair['key']}; {lines} }}\n}}\n"
    )
    return conf


def nginx_t(
    build: Build, folder: Path, server: str, block: str = "http"
) -> subprocess.CompletedProcess[str]:
    """nginx -t of one TLS server with these extra lines."""
    conf = one_server(folder, free_port(), server, block)
    return build.nginx(
        "-p", f"{folder}/", "-c", str(conf), "-e", str(folder / "error.log"),
        "-g", f"pid {folder}/nginx.pid;", "-t",
    )  # fmt: skip


def test_nginx_v_names_the_library(library_build: Build) -> None:
    assert COMPATIBLE[library_build.name] in library_build.nginx("-V").stderr
    target = build_target(library_build)
    assert target.library.kind == ("aws-lc" if library_build.name == "awslc" else "boringssl")
    assert str(target.library) == library_build.tls_library


def test_ssl_conf_command_is_refused(library_build: Build, tmp_path: Path) -> None:
    library = build_target(library_build).library
    assert not libraries.has(library, "ssl_conf_command")
    done = nginx_t(library_build, tmp_path, "ssl_conf_command Options PrioritizeChaCha;")
    assert done.returncode == 1
    refusal = libraries.capability(library, "ssl_conf_command").refusal
    assert '"ssl_conf_command" directive is not supported on this platform' in done.stderr
    assert "is not supported on this platform" in refusal  # the knowledge says it as nginx does


def test_ocsp_stapling_as_the_knowledge_says(library_build: Build, tmp_path: Path) -> None:
    library = build_target(library_build).library
    done = nginx_t(library_build, tmp_path, "ssl_stapling on;")
    ignored = '"ssl_stapling" ignored, not supported' in done.stderr
    assert done.returncode == 0, done.stderr
    assert ignored == (not libraries.has(library, "ocsp_stapling")), done.stderr


def test_ocsp_for_client_certificates_as_the_knowledge_says(
    library_build: Build, tmp_path: Path
) -> None:
    library = build_target(library_build).library
    done = nginx_t(library_build, tmp_path, "ssl_ocsp on;")
    refused = '"ssl_ocsp" is not supported on this platform' in done.stderr
    assert refused == (done.returncode == 1), done.stderr
    assert refused == (not libraries.has(library, "ocsp_client")), done.stderr
    if refused:  # the knowledge says it as nginx does
        assert (
            "is not supported on this platform"
            in libraries.capability(library, "ocsp_client").refusal
        )


def _spellings() -> list[str]:
    """Every group name the knowledge base knows, for any library, plus an unknown one."""
    import tomllib

    from nginxgen.base.resources import data_dir

    groups = tomllib.loads((data_dir("knowledge") / "groups.toml").read_text())["group"]
    names = {n for g in groups.values() for spelled in g.get("names", {}).values() for n in spelled}
    return sorted(names | {"secp256k1"})


SPELLINGS = _spellings()


@pytest.mark.parametrize("spelling", SPELLINGS)
def test_group_spellings_as_the_knowledge_says(
    library_build: Build, tmp_path: Path, spelling: str
) -> None:
    library = build_target(library_build).library
    group = tls_groups.find_group(spelling)
    bounds = group.support.get(library.kind) if group is not None else None
    if library.version is None and bounds is not None and bounds.until is not None:
        # BoringSSL has no version in nginx -V, so a group it removed on a known date (the
        # Kyber draft, removed 0.20260813.0) cannot be judged for this build: it still has it
        assert spelling == "X25519Kyber768Draft00", bounds
        return
    expected = (
        group is not None
        and group.available(library)
        and tls_groups.group_accepts_spelling(group, spelling, library)
    )
    done = nginx_t(library_build, tmp_path, f"ssl_ecdh_curve {spelling};")
    assert (done.returncode == 0) == expected, done.stderr


def test_group_tuples_are_refused(library_build: Build, tmp_path: Path) -> None:
    library = build_target(library_build).library
    assert not libraries.has(library, "group_tuples")
    done = nginx_t(library_build, tmp_path, "ssl_ecdh_curve X25519MLKEM768/X25519;")
    assert done.returncode == 1 and "SSL_CTX_set1_curves_list" in done.stderr


@pytest.mark.parametrize("prefer", ["on", "off"])
def test_server_group_order_wins_over_the_first_key_share(
    library_build: Build, client: Build, tmp_path: Path, prefer: str
) -> None:
    """The claim behind the pq preset on these libraries: with ssl_prefer_server_ciphers on, a
    client that offers ML-KEM but sends only an X25519 key share is asked (HelloRetryRequest)
    for the server's first group; with it off, the client's key share is taken."""
    library = build_target(library_build).library
    port = free_port()
    conf = one_server(
        tmp_path,
        port,
        f"ssl_ecdh_curve X25519MLKEM768:X25519; ssl_prefer_server_ciphers {prefer}; return 200;",
    )
    with Server(library_build, conf, [port]):
        hello = s_client(client, port, "a.test", version="1.3", groups="X25519:X25519MLKEM768")
    assert hello.ok, hello.output[-1500:]
    server_order = libraries.has(library, "server_group_preference") and prefer == "on"
    expected = "X25519MLKEM768" if server_order else "X25519"
    assert hello.group == expected, hello.output[-1500:]


def test_library_spellings_parse() -> None:
    assert parse_library("aws-lc-5.12.0").kind == "aws-lc"


def test_tls13_resumption_without_tickets(
    library_build: Build, client: Build, tmp_path: Path
) -> None:
    """Tickets off, a shared cache: TLS 1.3 resumes only where the library keeps stateful
    tickets; a TLS 1.2 session ID resumes everywhere."""
    library = build_target(library_build).library
    port = free_port()
    conf = one_server(tmp_path, port, "ssl_session_cache shared:B:1m; ssl_session_tickets off;")
    resumed = {}
    with Server(library_build, conf, [port]):
        for version in ("1.2", "1.3"):
            session = tmp_path / f"session-{version}.pem"
            first = s_client(client, port, "a.test", version=version, sess_out=session)
            assert first.ok, first.output[-1500:]
            again = s_client(client, port, "a.test", version=version, sess_in=session)
            resumed[version] = again.reused
    assert resumed == {"1.2": True, "1.3": libraries.has(library, "tls13_stateful_resumption")}


def _resumed_on_another_worker(build: Build, folder: Path, lines: str, version: str) -> list[bool]:
    """Four workers, each answering with its pid, and `reuseport` so that the kernel hands each
    connection to any of them: pairs of connections (the second offers the first one's
    session) until three pairs landed on two workers; whether each of those resumed."""
    port = free_port()
    conf = one_server(folder, port, f"ssl_protocols TLSv1.2 TLSv1.3; {lines} return 200 $pid;")
    text = conf.read_text().replace("worker_processes 1;", "worker_processes auto;")
    conf.write_text(text.replace(f"{port} ssl;", f"{port} ssl reuseport;"))
    prepare_prefix(conf, build, workers=4)
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    context.check_hostname, context.verify_mode = False, ssl.CERT_NONE
    context.minimum_version = context.maximum_version = ssl.TLSVersion[version]

    def ask(session: ssl.SSLSession | None) -> tuple[bytes, ssl.SSLSession | None, bool]:
        with (
            socket.create_connection(("127.0.0.1", port), timeout=5) as raw,
            context.wrap_socket(raw, server_hostname="a.test", session=session) as tls,
        ):
            tls.sendall(b"GET / HTTP/1.1\r\nHost: a.test\r\nConnection: close\r\n\r\n")
            reply = b""
            while chunk := tls.recv(4096):
                reply += chunk
            return reply.split(b"\r\n\r\n", 1)[1], tls.session, tls.session_reused

    across = []
    with Server(build, conf, [port]):
        for _ in range(200):
            pid, session, _ = ask(None)
            other, _, reused = ask(session)
            if other != pid:
                across.append(reused)
            if len(across) == 3:
                break
    assert len(across) == 3, "the connections never reached two workers"
    return across


@pytest.mark.parametrize("name", ALL_BUILD_NAMES)
@pytest.mark.parametrize("version", ["TLSv1_2", "TLSv1_3"])
def test_ticket_keys_shared_by_the_workers_as_the_knowledge_says(
    provisioned: tuple[dict[str, Build], dict[str, str]], tmp_path: Path, name: str, version: str
) -> None:
    """Tickets on, no key file, no shared cache: a ticket resumes on another worker only
    where the library made the keys with the context, in the master (ticket_keys_made_with_
    context: OpenSSL, not BoringSSL or AWS-LC, which make them in each worker on first use)."""
    build = require_build(provisioned, name)
    library = build_target(build).library
    across = _resumed_on_another_worker(build, tmp_path, "", version)
    assert across == [libraries.has(library, "ticket_keys_made_with_context")] * 3


@pytest.mark.parametrize("name", ALL_BUILD_NAMES)
def test_a_builtin_session_cache_is_each_workers_own(
    provisioned: tuple[dict[str, Build], dict[str, str]], tmp_path: Path, name: str
) -> None:
    """nginx docs (ssl_session_cache): builtin is "used by one worker process only"; a session
    ID stored by one worker resumes on no other (why the model leaves it open with several)."""
    build = require_build(provisioned, name)
    lines = "ssl_session_cache builtin:1000; ssl_session_tickets off;"
    assert _resumed_on_another_worker(build, tmp_path, lines, "TLSv1_2") == [False] * 3


# --- every fact of the knowledge base that names these libraries ------------------------------

SYNTAX_SAMPLES = {  # a group list that needs exactly this syntax feature
    "question": "?X25519:P-256",
    "star": "*X25519:P-256",
    "tuple": "X25519/P-256",
    "dash": "X25519:-P-256",
    "duplicates": "X25519:P-256:X25519",
    "case_insensitive": "X25519:p-256",
}


@pytest.mark.parametrize("feature", sorted(SYNTAX_SAMPLES))
def test_group_list_syntax(library_build: Build, tmp_path: Path, feature: str) -> None:
    library = build_target(library_build).library
    done = nginx_t(library_build, tmp_path, f"ssl_ecdh_curve {SYNTAX_SAMPLES[feature]};")
    assert (done.returncode == 0) == tls_groups.group_syntax(library, feature), done.stderr


def test_tls13_suites_fixed_whatever_ssl_ciphers_says(
    library_build: Build, client: Build, tmp_path: Path
) -> None:
    """No TLS 1.3 name in ssl_ciphers, none settable elsewhere: each suite of the library's
    fixed list is still negotiated with a client that offers only it."""
    library = build_target(library_build).library
    assert not libraries.has(library, "tls13_suites_via_ssl_ciphers")
    assert not libraries.has(library, "tls13_suites_via_conf_command")
    port = free_port()
    conf = one_server(tmp_path, port, "ssl_ciphers ECDHE-ECDSA-AES128-GCM-SHA256;")
    with Server(library_build, conf, [port]):
        for suite in libraries.tls13_fixed_suites(library) or []:
            hello = s_client(client, port, "a.test", version="1.3", ciphersuites=suite)
            assert hello.ok and hello.cipher == suite, hello.output[-1500:]


def test_legacy_protocols_without_security_level_zero(
    library_build: Build, client: Build, tmp_path: Path
) -> None:
    """TLS 1.1 on: the server needs no @SECLEVEL=0 where the library has no security levels
    (the client still does: it is OpenSSL 3.5); with BoringSSL nginx cannot switch it on."""
    library = build_target(library_build).library
    assert not libraries.has(library, "legacy_protocols_need_seclevel0")
    port = free_port()
    lines = "ssl_protocols TLSv1.1 TLSv1.2 TLSv1.3; ssl_ciphers ECDHE-ECDSA-AES128-SHA;"
    with Server(library_build, one_server(tmp_path, port, lines), [port]):
        hello = s_client(
            client, port, "a.test", version="1.1", ciphers="ECDHE-ECDSA-AES128-SHA:@SECLEVEL=0"
        )
    if libraries.has(library, "legacy_protocols"):
        assert hello.ok and hello.protocol == "TLSv1.1", hello.output[-1500:]
    else:
        assert not hello.ok and hello.alert == "protocol version", hello.output[-1500:]


def test_small_rsa_keys_as_the_knowledge_says(library_build: Build, tmp_path: Path) -> None:
    from tests.helpers import make_cert

    library = build_target(library_build).library
    pair = make_cert(tmp_path / "weak", "a.test", "rsa1024")
    done = nginx_t(
        library_build,
        tmp_path,
        f"ssl_certificate {pair.cert}; ssl_certificate_key {pair.key};",
    )
    assert (done.returncode != 0) == libraries.has(library, "refuses_small_keys"), done.stderr


def test_early_data_accepted(library_build: Build, client: Build, tmp_path: Path) -> None:
    library = build_target(library_build).library
    port = free_port()
    conf = one_server(tmp_path, port, "ssl_early_data on; ssl_session_tickets on;")
    early = tmp_path / "early.txt"
    early.write_text("GET / HTTP/1.1\r\nHost: a.test\r\nConnection: close\r\n\r\n")
    session = tmp_path / "session.pem"
    with Server(library_build, conf, [port]):
        first = s_client(client, port, "a.test", version="1.3", sess_out=session)
        assert first.ok, first.output[-1500:]
        again = s_client(
            client, port, "a.test", version="1.3", sess_in=session, early_data=early, path=None
        )
    accepted = "Early data was accepted" in again.output
    assert accepted == libraries.has(library, "early_data"), again.output[-1500:]


# Each capability of the knowledge base that names BoringSSL or AWS-LC, and the test above (or in
# another file) that shows it on the two builds; or why it cannot be shown here.
COVERED = {
    "ssl_conf_command": "test_ssl_conf_command_is_refused",
    "ktls": "not testable apart: nginx turns kTLS on through ssl_conf_command, refused above",
    "prioritize_chacha": "not testable apart: it is an ssl_conf_command option, refused above",
    "ocsp_stapling": "test_ocsp_stapling_as_the_knowledge_says",
    "ocsp_client": "test_ocsp_for_client_certificates_as_the_knowledge_says",
    "early_data": "test_early_data_accepted",
    "tls13": "tests/generate/test_live_presets.py (TLS 1.3 handshake of every preset on both builds)",
    "tls13_suites_via_conf_command": "test_tls13_suites_fixed_whatever_ssl_ciphers_says",
    "tls13_suites_via_ssl_ciphers": "test_tls13_suites_fixed_whatever_ssl_ciphers_says",
    "legacy_protocols_need_seclevel0": "test_legacy_protocols_without_security_level_zero",
    "legacy_protocols": "test_legacy_protocols_without_security_level_zero",
    "security_levels": "tests/generate/test_live_presets.py (compat) and the docs table",
    "multiple_certificates": "tests/generate/test_live_presets.py (one pair on BoringSSL, two on AWS-LC)",
    "tls13_stateful_resumption": "test_tls13_resumption_without_tickets",
    "tls13_tickets_before_first_write": "tests/probe/test_probe_resumption_444_live.py "
    "(s_client and the probe behind `return 444`: OpenSSL 3.5, BoringSSL, AWS-LC)",
    "group_tuples": "test_group_tuples_are_refused",
    "server_group_preference": "test_server_group_order_wins_over_the_first_key_share",
    "mlkem_hybrid": "test_group_spellings_as_the_knowledge_says (X25519MLKEM768)",
    "refuses_small_keys": "test_small_rsa_keys_as_the_knowledge_says",
    "checks_leaf_signature_digest": "tests/lint/test_weak_signature_live.py (nginx -t with a "
    "SHA-1-signed leaf on the seven builds)",
    "ticket_keys_made_with_context": "test_ticket_keys_shared_by_the_workers_as_the_knowledge_says",
    "key_engine": "tests/lint/test_lint_release.py (engine: keys refused on both builds)",
    "key_store": "not testable apart: those builds are nginx 1.26.3, before store: keys (1.29.0); "
    "tests/lint/test_lint_release.py shows the release side",
    "client_ca_list_sorted": "tests/conf/test_client_certificates_live.py "
    "(test_ca_names_in_the_order_nginx_sends_them, s_client on the seven builds)",
    "ech": "not testable apart: those builds are nginx 1.26.3, before ssl_ech_file (1.29.4); "
    "OpenSSL without the ECH API is shown in tests/lint/test_lint_ech.py (the wheel's warning)",
}


def test_every_library_fact_is_covered() -> None:
    import tomllib

    from nginxgen.base.resources import data_dir

    data = tomllib.loads((data_dir("knowledge") / "libraries.toml").read_text())
    named = {
        name
        for name, entry in data["capability"].items()
        if "boringssl" in entry or "aws-lc" in entry
    }
    assert named == set(COVERED), sorted(named ^ set(COVERED))
    here = globals()
    for name, where in COVERED.items():
        assert where.startswith(("not testable", "tests/")) or where.split()[0] in here, name
