"""`nginxgen doctor` on the real builds and on fake /proc trees (issue 16)."""

from __future__ import annotations

import json
import os
import subprocess
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from tests.builds import ALL_BUILD_NAMES, NEWEST_BUILD_NAMES, Build
from tests.cli_process import nginxgen as run_nginxgen
from tests.live import nginx_bin_script
from tests.paths import REPO

ROOT = REPO
EXAMPLES = {"trixie": "nginx-1.26.3_openssl-3.5", "bookworm": "nginx-1.22.1_openssl-3.0"}
KTLS_MODULES = "tls 106496 0 - Live 0x0000000000000000\nnf_tables 1 0 - Live 0x0\n"
TLS_STAT = "TlsCurrTxSw {n}\nTlsCurrRxSw 0\nTlsTxSw {n}\nTlsRxSw 0\nTlsTxDevice 0\n"


def fake_proc(folder: Path, *, ktls: bool, aes: bool) -> Path:
    proc = folder / "proc"
    (proc / "net").mkdir(parents=True)
    (proc / "modules").write_text(KTLS_MODULES if ktls else "nf_tables 1 0 - Live 0x0\n")
    if ktls:
        (proc / "net" / "tls_stat").write_text(TLS_STAT.format(n=3))
    flags = "fpu sse2 avx2" + (" aes pclmulqdq" if aes else "")
    (proc / "cpuinfo").write_text(f"processor\t: 0\nflags\t\t: {flags}\n")
    return proc


def doctor(
    build: Build, tmp: Path, proc: Path, interval: float = 0.0
) -> tuple[subprocess.CompletedProcess[str], dict[str, Any]]:
    script = nginx_bin_script(build, tmp, tmp / "nginx")
    done = run_nginxgen(
        "doctor",
        "--nginx-bin",
        str(script),
        "--format",
        "json",
        "--proc",
        str(proc),
        "--interval",
        str(interval),
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    return done, json.loads(done.stdout)


@pytest.mark.parametrize("build", ALL_BUILD_NAMES, indirect=True)
def test_doctor_reads_the_real_build(build: Build, tmp_path: Path) -> None:
    proc = fake_proc(tmp_path, ktls=False, aes=True)
    _, found = doctor(build, tmp_path, proc)
    assert found["target"]["nginx"] == build.nginx_version
    assert found["target"]["tls_library"] == build.tls_library
    configure = build.nginx("-V").stderr
    for module, on in found["modules"].items():
        assert on == (f"--with-{module}_module" in configure), module
    has_mlkem = "X25519MLKEM768" in found["mlkem"]
    assert has_mlkem == (build.name in ("trixie", "awslc", "boringssl", *NEWEST_BUILD_NAMES))
    assert ("pq" in found["presets"]["fit"]) == has_mlkem
    assert found["presets"]["recommended"] == ("pq" if has_mlkem else "intermediate")
    if build.name in EXAMPLES:  # the presets that fit are those the examples render
        folder = ROOT / "examples" / EXAMPLES[build.name]
        rendered = sorted(p.name for p in folder.iterdir() if not (p / "REFUSED.txt").exists())
        assert found["presets"]["fit"] == rendered
    assert found["cpu"] == {"aes": True, "cpu_option": "aes-ni"}
    assert found["ktls"]["kernel_module"] is False and found["ktls"]["tls_stat"] is None
    assert found["ktls"]["usable"] is False


def test_ktls_present_and_moving(
    provisioned: tuple[dict[str, Build], dict[str, str]], tmp_path: Path
) -> None:
    from tests.conftest import require_build

    build = require_build(provisioned, "trixie")
    proc = fake_proc(tmp_path, ktls=True, aes=False)
    stat = proc / "net" / "tls_stat"

    stop = threading.Event()

    def traffic() -> None:  # the counters move for as long as doctor runs
        n = 4
        while not stop.is_set():
            staged = stat.with_suffix(".tmp")
            staged.write_text(TLS_STAT.format(n=n))
            os.replace(staged, stat)  # whole files only: doctor never reads half a write
            n += 1
            time.sleep(0.05)

    mover = threading.Thread(target=traffic)
    mover.start()
    try:
        _, found = doctor(build, tmp_path, proc, interval=1.0)
    finally:
        stop.set()
        mover.join()
    k = found["ktls"]
    assert k["nginx_and_library"] is True and k["kernel_module"] is True
    assert k["tls_stat"]["TlsTxSw"] > 3 and k["moving"] is True and k["usable"] is True
    assert found["cpu"] == {"aes": False, "cpu_option": "no-aes-ni"}
    text = run_nginxgen(
        "doctor",
        "--nginx-bin",
        str(tmp_path / "nginx"),
        "--proc",
        str(proc),
        "--interval",
        "0",
        timeout=120,
    ).stdout
    # no time between the two reads: the counters cannot have moved
    assert "kTLS: nginx and library yes, kernel module yes, counters present and not moving" in text
    assert "suggested: nginxgen generate --preset pq --cpu no-aes-ni --nginx-bin" in text


def test_ktls_counters_still_and_bad_binary(
    provisioned: tuple[dict[str, Build], dict[str, str]], tmp_path: Path
) -> None:
    from tests.conftest import require_build

    build = require_build(provisioned, "bookworm")
    proc = fake_proc(tmp_path, ktls=True, aes=True)
    _, found = doctor(build, tmp_path, proc, interval=0.2)
    assert found["ktls"]["moving"] is False and found["ktls"]["kernel_module"] is True
    missing = run_nginxgen("doctor", "--nginx-bin", str(tmp_path / "none"), timeout=60)
    assert missing.returncode == 2
    assert missing.stderr == f"nginxgen: error: --nginx-bin: no such file: {tmp_path / 'none'}\n"
