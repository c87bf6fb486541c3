"""Run real nginx on loopback and talk to it with a real `openssl s_client`.

Every loop here is bounded in count and time, only 127.0.0.1 is used, and every server started
is stopped by its pid.
"""

from __future__ import annotations

import os
import re
import shlex
import signal
import socket
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType

from nginxgen.base.records import replace
from nginxgen.conf.load import load_path
from nginxgen.knowledge.target import Target, resolve
from nginxgen.lint.findings import Finding
from nginxgen.shell.cli import main
from tests.builds import Build
from tests.cli_process import nginxgen
from tests.every_rule import lint_checked
from tests.pki import Chain

START_TIMEOUT = 15.0


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nobody listens on right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def distinct_ports(count: int) -> list[int]:
    """`count` free ports, no two the same: free_port may give one twice (nobody listens yet),
    and nginx from 1.25.5 takes one stream address for two servers (the CI run of 1844a36: a
    test read one front's model for another's)."""
    ports: list[int] = []
    while len(ports) < count:
        port = free_port()
        if port not in ports:
            ports.append(port)
    return ports


def prepare_prefix(conf: Path, build: Build, workers: int = 2) -> None:
    """Adapt a generated nginx.conf for a test prefix: fixed workers, logs and temp files inside.

    Only process settings change; every TLS line is left as generated.
    """
    prefix = conf.parent
    (prefix / "temp").mkdir(exist_ok=True)
    text = conf.read_text()
    main = f"worker_processes {workers};"
    if os.geteuid() == 0:
        # pytest's tmp folders are 0700: workers running as `nobody` could not read the site.
        main += "\nuser root;"
    text = text.replace("worker_processes auto;", main)
    text = text.replace("http {\n", "http {\n    " + "\n    ".join(build.in_prefix) + "\n", 1)
    conf.write_text(text)


def nginx_argv(build: Build, conf: Path, *extra: str) -> list[str]:
    prefix = conf.parent
    return [
        *build.nginx_argv,
        "-p",
        f"{prefix}/",
        "-c",
        str(conf),
        "-e",
        str(prefix / "error.log"),
        *extra,
    ]


def nginx_bin_script(build: Build, prefix: Path | None, path: Path, before: str = "") -> Path:
    """An executable standing for this build as a user's `nginx` binary (`--nginx-bin`): its
    argv and environment, the test prefix and error log (None: neither, the binary as it is
    installed, with its compiled-in prefix); `before` is shell run first (a test injects a
    failure there)."""
    env = " ".join(
        f"{name}={shlex.quote(build.env()[name])}"
        for name in ("OPENSSL_CONF", "OPENSSL_MODULES")
        if name in build.env()
    )
    argv = " ".join(shlex.quote(a) for a in build.nginx_argv)
    if prefix is not None:
        argv += f" -p {shlex.quote(str(prefix))}/ -e {shlex.quote(str(prefix / 'error.log'))}"
    path.write_text(f'#!/bin/sh\n{before}\nexec env {env} {argv} "$@"\n')
    path.chmod(0o755)
    return path


def lint_as(nginx_bin: Path, conf: Path, code: str) -> subprocess.CompletedProcess[str]:
    """`nginxgen lint --select CODE` of conf, its target read from nginx_bin's `nginx -V`."""
    return nginxgen("lint", "--select", code, "--nginx-bin", str(nginx_bin), str(conf))


def first_emerg(stderr: str) -> tuple[str, int | None] | None:
    """nginx -t's first [emerg]: its message and the line it names (None: it names none);
    None where nginx stopped at nothing."""
    found = re.search(r"\[emerg\] (.*?)(?: in \S+:(\d+))?$", stderr, re.M)
    if found is None:
        return None
    return found.group(1), int(found.group(2)) if found.group(2) else None


def nginx_and_lint(
    build: Build, nginx_bin: Path, conf: Path, code: str
) -> tuple[tuple[str, int | None] | None, list[str]]:
    """nginx -t's first [emerg] on conf (None: the test passed) and the lines of lint's
    findings of one rule there, its target read from nginx_bin."""
    checked = nginx_check(build, conf)
    found = lint_as(nginx_bin, conf, code)
    emerg = first_emerg(checked.stderr)
    if emerg is None:
        assert "test is successful" in checked.stderr, checked.stderr
    return emerg, [line for line in found.stdout.splitlines() if f" {code} " in line]


