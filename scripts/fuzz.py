"""Long fuzz runs (issue 7): the checks of tests/*/test_fuzz_*.py for as many cases as asked.

    .venv/bin/python scripts/fuzz.py lint --cases 100000 [--seed N]
    .venv/bin/python scripts/fuzz.py generate --cases 100000 [--seed N] [--build trixie]
    .venv/bin/python scripts/fuzz.py structure --cases 10000 [--seed N]
    .venv/bin/python scripts/fuzz.py grammar --cases 10000 [--seed N]
    .venv/bin/python scripts/fuzz.py fix --cases 100000 [--seed N] [--nginx-every 1]
    .venv/bin/python scripts/fuzz.py live --cases 5000 [--seed N]   (trees, across the builds)
    .venv/bin/python scripts/fuzz.py live-fix --cases 500 [--seed N] [--build awslc]  (probed, fixed, probed)
    .venv/bin/python scripts/fuzz.py live-into --cases 500 [--seed N]  (probed, a site added, probed)
    .venv/bin/python scripts/fuzz.py semicolon [--builds a,b]  (every directive, `;` lost before a block)
    .venv/bin/python scripts/fuzz.py values --cases 20000 [--seed N] [--builds a,b] [--out F]
    .venv/bin/python scripts/fuzz.py observe --cases 500 [--seed N]  (probe vs openssl s_client/curl)
    .venv/bin/python scripts/fuzz.py backends --cases 1000 [--seed N] [--builds a,b]
        (nginx as a TLS client and client certificates: tests/fuzzing/backends.py)

Prints one JSON line of figures (cases run, outcomes, slowest case); with --progress N, the
figures so far every N cases on stderr, so a run stopped from outside still says how far it
got. A failing case stops the run; hypothesis prints it shrunk, with the blob that reproduces
it.

`values` (issue 36) draws its cases from random.Random seeded per case rather than hypothesis
(no shrinking needed: a case is one line), runs `nginx -t` and lint on --jobs threads over every
provisioned build (--builds to choose; a build added to builds.json joins by itself), and does
not stop at a disagreement: it prints them grouped by class, and --out writes each one as a JSON
line. Exit 1 when there is any.

Cases run in chunks of --chunk (2,000): hypothesis keeps every case's choices for the length of
one run (its data tree, which avoids repeats), about 50 KB a case here, so 20,000 linter cases in
one run reached 1.2 GB. Chunk i runs with seed N*1000+i (N=0 without --seed), so a run is
reproducible and its memory is that of one chunk.
"""

from __future__ import annotations

import argparse
import collections
import json
import signal
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from hypothesis import HealthCheck, given, seed, settings
from hypothesis import strategies as st

Figures = dict[str, Any]


def _settings(cases: int, derandomize: bool) -> settings:
    return settings(
        max_examples=cases,
        deadline=None,
        database=None,
        derandomize=derandomize,
        suppress_health_check=list(HealthCheck),
        print_blob=True,
    )


def _record(figures: Figures, kind: object, seconds: float) -> None:
    figures["outcomes"][str(kind)] += 1
    figures["slowest_s"] = max(figures["slowest_s"], round(seconds, 3))
    every = figures.get("progress_every")
    done = sum(figures["outcomes"].values())
    if every and done % every == 0:  # a long run that is stopped still says how far it got
        print(json.dumps({"cases_so_far": done, **figures}), file=sys.stderr, flush=True)


def lint_runner(figures: Figures) -> Callable[..., None]:
    from tests.fuzzing.configs import Tree, trees
    from tests.fuzzing.lint_check import TARGETS, check_lint

    @given(tree=trees, target=st.sampled_from(TARGETS))
    def one(tree: Tree, target: tuple[str, str]) -> None:
        outcome = check_lint(tree, target)
        _record(figures, f"exit {outcome.code}", outcome.seconds)
        figures["syntax_errors"] += outcome.syntax_errors

    return one


