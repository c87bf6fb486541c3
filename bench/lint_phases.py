"""Where a lint of a large tree spends its time (issue 47): the CPU time of each phase of one
lint, in this process, for bench/run.py's trees of N vhosts (one file, one include per vhost),
in one process (--jobs 1) and in as many as lint takes (the children's CPU time beside).

    python bench/lint_phases.py [--vhosts 2000,...] [--repeat 5] [--forced]

`--forced`: the several-process lint with every threshold at 0 (each way of sharing the work
on, whatever the size: how the thresholds were chosen, docs/benchmarks.md).

Phases: reading the files, their real paths, lexing, the token checks (_check_tokens), the
statements (parse_tokens), the rest of loading (statements made into Stmt, includes followed:
the walk), the model (conf.config.build), the rules (and each family's share of them, as
nginxgen.lint.run groups them, in this process), the report. Each phase's time is
the median over `--repeat` lints (and the wall time of loading and of the rules), each lint in a
fresh process (what a command pays, imports
aside: they are the start-up, which bench/run.py's small file measures).
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from run import write_tree

PHASES = r"""
import gc, json, os, resource, sys, time
from nginxgen.conf import config, load
from nginxgen.lint import run
from nginxgen.lint import output as report
from nginxgen.lint.context import Context
from nginxgen.lint.options import resolve_options
from nginxgen.lint.args import parse
from nginxgen.lint.rules import triggered

path, jobs = sys.argv[1], int(sys.argv[2])
gc.set_threshold(100_000, 50, 1000)  # as `nginxgen lint` runs
spent = {}

def cpu():
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime, children.ru_utime + children.ru_stime

def timed(name, function, make=lambda found: found):
    def wrapper(*args, **kwargs):
        start = time.process_time()
        try:
            return make(function(*args, **kwargs))
        finally:
            spent[name] = spent.get(name, 0.0) + time.process_time() - start
    return wrapper

load.read_text = timed("read", load.read_text)
load.PassCache.real_path = timed("real paths", load.PassCache.real_path)
load.scan = timed("lex", load.scan)
load._check_tokens = timed("token checks", load._check_tokens)
load.parse_tokens = timed("statements", load.parse_tokens)
given = ["--jobs", str(jobs)] if jobs else []  # 0: lint's default
options = resolve_options(
    parse(["--nginx-version", "1.26.3", "--tls-library", "openssl-3.5", *given, path]), os.getcwd()
)
before, clock = cpu(), time.perf_counter()
loaded = load.load_path(path, jobs=options.jobs)
after_load = cpu()
wall = {"loading, wall": time.perf_counter() - clock}
spent["walk and the rest of loading"] = (after_load[0] - before[0]) - sum(spent.values())
spent["loading, children"] = after_load[1] - before[1]
ctx = Context(config.build(loaded), options.target, False)
names = ctx.directive_names()
after_model = cpu()
spent["model"] = after_model[0] - after_load[0]
rules = list(triggered(names, options.selection.picks))
for entry in rules:  # each family's time (in this process; a child's is its own)
    code = entry.rule.code
    family = code[:4] + "xx" if code < "NGX1" else code[:5] + "x"
    object.__setattr__(entry, "check", timed(f"rules {family}", entry.check, list))
after_build = cpu()
spent["importing the rules"] = after_build[0] - after_model[0]
clock = time.perf_counter()
found = run.run_rules(ctx, rules, options.selection, None, options.jobs)
after_rules = cpu()
wall["rules, wall"] = time.perf_counter() - clock
spent["rules"] = after_rules[0] - after_build[0]
families = [(k, spent.pop(k)) for k in list(spent) if k.startswith("rules NGX")]
spent.update(sorted(families, key=lambda kv: -kv[1]))
spent["rules, children"] = after_rules[1] - after_build[1]
report.render("text", found, options.target, loaded.files)
spent["report"] = cpu()[0] - after_rules[0]
print(json.dumps({**spent, **wall}))
"""


FORCED = """
from nginxgen.conf import lexer as _lexer, load as _load
from nginxgen.lint import run as _run
_lexer.PART_MIN = _load.READ_AHEAD_MIN = _run.RULES_IN_PARTS_MIN = 0
"""


def phases(main: Path, jobs: int, repeat: int, forced: bool = False) -> dict[str, float]:
    """Each phase's median CPU seconds over `repeat` fresh processes."""
    runs: list[dict[str, float]] = []
    for _ in range(repeat):
        done = subprocess.run(
            [sys.executable, "-c", (FORCED if forced else "") + PHASES, str(main), str(jobs)],
            capture_output=True,
            text=True,
            check=False,
            cwd=main.parent,
        )
        if done.returncode != 0:
            raise SystemExit(done.stderr)
        runs.append(json.loads(done.stdout))
    names = dict.fromkeys(name for r in runs for name in r)  # a family may run in a child
    return {name: round(statistics.median(r.get(name, 0.0) for r in runs), 3) for name in names}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--vhosts", default="2000")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--forced", action="store_true")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        for vhosts in (int(n) for n in args.vhosts.split(",")):
            for split in (False, True):
                main_file = write_tree(Path(tmp) / f"{vhosts}-{split}", vhosts, split)
                label = f"{vhosts} vhosts, {'one include per vhost' if split else 'one file'}"
                several = "--jobs 2, every threshold at 0" if args.forced else "default jobs"
                for jobs, name in ((1, "--jobs 1"), (2 if args.forced else 0, several)):
                    found = phases(main_file, jobs, args.repeat, args.forced and jobs != 1)
                    print(f"{label}, {name}:")
                    for phase, seconds in found.items():
                        print(f"  {phase:32} {seconds:.3f} s")


if __name__ == "__main__":
    main()
