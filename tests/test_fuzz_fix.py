"""Fuzzing `lint --fix --unsafe-fixes` (issue 13): on mutated example and corpus configs and on
the rules' failing cases, the fix never crashes, settles, keeps every byte outside its edits, is
idempotent, and real `nginx -t` of the target's build accepts the fixed config whenever it
accepted the original (tests/fuzzing/fix_check.py)."""

from __future__ import annotations

import os

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from nginxgen.knowledge.target import resolve
from tests.builds import BUILD_NAMES, Build
from tests.conftest import require_build
from tests.fuzzing.configs import mutated, seed_texts
from tests.fuzzing.fix_check import check_fix, rule_cases
from tests.fuzzing.generate_check import build_target

CASES = int(os.environ.get("NGINXGEN_FUZZ_CASES", "1000")) // 4
# the three real builds, and BoringSSL (no build yet: judged without nginx -t)
CHOICES = (*BUILD_NAMES, "boringssl")


def seeds() -> st.SearchStrategy[bytes]:
    """Real configs, or (as often) a rule's failing case: each has findings, most fixable."""
    return st.one_of(st.sampled_from(seed_texts()), st.sampled_from(rule_cases()))


@settings(
    max_examples=max(CASES, 20),
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(
    data=seeds().flatmap(lambda seed: st.one_of(st.just(seed), mutated(seed))),
    choice=st.sampled_from(CHOICES),
)
def test_fix_settles_keeps_bytes_and_nginx_t(
    provisioned: tuple[dict[str, Build], dict[str, str]],
    data: bytes,
    choice: str,
) -> None:
    if choice == "boringssl":
        check_fix(data, resolve("1.31.3", "boringssl"))
        return
    build = require_build(provisioned, choice)
    check_fix(data, build_target(build), build)