def generate_runner(figures: Figures, build_name: str | None) -> Callable[..., None]:
    from tests.builds import load_builds
    from tests.fuzzing.generate_check import GeneratorCase, check_generate
    from tests.fuzzing.models import generator_case

    build = load_builds()[0][build_name] if build_name else None

    @given(case=generator_case())
    def one(case: GeneratorCase) -> None:
        outcome = check_generate(case, build)
        _record(figures, outcome.kind, outcome.seconds)

    return one


def oracle_runner(figures: Figures, kind: str) -> Callable[..., None]:
    """Lint against real nginx -t on mutated configs: its syntax errors on the three builds
    (structure, issue 12), or everything it says nginx -t refuses on every build (grammar,
    issue 27; the newest builds since issue 36)."""
    from tests.builds import ALL_BUILD_NAMES, BUILD_NAMES, load_builds
    from tests.fuzzing import grammar, structure

    found = load_builds()[0]
    oracle = grammar if kind == "grammar" else structure
    names = ALL_BUILD_NAMES if kind == "grammar" else BUILD_NAMES
    builds = tuple(found[name] for name in names)  # a missing build: KeyError
    seeds = structure.accepted_seeds(builds)
    figures["seeds"] = len(seeds)

    @given(mutant=oracle.mutants(seeds))
    def one(mutant: tuple[str, str]) -> None:
        mutation, text = mutant
        started = time.monotonic()
        for build in builds:
            verdict = oracle.compare(build, text)
            figures["nginx"][verdict.nginx] += 1
            if not verdict.agrees:
                figures["disagreements"] += 1
                raise AssertionError((mutation, build.name, verdict, text))
        _record(figures, mutation, time.monotonic() - started)

    return one


EDITOR_FIGURE = {"fix": "moved_by_a_fix", "into": "changed_and_said_by_into"}


def live_runner(
    figures: Figures, editor: str = "", build_name: str | None = None
) -> Callable[..., None]:
    """Random multi-server trees served by the five builds in turn (or by `build_name` alone)
    and probed per name with probe --config (issue 25); with an `editor`, probed again after
    `lint --unsafe-fixes` ("fix") or after `generate --into` with one of the presets ("into")."""
    import tempfile

    from tests.builds import BUILD_NAMES, SOURCE_BUILD_NAMES, Build, load_builds
    from tests.fuzzing.live import (
        INTO_PRESETS,
        LiveOutcome,
        LiveTree,
        check_live,
        check_live_fix,
        check_live_into,
        live_trees,
    )
    from tests.live import PortTaken

    found = load_builds()[0]
    names = (build_name,) if build_name else (*BUILD_NAMES, *SOURCE_BUILD_NAMES)
    builds = [found[name] for name in names]  # missing: KeyError

    def check(tree: LiveTree, build: Build, preset: str) -> LiveOutcome:
        with tempfile.TemporaryDirectory() as folder:
            if editor == "into":
                return check_live_into(tree, build, Path(folder), preset)
            if editor == "fix":
                return check_live_fix(tree, build, Path(folder))
            return check_live(tree, build, Path(folder))

    @given(
        tree=live_trees(),
        pick=st.integers(0, len(builds) - 1),
        preset=st.sampled_from(INTO_PRESETS),
    )
    def one(tree: LiveTree, pick: int, preset: str) -> None:
        for retry in range(3):
            # runs in parallel draw free ports independently: one may take another's port
            # before its nginx binds it; the tree is written again on fresh ports
            try:
                outcome = check(tree, builds[pick], preset)
                break
            except PortTaken:
                figures["retried_on_a_taken_port"] += 1
                if retry == 2:
                    raise
        label = f"{builds[pick].name}{' ' + preset if editor == 'into' else ''}"
        _record(figures, f"{label}: {outcome.kind}", outcome.seconds)
        figures["names_probed"] += outcome.names
        figures[EDITOR_FIGURE.get(editor, "explained_mismatches")] += outcome.mismatches
        figures["values_predicted_and_seen"] += outcome.predicted
        figures["values_not_predicted"] += outcome.unpredicted.total()
        figures["not_predicted_by_observation"].update(outcome.unpredicted)

    return one


