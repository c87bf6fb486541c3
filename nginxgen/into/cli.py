"""`nginxgen generate --into DIR`: the sites planned into an existing tree, and what the command
says of it. Each change (`file:line: what (why)`), the diff with --diff, then what lint still
finds at warning and above: in what nginxgen wrote (there should be nothing), on the user's own
lines that the change of another line made a finding of (made by this change), and, left as
is, in the user's own lines. With --diff, stdout holds the diff alone (what patch and git apply
read) and every other line goes to stderr."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

from nginxgen.base.console import note
from nginxgen.conf.load import Loaded
from nginxgen.generate.cli import GenerateOptions
from nginxgen.into.apply import Located

Finding = TypeVar("Finding", bound=Located)


def run(into: Path, options: GenerateOptions, check: Callable[[Loaded], list[Finding]]) -> int:
    """Plan, write (not with --diff) and report; `check` is the lint of the tree as it will
    be, its findings at warning and above. The exit code: with --diff, 1 when it would change
    something."""
    from nginxgen.files.diff import show
    from nginxgen.into.apply import run_into

    note(options.target.stated())
    result = run_into(into, options, check)
    for line in result.notes:
        note(line)
    diff = options.diff

    def say(line: str) -> None:
        print(line, file=sys.stderr if diff else sys.stdout)

    steps = result.plan.steps
    for step in steps:
        (note(step.planned()) if diff else print(step))
    if not steps:
        note("nothing to change: the tree already has these sites as planned")
    elif diff and options.nginx_bin:
        # nginx -t reads files, and --diff writes none: only lint has judged the plan (trial 22:
        # a diff applied with patch that nginx -t refused, where the writing run put all back)
        note(
            f"{options.nginx_bin} -t has not judged this diff (--diff writes nothing): the run "
            "without --diff runs it after writing, and a failure puts every file back"
        )
    for line in result.written:
        note(line)
    for finding in result.ours:
        note(f"warning: in what nginxgen wrote: {finding.file}:{finding.line}: {finding.code} "
             f"{finding.message}")  # fmt: skip
    for finding in result.followed:
        note(f"written as your tree does it, and mended with it: {finding.file}:{finding.line}: "
             f"{finding.code} {finding.message}")  # fmt: skip
    if result.caused:
        # lines of the user's that this run did not edit, but whose meaning its edit of another
        # line changed (a vhost's line that agreed with the default server's until it changed,
        # and could not change with it): said as this run's doing, not as the user's problem
        say(f"made by this change ({len(result.caused)}, on your own lines, which had no such "
            "finding before; see the changes above):")  # fmt: skip
        for finding in result.caused:
            say(f"  {finding.file}:{finding.line}: {finding.code} {finding.message}")
    left = result.left
    if left:
        say(f"left as is ({len(left)}, in your own lines; `nginxgen lint --fix` mends some):")
        for finding in left:
            say(f"  {finding.file}:{finding.line}: {finding.code} {finding.message}")
    return show(result.diff) if diff else 0
