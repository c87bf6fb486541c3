"""`generate --into`: show or carry out a plan, then lint the tree as it will be.

Writing is all or nothing, with the file safety of `--out` (a read-only file, or one changed
since it was read, stops everything). With an nginx binary its `nginx -t` runs before and after;
when it passed before and fails after, every file is put back (exit 3). The lint afterwards
separates what the plan could have caused (there should be nothing) from what it leaves alone in
the user's own sites ("left as is", with `nginxgen lint --fix` as the way on).
"""

from __future__ import annotations

import difflib
import os
from collections.abc import Callable
from pathlib import Path
from typing import Generic, Protocol, TypeVar

from nginxgen.base.errors import NginxgenError
from nginxgen.base.records import field, record
from nginxgen.conf.load import Loaded, load_path
from nginxgen.conf.tree import notes, refuse_outside
from nginxgen.files.diff import FileDiff
from nginxgen.files.diff import unified as diff_of
from nginxgen.files.writer import Change, put_back, replace_all, replace_read
from nginxgen.generate.cli import GenerateOptions
from nginxgen.into.plan import IntoPlan, plan_into


class Located(Protocol):
    """What the planner reads of a finding (the command passes the linter's; the planner sits
    below the linter and knows no more of them)."""

    @property
    def file(self) -> str: ...

    @property
    def line(self) -> int: ...

    @property
    def code(self) -> str: ...

    @property
    def message(self) -> str: ...


Finding = TypeVar("Finding", bound=Located)


@record
class IntoResult(Generic[Finding]):
    plan: IntoPlan
    diff: str
    ours: list[Finding] = field(default_factory=list)  # findings the plan could have avoided
    left: list[Finding] = field(default_factory=list)  # findings in the user's own lines
    # findings in the user's own lines, unchanged, that lint of the tree before did not have:
    # this run's doing (a line that agreed with the default server's before its change), not
    # the user's, and not said as if it were
    caused: list[Finding] = field(default_factory=list)
    # findings in what nginxgen wrote that the user's own lines draw word for word: the plan
    # wrote as the tree does where the other way warns (`listen ... http2` mirrored, NGX014)
    followed: list[Finding] = field(default_factory=list)
    written: list[str] = field(default_factory=list)  # report lines of the write
    notes: list[str] = field(default_factory=list)  # where the tree was read (conf.tree.notes)


def main_file(into: Path, root: Path | None) -> str:
    main = root if root is not None else into / "nginx.conf"
    if not into.is_dir():
        raise NginxgenError(f"no such folder: {into}", where="--into")
    if not main.is_file():
        raise NginxgenError(
            f"no main file {main.name} here (give --root FILE for another name)", where=str(into)
        )
    return str(main.absolute())


def unified(plan: IntoPlan) -> str:
    """The plan's diff (nginxgen.files.diff): changed and new files, each named where the write
    goes (a symlinked vhost at its target, as lint --fix --diff names it: patch refuses to write
    through a link and left a .rej in sites-enabled/, which nginx then read; trial 21), then the
    new symlinks."""
    files = [FileDiff(os.path.realpath(f), plan.originals[f], new) for f, new in plan.texts.items()]
    links = [FileDiff(link, None, target, new_link=True) for link, target in plan.links.items()]
    return diff_of(files + links)


