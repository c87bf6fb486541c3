"""The probe's Encrypted Client Hello against OpenSSL 4.0.3's `s_server -ech_key` on loopback:
accepted with the server's own config, rejected with a config made from another key (the retry
configs the server's), ignored by a server without a key. Each verdict is checked against
OpenSSL 4.0.3's own client, `s_client -ech_config_list`, which shares no code with the probe."""

from __future__ import annotations

import base64
import itertools
import json
import re
import socket
import subprocess
import threading
import time
from collections.abc import Iterator
from functools import partial
from pathlib import Path
from typing import Any

import pytest

from nginxgen.base import ech_configs as ech
from nginxgen.conf.per_name import NameModel
from nginxgen.probe.check import NameProbe
from nginxgen.probe.checks import ech as ech_check
from nginxgen.probe.ech_hello import (
    ACCEPTED,
    GREASE,
    IGNORED,
    REJECTED,
    ask_ech,
    grease_config,
    usable,
)
from nginxgen.shell.cli import main
from tests.builds import Build
from tests.cli_process import nginxgen
from tests.conftest import require_build
from tests.helpers import CertPair, make_cert
from tests.live import free_port

INNER, PUBLIC = "a.example", "public.example"
run_cli = partial(nginxgen, timeout=120)  # the command, forked (tests/cli_process.py)


@pytest.fixture(scope="module")
def openssl40(provisioned: tuple[dict[str, Build], dict[str, str]]) -> Build:
    return require_build(provisioned, "openssl40")


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("ech")


def _key_file(build: Build, path: Path) -> Path:
    done = build.openssl("ech", "-public_name", PUBLIC, "-out", str(path))
    assert done.returncode == 0, done.stderr
    return path


def _certificate(folder: Path, name: str) -> CertPair:
    """The folder's certificate for `name`, made once: the servers of one folder (ech_server,
    plain_server) serve the same files the tests give s_client as its CA. Made again for each
    server, the one started later replaced the earlier one's, and s_client, asking the earlier,
    said `ECH: BAD NAME` (its certificate not the CA given: a CI run met it)."""
    made = CertPair(folder / f"{name}.ecdsa.crt", folder / f"{name}.ecdsa.key")
    return made if made.cert.exists() and made.key.exists() else make_cert(folder, name)


def _server(build: Build, folder: Path, *options: str, default: str = PUBLIC) -> Iterator[int]:
    """s_server with a certificate for `default` (the public name unless said) and a second
    one for the inner name (`-servername`), so the certificate sent shows which hello the
    server took."""
    public, inner = _certificate(folder, default), _certificate(folder, INNER)
    port = free_port()
    assert build.openssl_argv is not None
    process = subprocess.Popen(
        [*build.openssl_argv, "s_server", "-accept", f"127.0.0.1:{port}", "-www",
         "-cert", str(public.cert), "-key", str(public.key), "-servername", INNER,
         "-cert2", str(inner.cert), "-key2", str(inner.key), *options],
        stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )  # fmt: skip
    try:
        assert process.stdout is not None
        said = ""
        deadline = time.monotonic() + 10
        while "ACCEPT" not in said and time.monotonic() < deadline:
            line = process.stdout.readline()
            if not line:
                break
            said += line
        assert "ACCEPT" in said, said
        yield port
    finally:
        process.terminate()
        process.wait(timeout=10)


@pytest.fixture(scope="module")
def server_key(openssl40: Build, folder: Path) -> Path:
    return _key_file(openssl40, folder / "server-ech.pem")


@pytest.fixture(scope="module")
def ech_server(openssl40: Build, folder: Path, server_key: Path) -> Iterator[int]:
    yield from _server(openssl40, folder, "-ech_key", str(server_key))


@pytest.fixture(scope="module")
def plain_server(openssl40: Build, folder: Path) -> Iterator[int]:
    yield from _server(openssl40, folder)


def _config(path: Path) -> ech.EchConfig:
    config, why = usable(ech.read_config_list(str(path)))
    assert config is not None, why
    return config