def observe_runner(figures: Figures) -> Callable[..., None]:
    """Random multi-server trees served by the five builds in turn; every name probed and
    observed again by openssl s_client and curl (issue 35, tests/fuzzing/observer.py). A
    disagreement does not stop the run: each is printed on stderr as one JSON line (tree, name,
    key, both values) as it is found, and counted."""
    import dataclasses
    import tempfile

    from tests.builds import BUILD_NAMES, SOURCE_BUILD_NAMES, load_builds
    from tests.fuzzing.live import LiveTree
    from tests.fuzzing.observer import check_observed, observed_trees
    from tests.live import PortTaken

    found = load_builds()[0]
    builds = [found[name] for name in (*BUILD_NAMES, *SOURCE_BUILD_NAMES)]  # missing: KeyError

    @given(tree=observed_trees(), pick=st.integers(0, len(builds) - 1))
    def one(tree: LiveTree, pick: int) -> None:
        for retry in range(3):  # another run may take a port before this one's nginx binds it
            try:
                with tempfile.TemporaryDirectory() as folder:
                    outcome = check_observed(tree, builds[pick], found, Path(folder))
                break
            except PortTaken:
                figures["retried_on_a_taken_port"] += 1
                if retry == 2:
                    raise
        figures["names_observed"] += outcome.names
        figures["observations_by_key"].update(outcome.observations)
        for disagreement in outcome.disagreements:
            figures["disagreements"] += 1
            figures["disagreements_by_key"][disagreement.key] += 1
            line = {"disagreement": dataclasses.asdict(disagreement)}
            print(json.dumps(line), file=sys.stderr, flush=True)
        _record(figures, f"{builds[pick].name}: {outcome.kind}", outcome.seconds)

    return one


def backends_runner(figures: Figures, builds: list[Any], pools: dict[str, Any],
                    folder: Path) -> Callable[..., None]:  # fmt: skip
    """Random front trees with TLS backends and client-certificate servers, each served by one
    of `builds` in front of that build's backend pool (started once, kept in `pools` for the
    run); every location and request compared with the model (tests/fuzzing/backends.py). A
    disagreement does not stop the run: each is printed on stderr as one JSON line."""
    import dataclasses
    import tempfile

    from tests.fuzzing.backends import BackendPool, BackendTree, backend_trees, check_backends
    from tests.live import PortTaken

    @given(tree=backend_trees(), pick=st.integers(0, len(builds) - 1))
    def one(tree: BackendTree, pick: int) -> None:
        build = builds[pick]
        if build.name not in pools:
            pools[build.name] = BackendPool(build, folder / build.name).__enter__()
        for retry in range(3):  # another run may take a port before this one's nginx binds it
            try:
                with tempfile.TemporaryDirectory() as tree_folder:
                    outcome = check_backends(tree, build, pools[build.name], Path(tree_folder))
                break
            except PortTaken:
                figures["retried_on_a_taken_port"] += 1
                if retry == 2:
                    raise
        figures["locations"] += outcome.locations
        figures["requests"] += outcome.requests
        figures["observations_by_key"].update(outcome.observations)
        figures["observed_values"].update(outcome.values)
        figures["not_predicted"].update(outcome.unpredicted)
        if outcome.refusal:
            figures["refused_by"][outcome.refusal.split("] ", 1)[-1].split(" in /")[0]] += 1
        for disagreement in outcome.disagreements:
            figures["disagreements"] += 1
            figures["disagreements_by_key"][disagreement.key] += 1
            line = {"build": build.name, "disagreement": dataclasses.asdict(disagreement)}
            print(json.dumps(line), file=sys.stderr, flush=True)
        _record(figures, f"{build.name}: {outcome.kind}", outcome.seconds)

    return one