def _lint_after(
    plan: IntoPlan, check: Callable[[Loaded], list[Finding]]
) -> tuple[list[Finding], list[Finding], list[Finding], list[Finding]]:
    """The findings of the tree as it will be: ours (in a file nginxgen writes, or on a line it
    changed that the same finding was not on before), the user's own, those of ours that
    the user's lines drew before word for word (followed: the plan wrote as the tree does, and
    they are mended with the tree's own), and those on the user's unchanged lines that lint
    found nothing of that code on before (caused: the change of another line made them, as a
    default server's value changed under a vhost line that agreed with it; by code and line,
    not message, which names the value in effect). A listen line that gets `default_server`
    keeps what the user wrote on it (a deprecated `http2`): its finding was there before, on
    the line it came from, and is the user's."""
    loaded = load_path(plan.main, path_map=plan.path_map, overlay=plan.overlay(), infer=False)
    findings = check(loaded)
    came_from: dict[tuple[str, int], int] = {}  # a changed line -> the line it replaced
    kept: dict[tuple[str, int], int] = {}  # an unchanged line of a changed file -> its old one
    for file, new in plan.texts.items():
        old = plan.originals[file]
        if old is None or file in plan.ours:
            continue
        matcher = difflib.SequenceMatcher(a=old.splitlines(), b=new.splitlines(), autojunk=False)
        for tag, i1, i2, j1, j2 in matcher.get_opcodes():
            if tag == "equal":
                for offset in range(j2 - j1):
                    kept[(os.path.realpath(file), j1 + offset + 1)] = i1 + offset + 1
            else:
                for line in range(j1, max(j2, j1 + 1)):
                    # a line replaced one for one came from its twin; an added one from none
                    twin = i1 + line - j1 + 1 if tag == "replace" and i2 - i1 == j2 - j1 else 0
                    came_from[(os.path.realpath(file), line + 1)] = twin
    ours_files = {os.path.realpath(f) for f in plan.ours}

    def mine(finding: Finding, before: set[tuple[str, int, str, str]]) -> bool:
        where = os.path.realpath(finding.file)
        origin = came_from.get((where, finding.line))
        return where in ours_files or (
            origin is not None and (where, origin, finding.code, finding.message) not in before
        )

    def split(before: set[tuple[str, int, str, str]]) -> tuple[list[Finding], list[Finding]]:
        ours = [f for f in findings if mine(f, before)]
        return ours, [f for f in findings if not mine(f, before)]

    ours, left = split(set())
    if not ours and not left:
        return ours, left, [], []
    original = load_path(plan.main, path_map=plan.path_map, infer=False)
    before = {(os.path.realpath(f.file), f.line, f.code, f.message) for f in check(original)}
    ours, left = split(before)
    said = {(code, message) for _, _, code, message in before}
    followed = [f for f in ours if (f.code, f.message) in said]
    there = {(file, line, code) for file, line, code, _ in before}

    def made_here(finding: Finding) -> bool:
        where = os.path.realpath(finding.file)
        return (where, kept.get((where, finding.line), finding.line), finding.code) not in there

    caused = [f for f in left if made_here(f)]
    left = [f for f in left if f not in caused]
    return [f for f in ours if f not in followed], left, followed, caused


def _changes(plan: IntoPlan) -> list[Change]:
    texts = {f: t for f, t in plan.texts.items() if plan.originals[f] != t}
    changes = replace_read(plan.originals, texts)
    for link, target in plan.links.items():
        changes.append(Change(os.path.basename(link), Path(link), None, "", None, link=target))
    return changes


def run_into(
    into: Path, options: GenerateOptions, check: Callable[[Loaded], list[Finding]]
) -> IntoResult[Finding]:
    """Plan the sites into the tree in `into`, judge the result with `check` (the
    command passes lint: the planner sits below the linter and does not import it), write it all
    or nothing (not with --diff), and never outside the folder: a plan that would is refused
    whole (exit 2), --diff or not."""
    from nginxgen.files.nginx_check import write_checked

    main = main_file(into, options.root)
    plan = plan_into(main, options.model, options.target, *options.mapping.for_main(main))
    folder = str(into.absolute())
    writes = [*(f for f in plan.texts if plan.originals[f] != plan.texts[f]), *plan.links]
    refuse_outside(writes, [folder], "the folder given", plan.path_map)
    result: IntoResult[Finding] = IntoResult(plan, unified(plan))
    result.notes = notes(plan.inferred, plan.read, folder, plan.copied, options.mapping.conf_path)
    result.ours, result.left, result.followed, result.caused = _lint_after(plan, check)
    if options.diff or not result.diff:
        return result
    changes = _changes(plan)
    folders = sorted({c.path.parent for c in changes if not c.path.parent.exists()})

    def write() -> list[str]:
        for folder in folders:  # a folder of our own (nginxgen.d/), created empty first
            folder.mkdir(parents=True)
        try:
            replace_all(changes)
        except BaseException:
            _remove_empty(folders)
            raise
        return [f"wrote {c.path}" for c in changes]

    def undo() -> None:
        put_back(changes)
        _remove_empty(folders)

    away = {main: plan.elsewhere} if plan.elsewhere is not None else None
    result.written = write_checked(options.nginx_bin, [main], write, undo, options.prefix, away)
    return result


def _remove_empty(folders: list[Path]) -> None:
    for folder in reversed(folders):
        if folder.is_dir() and not any(folder.iterdir()):
            folder.rmdir()