def _oracle(build: Build, port: int, key_file: Path, ca: Path) -> str:
    """What OpenSSL 4.0.3's s_client says of ECH (its `ECH:` lines), given the ECHCONFIG block
    of the key file as written (not as nginxgen reads it)."""
    block = re.search(r"-----BEGIN ECHCONFIG-----(.*?)-----END", key_file.read_text(), re.S)
    assert block is not None
    configs = "".join(block.group(1).split())
    done = build.openssl("s_client", "-connect", f"127.0.0.1:{port}", "-servername", INNER,
                         "-CAfile", str(ca), "-ech_config_list", configs)  # fmt: skip
    return "\n".join(line for line in (done.stdout + done.stderr).splitlines()
                     if line.startswith("ECH:"))  # fmt: skip


def test_accepted_with_the_servers_config(
    openssl40: Build, folder: Path, server_key: Path, ech_server: int
) -> None:
    config = _config(server_key)
    answer = ask_ech(("127.0.0.1", ech_server), INNER, config, timeout=5)
    assert answer.verdict == ACCEPTED, answer
    assert answer.certificate_names == (INNER,)  # the handshake went on with the inner name
    assert answer.retry_configs is None
    said = _oracle(openssl40, ech_server, server_key, folder / f"{INNER}.ecdsa.crt")
    assert "ECH: success: 1" in said and f"ECH: inner: {INNER}" in said, said


@pytest.mark.parametrize(
    "suite", ["0x20,1,2", "0x20,1,3", "0x20,2,1", "0x20,3,3"],
    ids=["aes256gcm", "chacha20poly1305", "hkdf-sha384", "hkdf-sha512-chacha"],
)  # fmt: skip
def test_each_hpke_suite_of_a_key_is_accepted(openssl40: Build, folder: Path, suite: str) -> None:
    """A key made with another suite (`openssl ech -suite KEM,KDF,AEAD`): the server decrypts
    the probe's hello only if its HPKE is right for that KDF and AEAD; s_client agrees."""
    key = folder / f"suite-{suite}.pem"
    done = openssl40.openssl("ech", "-public_name", PUBLIC, "-suite", suite, "-out", str(key))
    assert done.returncode == 0, done.stderr
    config = _config(key)
    assert [(s.kdf_id, s.aead_id) for s in config.suites] == [
        tuple(int(part, 0) for part in suite.split(",")[1:])
    ]
    for port in _server(openssl40, folder / f"suite-{suite}", "-ech_key", str(key)):
        answer = ask_ech(("127.0.0.1", port), INNER, config, timeout=5)
        said = _oracle(openssl40, port, key, folder / f"suite-{suite}" / f"{INNER}.ecdsa.crt")
    assert answer.verdict == ACCEPTED, answer
    assert answer.certificate_names == (INNER,)
    assert "ECH: success: 1" in said, said


def test_rejected_with_another_keys_config_and_the_servers_retry_config(
    openssl40: Build, folder: Path, server_key: Path, ech_server: int
) -> None:
    other = _key_file(openssl40, folder / "other-ech.pem")
    answer = ask_ech(("127.0.0.1", ech_server), INNER, _config(other), timeout=5)
    assert answer.verdict == REJECTED, answer
    assert answer.certificate_names == (PUBLIC,)  # the outer hello's name
    served = ech.read_key_file(server_key.read_text()).config_list
    assert answer.retry_configs is not None and answer.retry_configs.raw == served.raw
    said = _oracle(openssl40, ech_server, other, folder / f"{PUBLIC}.ecdsa.crt")
    assert "ECH: failed+retry-configs" in said, said
    # s_client prints each retry config as [version,config_id,public_name,[suite],key,...]
    [(config_id, key)] = re.findall(r"\[fe0d,(\w+),public\.example,\[[^]]*\],(\w+),", said)
    [retry] = answer.retry_configs.configs
    assert (int(config_id, 16), key) == (retry.config_id, retry.public_key.hex())


def test_ignored_by_a_server_without_a_key(
    openssl40: Build, folder: Path, server_key: Path, plain_server: int
) -> None:
    answer = ask_ech(("127.0.0.1", plain_server), INNER, _config(server_key), timeout=5)
    assert answer.verdict == IGNORED, answer
    assert answer.certificate_names == (PUBLIC,) and answer.retry_configs is None
    said = _oracle(openssl40, plain_server, server_key, folder / f"{PUBLIC}.ecdsa.crt")
    assert "ECH: tried but failed: 0" in said, said