def fix_runner(figures: Figures, nginx_every: int) -> Callable[..., None]:
    """lint --fix --unsafe-fixes (issue 13); every `nginx_every`-th case on a real build also
    goes through its nginx -t before and after."""
    from nginxgen.knowledge.target import resolve
    from tests.builds import BUILD_NAMES, load_builds
    from tests.fuzzing.configs import mutated, seed_texts
    from tests.fuzzing.fix_check import check_fix, rule_cases
    from tests.fuzzing.generate_check import build_target

    found = load_builds()[0]
    seeds = st.one_of(st.sampled_from(seed_texts()), st.sampled_from(rule_cases()))

    @given(
        data=seeds.flatmap(lambda s: st.one_of(st.just(s), mutated(s))),
        choice=st.sampled_from((*BUILD_NAMES, "boringssl")),
        ask=st.integers(0, max(nginx_every - 1, 0)),
    )
    def one(data: bytes, choice: str, ask: int) -> None:
        build = None if choice == "boringssl" else found[choice]  # a missing build: KeyError
        target = build_target(build) if build else resolve("1.31.3", "boringssl")
        outcome = check_fix(data, target, build if ask == 0 else None)
        _record(figures, outcome.kind, outcome.seconds)

    return one


def chosen_builds(option: str | None) -> list[Any]:
    """The --builds named, or every provisioned build (a build added to builds.json joins)."""
    from tests.builds import load_builds

    found, missing = load_builds()
    names = option.split(",") if option else sorted(found)
    absent = [n for n in names if n not in found]
    if absent:
        raise SystemExit(f"builds missing: {', '.join(f'{n} ({missing.get(n)})' for n in absent)}")
    return [found[n] for n in names]


def semicolon_main(args: argparse.Namespace) -> int:
    from tests.fuzzing.structure import semicolon_before_block_sweep

    builds = chosen_builds(args.builds)
    started = time.monotonic()
    outcomes, wrong = semicolon_before_block_sweep(builds)
    print(json.dumps({
        "target": "semicolon", "builds": [b.name for b in builds], "nginx": dict(outcomes),
        "cases": sum(outcomes.values()), "disagreements": len(wrong),
        "wall_s": round(time.monotonic() - started, 1),
        "examples": [(b, n, c, v.message, v.lint_errors) for b, n, c, v in wrong[:50]],
    }, indent=1))  # fmt: skip
    return 1 if wrong else 0


def values_main(args: argparse.Namespace) -> int:
    from tests.fuzzing import values

    builds = chosen_builds(args.builds)
    names = [b.name for b in builds]

    def progress(figures: dict[str, Any]) -> None:
        print(json.dumps(figures), file=sys.stderr, flush=True)

    report = values.run(builds, args.cases, args.seed or 0, args.jobs, args.progress, progress)
    if args.out:
        with open(args.out, "w") as out:
            for verdict in report.disagreements:
                out.write(json.dumps(values.describe(verdict)) + "\n")
    print(json.dumps({"target": "values", "seed": args.seed or 0, "builds": names,
                      **report.summary()}, indent=1))  # fmt: skip
    return 1 if report.disagreements else 0


def _interrupted(signum: int, frame: object) -> None:
    """SIGTERM as Ctrl-C: the case at hand unwinds, so the nginx it serves is stopped by its
    pid (a run stopped from outside leaves no server behind; a background job ignores SIGINT)."""
    raise KeyboardInterrupt


