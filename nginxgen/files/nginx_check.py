"""The user's own `nginx -t` around a write: run it before and after, put every file back when
the change turned a config nginx accepted into one it refuses.

Shared by `lint --fix` and `generate --into`. Only nginx can say whether a tree loads (modules,
certificates, paths nginxgen cannot see), so a write that breaks that is undone, not reported.
"""

from __future__ import annotations

import os
import subprocess

from nginxgen.base.errors import NginxgenError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

TIMEOUT_S = 60


class NginxRefused(NginxgenError):
    """`nginx -t` accepted the tree before the write and refuses it after; all was put back."""

    exit_code = 3


def nginx_t(nginx_bin: str, conf: str) -> str | None:
    """None when `nginx -t -c conf` passes, else nginx's own message (its [emerg] lines)."""
    argv = [nginx_bin, "-t", "-q", "-c", os.path.abspath(conf)]
    try:
        done = subprocess.run(
            argv, capture_output=True, text=True, errors="replace", timeout=TIMEOUT_S, check=False
        )
    except OSError as exc:
        raise NginxgenError(f"cannot run it: {exc.strerror}", where=nginx_bin) from None
    except subprocess.TimeoutExpired:
        raise NginxgenError(f"nginx -t did not answer in {TIMEOUT_S} s", where=nginx_bin) from None
    if done.returncode == 0:
        return None
    lines = [line for line in done.stderr.splitlines() if "[emerg]" in line]
    return "; ".join(lines or done.stderr.strip().splitlines()[-1:] or [f"exit {done.returncode}"])


def write_checked(
    nginx_bin: str | None,
    mains: list[str],
    write: Callable[[], list[str]],
    undo: Callable[[], object],
) -> list[str]:
    """Run `write`; with an nginx binary, test each main file before and after, and when one
    that passed fails afterwards, run `undo` and raise NginxRefused with nginx's message. A
    main file that failed before is not judged (the write did not break it); the returned lines
    say so."""
    if not nginx_bin:
        return write()
    before = {conf: nginx_t(nginx_bin, conf) for conf in mains}
    lines = write()
    for conf, was in before.items():
        if was is not None:
            lines.append(f"nginx -t failed before the change too, so it was not judged: {was}")
            continue
        now = nginx_t(nginx_bin, conf)
        if now is not None:
            undo()
            raise NginxRefused(f"nginx -t fails after the change, every file put back: {now}")
        lines.append(f"nginx -t passes after the change ({conf})")
    return lines
