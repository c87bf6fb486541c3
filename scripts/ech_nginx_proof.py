"""Prove on a live nginx what `ssl_ech_file` does, with OpenSSL 4.0's own client.

    python scripts/ech_nginx_proof.py --nginx DIR/nginx --openssl OPENSSL_4_0/bin/openssl \\
        [--work DIR] [--port 24460]

The nginx is one built by scripts/build_ech_nginx.py (a release >= 1.29.4 against OpenSSL 4.0);
the client is `openssl s_client -ech_config_list` of OpenSSL 4.0 and the keys come from
`openssl ech -public_name public.example`. Each scenario starts its own nginx on loopback, runs
the clients, prints one line per client (what s_client said about ECH, the certificate subject
it got, and the `$ssl_ech_status|$ssl_ech_outer_server_name` nginx logged) and stops nginx;
the expected outcome is checked and a mismatch exits 1. The facts these outcomes establish are
nginxgen/knowledge/ech.toml's, each naming the scenario here that reproduces it.
"""

from __future__ import annotations

import argparse
import os
import re
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

NAMES = ("public.example", "a.example")


@dataclass
class Outcome:
    ech: str  # accepted | retry | failed | not-offered | handshake-failed
    alert: str  # the TLS alert the client received ("112"), "" when none
    subject: str  # the certificate's CN, "" when none came
    retry_keys: list[str]  # the public keys (hex) of the retry configs the server sent
    verified: bool  # the certificate verified for the name checked
    logged: str  # what nginx logged for the request, "" when it logged none

    def short(self) -> str:
        keys = ",".join(k[:8] for k in self.retry_keys)
        return (
            f"ech={self.ech} alert={self.alert or '-'} cert={self.subject or '-'} verified={self.verified} "
            f"retry=[{keys}] log={self.logged or '-'}"
        )