def main() -> int:
    signal.signal(signal.SIGTERM, _interrupted)
    parser = argparse.ArgumentParser(description="long fuzz runs of the linter or generator")
    parser.add_argument(
        "target",
        choices=(
            "lint",
            "generate",
            "structure",
            "grammar",
            "fix",
            "live",
            "live-fix",
            "live-into",
            "values",
            "semicolon",
            "observe",
            "backends",
        ),
    )
    parser.add_argument("--cases", type=int, default=100_000)
    parser.add_argument("--seed", type=int, help="hypothesis seed (default: derandomized)")
    parser.add_argument(
        "--build",
        help="generate: also run nginx -t on this provisioned build; live*: serve every tree "
        "on this build alone",
    )
    parser.add_argument(
        "--nginx-every", type=int, default=1, help="fix: run nginx -t on one case in N"
    )
    parser.add_argument("--chunk", type=int, default=2_000, help="cases per hypothesis run")
    parser.add_argument(
        "--progress", type=int, default=0, help="print the figures so far every N cases (stderr)"
    )
    parser.add_argument(
        "--builds", help="values, semicolon, backends: comma-separated build names (default: all)"
    )
    parser.add_argument("--jobs", type=int, default=2, help="values: nginx -t processes at once")
    parser.add_argument("--out", help="values: write each disagreement as a JSON line here")
    args = parser.parse_args()
    if args.target == "values":
        return values_main(args)
    if args.target == "semicolon":
        return semicolon_main(args)
    figures: Figures = {"outcomes": collections.Counter(), "slowest_s": 0.0, "syntax_errors": 0}
    if args.progress:
        figures["progress_every"] = args.progress
    if args.target in ("structure", "grammar"):
        figures.update(nginx=collections.Counter(), disagreements=0)
    editor = args.target.removeprefix("live").removeprefix("-")
    if args.target.startswith("live"):
        figures.update(
            names_probed=0,
            **{EDITOR_FIGURE.get(editor, "explained_mismatches"): 0},
            values_predicted_and_seen=0,
            values_not_predicted=0,
            not_predicted_by_observation=collections.Counter(),
            retried_on_a_taken_port=0,
        )

    if args.target == "observe":
        figures.update(
            names_observed=0,
            observations_by_key=collections.Counter(),
            disagreements=0,
            disagreements_by_key=collections.Counter(),
            retried_on_a_taken_port=0,
        )

    pools: dict[str, Any] = {}  # backends: each build's backend pool, for the whole run
    if args.target == "backends":
        import tempfile

        figures.update(
            locations=0,
            requests=0,
            observations_by_key=collections.Counter(),
            observed_values=collections.Counter(),
            not_predicted=collections.Counter(),
            refused_by=collections.Counter(),
            disagreements=0,
            disagreements_by_key=collections.Counter(),
            retried_on_a_taken_port=0,
        )
        backend_builds = chosen_builds(args.builds)
        pool_folder = Path(tempfile.mkdtemp(prefix="nginxgen-backends-"))

    def runner() -> Callable[..., None]:  # a fresh @given test for each hypothesis run
        if args.target == "lint":
            return lint_runner(figures)
        if args.target in ("structure", "grammar"):
            return oracle_runner(figures, args.target)
        if args.target == "fix":
            return fix_runner(figures, args.nginx_every)
        if args.target.startswith("live"):
            return live_runner(figures, editor, args.build)
        if args.target == "observe":
            return observe_runner(figures)
        if args.target == "backends":
            return backends_runner(figures, backend_builds, pools, pool_folder)
        return generate_runner(figures, args.build)

    started = time.monotonic()
    try:
        _run(args, runner)
    finally:  # every backend pool's nginx is stopped by its pid, also on Ctrl-C or SIGTERM
        for pool in pools.values():
            pool.__exit__()
        if args.target == "backends":
            import shutil

            shutil.rmtree(pool_folder, ignore_errors=True)
    figures.update(
        target=args.target,
        seed=args.seed,
        build=args.build,
        builds=[b.name for b in backend_builds] if args.target == "backends" else None,
        cases_asked=args.cases,
        cases_run=sum(figures["outcomes"].values()),
        wall_s=round(time.monotonic() - started, 1),
    )
    print(json.dumps(figures))
    return 1 if args.target == "backends" and figures["disagreements"] else 0


def _run(args: argparse.Namespace, runner: Callable[[], Callable[..., None]]) -> None:
    if args.cases <= args.chunk:  # one run, derandomized without --seed
        one = _settings(args.cases, derandomize=args.seed is None)(runner())
        if args.seed is not None:
            one = seed(args.seed)(one)
        one()
    else:
        for i, first in enumerate(range(0, args.cases, args.chunk)):
            size = min(args.chunk, args.cases - first)
            seed((args.seed or 0) * 1000 + i)(_settings(size, derandomize=False)(runner()))()


if __name__ == "__main__":
    sys.exit(main())
