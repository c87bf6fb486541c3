"""`nginxgen ARGS` as a process of its own, without paying a fresh interpreter's start-up.

The live tests ran the command about 2,800 times a CI run as `python -m nginxgen ...`: 690 s of
CPU, most of it importing the same modules again (0.74 s a `generate`, 0.35 s of it imports),
on the two cores the compile needs. Here each run is a child forked from a zygote
(tests/cli_zygote.py, one per test process) that has imported the command line and run nothing:
the child has its own cwd, environment, stdin (empty), stdout and stderr, argv and exit code,
as the command started by a shell has; only the interpreter's start and the imports are
shared. Tests about the start itself (the README's commands, what a run opens, the entry
point) start the real executable.
"""

from __future__ import annotations

import atexit
import json
import os
import select
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Mapping
from pathlib import Path

from tests.paths import REPO


class _Zygote:
    def __init__(self) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-m", "tests.cli_zygote"],
            cwd=REPO, stdin=subprocess.PIPE, stdout=subprocess.PIPE, bufsize=0,
        )  # fmt: skip
        self.lock = threading.Lock()  # one run at a time: the zygote waits for each child
        self.said = b""  # what the zygote wrote that is not a whole line yet
        atexit.register(self.close)

    def close(self) -> None:
        """The zygote ends once its requests end (waited for: its CPU time is this process's
        children's, as the commands' were when each was started alone)."""
        assert self.process.stdin is not None
        self.process.stdin.close()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()

    def _line(self, timeout: float | None) -> str | None:
        """The zygote's next line; None when none came in `timeout` seconds."""
        assert self.process.stdout is not None
        deadline = None if timeout is None else time.monotonic() + timeout
        while b"\n" not in self.said:
            left = None if deadline is None else max(0.0, deadline - time.monotonic())
            ready, _, _ = select.select([self.process.stdout], [], [], left)
            if not ready:
                return None
            chunk = os.read(self.process.stdout.fileno(), 4096)
            if not chunk:
                raise RuntimeError("the nginxgen zygote (tests/cli_zygote.py) ended")
            self.said += chunk
        line, self.said = self.said.split(b"\n", 1)
        return line.decode()

    def run(
        self, argv: list[str], cwd: Path, env: Mapping[str, str], timeout: float | None
    ) -> subprocess.CompletedProcess[str]:
        with self.lock, tempfile.TemporaryDirectory(prefix="nginxgen-run-") as folder:
            out, err = Path(folder, "stdout"), Path(folder, "stderr")
            out.touch()
            err.touch()
            request = {"argv": argv, "cwd": str(cwd), "env": dict(env),
                       "stdout": str(out), "stderr": str(err)}  # fmt: skip
            assert self.process.stdin is not None
            self.process.stdin.write(json.dumps(request).encode() + b"\n")
            started = self._line(None)
            assert started is not None and started.startswith("started "), started
            ended = self._line(timeout)
            if ended is None:
                os.kill(int(started.split()[1]), signal.SIGKILL)
                self._line(None)
                raise subprocess.TimeoutExpired(["nginxgen", *argv], timeout or 0)
            code = int(ended.split()[1])
            return subprocess.CompletedProcess(
                ["nginxgen", *argv], code, out.read_text(), err.read_text()
            )


_zygote: _Zygote | None = None


def nginxgen(
    *argv: str,
    cwd: Path | None = None,
    env: Mapping[str, str] | None = None,
    timeout: float | None = None,
) -> subprocess.CompletedProcess[str]:
    """`nginxgen ARGV` run in `cwd` (this process's by default) with `env` (this process's
    environment by default): its exit code, stdout and stderr."""
    global _zygote
    if _zygote is None or _zygote.process.poll() is not None:
        _zygote = _Zygote()
    return _zygote.run(list(argv), cwd or Path.cwd(), os.environ if env is None else env, timeout)
