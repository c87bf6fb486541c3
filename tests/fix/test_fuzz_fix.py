"""Fuzzing `lint --fix --unsafe-fixes` (issue 13): on mutated example and corpus configs and on
the rules' failing cases, the fix never crashes, settles, keeps every byte outside its edits, is
idempotent, and real `nginx -t` of the target's build accepts the fixed config whenever it
accepted the original (tests/fuzzing/fix_check.py)."""

from __future__ import annotations

from collections import Counter

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from nginxgen.knowledge.target import resolve
from tests.builds import BUILD_NAMES, Build
from tests.conftest import require_build
from tests.fuzzing.configs import mutated, seed_texts
from tests.fuzzing.fix_check import NGINX_T, check_fix, rule_cases
from tests.fuzzing.generate_check import build_target
from tests.helpers import FUZZ_CASES

CASES = FUZZ_CASES // 4
# the three real builds, and BoringSSL (no build yet: judged without nginx -t)
CHOICES = (*BUILD_NAMES, "boringssl")


def seeds() -> st.SearchStrategy[bytes]:
    """Real configs, or (as often) a rule's failing case: each has findings, most fixable."""
    return st.one_of(st.sampled_from(seed_texts()), st.sampled_from(rule_cases()))


def test_fix_settles_keeps_bytes_and_nginx_t(
    provisioned: tuple[dict[str, Build], dict[str, str]],
) -> None:
    """A case the fix leaves unchanged checks only that it settles: the run must have changed
    some (6.5% of 400 cases seen; most mutants lose what a rule fixes) and, on the builds, run
    nginx -t before and after on some (3% seen)."""
    outcomes: Counter[str] = Counter()
    cases = max(CASES, 20)

    @settings(
        max_examples=cases,
        deadline=None,
        database=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )
    @given(
        data=seeds().flatmap(lambda seed: st.one_of(st.just(seed), mutated(seed))),
        choice=st.sampled_from(CHOICES),
    )
    def one(data: bytes, choice: str) -> None:
        if choice == "boringssl":
            outcomes[check_fix(data, resolve("1.31.3", "boringssl")).kind] += 1
            return
        build = require_build(provisioned, choice)
        outcomes[check_fix(data, build_target(build), build).kind] += 1

    one()
    assert cases - outcomes["unchanged"] >= cases // 50 and outcomes[NGINX_T] >= 1, outcomes
