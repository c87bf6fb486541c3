"""Provision the real parts and run every test, as CI does (the README's test command).

    python scripts/check.py [PYTEST ARGS...]

1. scripts/provision.py fetches and compiles the real parts (on a fresh machine, most of the
   time: four TLS libraries and nginx compiled from source).
2. Meanwhile the tests that need no real part (`-m "not live"`: the quick part and the fuzzers
   that run no nginx) run in one process at a lower priority: the compile leaves part of the two
   cores idle (configure scripts, cargo, perl and linking run on one), and these tests fill it.
3. Once all but the compiled builds are in place (provision.py writes builds.early.json), the
   live tests, two workers a core (`-m live -n 4` on two cores), beside the compile: each test
   that needs a build still compiling is deferred (tests/builds.py), its node id noted.
4. Once everything is provisioned, the deferred live tests, beside what is left of the others
   (back at normal priority).

The extra arguments go to every pytest run. Exit status: 0 when provisioning and every run
passes; 1 when provisioning failed (its missing parts named; the live tests are not run then,
as they would only fail on them); otherwise pytest's. Each piece alone is still
`scripts/provision.py`, `pytest -m "not live"` and `pytest -m live -n 4`.
"""

from __future__ import annotations

import contextlib
import os
import re
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import IO

REPO = Path(__file__).resolve().parent.parent
# Two live tests a core: they spend much of their time waiting on servers and clients (a server's
# start, a handshake's round trips, a client's exit), which a second worker per core fills. On
# two cores the observer fuzzer and the newcomer trees took 172 s with two workers, 105 s with
# four (the same CPU time) and 115 s with six.
LIVE_WORKERS = 2 * (os.cpu_count() or 1)
# scripts/provision.py's line once all but the compiled builds are in place
EARLY_LINE = re.compile(r"^provision: wrote (\S+builds\.early\.json), pending: ")


def _lower_priority() -> None:
    os.nice(10)  # the compile is the critical path: these tests take what it leaves


def _raise_priority(pid: int) -> None:
    """The process and its children back at normal priority (a user other than root may not
    lower a niceness: then it stays as it is)."""
    try:
        children = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
    except OSError:
        children = []
    for each in (pid, *map(int, children)):
        with contextlib.suppress(OSError):
            os.setpriority(os.PRIO_PROCESS, each, 0)


def _relay(stream: IO[str], lines: list[str], early: list[str], ready: threading.Event) -> None:
    """Keep the provisioning's lines, to print them together once it ends (between pytest's
    progress dots they would be lost), and say when the early manifest is written."""
    for line in stream:
        lines.append(line)
        found = EARLY_LINE.match(line)
        if found:
            early.append(found.group(1))
            ready.set()


def main(extra: list[str]) -> int:
    started = time.monotonic()
    provision = subprocess.Popen(
        [sys.executable, str(REPO / "scripts" / "provision.py")],
        cwd=REPO,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    said: list[str] = []
    early: list[str] = []
    ready = threading.Event()
    relay = threading.Thread(
        target=_relay, args=(provision.stdout, said, early, ready), daemon=True
    )
    relay.start()
    pytest = [sys.executable, "-m", "pytest", "-q"]
    live = [*pytest, "-m", "live", "-n", str(LIVE_WORKERS), *extra]
    print("check: provisioning, and meanwhile the tests that need no real part", flush=True)
    quick = subprocess.Popen([*pytest, "-m", "not live", *extra], cwd=REPO,
                             preexec_fn=_lower_priority)  # fmt: skip
    while provision.poll() is None and not ready.wait(1):
        pass
    deferred = Path(tempfile.mkstemp(prefix="nginxgen-deferred-", suffix=".txt")[1])
    beside = None
    if early:
        print(f"check: {time.monotonic() - started:.0f} s: the live tests that need no compiled "
              "build, beside the compile", flush=True)  # fmt: skip
        environment = dict(os.environ, NGINXGEN_EARLY_MANIFEST=early[0],
                           NGINXGEN_DEFERRED=str(deferred))  # fmt: skip
        beside = subprocess.Popen(live, cwd=REPO, env=environment)
    provisioned = provision.wait()
    relay.join()
    sys.stdout.write("".join(said))
    print(f"check: provisioned in {time.monotonic() - started:.0f} s (exit {provisioned})")
    if provisioned != 0:
        for run in (quick, beside):
            if run is not None:
                run.wait()
        deferred.unlink()
        return 1
    _raise_priority(quick.pid)  # from now on its share of the cores is as large as any
    codes = [beside.wait()] if beside is not None else []
    if beside is None:  # no early manifest: every live test now
        codes.append(subprocess.run(live, cwd=REPO, check=False).returncode)
    elif deferred.read_text().strip():
        print(f"check: {time.monotonic() - started:.0f} s: the live tests deferred until now",
              flush=True)  # fmt: skip
        environment = dict(os.environ, NGINXGEN_ONLY=str(deferred))
        codes.append(subprocess.run(live, cwd=REPO, env=environment, check=False).returncode)
    quick.wait()
    deferred.unlink()
    print(f"check: everything in {time.monotonic() - started:.0f} s")
    # 5: pytest selected nothing (arguments naming only quick or only live tests)
    return next((code for code in (quick.returncode, *codes) if code not in (0, 5)), 0)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