def nginx_and_lint_agree(build: Build, nginx_bin: Path, conf: Path, code: str, about: str) -> None:
    """nginx -t and lint's findings of one rule on conf agree: where nginx passes, lint finds
    nothing; where it stops, with a message that starts with `about` (what the test is about),
    lint's one finding is an error at its line (where it names one), in its words."""
    emerg, lines = nginx_and_lint(build, nginx_bin, conf, code)
    if emerg is None:
        assert lines == [], lines
        return
    said, at = emerg
    assert said.startswith(about), said
    where = f":{at}: " if at is not None else ": "  # nginx names no line: lint names the use's
    assert len(lines) == 1 and f"{where}{code} error {said}" in lines[0], (lines, said)


def tls_server_conf(build: Build, chain: Chain, lines: str) -> str:
    """A tree of one http TLS server with the chain's certificate and key and `lines` on line
    8: the shape of the tests of a file nginx opens as it sets up a server's TLS context."""
    return (
        f"events {{}}\nhttp {{\n{' '.join(build.in_prefix)}\nserver {{\nlisten 127.0.0.1:8443 ssl;\n"
        f"ssl_certificate {chain.fullchain};\nssl_certificate_key {chain.key};\n{lines}\n}}\n}}\n"
    )


def file_refusal_agrees(
    build: Build, nginx_bin: Path, conf: Path, about: tuple[str, ...], at: int
) -> tuple[str, str] | None:
    """nginx -t and NGX727 agree on a file nginx opens as it starts (it names no line when it
    cannot load it): where nginx passes lint finds nothing (None); where it stops, with a
    message that starts with one of `about` (what the test is about), lint's one error names
    the line `at` and says nginx's words, at least up to the library's reason (` (SSL: ...)`,
    which differs between libraries and releases): (nginx's message, lint's)."""
    emerg, lines = nginx_and_lint(build, nginx_bin, conf, "NGX727")
    if emerg is None:
        assert lines == [], lines
        return None
    said, line = emerg
    assert said.startswith(about), said
    assert line is None  # nginx names none: lint names the file's line
    assert len(lines) == 1 and f":{at}: NGX727 error " in lines[0], lines
    words = lines[0].split("nginx -t fails: ", 1)[1]
    assert said.startswith(words) and words.startswith(said.split(" (SSL: ")[0]), (lines, said)
    return said, words


def missing_file_agrees(build: Build, conf: Path, about: tuple[str, ...], at: int) -> None:
    """nginx -t and NGX727 agree on a file that does not exist, in the tree this machine's nginx
    reads (live_target: lint judges a missing file only there): where nginx passes lint finds
    nothing; where it stops, with a message that starts with one of `about`, lint's one finding names
    the line `at` and says nginx's words, at least up to the library's reason."""
    from nginxgen.conf.load import load_path
    from tests.every_rule import lint_checked

    found = lint_checked(load_path(str(conf)), live_target(build, conf))
    found = [f for f in found if f.code == "NGX727"]
    emerg = first_emerg(nginx_check(build, conf).stderr)
    if emerg is None:
        assert found == [], found
        return
    said, line = emerg
    assert said.startswith(about) and line is None, said
    assert len(found) == 1 and found[0].line == at, found
    words = found[0].message.split(" does not exist: nginx -t fails: ", 1)[1]
    assert said.startswith(words) and words.startswith(said.split(" (SSL: ")[0]), (found, said)


def live_target(build: Build, conf: Path) -> Target:
    """The build's target as `--nginx-bin` gives it for a binary whose --conf-path is `conf`:
    the tree lint reads is the one this machine's nginx reads."""
    return replace(resolve(build.nginx_version, build.tls_library), conf_path=str(conf))