@pytest.mark.parametrize("group", ["P-256", "P-384"])
def test_a_server_without_x25519_needs_no_retry(
    openssl40: Build, folder: Path, server_key: Path, group: str
) -> None:
    """The ECH hellos carry P-256 and P-384 shares too: a server with neither X25519 nor the
    other curve takes its own at once, and the flight decrypts with that exchange."""
    for port in _server(openssl40, folder / group, "-ech_key", str(server_key), "-groups", group):
        answer = ask_ech(("127.0.0.1", port), INNER, _config(server_key), timeout=5)
        assert (answer.verdict, answer.certificate_names) == (ACCEPTED, (INNER,)), answer


def test_a_rejection_whose_certificate_misses_the_public_name_is_a_problem(
    openssl40: Build, folder: Path, server_key: Path
) -> None:
    """The server's default certificate is the inner name's: a client cannot verify the outer
    handshake for the public name, so the retry configs are useless (RFC 9849 6.1.7)."""
    other = _key_file(openssl40, folder / "stale-ech.pem")
    for port in _server(openssl40, folder / "uncovered", "-ech_key", str(server_key),
                        default=INNER):  # fmt: skip
        probe = NameProbe(("127.0.0.1", port), INNER, 5, _config(other))
        probe.found["protocols"] = {"TLSv1.3": True}
        assert ech_check.runs(probe.found)
        found = ech_check.observe(probe)["ech"]
    assert (found["verdict"], found["certificate_names"]) == (REJECTED, [INNER])
    assert found["retry_public_names"] == [PUBLIC]
    [problem] = probe.problems
    assert problem.startswith(f"ECH rejected, and the certificate sent ({INNER}) does not cover")
    assert ech_check.text({"ech": found})[0].startswith(
        f"  ECH (config {found['config_id']}, outer name {PUBLIC}): rejected, retry configs for "
        f"{PUBLIC}: "
    )


def test_a_rejection_with_a_covering_certificate_is_a_problem_too(
    openssl40: Build, folder: Path, server_key: Path, ech_server: int
) -> None:
    """A stale key: clients of that config need a second handshake."""
    probe = NameProbe(
        ("127.0.0.1", ech_server), INNER, 5, _config(_key_file(openssl40, folder / "old.pem"))
    )
    found = ech_check.observe(probe)["ech"]
    assert (found["verdict"], found["certificate_names"]) == (REJECTED, [PUBLIC])
    [problem] = probe.problems
    assert problem.startswith(f"ECH rejected: the server has no key for config "
                              f"{found['config_id']} of {PUBLIC}"), problem  # fmt: skip


def test_an_ignored_ech_config_makes_the_probe_exit_1(
    openssl40: Build, folder: Path, server_key: Path
) -> None:
    """The whole probe against a server without ECH: the verdict `ignored` (the JSON key's
    value), a problem, exit 1 (README, docs/probe.md)."""
    for port in _server(openssl40, folder / "plain-cli"):
        done = run_cli("probe", f"127.0.0.1:{port}", "--sni", INNER, "--ech-config",
                       str(server_key), "--format", "json", "--timeout", "3", "--connections", "1")  # fmt: skip
    assert done.stdout, done.stderr
    named = json.loads(done.stdout)[0]
    assert named["ech"]["verdict"] == IGNORED == "ignored", named["ech"]
    _one_ech_problem_and_exit_1(
        done,
        named,
        f"ECH ignored: the server answered the outer hello for {PUBLIC} without using ECH "
        f"(config {named['ech']['config_id']} of {PUBLIC}): it has no ECH key where the default "
        "server decides, or no ECH",
    )


def _one_ech_problem_and_exit_1(
    done: subprocess.CompletedProcess[str], named: dict[str, Any], problem: str
) -> None:
    """The name's only ECH problem is `problem`, and the probe exited 1 (docs/probe.md)."""
    assert [p for p in named["problems"] if p.startswith("ECH ")] == [problem], named["problems"]
    assert done.returncode == 1, (done.stdout, done.stderr)


