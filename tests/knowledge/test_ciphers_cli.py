"""`nginxgen ciphers`: one suite per line in the library's order, a verdict, exit codes."""

from __future__ import annotations

import json
import subprocess
import sys


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "nginxgen", "ciphers", *args],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def test_text_lists_suites_in_order_with_verdicts() -> None:
    done = run("--tls-library", "openssl-3.0", "--", "ECDHE-RSA-AES128-GCM-SHA256:AES128-SHA")
    assert done.returncode == 0, done.stderr
    rows = [line for line in done.stdout.splitlines() if not line.startswith("#")]
    assert [r.split()[0] for r in rows] == ["ECDHE-RSA-AES128-GCM-SHA256", "AES128-SHA"]
    assert rows[0].endswith(" ok") and "Kx=ECDH" in rows[0] and "Mac=AEAD" in rows[0]
    assert "WEAK: static RSA key exchange" in rows[1]
    assert "openssl-3.0 model" in done.stdout.splitlines()[0]


def test_refused_string_exits_1_and_says_why() -> None:
    done = run("--", "TLS_AES_128_GCM_SHA256")
    assert done.returncode == 1
    assert "# refused: no cipher match" in done.stdout


def test_json_and_tls13_lists() -> None:
    done = run(
        "--tls13", "--format", "json", "--", "TLS_AES_128_CCM_8_SHA256:TLS_AES_128_GCM_SHA256"
    )
    data = json.loads(done.stdout)
    assert [s["name"] for s in data["suites"]] == [
        "TLS_AES_128_CCM_8_SHA256",
        "TLS_AES_128_GCM_SHA256",
    ]
    # OpenSSL 3.5 rates CCM8 at 64 bits: not usable at the default security level 2.
    assert [s["usable"] for s in data["suites"]] == [False, True]


def test_bad_library_is_a_one_line_error() -> None:
    done = run("--tls-library", "gnutls", "--", "HIGH")
    assert done.returncode == 2
    assert len(done.stderr.strip().splitlines()) == 1 and "Traceback" not in done.stderr
