"""Work done in forked child processes beside this one, each part's result read back through a
pipe: what lets a lint of a large tree use more than one core (docs/benchmarks.md) without a
compiled extension. A forked child starts with everything this process has loaded (modules,
the parsed tree), so nothing is sent to it; only its result comes back, as bytes the caller
encodes (marshal for plain data, pickle for records).

A child that fails (an exception, killed, out of memory) loses nothing: its part is done again
here, so the result is always what one process would have made. Without fork (Windows), or
with other threads running (a fork copies only the calling thread, and locks another thread
held stay held in the child), every part is done here.
"""

from __future__ import annotations

import gc
import os
import sys

TYPE_CHECKING = False  # typing is not imported at run time: it slows every pre-commit start
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import TypeVar

    T = TypeVar("T")


def usable_cores() -> int:
    """The processors this process may run on (its affinity mask, where the system has one)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # macOS, Windows
        return os.cpu_count() or 1


# `--jobs` left to nginxgen takes at most this many processes: measured on 2 cores only, and
# the parts that stay in one process (building the model, the report) bound what more can give
AUTO_MAX = 4


def processes(jobs: int) -> int:
    """The processes a job asked to use `jobs` (0: as many as there are usable cores, at most
    AUTO_MAX) may take here: 1 where no child can be forked."""
    if not can_fork():
        return 1
    return jobs if jobs > 0 else min(usable_cores(), AUTO_MAX)


def can_fork() -> bool:
    """Whether a child can be forked safely here: the system forks, and no other thread runs."""
    if not hasattr(os, "fork"):
        return False
    threading = sys.modules.get("threading")  # not imported by a lint: then no thread runs
    return threading is None or threading.active_count() == 1


def in_child(
    work: Callable[[], bytes], unread: Callable[[], None] | None = None
) -> Callable[[], bytes | None] | None:
    """Start work() in a forked child; the function returned waits for the child and gives the
    bytes it made, or None when it failed. None: no child could be started (do it here).
    `unread` runs in the child when nobody reads what it made any more (the parent is gone)."""
    if not can_fork():
        return None
    read, write = os.pipe()
    try:
        pid = os.fork()
    except OSError:  # no process to spare
        os.close(read)
        os.close(write)
        return None
    if pid == 0:  # the child: work, report, leave without running the parent's exit code
        code = 1
        try:
            os.close(read)
            # a collection would walk (and so copy) every page it shares with the parent
            gc.disable()
            data = work()
            try:
                with open(write, "wb") as pipe:
                    pipe.write(data)
                code = 0
            except OSError:
                if unread is not None:
                    unread()
        finally:
            os._exit(code)
    os.close(write)

    def collect() -> bytes | None:
        with open(read, "rb") as pipe:
            data = pipe.read()
        _, status = os.waitpid(pid, 0)
        return data if os.waitstatus_to_exitcode(status) == 0 else None

    return collect


def each_part(
    work: Callable[[int], T],
    parts: int,
    dumps: Callable[[T], bytes],
    loads: Callable[[bytes], T],
) -> list[T]:
    """[work(0), ..., work(parts - 1)]: part 0 here, each other part in a forked child at the
    same time. A part whose child could not start, or failed, is done here afterwards."""

    def encoded(part: int) -> Callable[[], bytes]:
        return lambda: dumps(work(part))

    children = [in_child(encoded(part)) for part in range(1, parts)]
    results = [work(0)]
    for part, collect in enumerate(children, start=1):
        data = collect() if collect is not None else None
        results.append(loads(data) if data is not None else work(part))
    return results