def nginx_check(build: Build, conf: Path) -> subprocess.CompletedProcess[str]:
    """`nginx -t` with this build on a prepared prefix (its temp/ made: where
    Build.temp_path_directives put the compiled-in temp folders)."""
    (conf.parent / "temp").mkdir(exist_ok=True)
    return subprocess.run(
        nginx_argv(build, conf, "-t", "-g", f"pid {conf.parent}/nginx.pid;"),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        env=build.env(),
    )


class PortTaken(RuntimeError):
    """Another process took a port between `free_port()` and nginx's bind (parallel runs)."""


def _listening_sockets(port: int) -> set[str]:
    """Inodes of the TCP sockets listening on `port` (any address), from /proc/net."""
    inodes = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        for row in Path(table).read_text().splitlines()[1:]:
            fields = row.split()
            if fields[3] == "0A" and int(fields[1].rsplit(":", 1)[1], 16) == port:  # LISTEN
                inodes.add(fields[9])
    return inodes


def listens(pid: int, port: int) -> bool:
    """Whether process `pid` holds a socket listening on `port`. A connection that succeeds
    proves only that somebody listens there: another run's nginx may, on a port this one
    failed to bind (then probing it would ask the wrong server)."""
    inodes = _listening_sockets(port)
    if not inodes:
        return False
    for fd in Path(f"/proc/{pid}/fd").iterdir():
        try:
            link = os.readlink(fd)
        except OSError:  # closed meanwhile
            continue
        if link.startswith("socket:[") and link[8:-1] in inodes:
            return True
    return False