class Lab:
    def __init__(self, nginx: Path, openssl: Path, work: Path, port: int) -> None:
        self.nginx, self.openssl, self.work, self.port = nginx, openssl, work, port
        self.env = {**os.environ, "OPENSSL_CONF": os.devnull}  # no configuration of this host
        self.failures: list[str] = []
        for name in NAMES:
            self.ssl(
                "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
                "-keyout", str(work / f"{name}.key"), "-out", str(work / f"{name}.crt"),
                "-days", "30", "-subj", f"/CN={name}", "-addext", f"subjectAltName=DNS:{name}",
            )  # fmt: skip
        (work / "ca.pem").write_text("".join((work / f"{n}.crt").read_text() for n in NAMES))
        self.keys = {}
        for key in ("k1", "k2", "k3"):
            path = work / f"{key}.pem"
            self.ssl("ech", "-public_name", "public.example", "-out", str(path))
            self.keys[key] = path

    def ssl(self, *args: str) -> str:
        done = subprocess.run(
            [str(self.openssl), *args], env=self.env, capture_output=True, text=True, check=False
        )
        if done.returncode != 0:
            sys.exit(f"openssl {args[0]} failed: {done.stderr.strip()}")
        return done.stdout + done.stderr

    def config_list(self, key: str) -> str:
        """The base64 ECHConfigList of a key file's ECHCONFIG block."""
        text = self.keys[key].read_text()
        block = text.split("-----BEGIN ECHCONFIG-----")[1].split("-----END ECHCONFIG-----")[0]
        return "".join(block.split())

    def public_key(self, key: str) -> str:
        out = self.ssl("ech", "-in", str(self.keys[key]), "-text")
        found: list[str] = re.findall(r"\[fe0d,\w+,[^,]+,\[[^\]]*\],([0-9a-f]+)", out)
        return found[0]

    def file(self, key: str) -> str:
        return f"ssl_ech_file {self.keys[key]};"

    def server(
        self, name: str | None, extra: str = "", default: bool = False, stream: bool = False
    ) -> str:
        """An http{} server (a stream{} one with `stream`: the same, with stream's `return`)."""
        listen = f"listen 127.0.0.1:{self.port} ssl{' default_server' if default else ''};"
        if name is None:
            return f"server {{ {listen} ssl_reject_handshake on; {extra} }}"
        cert = self.work / f"{name}.crt"
        key = self.work / f"{name}.key"
        answer = f'return "{name}\\n";' if stream else f'return 200 "{name}\\n";'
        return (
            f"server {{ {listen} server_name {name}; ssl_certificate {cert}; "
            f"ssl_certificate_key {key}; {extra} {answer} }}"
        )

    def start(self, label: str, http: str, servers: list[str], block: str = "http") -> Path:
        prefix = self.work / label
        (prefix / "logs").mkdir(parents=True, exist_ok=True)
        (prefix / "nginx.conf").write_text(
            "error_log logs/error.log info; pid logs/nginx.pid; events {}\n"
            f"{block} {{\n log_format ech '$ssl_ech_status|$ssl_ech_outer_server_name';\n"
            f" access_log logs/access.log ech;\n {http}\n " + "\n ".join(servers) + "\n}\n"
        )
        done = subprocess.run(
            [str(self.nginx), "-p", str(prefix), "-c", "nginx.conf"],
            capture_output=True,
            text=True,
            check=False,
        )
        if done.returncode != 0:
            sys.exit(f"{label}: nginx did not start: {done.stderr.strip()}")
        time.sleep(0.3)
        return prefix

    def stop(self, prefix: Path) -> None:
        pid = int((prefix / "logs" / "nginx.pid").read_text())
        os.kill(pid, signal.SIGQUIT)
        time.sleep(0.3)

    def connect(self, prefix: Path, key: str, name: str = "a.example", *extra: str) -> Outcome:
        log = prefix / "logs" / "access.log"
        before = log.read_text().count("\n") if log.exists() else 0
        argv = [
            str(self.openssl), "s_client", "-connect", f"127.0.0.1:{self.port}",
            "-servername", name, "-CAfile", str(self.work / "ca.pem"), "-ign_eof", *extra,
        ]  # fmt: skip
        if key:
            argv += ["-ech_config_list", self.config_list(key)]
        request = f"GET / HTTP/1.0\r\nHost: {name}\r\n\r\n"
        done = subprocess.run(
            argv, input=request, env=self.env, capture_output=True, text=True, timeout=15
        )
        out = done.stdout + done.stderr
        if "ECH: success" in out:
            ech = "accepted"
        elif "ECH: failed+retry-configs" in out:
            ech = "retry"
        elif "ECH: tried but failed" in out:
            ech = "failed"
        else:
            ech = "not-offered" if not key else "handshake-failed"
        alert = re.search(r"SSL alert number (\d+)", out)
        if alert and key:
            ech = "handshake-failed"
        subject = re.search(r"^subject=CN=(\S+)", out, re.M)
        time.sleep(0.1)
        lines = log.read_text().splitlines() if log.exists() else []
        return Outcome(
            ech=ech,
            alert=alert.group(1) if alert else "",
            subject=subject.group(1) if subject else "",
            retry_keys=re.findall(r"ECH: \t\[fe0d,\w+,[^,]+,\[[^\]]*\],([0-9a-f]+)", out),
            verified=bool(subject) and "Verify return code: 0 (ok)" in out,
            logged=lines[before] if len(lines) > before else "",
        )

    def expect(self, scenario: str, what: str, got: Outcome, **wanted: object) -> None:
        wrong = {k: v for k, v in wanted.items() if getattr(got, k) != v}
        verdict = "ok" if not wrong else f"UNEXPECTED {wrong}"
        print(f"{scenario:24} {what:34} {got.short()}  {verdict}")
        if wrong:
            self.failures.append(f"{scenario}: {what}")

    def nginx_t(self, label: str, key_text: str) -> str:
        prefix = self.work / label
        (prefix / "logs").mkdir(parents=True, exist_ok=True)
        (prefix / "key.pem").write_text(key_text)
        servers = self.server("public.example", f"ssl_ech_file {prefix / 'key.pem'};", True)
        (prefix / "nginx.conf").write_text(f"events {{}}\nhttp {{ {servers} }}\n")
        done = subprocess.run(
            [str(self.nginx), "-t", "-p", str(prefix), "-c", "nginx.conf"],
            capture_output=True,
            text=True,
            check=False,
        )
        lines = [line for line in done.stderr.splitlines() if "syntax is ok" not in line]
        return lines[0] if lines else ""


