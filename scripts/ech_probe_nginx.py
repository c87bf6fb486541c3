"""`nginxgen probe --ech-config` against nginx with Encrypted Client Hello, each verdict beside
what OpenSSL 4.0's own `s_client -ech_config_list` says of the same server and config.

    python scripts/ech_probe_nginx.py --nginx NGINX --openssl OPENSSL_4_0

NGINX is nginx >= 1.29.4 built against OpenSSL 4.0 (scripts/build_ech_nginx.py makes one from
a release tag; CI has none, so this is a script, not a test), OPENSSL_4_0 the `openssl` program of
the same library (provision's `.cache/builds/openssl40/ssl/bin/openssl`). Each scenario starts
one nginx on loopback with two servers, public.example (the default server) and a.example,
keys made by `openssl ech -public_name public.example`, probes a.example with `--config` (the
model's verdict, from the same nginx.conf) and asks s_client; it prints one line per scenario
and exits 1 when the probe's verdict differs from s_client's or from the model's. The output is
recorded in docs/probe.md.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import re
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

PUBLIC, INNER = "public.example", "a.example"
# s_client's `ECH:` status line -> the probe's verdict (OpenSSL 4.0.3 apps/s_client.c)
ORACLE = {
    "ECH: success": "accepted",
    "ECH: failed+retry-configs": "rejected",
    "ECH: tried but failed": "ignored",
    # -ech_grease (the longer status first: both start alike)
    "ECH: GREASE+retry-configs": "rejected",
    "ECH: GREASE": "ignored",
}
GREASE = "grease"  # the client's "key": `--ech-config grease`, s_client -ech_grease


def certificate(folder: Path, name: str) -> tuple[Path, Path]:
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    subject = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, name)])
    now = datetime.datetime.now(datetime.UTC)
    cert = (
        x509.CertificateBuilder().subject_name(subject).issuer_name(subject)
        .public_key(key.public_key()).serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(days=2))
        .add_extension(x509.SubjectAlternativeName([x509.DNSName(name)]), critical=False)
        .sign(key, hashes.SHA256())
    )  # fmt: skip
    cert_path, key_path = folder / f"{name}.crt", folder / f"{name}.key"
    cert_path.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_path.write_bytes(key.private_bytes(serialization.Encoding.PEM,
                                           serialization.PrivateFormat.PKCS8,
                                           serialization.NoEncryption()))  # fmt: skip
    return cert_path, key_path


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def config(folder: Path, port: int, default: str, inner: str, default_cert: str) -> str:
    temp = " ".join(f"{k}_temp_path {folder}/{k};" for k in
                    ("client_body", "proxy", "fastcgi", "uwsgi", "scgi"))  # fmt: skip

    def server(name: str, cert: str, extra: str, flag: str = "") -> str:
        return (f"server {{ listen 127.0.0.1:{port} ssl{flag}; server_name {name}; "
                f"ssl_certificate {folder}/{cert}.crt; ssl_certificate_key {folder}/{cert}.key; "
                f"{extra} return 200 '{name}\\n'; }}")  # fmt: skip

    return (
        f"worker_processes 1; pid {folder}/nginx.pid; error_log {folder}/error.log;\n"
        f"events {{}}\nhttp {{ access_log off; {temp}\n"
        f"  {server(PUBLIC, default_cert, default, ' default_server')}\n"
        f"  {server(INNER, INNER, inner)}\n}}\n"
    )


def ech_files(*keys: str) -> str:
    return "".join(f"ssl_ech_file {{folder}}/{key}.pem; " for key in keys)


TLS12 = "ssl_protocols TLSv1.2; "
# (scenario, what the default server has, what a.example has, the key the client uses,
#  the default server's certificate)
SCENARIOS = [
    ("default-decides", ech_files("k1"), "", "k1", PUBLIC),
    ("stale-key", ech_files("k1"), "", "k3", PUBLIC),
    ("no-ech", "", "", "k1", PUBLIC),
    ("vhost-only", "", ech_files("k1"), "k1", PUBLIC),
    ("rotation-second", ech_files("k1", "k2"), "", "k2", PUBLIC),
    ("rotation-unknown", ech_files("k1", "k2"), "", "k3", PUBLIC),
    ("public-not-covered", ech_files("k1"), "", "k3", INNER),
    ("grease", ech_files("k1", "k2"), "", GREASE, PUBLIC),
    ("grease-no-ech", "", ech_files("k1"), GREASE, PUBLIC),
    # TLS 1.2 only beside a key (NGX412): every ECH client fails, a problem (issue 44)
    ("tls12-only", ech_files("k1") + TLS12, TLS12, "k1", PUBLIC),
]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--nginx", required=True)
    parser.add_argument("--openssl", required=True)
    args = parser.parse_args()
    failures = 0
    with tempfile.TemporaryDirectory(prefix="ech-probe-") as name:
        folder = Path(name)
        for cert in (PUBLIC, INNER):
            certificate(folder, cert)
        both = (folder / f"{PUBLIC}.crt").read_text() + (folder / f"{INNER}.crt").read_text()
        (folder / "both.crt").write_text(both)  # s_client verifies the name it reached
        for key in ("k1", "k2", "k3"):
            subprocess.run([args.openssl, "ech", "-public_name", PUBLIC, "-out",
                            str(folder / f"{key}.pem")], check=True, capture_output=True)  # fmt: skip
        for scenario, default, inner, key, default_cert in SCENARIOS:
            port = free_port()
            conf = folder / "nginx.conf"
            text = config(folder, port, default, inner, default_cert)
            conf.write_text(text.replace("{folder}", str(folder)))
            subprocess.run([args.nginx, "-p", str(folder), "-c", str(conf), "-e",
                            str(folder / "error.log")], check=True)  # fmt: skip
            try:
                time.sleep(0.3)
                line, ok = one(args.nginx, args.openssl, folder, port, key)
            finally:
                pid = int((folder / "nginx.pid").read_text())
                os.kill(pid, 15)
                time.sleep(0.3)
            failures += not ok
            print(f"{scenario:<19} {key}  {line}")
    return 1 if failures else 0


def one(nginx: str, openssl: str, folder: Path, port: int, key: str) -> tuple[str, bool]:
    from nginxgen.base.ech_configs import read_config_list

    offer = GREASE if key == GREASE else str(folder / f"{key}.pem")
    done = subprocess.run(
        [sys.executable, "-m", "nginxgen", "probe", f"127.0.0.1:{port}", "--sni", INNER,
         "--ech-config", offer, "--format", "json", "--timeout", "2",
         "--config", str(folder / "nginx.conf"), "--nginx-bin", nginx],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    found = json.loads(done.stdout)[0]
    ech = found["ech"] or {}
    if key == GREASE:
        asked = ["-ech_grease"]
    else:  # s_client gets the ECHCONFIG block as openssl wrote it, not as nginxgen reads it
        block = re.search(r"-----BEGIN ECHCONFIG-----(.*?)-----END",
                          (folder / f"{key}.pem").read_text(), re.S)  # fmt: skip
        assert block is not None
        asked = ["-ech_config_list", "".join(block.group(1).split())]
    said = subprocess.run(
        [openssl, "s_client", "-connect", f"127.0.0.1:{port}", "-servername", INNER,
         "-CAfile", str(folder / "both.crt"), *asked],
        capture_output=True, text=True, stdin=subprocess.DEVNULL, check=False,
    )  # fmt: skip
    status = next((ln for ln in (said.stdout + said.stderr).splitlines()
                   if ln.startswith("ECH: ") and ":" in ln[5:]), "ECH: none")  # fmt: skip
    oracle = next((v for k, v in ORACLE.items() if status.startswith(k)), status)
    if "Cipher is (NONE)" in said.stdout:
        oracle = "error"  # no handshake at all (nginx with TLS 1.2 only: alert 47)
    retry = [k for k in ("k1", "k2", "k3") if ech.get("retry_configs") and
             read_config_list(str(folder / f"{k}.pem")).base64() == ech["retry_configs"]]  # fmt: skip
    verdict = ech.get("verdict")
    # what --config's model said of ECH: a mismatch means it disagrees with this nginx
    model = [m for m in found.get("config", []) if m["key"] == "ech.verdict"]
    predicted = model[0]["value"] if model else None
    # a mismatch with `because` is a line that does not apply (explained); one without says the
    # model and the server disagree
    mismatches = [m for m in found.get("mismatches", []) if m["key"].startswith("ech.")]
    ignored = [f"{Path(m['file']).name}:{m['line']}" for m in mismatches if "because" in m]
    line = (f"probe={verdict} cert={','.join(ech.get('certificate_names', []))} "
            f"retry={retry or '-'} problems={len(found['problems'])} model={predicted} "
            f"ignored={','.join(ignored) or '-'} | s_client: {status.strip()}")  # fmt: skip
    agreed = len(ignored) == len(mismatches)
    # an error is no verdict the model predicts; it is always a problem
    if verdict == "error":
        return line, oracle == "error" and predicted is None and bool(found["problems"])
    return line, verdict == oracle and predicted == verdict and agreed


if __name__ == "__main__":
    sys.exit(main())