def test_the_probe_command_takes_the_record_and_reports_the_verdict(
    openssl40: Build, folder: Path, server_key: Path
) -> None:
    """The whole probe (every check, s_server answering one connection at a time, its own
    server: the probe's timeouts leave s_server busy a while) with the HTTPS record's text as
    `--ech-config`; the JSON key `ech` as docs/probe.md describes it."""
    configs = ech.read_config_list(str(server_key))
    record = ech.https_record(INNER, configs, alpn=("h2",))
    for port in _server(openssl40, folder / "cli", "-ech_key", str(server_key)):
        done = run_cli("probe", f"127.0.0.1:{port}", "--sni", INNER, "--ech-config", record,
                       "--format", "json", "--timeout", "3", "--connections", "1")  # fmt: skip
    assert done.stdout, done.stderr
    [named, unnamed] = json.loads(done.stdout)
    assert named["problems"] == [], done.stdout  # accepted: no ECH problem
    # s_server answers one connection at a time, so other checks may time out (inconclusive):
    # the exit code says so, and only so
    unsure = any(r["inconclusive"] or r["problems"] for r in (named, unnamed))
    assert done.returncode == (1 if unsure else 0), done.stderr
    assert named["ech"] == {
        "verdict": "accepted",
        "config_id": configs.configs[0].config_id,
        "public_name": PUBLIC,
        "grease": False,
        "public_key": configs.configs[0].public_key.hex(),
        "retry_configs": None,
        "retry_public_names": [],
        "certificate_names": [INNER],
        "detail": None,
    }
    assert unnamed["ech"] is None  # no name, nothing to hide


def _list_in(key_file: Path) -> bytes:
    """The ECHConfigList of an `openssl ech` key file's ECHCONFIG block, decoded here (not by
    nginxgen's reader)."""
    block = re.search(r"-----BEGIN ECHCONFIG-----(.*?)-----END", key_file.read_text(), re.S)
    assert block is not None
    return base64.b64decode("".join(block.group(1).split()))


def _grease_oracle(build: Build, port: int) -> str:
    """What OpenSSL 4.0.3's s_client says of a GREASE ECH of its own (`-ech_grease`)."""
    done = build.openssl("s_client", "-connect", f"127.0.0.1:{port}", "-servername", INNER,
                         "-ech_grease")  # fmt: skip
    return "\n".join(line for line in (done.stdout + done.stderr).splitlines()
                     if line.startswith("ECH:"))  # fmt: skip


def test_grease_learns_the_servers_retry_configs(
    openssl40: Build, server_key: Path, ech_server: int
) -> None:
    """A GREASE ECH (RFC 9849 6.2) to a server with a key: it cannot decrypt it, answers the
    name itself, and sends the retry configs of its key file (7.1), as s_client sees."""
    sent = grease_config(INNER)
    assert sent.public_name == INNER
    answer = ask_ech(("127.0.0.1", ech_server), INNER, sent, 10)
    assert answer.verdict == REJECTED, answer
    assert answer.retry_configs is not None
    assert answer.retry_configs.raw == _list_in(server_key)
    assert answer.certificate_names == (INNER,)  # the real name outside: its certificate
    assert "ECH: GREASE+retry-configs" in _grease_oracle(openssl40, ech_server)


def test_grease_is_ignored_by_a_server_without_a_key(openssl40: Build, plain_server: int) -> None:
    answer = ask_ech(("127.0.0.1", plain_server), INNER, grease_config(INNER), 10)
    assert (answer.verdict, answer.retry_configs) == (IGNORED, None), answer
    said = _grease_oracle(openssl40, plain_server)
    assert "ECH: GREASE" in said and "retry" not in said, said


def test_the_probe_command_with_grease_reports_the_retry_configs(
    openssl40: Build, folder: Path, server_key: Path
) -> None:
    """`--ech-config grease`: no problem where the server rejects it with retry configs (that is
    GREASE working), the configs in the JSON key `ech`."""
    for port in _server(openssl40, folder / "grease-cli", "-ech_key", str(server_key)):
        done = run_cli("probe", f"127.0.0.1:{port}", "--sni", INNER, "--ech-config", "grease",
                       "--format", "json", "--timeout", "3", "--connections", "1")  # fmt: skip
    assert done.stdout, done.stderr
    [named, _] = json.loads(done.stdout)
    found = named["ech"]
    assert (found["verdict"], found["grease"], found["public_name"]) == (REJECTED, True, INNER)
    assert base64.b64decode(found["retry_configs"]) == _list_in(server_key)
    assert found["retry_public_names"] == [PUBLIC]
    assert not [p for p in named["problems"] if "ECH" in p], named["problems"]


