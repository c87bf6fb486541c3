"""What lint says `nginx -t` refuses, against `nginx -t` itself on the five builds (issue 27).
scripts/fuzz.py grammar runs the comparison for as many cases as asked."""

from __future__ import annotations

import os
import random
import re
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings

from nginxgen.knowledge import directives, nginx
from nginxgen.knowledge.data import json_file
from tests.builds import ALL_BUILD_NAMES, Build
from tests.conftest import require_build
from tests.directive_probe import CONTEXTS, known, known_names, probe
from tests.fuzzing.generate_check import build_target
from tests.fuzzing.grammar import compare, mutants
from tests.fuzzing.structure import accepted_seeds

CASES = int(os.environ.get("NGINXGEN_GRAMMAR_CASES", "120"))


def five_builds(provisioned: tuple[dict[str, Build], dict[str, str]]) -> tuple[Build, ...]:
    return tuple(require_build(provisioned, n) for n in ALL_BUILD_NAMES)


def test_grammar_agrees_with_nginx(provisioned: tuple[dict[str, Build], dict[str, str]]) -> None:
    builds = five_builds(provisioned)
    seeds = accepted_seeds(builds)
    assert len(seeds) >= 20
    outcomes: Counter[str] = Counter()

    @settings(
        max_examples=CASES,
        deadline=None,
        database=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )
    @given(mutant=mutants(seeds))
    def one(mutant: tuple[str, str]) -> None:
        kind, text = mutant
        for build in builds:
            verdict = compare(build, text)
            outcomes[verdict.nginx] += 1
            assert verdict.agrees, (kind, build.name, verdict, text)

    one()
    assert outcomes["known"] > CASES // 5 and outcomes["accepted"] > CASES // 10, outcomes


def dynamic_modules(build: Build) -> set[str]:
    """Modules this build has only as loadable files (`--with-X=dynamic`): a test file that
    does not load_module them does not have their directives."""
    configure = build.nginx("-V").stderr
    return set(re.findall(r"--with-(\w+?)(?:_module)?=dynamic", configure))


def loadable(module: str, dynamic: set[str]) -> bool:
    """Whether the build has this module only as a file to load (its family counts too:
    stream_ssl is loadable when stream is)."""
    option = json_file("nginx_directives")["modules"].get(module, {}).get("option") or ""
    key = option.removeprefix("--with-").removeprefix("--without-").removesuffix("_module")
    return key in dynamic or key.split("_")[0] in dynamic


@pytest.mark.parametrize("name", ALL_BUILD_NAMES)
def test_the_directive_table_names_what_each_build_knows(
    name: str, provisioned: tuple[dict[str, Build], dict[str, str]]
) -> None:
    build = require_build(provisioned, name)
    target = build_target(build)
    table = json_file("nginx_directives")
    dynamic = dynamic_modules(build)

    expected = set()
    undecided = set()
    for directive in table["directives"]:
        backport = nginx.backports().get(directive)
        if backport is not None and backport.packages_for(target):
            undecided.add(directive)  # this build may be the package that carries it: a warning
            continue
        entries = directives.nginx_directive(target, directive)
        if not entries:
            continue
        if all(loadable(e.module, dynamic) for e in entries):
            undecided.add(directive)  # present where the config loads the module
        else:
            expected.add(directive)
    known = set(known_names(build, set(table["directives"]) - undecided))
    assert known == expected, (
        f"nginx {build.nginx_version} knows but the table lacks: {sorted(known - expected)}; "
        f"the table has but nginx does not know: {sorted(expected - known)}"
    )
    assert len(expected) > 200


@pytest.mark.parametrize("name", ALL_BUILD_NAMES)
def test_the_directive_table_says_where_each_is_allowed(
    name: str, provisioned: tuple[dict[str, Build], dict[str, str]], tmp_path: Path
) -> None:
    build = require_build(provisioned, name)
    target = build_target(build)
    names = sorted(n for n in json_file("nginx_directives")["directives"]
                   if directives.nginx_directive(target, n))  # fmt: skip
    sample = random.Random(27).sample(names, 40)
    dynamic = dynamic_modules(build)
    outer = {
        c: c.split("_")[0] if c.startswith(("stream", "mail")) else CONTEXTS[c][1] for c in CONTEXTS
    }
    blocks = {c: known(build, outer[c] or "events", tmp_path) for c in CONTEXTS}
    wrong = []
    for directive in sample:
        entries = [
            e
            for e in directives.nginx_directive(target, directive) or ()
            if not loadable(e.module, dynamic)
        ]
        for context in CONTEXTS if entries else ():
            if not blocks[context] or context == "if":
                continue  # a module this build lacks; `if` stands for if in location here
            allowed = any(e.allows(context) for e in entries)
            answer = probe(build, directive, context, tmp_path)
            if allowed != (answer != "absent"):
                wrong.append(f"{directive} in {context}: table {allowed}, nginx {answer}")
    assert not wrong, wrong
