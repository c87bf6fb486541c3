"""The user's own `nginx -t` around a write: run it before and after, put every file back when
the change turned a config nginx accepted into one it refuses.

Shared by `lint --fix` and `generate --into`. Only nginx can say whether a tree loads (modules,
certificates, paths nginxgen cannot see), so a write that breaks that is undone, not reported.
"""

from __future__ import annotations

import os
import re
import subprocess
import tempfile
from collections import Counter

from nginxgen.base.errors import NginxgenError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

TIMEOUT_S = 60


class NginxRefused(NginxgenError):
    """`nginx -t` accepted the tree before the write and refuses it after; all was put back."""

    exit_code = 3


def nginx_t(nginx_bin: str, conf: str, prefix: str | None = None) -> str | None:
    """None when `nginx -t -c conf` (with `-p prefix`, if given) passes, else nginx's own
    message (its [emerg] lines)."""
    return _tested(nginx_bin, conf, prefix)[0]


def _names_pid(conf: str) -> bool:
    """Whether the main file has a `pid` line of its own (at the start of a line, as the
    main context's directives are written)."""
    try:
        with open(conf, encoding="utf-8", errors="replace") as handle:
            return any(_PID_LINE.match(line) for line in handle)
    except OSError:
        return False


_PID_LINE = re.compile(r"\s*pid\s")


def _tested(nginx_bin: str, conf: str, prefix: str | None) -> tuple[str | None, list[str]]:
    """nginx_t's answer, and the [warn] lines nginx printed (without its `nginx: ` lead).

    nginx -t creates the pid file to see that it can: where the tree names none, that is the
    binary's compiled-in path (/run/nginx.pid), outside the folder the user gave (trial 10).
    So the test names one in a folder of its own, removed after; a tree that names its own
    (nginx: `"pid" directive is duplicate`) is tested as it is. Its main file is looked at
    first: nginx writes that refusal into the tree's error log too (trial 24: two `[emerg]`
    lines in a live server's log for every check), so a `pid` line there is not tried over."""
    argv = [nginx_bin, "-t", "-q", *(["-p", prefix.rstrip("/") + "/"] if prefix else [])]
    argv += ["-c", os.path.abspath(conf)]
    with tempfile.TemporaryDirectory(prefix="nginxgen-t-") as scratch:
        pid = [] if _names_pid(conf) else ["-g", f"pid {os.path.join(scratch, 'nginx.pid')};"]
        done = _run([*argv, *pid], nginx_bin)
        if pid and '"pid" directive is duplicate' in done.stderr:  # a pid line in an include
            done = _run(argv, nginx_bin)
    # `nginx: [warn] MESSAGE`, or with the error log's lead `DATE TIME [warn] PID#TID: MESSAGE`
    warnings = [
        re.sub(r"^\d+#\d+: ", "", line.split("[warn] ", 1)[1])
        for line in done.stderr.splitlines()
        if "[warn] " in line
    ]
    if done.returncode == 0:
        return None, warnings
    lines = [line for line in done.stderr.splitlines() if "[emerg]" in line]
    said = lines or done.stderr.strip().splitlines()[-1:] or [f"exit {done.returncode}"]
    return "; ".join(said), warnings


def _run(argv: list[str], nginx_bin: str) -> subprocess.CompletedProcess[str]:
    try:
        return subprocess.run(
            argv, capture_output=True, text=True, errors="replace", timeout=TIMEOUT_S, check=False
        )
    except OSError as exc:
        raise NginxgenError(f"cannot run it: {exc.strerror}", where=nginx_bin) from None
    except subprocess.TimeoutExpired:
        raise NginxgenError(f"nginx -t did not answer in {TIMEOUT_S} s", where=nginx_bin) from None


