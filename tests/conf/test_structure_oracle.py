"""Structure as real nginx reads it (issue 12): the directive table in the knowledge base is what
the three builds answer, and lint's syntax errors agree with `nginx -t` on mutated configs.
scripts/fuzz.py structure runs the comparison for as many cases as asked."""

from __future__ import annotations

import os
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings

from nginxgen.conf.load import _parse_text, load_path
from nginxgen.knowledge import directives
from nginxgen.knowledge.data import json_file
from nginxgen.lint.run import Selection, lint
from tests.builds import ALL_BUILD_NAMES, BUILD_NAMES, NEWEST_BUILD_NAMES, Build
from tests.conftest import require_build
from tests.directive_probe import CONTEXTS, nginx_t, nginx_t_at, probe
from tests.fuzzing.generate_check import build_target
from tests.fuzzing.structure import (
    accepted_seeds,
    compare,
    mutants,
    semicolon_before_block_sweep,
)

CASES = int(os.environ.get("NGINXGEN_ORACLE_CASES", "150"))


def all_builds(provisioned: tuple[dict[str, Build], dict[str, str]]) -> tuple[Build, ...]:
    return tuple(require_build(provisioned, name) for name in BUILD_NAMES)


@pytest.mark.parametrize("name", (*BUILD_NAMES, *NEWEST_BUILD_NAMES))
def test_directive_table_is_what_the_build_answers(
    name: str, provisioned: tuple[dict[str, Build], dict[str, str]]
) -> None:
    build = require_build(provisioned, name)
    data = json_file("directives")
    checks = [(n, ctx, "block") for n, ctx in data["block"].items()]
    checks += [(n, ctx, "simple") for n, ctx in data["simple"].items()]
    for n, by_parent in data["mixed"].items():
        for ctx, (_, parent) in CONTEXTS.items():
            if str(parent) in by_parent:
                checks.append((n, ctx, by_parent[str(parent)]))

    def one(check: tuple[str, str, str]) -> str | None:
        directive, context, expected = check
        with tempfile.TemporaryDirectory(prefix="nginxgen-probe-") as tmp:
            got = probe(build, directive, context, Path(tmp))
        if got in (expected, "absent"):  # absent: another build's module
            return None
        return f"{directive} in {context}: table says {expected}, nginx {build.nginx_version} {got}"

    with ThreadPoolExecutor(max_workers=2) as pool:
        wrong = [w for w in pool.map(one, checks) if w]
    assert not wrong, wrong[:20]
    assert len(checks) > 500  # the whole table, not a sample


@pytest.mark.parametrize("name", (*BUILD_NAMES, *NEWEST_BUILD_NAMES))
def test_free_content_blocks_hold_values(
    name: str, provisioned: tuple[dict[str, Build], dict[str, str]], tmp_path: Path
) -> None:
    """Inside map, types, geo ... a line is a value: an unknown word there is no directive."""
    build = require_build(provisioned, name)
    heads = {"map": "map $uri $x", "geo": "geo $x", "split_clients": 'split_clients "$uri" $x'}
    for block in directives.directive_shapes().free_content:
        head = heads.get(block, "charset_map a b" if block == "charset_map" else block)
        message = nginx_t(build, f"events {{}} http {{ {head} {{ zz_unknown 1; }} }}", tmp_path)
        assert "unknown directive" not in message, (block, message)
        # ... and the linter judges no line in it as a directive either
        text = f"events {{}} http {{ {head} {{ server 1; location 2; }} }}"
        assert _parse_text(text, "f.conf")[1] == []


def test_structure_agrees_with_nginx(
    provisioned: tuple[dict[str, Build], dict[str, str]],
) -> None:
    builds = all_builds(provisioned)
    seeds = accepted_seeds(builds)
    assert len(seeds) >= 27, "every rendered example must be a seed"
    outcomes: dict[str, int] = {}

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
            outcomes[verdict.nginx] = outcomes.get(verdict.nginx, 0) + 1
            assert verdict.agrees, (kind, build.name, verdict, text)

    one()
    # the run must have met both sides of the comparison, not only undecided mutants
    assert outcomes.get("structural", 0) > CASES // 10
    assert outcomes.get("accepted", 0) > CASES // 10


def test_nginx_names_one_byte_of_a_character_lint_names_whole(
    provisioned: tuple[dict[str, Build], dict[str, str]],
) -> None:
    """The fuzzer's find: after a closing quote nginx says `unexpected "%c"` with the first byte
    of the next character, lint with the character; both name the same place."""
    text = "'env 'русский текст';\nevents {}\n"
    for build in all_builds(provisioned):
        verdict = compare(build, text)
        assert verdict.nginx == "structural" and verdict.agrees, verdict


def test_a_semicolon_lost_before_a_block_after_every_directive(
    provisioned: tuple[dict[str, Build], dict[str, str]],
) -> None:
    """Every directive without NGX_CONF_BLOCK in nginx's source, in each of its contexts, its
    `;` lost right before a block (issue 36), each pair on one of the builds in turn:
    where nginx says it is not terminated by ";", lint has a syntax error.
    `scripts/fuzz.py semicolon` runs every pair on every build."""
    builds = [require_build(provisioned, n) for n in ALL_BUILD_NAMES]
    outcomes, wrong = semicolon_before_block_sweep(builds, spread=True)
    assert not wrong, [(b, n, c, v.message) for b, n, c, v in wrong]
    assert outcomes["structural"] > 1000, outcomes  # the table's directives, not a few


# Where nginx's tokenizer reads a text otherwise than crossplane's (tests/conf/test_lexer.py,
# NGINX_READS_OTHERWISE): the loader reads it as nginx does (issue 45), so lint says what
# `nginx -t` says, at its line. Read as crossplane reads them, each was clean or another error.
WORDS_AS_NGINX_READS_THEM = [
    "events {}\n\x0cworker_rlimit_nofile 10;\n",  # a form feed is a character of a word
    "events {}\nworker_rlimit_nofile\x0b10;\n",  # so is a vertical tab
    "events {}\nworker_rlimit_nofile 10;\xa0\n",  # and a no-break space: `;` is not last
    "events {}\nhttp {\n    map $a ${x;y} { }\n}\n",  # `${` is a word's, and `;` ends it
    "events {}\nhttp {\n    map $a $b { ${x{y} 1; }\n}\n",  # ... and so does `{`
    "events {}\nworker_rlimit_nofile 10;\n\\",  # a backslash at the end starts a word
]


@pytest.mark.parametrize("build", BUILD_NAMES, indirect=True)
def test_words_as_nginx_reads_them(build: Build, tmp_path: Path) -> None:
    for text in WORDS_AS_NGINX_READS_THEM:
        message, line = nginx_t_at(build, text, tmp_path)
        assert message, text  # nginx refuses each
        conf = tmp_path / "lint.conf"
        conf.write_text(text)
        found = lint(load_path(str(conf)), build_target(build), Selection({"NGX001", "NGX007"}))
        said = sorted((f.line, f.message) for f in found)
        assert said[:1] == [(line, message)], (text, said)
