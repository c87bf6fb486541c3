"""Run the rules over loaded configs and apply suppressions and selection."""

from __future__ import annotations

from collections.abc import Callable, Iterable

from nginxgen.base.records import field, record
from nginxgen.conf.config import build
from nginxgen.conf.load import Loaded, walk
from nginxgen.knowledge.target import Target
from nginxgen.lint.context import Context
from nginxgen.lint.findings import Applicability, Finding, Severity
from nginxgen.lint.rules import RuleEntry, triggered


@record
class Selection:
    select: set[str] = field(default_factory=set)  # codes or prefixes; empty: all
    ignore: set[str] = field(default_factory=set)
    min_severity: Severity = Severity.INFO

    def picks(self, code: str, name: str) -> bool:
        """Whether --select and --ignore leave the rule of this code and name."""
        if self.select and not any(code.startswith(s) or name == s for s in self.select):
            return False
        return not any(code.startswith(i) or name == i for i in self.ignore)

    def wants(self, finding: Finding) -> bool:
        return self.picks(finding.code, finding.name) and finding.severity.at_least(
            self.min_severity
        )


def _suppressed(finding: Finding, loaded: Loaded) -> bool:
    """Whether a suppression comment covers the finding: on its line or the line before, or,
    for a statement over several lines named at its last (NGX009 at its `;`), on any of its
    lines or the line above its first."""
    last = finding.line
    first = finding.first_line or last
    for sup in loaded.suppressions:
        if sup.file == finding.file and first - 1 <= sup.line <= last and finding.code in sup.codes:
            sup.used = True
            return True
    return False


def lint(
    loaded: Loaded,
    target: Target,
    selection: Selection,
    report_files: Iterable[str] | None = None,
    build_fixes: bool = True,
    jobs: int = 1,
) -> list[Finding]:
    """The findings; with `build_fixes` False each fixable one says so (`autofix`, `touches`)
    without its edits being built on the lossless model (a plain lint needs no edits).
    `jobs` other than 1: the rules of a large tree run in several processes at once (run_rules)."""
    ctx = Context(build(loaded), target, build_fixes)
    if loaded.stopped is None:
        rules = triggered(ctx.directive_names(), selection.picks)
        return run_rules(ctx, rules, selection, report_files, jobs)
    # nginx stopped reading at the end of a file, in the middle of a statement (an unclosed
    # quote, block or directive): it said what its handlers say of the lines before, and no
    # more; lint says that alone (the rules that judge the whole tree, or advise, judge one
    # nginx never read)
    rules = triggered(
        ctx.directive_names(),
        lambda code, name: code in SAID_READING and selection.picks(code, name),
    )
    return said_before_stop(run_rules(ctx, rules, selection, report_files, jobs), loaded)


# The rules whose findings nginx -t says as it reads: its directives' handlers and what a block
# says at its `}` (the tree's later checks, at http{}'s end and after, are left to the gates
# of those rules: conf.config.build, _blocks.closing_line)
SAID_READING = frozenset(
    {
        "NGX001", "NGX002", "NGX006", "NGX007", "NGX008", "NGX009", "NGX010", "NGX012",
        "NGX013", "NGX014", "NGX016", "NGX021", "NGX022", "NGX024", "NGX025", "NGX026", "NGX027",
        "NGX302",
    }
)  # fmt: skip


def said_before_stop(found: list[Finding], loaded: Loaded) -> list[Finding]:
    """Of the findings of a tree nginx stopped reading (Loaded.stopped), what nginx says: in
    reading order, the warnings up to its first error, and that error (ngx_conf_parse stops at
    the first [emerg]; the end of the file where it stopped comes last)."""
    import bisect  # only for a tree nginx stopped reading: not on every lint's start-up
    import sys

    # each file's statements by line, with their place in reading order (an included file's
    # stand after its include line: walk)
    places: dict[str, list[tuple[int, int]]] = {}
    # where nginx starts reading an included file: at its include line (a finding above the
    # file's first statement, or in a file with none, is said there: trial 21, a syntax error
    # in an include came before the warnings of the lines nginx read first)
    starts: dict[str, int] = {}
    for index, stmt in enumerate(walk(loaded.statements)):
        places.setdefault(stmt.file, []).append((stmt.line, index))
        for file in stmt.includes or ():
            starts.setdefault(file, index)
    for lines in places.values():
        lines.sort()

    def place(finding: Finding) -> tuple[int, int]:
        if (finding.file, finding.line) == loaded.stopped:
            return (sys.maxsize, finding.line)
        lines = places.get(finding.file, [])
        before = bisect.bisect_right(lines, (finding.line, sys.maxsize)) - 1
        return (lines[before][1] if before >= 0 else starts.get(finding.file, -1), finding.line)

    said: set[int] = set()
    for finding in sorted(found, key=place):
        said.add(id(finding))
        if finding.severity is Severity.ERROR:
            break
    return [finding for finding in found if id(finding) in said]