def test_the_stream_probe_tries_ech_and_compares_it_with_the_stream_model(
    openssl40: Build, folder: Path, server_key: Path
) -> None:
    """`probe --stream --config --ech-config`: each stream{} listener's names get the ECH
    check, and the stream model predicts the verdict from its default server's ssl_ech_file
    (s_server stands in for the listener: the config is read, never run). s_server answers one
    connection at a time, so the name's checks run here one after another, as the stream probe
    runs them for a name; the command itself, which asks every name at once, is checked to hand
    the config to each named probe."""
    from nginxgen.conf.config import build
    from nginxgen.conf.effective import Effective
    from nginxgen.conf.load import load_path
    from nginxgen.conf.stream import Stream
    from nginxgen.knowledge.target import resolve
    from nginxgen.probe.predict import compare_model
    from nginxgen.probe.run import probe_name
    from nginxgen.probe.stream import CHECKS, listeners

    config = _config(server_key)
    for port in _server(openssl40, folder / "stream", "-ech_key", str(server_key)):
        crt = folder / "stream" / f"{PUBLIC}.ecdsa.crt"
        conf = folder / "stream" / "nginx.conf"
        conf.write_text(
            "events {}\nstream {\n"
            f"  server {{ listen 127.0.0.1:{port} ssl default_server; server_name {PUBLIC};\n"
            f"    ssl_certificate {crt}; ssl_certificate_key {crt.with_suffix('.key')};\n"
            f"    ssl_ech_file {server_key}; proxy_pass 127.0.0.1:1; }}\n}}\n"
        )
        stream = Stream(Effective(build(load_path(str(conf))), resolve("1.30.4", "openssl-4.0.3")))
        [listener] = listeners(stream)
        assert listener.names == (PUBLIC, None)
        found = probe_name(("127.0.0.1", port), PUBLIC, 5, config, run=CHECKS)
        mismatches, said = compare_model(stream.tls(listener.socket, PUBLIC), found, CHECKS)
        done = run_cli("probe", "127.0.0.1", "--config", str(conf), "--stream",
                       "--ech-config", str(server_key), "--nginx-version", "1.30.4",
                       "--tls-library", "openssl-4.0.3", "--format", "json",
                       "--timeout", "3", "--connections", "1")  # fmt: skip
    assert found["ech"]["verdict"] == ACCEPTED, (found["ech"]["detail"], found["inconclusive"])
    predicted = [c for c in said if c["key"] == "ech.verdict"]
    assert [(c["value"], c["observed"]) for c in predicted] == [(ACCEPTED, ACCEPTED)], said
    assert not [m for m in mismatches if m["key"].startswith("ech.")]
    assert done.stdout, done.stderr
    named = {r["sni"]: r for r in json.loads(done.stdout)}
    assert set(named) == {PUBLIC, None}, named.keys()
    assert named[None]["ech"] is None  # no name, nothing to hide
    assert named[PUBLIC]["ech"]["config_id"] == config.config_id  # the config went through


def test_an_unreadable_ech_config_is_one_line_and_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    broken = tmp_path / "ech.pem"
    broken.write_text("-----BEGIN ECHCONFIG-----\nAEH+DQA9\n-----END ECHCONFIG-----\n")
    done = run_cli("probe", "127.0.0.1:9", "--ech-config", str(broken))
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [
        f"nginxgen: error: {broken}:1: ECHCONFIG: not an ECHConfigList (ECHConfigList: 65 bytes "
        "announced, 4 left)"
    ], done.stderr
    record = run_cli("probe", "127.0.0.1:9", "--ech-config", '1 . alpn="h2"')
    assert (record.returncode, record.stderr) == (
        2, "nginxgen: error: --ech-config: no ech= parameter in the record\n"
    )  # fmt: skip
    # a file: its name and the line of the record's value
    zone = tmp_path / "ech-dns.txt"
    zone.write_text("; ech= in a comment\na. 300 IN HTTPS 1 . ech=AAAA\n")
    cases = [(str(zone), f"{zone}:2: ech=: not an ECHConfigList (1 byte after the ECHConfigList)"),
             ("/nonexistent/ech.pem", "--ech-config: /nonexistent/ech.pem: no such file"),
             (str(tmp_path), f"--ech-config: {tmp_path} is a directory"),
             ("", "--ech-config: empty")]  # fmt: skip
    for value, said in cases:  # in this process: a second start of Python each costs a second
        assert main(["probe", "127.0.0.1:9", "--ech-config", value]) == 2
        err = capsys.readouterr().err
        assert err.startswith(f"nginxgen: error: {said}") and err.count("\n") == 1, err