def run(lab: Lab) -> None:
    k1 = lab.public_key("k1")

    # the default server's file decrypts; the selected server's does not
    p = lab.start("default", "", [lab.server("public.example", lab.file("k1"), True),
                                  lab.server("a.example")])  # fmt: skip
    lab.expect("default-decides", "k1, file in default server", lab.connect(p, "k1"),
               ech="accepted", subject="a.example", logged="SUCCESS|public.example")  # fmt: skip
    lab.expect("default-decides", "no ECH", lab.connect(p, ""),
               ech="not-offered", subject="a.example", logged="NOT_TRIED|-")  # fmt: skip
    lab.expect("default-decides", "GREASE", lab.connect(p, "", "a.example", "-ech_grease"),
               subject="a.example", logged="GREASE|-")  # fmt: skip
    lab.stop(p)
    p = lab.start("vhost-only", "", [lab.server("public.example", "", True),
                                     lab.server("a.example", lab.file("k1"))])  # fmt: skip
    lab.expect("vhost-only", "k1, file only in a.example", lab.connect(p, "k1"),
               ech="failed", subject="public.example", retry_keys=[], logged="")  # fmt: skip
    lab.stop(p)
    p = lab.start("both-differ", "", [lab.server("public.example", lab.file("k1"), True),
                                      lab.server("a.example", lab.file("k2"))])  # fmt: skip
    lab.expect("both-differ", "k2 (a.example's own key)", lab.connect(p, "k2"),
               ech="retry", subject="public.example", retry_keys=[k1])  # fmt: skip
    lab.stop(p)
    p = lab.start("public-vhost-only", "", [lab.server(None, "", True),
                                            lab.server("public.example", lab.file("k1")),
                                            lab.server("a.example")])  # fmt: skip
    lab.expect("public-vhost-only", "k1, file in public.example only", lab.connect(p, "k1"),
               ech="failed", retry_keys=[], logged="")  # fmt: skip
    lab.stop(p)

    # rotation: every file decrypts, only the first one's configs are sent for retries
    files = f"{lab.file('k1')} {lab.file('k2')}"
    p = lab.start("rotation", "", [lab.server("public.example", files, True),
                                   lab.server("a.example")])  # fmt: skip
    lab.expect("rotation", "k1 (first file)", lab.connect(p, "k1"), ech="accepted",
               logged="SUCCESS|public.example")  # fmt: skip
    lab.expect("rotation", "k2 (second file)", lab.connect(p, "k2"), ech="accepted",
               logged="SUCCESS|public.example")  # fmt: skip
    lab.expect("rotation", "k3 (unknown key)", lab.connect(p, "k3"), ech="retry",
               subject="public.example", verified=True, retry_keys=[k1])  # fmt: skip
    lab.stop(p)

    # TLS 1.3 off: no ECH
    p = lab.start("tls13-off", "ssl_protocols TLSv1.2;",
                  [lab.server("public.example", lab.file("k1"), True),
                   lab.server("a.example")])  # fmt: skip
    lab.expect("tls13-off", "k1", lab.connect(p, "k1"), ech="handshake-failed", alert="47",
               logged="")  # fmt: skip
    lab.stop(p)

    # the public name: retries need a server that completes the handshake for it with a
    # certificate that covers it
    p = lab.start("reject-no-public", lab.file("k1"), [lab.server(None, "", True),
                                                       lab.server("a.example")])  # fmt: skip
    lab.expect("reject-no-public", "k1", lab.connect(p, "k1"), ech="accepted",
               logged="SUCCESS|public.example")  # fmt: skip
    lab.expect("reject-no-public", "k3 (stale key)", lab.connect(p, "k3"),
               ech="handshake-failed", alert="112", retry_keys=[])  # fmt: skip
    lab.stop(p)
    p = lab.start("public-not-covered", "", [lab.server("a.example", lab.file("k1"), True)])
    lab.expect("public-not-covered", "k3 (stale key)", lab.connect(p, "k3"), ech="retry",
               subject="a.example", verified=False, retry_keys=[k1])  # fmt: skip
    lab.stop(p)
    p = lab.start("generated-layout", lab.file("k1"), [lab.server(None, "", True),
                                                       lab.server("public.example"),
                                                       lab.server("a.example")])  # fmt: skip
    lab.expect("generated-layout", "k1", lab.connect(p, "k1"), ech="accepted",
               subject="a.example", logged="SUCCESS|public.example")  # fmt: skip
    lab.expect("generated-layout", "k3 (stale key)", lab.connect(p, "k3"), ech="retry",
               subject="public.example", verified=True, retry_keys=[k1])  # fmt: skip
    lab.stop(p)

    # a file with the ECHConfig but no private key: nginx starts and decrypts nothing
    text = lab.keys["k1"].read_text()
    config_only = text[text.index("-----BEGIN ECHCONFIG") :]
    (lab.work / "config-only.pem").write_text(config_only)
    p = lab.start("config-only", f"ssl_ech_file {lab.work / 'config-only.pem'};",
                  [lab.server("public.example", "", True), lab.server("a.example")])  # fmt: skip
    lab.expect("config-only", "k1 (its config, key left out)", lab.connect(p, "k1"),
               ech="failed", retry_keys=[], logged="")  # fmt: skip
    lab.stop(p)

    # stream{} (virtual servers by name from nginx 1.25.5): the same rule
    def stream(name: str | None, extra: str = "", default: bool = False) -> str:
        return lab.server(name, extra, default, stream=True)

    p = lab.start("stream-default-decides", "", [stream("public.example", lab.file("k1"), True),
                                                 stream("a.example")], "stream")  # fmt: skip
    lab.expect("stream-default-decides", "k1, file in default server", lab.connect(p, "k1"),
               ech="accepted", subject="a.example", logged="SUCCESS|public.example")  # fmt: skip
    lab.expect("stream-default-decides", "k3 (stale key)", lab.connect(p, "k3"), ech="retry",
               subject="public.example", verified=True, retry_keys=[k1])  # fmt: skip
    lab.stop(p)
    p = lab.start("stream-vhost-only", "", [stream("public.example", "", True),
                                            stream("a.example", lab.file("k1"))], "stream")  # fmt: skip
    # stream logs the session even when the client gives up: nginx's own word for it
    lab.expect("stream-vhost-only", "k1, file only in a.example", lab.connect(p, "k1"),
               ech="failed", subject="public.example", retry_keys=[], logged="FAILED|-")  # fmt: skip
    lab.stop(p)
    p = lab.start("stream-tls13-off", "ssl_protocols TLSv1.2;",
                  [stream("public.example", lab.file("k1"), True), stream("a.example")],
                  "stream")  # fmt: skip
    lab.expect("stream-tls13-off", "k1", lab.connect(p, "k1"), ech="handshake-failed",
               alert="47")  # fmt: skip
    lab.stop(p)

    # what `nginx -t` says of a key file
    key_only = text[: text.index("-----BEGIN ECHCONFIG")]
    for label, key_text in (("config-only", config_only), ("key-only", key_only),
                            ("garbage", "-----BEGIN PRIVATE KEY-----\nAAAA\n"
                                        "-----END PRIVATE KEY-----\n")):  # fmt: skip
        print(f"{'nginx -t':24} {label:34} {lab.nginx_t('t-' + label, key_text) or 'ok'}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--nginx", type=Path, required=True)
    parser.add_argument("--openssl", type=Path, required=True)
    parser.add_argument("--work", type=Path)
    parser.add_argument("--port", type=int, default=24460)
    args = parser.parse_args()
    version = subprocess.run(
        [str(args.nginx), "-V"], capture_output=True, text=True, check=False
    ).stderr.splitlines()
    print(" / ".join(line for line in version if "version" in line or "built with" in line))
    with tempfile.TemporaryDirectory() as scratch:
        work = args.work or Path(scratch)
        work.mkdir(parents=True, exist_ok=True)
        lab = Lab(args.nginx.resolve(), args.openssl.resolve(), work.resolve(), args.port)
        run(lab)
    if lab.failures:
        sys.exit(f"ech_nginx_proof: {len(lab.failures)} unexpected: {'; '.join(lab.failures)}")
    print("ech_nginx_proof: every outcome as expected")


if __name__ == "__main__":
    main()