def write_checked(
    nginx_bin: str | None,
    mains: list[str],
    write: Callable[[], list[str]],
    undo: Callable[[], object],
    prefix: str | None = None,
    elsewhere: dict[str, str] | None = None,
) -> list[str]:
    """Run `write`; with an nginx binary, test each main file before and after, and when one
    that passed fails afterwards, run `undo` and raise NginxRefused with nginx's message. A
    main file that failed before is not judged (the write did not break it); the returned lines
    say so. Each runs in the tree's prefix (tree_prefix), the same before and after.
    `elsewhere`: the main files of copies whose includes nginx reads in another place (that
    place, conf.load.read_elsewhere): nginx -t there would judge the original, not the write."""
    if not nginx_bin:
        return write()
    away = elsewhere or {}
    before = {conf: tree_prefix(nginx_bin, conf, prefix) for conf in mains if conf not in away}
    lines = write()
    for conf, place in away.items():
        lines.append(
            f"nginx -t not run: {conf} includes {place}, which nginx reads there, not in this "
            "copy; run nginx -t where the tree is installed"
        )
    for conf, (used, failures, warned) in before.items():
        if failures is not None:
            lines.append(
                "nginx -t failed before the change too, so it was not judged "
                f"(--prefix DIR names the folder the tree's relative paths mean): {failures}"
            )
            continue
        now, now_warned = _tested(nginx_bin, conf, used)
        if now is not None:
            undo()
            hint = ""
            if re.search(r'open\(\) "[^"]*\.log" failed', now):
                # a log file in a folder this machine lacks: nginxgen's TLS log (trial 11: a
                # tree whose own logs are all off, OpenWrt), or the tree's own
                hint = (
                    "; nginxgen's TLS log goes where --access-log says: a file in a folder that "
                    "exists, or off"
                )
            raise NginxRefused(f"nginx -t fails after the change, every file put back: {now}{hint}")
        lines.append(f"nginx -t passes after the change ({conf}{f', -p {used}' if used else ''})")
        new = _new(warned, now_warned)
        lines += [f"nginx -t warns after the change, not before: {warning}" for warning in new]
    return lines


def _new(before: list[str], after: list[str]) -> list[str]:
    """The warnings nginx gives after a change that it did not give before: those the same
    word for word first, then the rest compared without their `in FILE:LINE` (an edit may move
    a line a warning was already about)."""
    exact = Counter(before)
    rest = []
    for warning in after:
        if exact[warning] > 0:
            exact[warning] -= 1
        else:
            rest.append(warning)
    moved = Counter(_unplaced(w) for w, count in exact.items() for _ in range(count))
    out = []
    for warning in rest:
        if moved[_unplaced(warning)] > 0:
            moved[_unplaced(warning)] -= 1
        else:
            out.append(warning)
    return out


def _unplaced(warning: str) -> str:
    return warning.rsplit(" in ", 1)[0] if re.search(r" in \S+:\d+$", warning) else warning


def tree_prefix(
    nginx_bin: str, conf: str, given: str | None
) -> tuple[str | None, str | None, list[str]]:
    """The prefix (`-p`) under which `nginx -t` passes on the tree before a change, None and
    the warnings it gave there; where none passed, None, nginx's messages and no warnings. The
    prefix is where the tree's relative pid, log, temp and load_module paths resolve (includes
    and certificates resolve against the main file's folder whatever -p is): the one given,
    else the binary's own (None: Debian's `load_module modules/...` means its
    /usr/share/nginx/modules), else the tree's folder, as `nginx -p DIR` runs a tree kept away
    from the binary's folders."""
    tried = [os.path.abspath(given)] if given else [None, os.path.dirname(os.path.abspath(conf))]
    failures = []
    for prefix in tried:
        failed, warnings = _tested(nginx_bin, conf, prefix)
        if failed is None:
            return prefix, None, warnings
        ran = f"with -p {prefix}" if prefix else "with the binary's own prefix"
        failures.append(f"{ran}: {failed}")
    return None, "; ".join(failures), []
