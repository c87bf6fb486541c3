"""Applying a diff nginxgen printed with the real tools a user pipes it to, GNU patch and git
apply, each with `-p0` as the README says, in copies of the tree taken before the real run; a
missing tool fails in CI (never a silent skip)."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

from tests.helpers import require_program

TOOLS = ("patch", "git")

# What a file is after a run: ("file", its bytes, its permission bits) or ("link", its target)
State = dict[str, tuple[str, bytes | str, int]]


def require_tools() -> None:
    for tool in TOOLS:
        require_program(tool, "the --diff tests apply every diff with the real tool")


def command(tool: str) -> list[str]:
    """The documented command (README, "Diffs"); --batch only keeps a failing patch from asking
    questions, and no .orig file is left beside a file that did not apply exactly."""
    if tool == "patch":
        return ["patch", "-p0", "--batch", "--no-backup-if-mismatch"]
    return ["git", "apply", "-p0"]


def apply(tool: str, diff: bytes, where: Path) -> None:
    """Apply `diff` in `where` with the tool; it must apply exactly (no offset, no fuzz)."""
    env = {
        **os.environ,
        "GIT_CONFIG_NOSYSTEM": "1",  # the user's git settings (apply.whitespace) play no part
        "GIT_CONFIG_GLOBAL": os.devnull,
        "GIT_CEILING_DIRECTORIES": str(where.parent),  # no repository around the test folder
    }
    done = subprocess.run(
        command(tool), input=diff, cwd=where, capture_output=True, env=env, check=False
    )
    said = (done.stdout + done.stderr).decode(errors="replace")
    assert done.returncode == 0, f"{tool} failed:\n{said}\n{diff.decode(errors='replace')}"
    assert "offset" not in said and "fuzz" not in said, said


def state(folder: Path) -> State:
    out: State = {}
    for path in sorted(folder.rglob("*")):
        key = str(path.relative_to(folder))
        if path.is_symlink():
            out[key] = ("link", os.readlink(path), 0)
        elif path.is_file():
            out[key] = ("file", path.read_bytes(), path.stat().st_mode & 0o777)
    return out


def copies(tree: Path) -> dict[str, Path]:
    """A copy of `tree` (symlinks kept as symlinks) for each tool, beside it."""
    out = {}
    for tool in TOOLS:
        copy = tree.with_name(f"{tree.name}.{tool}")
        shutil.copytree(tree, copy, symlinks=True)
        out[tool] = copy
    return out


def apply_to_copies(diff: bytes, trees: dict[str, Path], inside: str = ".") -> dict[str, State]:
    """Each tool's copy after applying `diff` in its folder `inside` (the working folder of the
    run, or the folder the diff's first line names), as state() sees it."""
    for tool, copy in trees.items():
        apply(tool, diff, copy / inside)
    return {tool: state(copy) for tool, copy in trees.items()}