# The statements below which the rules run in one process: a forked process's start, what it
# derives again and the return of its findings cost about what it saves (about 300 of
# bench/run.py's vhosts; measured, docs/benchmarks.md#fleets-on-two-cores-issue-47).
RULES_IN_PARTS_MIN = 4_000


def lint_tree(
    loaded: Loaded,
    target: Target,
    selection: Selection,
    report_files: Iterable[str] | None = None,
    build_fixes: bool = True,
    jobs: int = 1,
) -> list[Finding]:
    """What every shell reports of a loaded tree (the command, the in-process API): its
    findings, without the fixes that would write a file another tool manages."""
    from nginxgen.lint.managed import leave_managed

    found = lint(loaded, target, selection, report_files, build_fixes, jobs)
    return leave_managed(found, loaded.texts)


def run_rules(
    ctx: Context,
    rules: Iterable[RuleEntry],
    selection: Selection,
    report_files: Iterable[str] | None = None,
    jobs: int = 1,
) -> list[Finding]:
    """The findings of these rules on the context's config, selected and not suppressed; with
    `jobs` > 1 and a tree of at least RULES_IN_PARTS_MIN statements, the rules run in that many
    processes (0: as many as nginxgen.base.forks.processes gives), with the same result."""
    loaded = ctx.config.loaded
    only = set(report_files) if report_files is not None else None

    def check(entry: RuleEntry) -> list[Finding]:
        return [
            finding
            for finding in entry.check(ctx)
            if (only is None or finding.file in only) and selection.wants(finding)
        ]

    entries = list(rules)
    parts = 1
    if jobs != 1 and ctx.statement_count() >= RULES_IN_PARTS_MIN:
        from nginxgen.base.forks import processes

        parts = processes(jobs)
    if parts > 1:
        found = _check_in_parts(entries, check, parts)
    else:
        found = [finding for entry in entries for finding in check(entry)]
    findings = _one_per_place(f for f in found if not _suppressed(f, loaded))
    # the message too: two findings of one rule on one line come out in the same order each run
    return sorted(findings, key=lambda f: (f.file, f.line, f.code, f.message))


# how far a fix may go, least first: none, unsafe, safe
_REACH = {None: 0, Applicability.UNSAFE: 1, Applicability.SAFE: 2}


def _one_per_place(found: Iterable[Finding]) -> list[Finding]:
    """One finding per rule, line and message: a file included in several places (one listen
    file in each of three servers) is one line to mend, though a rule meets it in each place
    (found trying nginx-admins-handbook's tree as a new user: NGX302 twice on one line). Where
    the places' fixes differ, the one that goes least far stands for all."""
    kept: dict[tuple[str, int, str, str], Finding] = {}
    for finding in found:
        key = (finding.file, finding.line, finding.code, finding.message)
        other = kept.get(key)
        if other is None or _REACH[finding.autofix] < _REACH[other.autofix]:
            kept[key] = finding
    return list(kept.values())


def _check_in_parts(
    entries: list[RuleEntry], check: Callable[[RuleEntry], list[Finding]], parts: int
) -> list[Finding]:
    """Every rule's findings, the rules run by `parts` processes (this one and forked
    children), each taking the next family of rules from a pipe when it is free. What the rules
    of a family derive from the tree (ctx.memo) is derived once, by the process that runs the
    family; rules apart would each derive it again (on 2,000 vhosts, all rules in processes of
    their own took 1.7x the time of one process). A family is the rules whose codes share their
    first two digits (NGX70x: HSTS, NGX72x: certificate files), and NGX0xx, which reads the
    config and nginx's grammar (NGX007-NGX010 share one judgement of every directive). What a
    child did not report (it failed) is checked here."""
    import os
    import pickle

    from nginxgen.base.forks import each_part

    families: dict[str, list[RuleEntry]] = {}
    for entry in entries:
        code = entry.rule.code
        families.setdefault(code[:4] if code < "NGX1" else code[:5], []).append(entry)
    groups = list(families.values())
    read, write = os.pipe()
    # two bytes a ticket: a read of at most PIPE_BUF bytes is never split between readers
    os.write(write, b"".join(index.to_bytes(2, "big") for index in range(len(groups))))
    os.close(write)

    def part(_: int) -> tuple[list[int], list[Finding]]:
        done: list[int] = []
        found: list[Finding] = []
        while ticket := os.read(read, 2):
            index = int.from_bytes(ticket, "big")
            for entry in groups[index]:
                found.extend(check(entry))
            done.append(index)
        return done, found

    try:
        results = each_part(part, parts, pickle.dumps, pickle.loads)
    finally:
        os.close(read)
    found = [finding for _, some in results for finding in some]
    done = {index for indexes, _ in results for index in indexes}
    for index, group in enumerate(groups):
        if index not in done:
            found.extend(finding for entry in group for finding in check(entry))
    return found
