"""What must hold for any input to `nginxgen lint`: exit 0, 1 or 2 with no internal error, in
bounded time, and every syntax error at a real line of the file that has it."""

from __future__ import annotations

import contextlib
import io
import json
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from nginxgen.lint.cli import run
from tests.fuzzing.configs import Tree

# per case, in CPU seconds of this process (the lint runs in it, --jobs 1): small inputs take
# milliseconds, a 1 MB argument well under 1 s. Not wall time: CI runs these tests at nice 10
# beside a compile, where an include fan-out of 3^9 servers that takes 2.7 s alone took 89 s.
TIME_BOUND_S = 20.0
TARGETS = (
    ("1.22.1", "openssl-3.0.22"),
    ("1.26.3", "openssl-3.5.7"),
    ("1.31.3", "openssl-3.3.7"),
    ("1.27.4", "boringssl"),
    ("1.25.5", "libressl-4.3.0"),
)


def lint_tree(tree: Tree, target: tuple[str, str]) -> tuple[int, str, str]:
    """Write the tree into a fresh folder and lint it; returns (exit code, stdout, stderr)."""
    with tempfile.TemporaryDirectory(prefix="nginxgen-fuzz-") as tmp:
        folder = Path(tmp)
        for name, data in tree.files.items():
            path = folder / name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(data)
        out, err = io.StringIO(), io.StringIO()
        argv = [
            # --jobs 1: this lint runs inside the test process, where a fork copies only the
            # forking thread (a child spun for 657 s in a full run); the several-process lint
            # has its own differential in a fresh process (tests/lint/test_lint_parallel.py)
            "--jobs", "1",
            "--format", "json", "--debug", "--nginx-version", target[0],
            "--tls-library", target[1], str(folder / tree.main),
        ]  # fmt: skip
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = run(argv)  # --debug: an internal error raises instead of exiting 3
        report = out.getvalue().replace(str(folder) + "/", "")
        return code, report, err.getvalue()


@dataclass(frozen=True)
class LintOutcome:
    code: int
    syntax_errors: int
    seconds: float


def check_lint(tree: Tree, target: tuple[str, str]) -> LintOutcome:
    started = time.process_time()
    code, out, err = lint_tree(tree, target)
    elapsed = time.process_time() - started
    assert code in (0, 1, 2), (code, err)
    assert "Traceback" not in err and "internal error" not in err, err
    assert elapsed < TIME_BOUND_S, f"lint took {elapsed:.1f} s of CPU"
    if code == 2:
        assert err.startswith("nginxgen: error: ") and err.count("\n") == 1, err
        return LintOutcome(code, 0, elapsed)
    findings = json.loads(out)["findings"]
    # exit 1 exactly when a finding reaches --fail-on's default (warning); infos never fail
    assert (code == 1) == any(f["severity"] != "info" for f in findings)
    syntax = [f for f in findings if f["code"] == "NGX001"]
    for finding in syntax:
        name = finding["file"]
        assert name in tree.files, f"syntax error in {name}, which is not a file of the tree"
        if tree.mutated is not None:
            assert name == tree.mutated, f"syntax error in untouched {name}: {finding}"
        lines = tree.files[name].count(b"\n") + 1
        assert 1 <= finding["line"] <= lines, f"line {finding['line']} of {lines}: {finding}"
    return LintOutcome(code, len(syntax), elapsed)
