"""Run nginxgen commands the way a newcomer's machine would see them, and watch the file system.

The commands run in a private mount namespace (`unshare -m`) where /etc and /var/log are
overlays: the host's files as they are, with an nginx tree installed in /etc/nginx the way a
package would put it, and every write going to a scratch layer instead of the host. Each command
runs under `strace`, so every file it opens, creates, renames, links or removes is seen, whether
the call succeeds or not. A test then asks: was anything written outside the folder given, and
was any file of the watched folders (/etc/nginx, /etc/letsencrypt, /var/log/nginx, ...) read
without the command's output naming it?

Real parts only: util-linux's unshare, the kernel's overlayfs and strace. They need root; a
machine without them fails in CI (tests.helpers.missing_real_part), never skips silently.
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

from tests.helpers import missing_real_part, require_program

# the folders a stock tree names by absolute path, where a host keeps its own nginx files
WATCHED = ("/etc/nginx", "/etc/letsencrypt", "/etc/ssl", "/var/log/nginx", "/config",
           "/usr/share/nginx", "/var/www", "/run/nginx")  # fmt: skip
TRACED = (
    "open,openat,openat2,creat,mkdir,mkdirat,rename,renameat,renameat2,unlink,unlinkat,"
    "symlink,symlinkat,link,linkat,rmdir,chmod,fchmodat,truncate,utimensat"
)
CALL = re.compile(r"^(?P<pid>\d+)\s+(?P<call>\w+)\((?P<args>.*)\)\s+=\s+(?P<result>-?\d+)")
QUOTED = re.compile(r'"((?:[^"\\]|\\.)*)"')
DIRFD = re.compile(r"^\d+<(?P<folder>[^>]*)>,")  # strace -y: an *at call's folder
WRITE_FLAGS = ("O_WRONLY", "O_RDWR", "O_CREAT", "O_TRUNC")


@dataclass
class Access:
    call: str
    path: str  # absolute
    ok: bool
    writes: bool


@dataclass
class Watched:
    """One command's run: its exit code, output and every file access strace saw."""

    argv: list[str]
    returncode: int
    stdout: str
    stderr: str
    accesses: list[Access] = field(default_factory=list)

    def writes_outside(self, *allowed: Path) -> list[Access]:
        """Writes (successful or tried) to a path under none of the `allowed` folders."""
        roots = [str(a.resolve()) for a in allowed]
        return [a for a in self.accesses if a.writes and not _under(a.path, roots)]

    def silent_reads(self) -> list[str]:
        """Files of the watched folders opened for reading, that the command's output does not
        name."""
        said = self.stdout + self.stderr
        return sorted(
            {
                a.path
                for a in self.accesses
                if a.ok and not a.writes and _under(a.path, WATCHED) and a.path not in said
            }
        )

    def reads_under(self, root: str) -> list[str]:
        return sorted(
            {a.path for a in self.accesses if a.ok and not a.writes and _under(a.path, [root])}
        )


def _under(path: str, roots: list[str] | tuple[str, ...]) -> bool:
    return any(path == r or path.startswith(r.rstrip("/") + "/") for r in roots)


def require_watch_tools() -> None:
    for tool in ("unshare", "strace", "mount"):
        require_program(tool, "the file-system watch needs it")
    if os.geteuid() != 0:
        missing_real_part("the file-system watch needs root (a private mount namespace)")


def _parse_trace(text: str, cwd: str) -> list[Access]:
    out = []
    for line in text.splitlines():
        match = CALL.match(line)
        if not match:
            continue
        call, args = match["call"], match["args"]
        paths = [bytes(p, "utf-8").decode("unicode_escape") for p in QUOTED.findall(args)]
        if not paths:
            continue
        ok = int(match["result"]) >= 0
        folder = DIRFD.match(args)
        base = folder["folder"] if folder else cwd
        if call.startswith("open") or call == "creat":
            writes = call == "creat" or any(flag in args for flag in WRITE_FLAGS)
            targets = paths[:1]
        else:
            writes = True
            targets = paths  # rename, link, symlink: both names (a symlink's target is text)
            if call.startswith("symlink"):
                targets = paths[1:]
        for path in targets:
            full = os.path.normpath(os.path.join(base, path))
            out.append(Access(call, full, ok, writes))
    return out


