"""Where each of lint's ways of using more than one core starts paying (issue 47): for trees of N
vhosts (bench/run.py's), one way at a time forced on (its threshold at 0, the others out of
reach, `--jobs 2`) against `--jobs 1`, paired, and all three forced together.

    python bench/parallel.py [--sizes 50,100,200,500,1000,2000] [--runs 7] [--out FILE]

The ways, each with the threshold that keeps smaller trees in one process: a large file lexed in
pieces (nginxgen.conf.lexer.PART_MIN, characters of one file), the included files of a level
read and parsed ahead (nginxgen.conf.load.READ_AHEAD_MIN, files), the rule families
(nginxgen.lint.run.RULES_IN_PARTS_MIN, statements). The medians of the paired ratios (forced /
one process, wall and CPU) and the load average are printed and written as JSON; below 1.0 a
way pays at that size.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from run import compare, write_tree

THRESHOLDS = {
    "lexer pieces": ("nginxgen.conf.lexer", "PART_MIN"),
    "read ahead": ("nginxgen.conf.load", "READ_AHEAD_MIN"),
    "rule families": ("nginxgen.lint.run", "RULES_IN_PARTS_MIN"),
}
FAR = 10**12  # a threshold no tree reaches


def forced(python: str, ways: set[str]) -> list[str]:
    """The console script's lint with these ways' thresholds at 0 and the others at FAR."""
    sets = "; ".join(
        f"__import__({module!r}, fromlist=['_']).{name} = {0 if way in ways else FAR}"
        for way, (module, name) in THRESHOLDS.items()
    )
    code = f"import sys; {sets}; from nginxgen.shell.cli import console; console()"
    return [python, "-c", code]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", default="50,100,200,500,1000,2000")
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    python = sys.executable
    target = ["lint", "--nginx-version", "1.26.3", "--tls-library", "openssl-3.5"]
    serial = [str(Path(python).with_name("nginxgen")), *target, "--jobs", "1"]
    results: dict[str, object] = {"date": time.strftime("%Y-%m-%d"), "runs": args.runs}
    with tempfile.TemporaryDirectory() as tmp:
        for size in (int(s) for s in args.sizes.split(",") if s):
            for split in (False, True):
                main_file = write_tree(Path(tmp) / f"{size}-{split}", size, split)
                ways = ["read ahead" if split else "lexer pieces", "rule families"]
                tools = {"--jobs 1": [*serial, str(main_file)]}
                for forced_ways in ([way] for way in ways):
                    tools[", ".join(forced_ways)] = [
                        *forced(python, set(forced_ways)),
                        *target,
                        "--jobs",
                        "2",
                        str(main_file),
                    ]
                tools["both"] = [*forced(python, set(ways)), *target, "--jobs", "2", str(main_file)]
                label = f"{size} vhosts, {'one include per vhost' if split else 'one file'}"
                found = compare(tools, args.runs, tmp)
                results[label] = found
                ratios = {
                    name: (
                        found[name]["paired --jobs 1 / this, wall"],
                        found[name]["paired --jobs 1 / this, cpu"],
                    )
                    for name in tools
                    if name != "--jobs 1"
                }
                # printed as forced / one process: below 1.0 the way pays
                shown = ", ".join(
                    f"{name} {1 / wall:.2f} wall {1 / cpu:.2f} cpu"
                    for name, (wall, cpu) in ratios.items()
                )
                print(f"{label}: {shown}; load {found['load average']}", flush=True)
    if args.out:
        args.out.write_text(json.dumps(results, indent=2) + "\n")


if __name__ == "__main__":
    main()