class Server:
    """A running nginx master (foreground), stopped by its pid on exit."""

    def __init__(self, build: Build, conf: Path, ports: list[int]) -> None:
        self.build = build
        self.conf = conf
        self.ports = ports
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def error_log(self) -> str:
        path = self.conf.parent / "error.log"
        return path.read_text(errors="replace") if path.exists() else ""

    def __enter__(self) -> Server:
        # A stock tree may set daemon or pid itself: a second one from -g would be a duplicate.
        text = self.conf.read_text(errors="replace")
        directives = "" if re.search(r"^\s*daemon\s", text, re.M) else "daemon off; "
        if not re.search(r"^\s*pid\s", text, re.M):
            directives += f"pid {self.conf.parent}/nginx.pid; "
        directives += "error_log error.log info;"
        logged_before = len(self.error_log)  # a prefix started before appends to its log
        self.process = subprocess.Popen(
            nginx_argv(self.build, self.conf, "-g", directives),
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            env=self.build.env(),
        )
        deadline = time.monotonic() + START_TIMEOUT
        waiting = list(self.ports)
        while waiting:
            if self.process.poll() is not None:
                log = self.error_log[logged_before:]
                error = f"nginx exited at start:\n{log[-2000:]}"
                raise PortTaken(error) if "Address already in use" in log else RuntimeError(error)
            if time.monotonic() > deadline:
                self.stop()
                raise RuntimeError(f"nginx did not listen on {waiting} in {START_TIMEOUT}s")
            if listens(self.process.pid, waiting[0]):
                waiting.pop(0)
            elif "Address already in use" in self.error_log[logged_before:]:  # nginx retries
                self.stop()
                raise PortTaken(f"a port of {self.ports} is another process's:\n{self.error_log}")
            else:
                time.sleep(0.05)
        return self

    def stop(self) -> None:
        if self.process is None or self.process.poll() is not None:
            return
        os.kill(self.process.pid, signal.SIGTERM)  # fast shutdown of master and workers
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            os.kill(self.process.pid, signal.SIGKILL)
            self.process.wait(timeout=10)

    def __exit__(
        self,
        kind: type[BaseException] | None,
        value: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.stop()


@dataclass(frozen=True)
class Handshake:
    """What one `openssl s_client` run showed."""

    ok: bool
    protocol: str | None
    cipher: str | None
    group: str | None
    reused: bool
    alpn: str | None
    alert: str | None
    response: str  # HTTP response head, when a request was sent
    output: str

    def header(self, name: str) -> str | None:
        for line in self.response.splitlines():
            key, _, value = line.partition(":")
            if key.strip().lower() == name.lower():
                return value.strip()
        return None

    @property
    def status(self) -> int | None:
        found = re.search(r"^HTTP/1\.1 (\d{3})", self.response, re.M)
        return int(found.group(1)) if found else None


def _first(pattern: str, text: str) -> str | None:
    found = re.search(pattern, text, re.M)
    return found.group(1) if found else None


def parse_s_client(output: str) -> Handshake:
    cipher = _first(r"Cipher is (\S+)", output)
    ok = cipher is not None and cipher != "(NONE)"
    # "Peer Temp Key: X25519, 253 bits" or "Peer Temp Key: ECDH, secp384r1, 384 bits".
    group = _first(r"Negotiated TLS1\.3 group: (\w+)", output) or _first(
        r"(?:Server|Peer) Temp Key: (?:ECDH, )?([^,\s]+)", output
    )
    alert = _first(r"alert ([a-z][a-z ]+?)(?:\n|:|$)", output) or _first(
        r"SSL alert number (\d+)", output
    )
    head = output.split("\nHTTP/1.1 ", 1)
    response = "HTTP/1.1 " + head[1].split("\r\n\r\n")[0] if len(head) == 2 else ""
    return Handshake(
        ok=ok,
        protocol=_first(r"^\s*Protocol\s*: (\S+)", output) if ok else None,
        cipher=cipher if ok else None,
        group=group if ok else None,
        reused=bool(re.search(r"^Reused, ", output, re.M)),
        alpn=_first(r"^ALPN protocol: (\S+)", output),
        alert=alert,
        response=response.replace("\r", ""),
        output=output,
    )


def s_client(
    client: Build,
    port: int,
    servername: str,
    *,
    version: str | None = None,  # "1.2" or "1.3"
    groups: str | None = None,
    sigalgs: str | None = None,  # picks the certificate of a dual RSA/ECDSA server
    alpn: str | None = None,
    ciphers: str | None = None,
    ciphersuites: str | None = None,  # TLS 1.3 suites the client offers
    early_data: Path | None = None,  # send this file as 0-RTT data (with sess_in)
    sess_out: Path | None = None,
    sess_in: Path | None = None,
    path: str | None = "/",
    ca: Path | None = None,
) -> Handshake:
    """One handshake; with `path`, one HTTP/1.1 request whose response head is kept."""
    args = ["s_client", "-connect", f"127.0.0.1:{port}", "-servername", servername]
    if version:
        args.append("-tls" + version.replace(".", "_"))
    if groups:
        args += ["-groups", groups]
    if sigalgs:
        args += ["-sigalgs", sigalgs]
    if alpn:
        args += ["-alpn", alpn]
    if ciphers:
        args += ["-cipher", ciphers]
    if ciphersuites:
        args += ["-ciphersuites", ciphersuites]
    if early_data:
        args += ["-early_data", str(early_data)]
    if sess_out:
        args += ["-sess_out", str(sess_out)]
    if sess_in:
        args += ["-sess_in", str(sess_in)]
    if ca:
        args += ["-CAfile", str(ca), "-verify_return_error"]
    request = ""
    if path is not None:
        # The server closes after answering, so s_client has read the session tickets by then.
        args.append("-ign_eof")
        request = f"GET {path} HTTP/1.1\r\nHost: {servername}\r\nConnection: close\r\n\r\n"
    done = client.openssl(*args, stdin=request)
    return parse_s_client(done.stdout + done.stderr)


def cipher_findings(conf: Path, build: Build) -> list[Finding]:
    """NGX402's and NGX403's findings on a tree, for the build's nginx and library."""
    found = lint_checked(load_path(str(conf)), resolve(build.nginx_version, build.tls_library))
    return [f for f in found if f.code in ("NGX402", "NGX403")]


def cipher_fix_holds(build: Build, conf: Path) -> None:
    """NGX402's and NGX403's unsafe fix (Mozilla's intermediate list where nginx's default is in
    effect), applied with the command line: no cipher finding remains, and nginx -t takes it."""
    flags = ["--nginx-version", build.nginx_version, "--tls-library", build.tls_library]
    main(["lint", *flags, "--unsafe-fixes", "--select", "NGX402,NGX403", str(conf)])
    assert cipher_findings(conf, build) == []
    done = nginx_check(build, conf)
    assert done.returncode == 0, done.stderr
