"""One fuzz case of `lint --fix --unsafe-fixes` (issue 13), shared by tests/fix/test_fuzz_fix.py and
scripts/fuzz.py: the fixes settle, keep every byte outside their edits, are idempotent, and
(when a real build is given) never turn a config its `nginx -t` accepts into one it refuses."""

from __future__ import annotations

import functools
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from nginxgen.conf.load import load_path
from nginxgen.edit.edits import Edit
from nginxgen.knowledge.target import Target
from nginxgen.lint.findings import fix_classes
from nginxgen.lint.fix import run_fixes
from nginxgen.lint.run import Selection, lint
from tests.builds import Build
from tests.directive_probe import nginx_t

CLASSES = fix_classes(unsafe=True)
Trace = list[tuple[str, bytes, list[Edit], bytes]]


NGINX_T = "fixed, nginx -t ok before and after"


@dataclass(frozen=True)
class FixCase:
    kind: str  # unchanged | fixed | fixed, nginx -t ok before and after | nginx refused before
    seconds: float


@functools.cache
def rule_cases() -> tuple[bytes, ...]:
    """The rules' failing configs (tests/lint/test_lint_rules.py), certificates pointed at real files
    so that `nginx -t` can load them: each has findings, most of them fixable."""
    from tests.fuzzing.structure import point_files
    from tests.lint.test_lint_rules import CASES

    return tuple(point_files(bad).encode() for _, _, bad, _ in CASES)


def kept_outside(before: bytes, edits: list[Edit], after: bytes) -> str | None:
    """None when `after` is `before` with only the edits' spans replaced, else where it is not."""
    at_before = at_after = 0
    for edit in sorted(edits, key=lambda e: (e.start, e.end)):
        kept = before[at_before : edit.start]
        if after[at_after : at_after + len(kept)] != kept:
            return f"bytes before offset {edit.start} changed"
        at_after += len(kept)
        if after[at_after : at_after + len(edit.replacement)] != edit.replacement:
            return f"the replacement at offset {edit.start} is not what the edit says"
        at_after += len(edit.replacement)
        at_before = edit.end
    if after[at_after:] != before[at_before:]:
        return "bytes after the last edit changed"
    return None


def fix_once(path: Path, target: Target, trace: Trace | None = None) -> dict[str, str]:
    outcome = run_fixes(
        lambda overlay: load_path(str(path), overlay=overlay),
        lambda loaded: lint(loaded, target, Selection()),
        CLASSES,
        trace,
    )
    return outcome.changed


def check_fix(data: bytes, target: Target, build: Build | None = None) -> FixCase:
    """Raises AssertionError (or the fix engine's FixError) when something does not hold."""
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="nginxgen-fuzz-fix-") as tmp:
        folder = Path(tmp)
        path = folder / "nginx.conf"
        path.write_bytes(data)
        trace: Trace = []
        changed = fix_once(path, target, trace)  # FixError (did not settle, broke a file) fails
        for file, before, edits, after in trace:
            moved = kept_outside(before, edits, after)
            assert moved is None, f"{file}: {moved}"
        text = changed.get(str(path))
        if text is None:
            return FixCase("unchanged", time.perf_counter() - started)
        fixed = text.encode("utf-8", "surrogateescape")
        kind = "fixed"
        if build is not None:
            # nginx_t writes its own nginx.conf: a folder of its own for each side
            (folder / "before").mkdir()
            (folder / "after").mkdir()
            was = nginx_t(build, data.decode("utf-8", "surrogateescape"), folder / "before")
            if was:
                kind = "nginx refused before"
            else:
                now = nginx_t(build, text, folder / "after")
                assert not now, (
                    f"nginx -t on {build.name} accepted it before the fix, not after: {now}"
                )
                kind = NGINX_T
        path.write_bytes(fixed)
        assert fix_once(path, target) == {}, "a second run changed something"
    return FixCase(kind, time.perf_counter() - started)
