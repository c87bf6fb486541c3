"""Fuzzing `lint --fix --unsafe-fixes` (issue 13): on mutated example and corpus configs the fix
never crashes, settles (a second run changes nothing) and never leaves a file that parsed
cleanly unparsable."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from nginxgen.lint.fix import run_fixes
from nginxgen.lint.load import load_path
from nginxgen.lint.run import Selection, lint
from nginxgen.target import resolve
from tests.fuzzing.configs import mutated, seed_texts

CASES = int(os.environ.get("NGINXGEN_FUZZ_CASES", "1000")) // 4
TARGETS = [("1.22.1", "openssl-3.0"), ("1.26.3", "openssl-3.5.7"), ("1.31.3", "boringssl")]
CLASSES = frozenset({"safe", "unsafe"})


def seeds() -> st.SearchStrategy[bytes]:
    """Real configs, or (as often) a rule's failing case: each has findings, most fixable."""
    from tests.test_lint_rules import CASES

    cases = [bad.encode() for _, _, bad, _ in CASES]
    return st.one_of(st.sampled_from(seed_texts()), st.sampled_from(cases))


def fix_once(path: Path, target: tuple[str, str]) -> dict[str, str]:
    resolved = resolve(*target)
    outcome = run_fixes(
        lambda overlay: load_path(str(path), overlay=overlay),
        lambda loaded: lint(loaded, resolved, Selection()),
        CLASSES,
    )
    return outcome.changed


@settings(
    max_examples=max(CASES, 20),
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(
    data=seeds().flatmap(lambda seed: st.one_of(st.just(seed), mutated(seed))),
    target=st.sampled_from(TARGETS),
)
def test_fix_settles_and_keeps_files_parsable(data: bytes, target: tuple[str, str]) -> None:
    with tempfile.TemporaryDirectory(prefix="nginxgen-fuzz-fix-") as tmp:
        path = Path(tmp) / "nginx.conf"
        path.write_bytes(data)
        changed = fix_once(path, target)  # FixError (did not settle, broke a file) fails here
        text = changed.get(str(path))
        if text is None:
            return
        path.write_bytes(text.encode("utf-8", "surrogateescape"))
        assert fix_once(path, target) == {}, "a second run changed something"