@pytest.mark.parametrize(
    ("behaviour", "detail", "inconclusive"),
    [("silent", "timeout", True), ("close", "the server closed the connection", False)],
)
def test_no_answer_is_an_error_and_a_timeout_is_inconclusive(
    tmp_path: Path, behaviour: str, detail: str, inconclusive: bool
) -> None:
    key_file = tmp_path / "ech.pem"
    key_file.write_text(ech.new_key_file(PUBLIC))
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen()
        port = listener.getsockname()[1]

        def serve() -> None:
            connection, _ = listener.accept()
            with connection:
                hello = b""  # the whole ClientHello read: a close then sends no reset
                while len(hello) < 5 or len(hello) < 5 + int.from_bytes(hello[3:5], "big"):
                    hello += connection.recv(65536)
                if behaviour == "silent":
                    time.sleep(1)

        thread = threading.Thread(target=serve)
        thread.start()
        answer = ask_ech(("127.0.0.1", port), INNER, _config(key_file), timeout=0.5)
        thread.join()
    assert (answer.verdict, answer.detail, answer.inconclusive) == ("error", detail, inconclusive)


_CONFIGS = itertools.count()


def _model(
    folder: Path, port: int, default_lines: str, inner_lines: str, library: str
) -> NameModel:
    """The config model's answers for a.example in an nginx.conf naming the test's files (the
    config is read, never run: the server answering is s_server)."""
    from nginxgen.conf.config import build
    from nginxgen.conf.load import load_path
    from nginxgen.knowledge.target import resolve
    from nginxgen.probe.predict import model_for

    conf = folder / f"nginx-{next(_CONFIGS)}.conf"
    conf.write_text(
        "events {}\nhttp {\n"
        f"  server {{ listen 127.0.0.1:{port} ssl default_server; server_name {PUBLIC};\n"
        f"    ssl_certificate {folder}/{PUBLIC}.ecdsa.crt;\n"
        f"    ssl_certificate_key {folder}/{PUBLIC}.ecdsa.key; {default_lines} }}\n"
        f"  server {{ listen 127.0.0.1:{port} ssl; server_name {INNER};\n"
        f"    ssl_certificate {folder}/{INNER}.ecdsa.crt;\n"
        f"    ssl_certificate_key {folder}/{INNER}.ecdsa.key; {inner_lines} }}\n}}\n"
    )
    target = resolve("1.30.4", library, None)
    model = model_for(build(load_path(str(conf))), target, port, INNER)
    assert model is not None
    return model