def run_watched(
    commands: list[list[str]], scratch: Path, cwd: Path, host_tree: Path | None = None,
    env: dict[str, str] | None = None, setup: list[str] | None = None,
) -> list[Watched]:  # fmt: skip
    """Run each command (nginxgen's arguments) in one private mount namespace whose /etc and
    /var/log are overlays on `scratch` (with `host_tree` installed as /etc/nginx, an empty
    /etc/letsencrypt and /var/log/nginx, then the shell lines of `setup`), under strace. The
    host is never written."""
    require_watch_tools()
    layers = {name: scratch / name for name in ("etc-upper", "etc-work", "log-upper", "log-work")}
    for folder in layers.values():
        folder.mkdir(parents=True)
    (scratch / "tmp").mkdir()
    script = [
        "set -e",
        f"mount -t overlay overlay -o lowerdir=/etc,upperdir={layers['etc-upper']},"
        f"workdir={layers['etc-work']} /etc",
        f"mount -t overlay overlay -o lowerdir=/var/log,upperdir={layers['log-upper']},"
        f"workdir={layers['log-work']} /var/log",
        "rm -rf /etc/nginx /etc/letsencrypt /var/log/nginx",
        "mkdir -p /etc/letsencrypt /var/log/nginx",
    ]
    if host_tree is not None:
        script.append(f"cp -a {shlex.quote(str(host_tree))} /etc/nginx")
    else:
        script.append("mkdir -p /etc/nginx")
    script.extend(setup or [])
    script.append("set +e")
    for index, argv in enumerate(commands):
        full = [sys.executable, "-m", "nginxgen", *argv]
        trace = scratch / f"trace.{index}"
        script.append(
            f"strace -f -qq -y -e trace={TRACED} -o {trace} "
            f"{' '.join(shlex.quote(a) for a in full)} "
            f"> {scratch}/out.{index} 2> {scratch}/err.{index}; echo $? > {scratch}/rc.{index}"
        )
    environment = {**os.environ, **(env or {}), "PYTHONDONTWRITEBYTECODE": "1",
                   "TMPDIR": str(scratch / "tmp")}  # fmt: skip
    done = subprocess.run(
        ["unshare", "-m", "--propagation", "private", "bash", "-c", "\n".join(script)],
        cwd=cwd, env=environment, capture_output=True, text=True, timeout=600, check=False,
    )  # fmt: skip
    if done.returncode != 0:
        raise RuntimeError(f"the watch could not run: {done.stderr[-2000:]}")
    results = []
    for index, argv in enumerate(commands):
        trace = (scratch / f"trace.{index}").read_text(errors="replace")
        results.append(
            Watched(
                argv,
                int((scratch / f"rc.{index}").read_text()),
                (scratch / f"out.{index}").read_text(errors="replace"),
                (scratch / f"err.{index}").read_text(errors="replace"),
                _parse_trace(trace, str(cwd)),
            )
        )
    return results


def host_changes(scratch: Path, host_tree: Path | None) -> list[str]:
    """What the commands left in the overlays' scratch layers beyond the set-up (the host tree
    in /etc/nginx, the empty /etc/letsencrypt and /var/log/nginx): each is a write to the host
    that the overlay caught."""
    expected = {"etc-upper/nginx", "etc-upper/letsencrypt", "log-upper/nginx"}
    found = []
    for layer in ("etc-upper", "log-upper"):
        for path in (scratch / layer).rglob("*"):
            rel = str(path.relative_to(scratch))
            if rel in expected:
                continue
            shipped = host_tree / rel.removeprefix("etc-upper/nginx/") if host_tree else None
            if rel.startswith("etc-upper/nginx/") and shipped and _same(path, shipped):
                continue
            found.append(rel)
    return sorted(found)


def _same(path: Path, original: Path) -> bool:
    """Whether the scratch layer's `path` is the set-up's copy of `original` (a whiteout, the
    overlay's mark of a removed file, is a character device and never the same)."""
    if path.is_symlink() or original.is_symlink():
        return (
            path.is_symlink()
            and original.is_symlink()
            and os.readlink(path) == os.readlink(original)
        )
    if path.is_dir():
        return original.is_dir()
    return path.is_file() and original.is_file() and path.read_bytes() == original.read_bytes()