def test_the_model_predicts_each_verdict_and_the_retry_configs(
    openssl40: Build, folder: Path, server_key: Path, ech_server: int
) -> None:
    """`probe --config`'s comparison for ECH: the verdict the deciding ssl_ech_file lines give
    the config sent, beside the one observed; for a rejection, the retry configs too."""
    stale = _key_file(openssl40, folder / "stale-for-model.pem")
    probe = NameProbe(("127.0.0.1", ech_server), INNER, 5, _config(server_key))
    probe.found["protocols"] = {"TLSv1.3": True}
    accepted = {"sni": INNER, **ech_check.observe(probe)}
    probe = NameProbe(("127.0.0.1", ech_server), INNER, 5, _config(stale))
    probe.found["protocols"] = {"TLSv1.3": True}
    rejected = {"sni": INNER, **ech_check.observe(probe)}
    assert (accepted["ech"]["verdict"], rejected["ech"]["verdict"]) == (ACCEPTED, REJECTED), (
        accepted["ech"]["detail"],
        rejected["ech"]["detail"],
    )

    def said(found: dict[str, Any], default: str, inner: str = "", library: str = "openssl-4.0.3"
             ) -> list[tuple[str, Any, Any]]:  # fmt: skip
        model = _model(folder, ech_server, default, inner, library)
        return [(p.key, p.value, p.seen) for p in ech_check.predict(model, found)]

    served = ech.read_key_file(server_key.read_text()).config_list.base64()
    # the file the server has: what it did is what the config says
    here = f"ssl_ech_file {server_key};"
    assert said(accepted, here) == [("ech.verdict", ACCEPTED, ACCEPTED)]
    assert said(rejected, here) == [("ech.verdict", REJECTED, REJECTED),
                                    ("ech.retry_configs", served, served)]  # fmt: skip
    # a config naming the stale key first: it would accept that one, retry with its configs
    other = ech.read_key_file(stale.read_text()).config_list.base64()
    rotation = f"ssl_ech_file {stale}; ssl_ech_file {server_key};"
    assert said(rejected, rotation) == [("ech.verdict", ACCEPTED, REJECTED),
                                        ("ech.retry_configs", other, served)]  # fmt: skip
    assert said(accepted, rotation) == [("ech.verdict", ACCEPTED, ACCEPTED)]
    # no file in the default server: a.example's own line is ignored, and says what it meant
    model = _model(folder, ech_server, "", here, "openssl-4.0.3")
    [prediction] = ech_check.predict(model, accepted)
    assert (prediction.value, prediction.seen) == (IGNORED, ACCEPTED)
    [(ignored, meant)] = prediction.ignored
    assert meant == ACCEPTED and "default server" in ignored.why
    # a library without OpenSSL's ECH API: nginx serves no ECH whatever the files
    assert said(accepted, here, library="openssl-3.5.4") == [("ech.verdict", IGNORED, ACCEPTED)]
    # GREASE: no file decrypts it; the default server's files give the retry configs
    probe = NameProbe(("127.0.0.1", ech_server), INNER, 5, GREASE)
    probe.found["protocols"] = {"TLSv1.3": True}
    grease = {"sni": INNER, **ech_check.observe(probe)}
    assert said(grease, here) == [("ech.verdict", REJECTED, REJECTED),
                                  ("ech.retry_configs", served, served)]  # fmt: skip
    assert said(grease, "") == [("ech.verdict", IGNORED, REJECTED),
                                ("ech.retry_configs", None, served)]  # fmt: skip


def test_an_ech_config_to_a_tls12_only_server_is_a_problem_and_exit_1(
    openssl40: Build, folder: Path, server_key: Path
) -> None:
    """Issue 44: a server with ECH keys that speaks TLS 1.2 only (nginx's `ssl_protocols
    TLSv1.2` beside `ssl_ech_file`, which NGX412 reports) fails every ECH client: OpenSSL's
    server refuses the ECH hello with alert 47, and its own client sees ECH fail. The probe said
    `ech: null`, no problem, exit 0; now the verdict is `error`, a problem says why, exit 1."""
    for port in _server(openssl40, folder / "tls12", "-ech_key", str(server_key), "-tls1_2"):
        done = run_cli("probe", f"127.0.0.1:{port}", "--sni", INNER, "--ech-config",
                       str(server_key), "--format", "json", "--timeout", "3", "--connections", "1")  # fmt: skip
    oracle = folder / "tls12-oracle"
    for port in _server(openssl40, oracle, "-ech_key", str(server_key), "-tls1_2"):
        said = _oracle(openssl40, port, server_key, oracle / f"{PUBLIC}.ecdsa.crt")
    assert "ECH: tried but failed" in said, said  # no ECH for OpenSSL's own client either
    assert done.stdout, done.stderr
    named = json.loads(done.stdout)[0]
    assert named["protocols"]["TLSv1.2"] and not named["protocols"]["TLSv1.3"]
    said_ech = (named["ech"]["verdict"], named["ech"]["detail"])
    assert said_ech == ("error", "alert: illegal parameter"), named["ech"]
    _one_ech_problem_and_exit_1(
        done,
        named,
        f"ECH failed (alert: illegal parameter): every client of config "
        f"{named['ech']['config_id']} of {PUBLIC} fails here; the server offers {INNER} no "
        "TLS 1.3, which ECH needs (RFC 9849)",
    )


def test_grease_to_a_tls12_only_server_is_not_tried(openssl40: Build, folder: Path) -> None:
    """A GREASE client offers TLS 1.2 too and gets it there: nothing to see, no problem."""
    for port in _server(openssl40, folder / "tls12-grease", "-tls1_2"):
        done = run_cli("probe", f"127.0.0.1:{port}", "--sni", INNER, "--ech-config", GREASE,
                       "--format", "json", "--timeout", "3", "--connections", "1")  # fmt: skip
    named = json.loads(done.stdout)[0]
    assert named["ech"] is None and named["problems"] == [], named
