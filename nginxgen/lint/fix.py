"""`nginxgen lint --fix`: apply the findings' automatic fixes until nothing changes.

Each pass loads the tree (with the files changed so far held in memory), lints it, and takes the
fixes of the allowed classes whose edits overlap none taken in the same pass; files with a syntax
error get none. After a pass that changes nothing the result is final; ten passes without that is
an internal error naming the rules that keep changing. A changed file that no longer parses as
cleanly as before is an internal error too. Nothing is written here: the caller shows a diff or
writes every file or none (nginxgen.files.writer's all-or-none replacement).
"""

from __future__ import annotations

from collections.abc import Callable

from nginxgen.base.records import field, record
from nginxgen.conf.load import STDIN_NAME, Loaded
from nginxgen.edit.edits import Edit, apply
from nginxgen.lint.findings import Applicability, Finding, Severity

TYPE_CHECKING = False  # typing is not imported at run time: it slows every pre-commit start
if TYPE_CHECKING:
    from pathlib import Path

    from nginxgen.files.writer import Change, EarlyStaging

MAX_PASSES = 10
ENCODING = ("utf-8", "surrogateescape")  # the loader's reading of bytes as text


class FixError(Exception):
    """The fixes did not settle or broke a file: an internal error, nothing is written."""


@record
class FixOutcome:
    originals: dict[str, str]  # file -> text as first read, for every changed file
    changed: dict[str, str]  # file -> fixed text
    fixed: list[str] = field(default_factory=list)  # the code of each fix applied
    findings: list[Finding] = field(default_factory=list)  # what remains after the last pass
    files: list[str] = field(default_factory=list)  # the files the last pass read (the report's)


def _overlaps(edit: Edit, taken: list[Edit]) -> bool:
    return any(
        (edit.start < other.end and other.start < edit.end) or edit.start == other.start
        for other in taken
    )


def _held_back(findings: list[Finding]) -> set[Finding]:
    """The findings whose fixes are not built in this pass. On a statement nginx refuses
    outright (an error of NGX001-NGX013: structure, name, place, argument count, value,
    variable, shared memory zone, listen options) only
    the structural rules' own mends are built (NGX006 deleting a repeated line): any other fix
    would be written on a line `nginx -t` still refuses (`ssl_protocols TLSv1.2 TLSv13;` must not
    become `ssl_protocols TLSv1.2 TLSv13 TLSv1.3;`). A line with another error (an unknown group,
    say) is mended by that error's own fix first: another fix built on it now (a tuple around
    the unknown name) would still fail."""
    refused = {_statement(f) for f in findings if f.severity is Severity.ERROR and _grammar(f.code)}
    erring = {_statement(f) for f in findings if f.severity is Severity.ERROR}
    return {
        f
        for f in findings
        if (_statement(f) in refused and not (_grammar(f.code) and f.code != "NGX010"))
        or (f.severity is not Severity.ERROR and _statement(f) in erring)
    }


def _statement(finding: Finding) -> tuple[str, int]:
    """The statement a finding is about, by its file and first line: nginx's errors name a
    statement over several lines at its last (Finding.first_line keeps its first), advice at
    its first, and both are the same statement's."""
    return finding.file, finding.first_line or finding.line


def _grammar(code: str) -> bool:
    return code.startswith("NGX0")  # the NGX0xx family: what nginx -t refuses as written


def run_fixes(
    load: Callable[[dict[str, str]], Loaded],
    lint: Callable[[Loaded], list[Finding]],
    classes: frozenset[Applicability],
    trace: list[tuple[str, bytes, list[Edit], bytes]] | None = None,
    on_change: Callable[[FixOutcome], None] | None = None,
) -> FixOutcome:
    """`trace`, when given, receives each file change of each pass as (file, bytes before,
    edits, bytes after): the fuzz tests check from it that nothing outside the edits moved.
    `on_change` is called after each pass that changed something, before the next one."""
    overlay: dict[str, str] = {}
    outcome = FixOutcome(originals={}, changed=overlay)
    last_codes: list[str] = []
    for _ in range(MAX_PASSES):
        loaded = load(overlay)
        findings = lint(loaded)
        broken = {p.file for p in loaded.problems if p.kind == "syntax"}
        if broken & set(overlay):
            raise FixError(
                f"a fix left {sorted(broken & set(overlay))[0]} unparsable; nothing written"
            )
        taken, codes = _choose(findings, classes, broken)
        if not taken:
            outcome.findings = findings
            outcome.files = list(loaded.files)
            for file in [f for f, text in overlay.items() if text == outcome.originals[f]]:
                del overlay[file], outcome.originals[file]  # same bytes: not "fixed", not written
            return outcome
        _apply(outcome, loaded.texts, taken, trace)
        outcome.fixed.extend(codes)
        last_codes = codes
        if on_change is not None:
            on_change(outcome)
    raise FixError(
        f"fixes did not settle after {MAX_PASSES} passes (still changing: "
        f"{', '.join(sorted(set(last_codes)))})"
    )


def _choose(
    findings: list[Finding], classes: frozenset[Applicability], broken: set[str]
) -> tuple[dict[str, list[Edit]], list[str]]:
    """One pass's edits by file, and the code of each fix they make: every fix of the allowed
    classes not held back, on no file with a syntax error, overlapping neither a fix taken
    before it nor itself."""
    taken: dict[str, list[Edit]] = {}
    codes: list[str] = []
    held = _held_back(findings)
    for finding in findings:
        if finding in held:
            continue
        chosen = finding.edits if finding.autofix in classes else ()
        if not chosen:
            continue
        if {file for file, _ in chosen} & broken:
            continue  # a file with a syntax error gets no fix
        if any(_overlaps(e, taken.get(file, [])) for file, e in chosen):
            continue  # the next pass, against the text this one leaves
        if any(
            _overlaps(e, [o for f, o in chosen[:i] if f == file])
            for i, (file, e) in enumerate(chosen)
        ):
            continue  # a fix whose own edits collide is not applied at all
        for file, edit in chosen:
            taken.setdefault(file, []).append(edit)
        codes.append(finding.code)
    return taken, codes


def _apply(
    outcome: FixOutcome,
    texts: dict[str, str],
    taken: dict[str, list[Edit]],
    trace: list[tuple[str, bytes, list[Edit], bytes]] | None,
) -> None:
    """The pass's edits made on the texts it read, into `outcome.changed` (the overlay the next
    pass loads), each file's first text kept in `outcome.originals`."""
    for file, edits in taken.items():
        text = texts[file]
        outcome.originals.setdefault(file, text)
        before = text.encode(*ENCODING)
        after = apply(before, edits)
        outcome.changed[file] = after.decode(*ENCODING)
        if trace is not None:
            trace.append((file, before, edits, after))


def unified_diff(outcome: FixOutcome) -> str:
    """The diff of the fixes (nginxgen.files.diff), naming each file where the write goes: a
    symlinked file at its target."""
    import os

    from nginxgen.files.diff import FileDiff, unified

    def where(file: str) -> str:
        return file if file == STDIN_NAME else os.path.realpath(file)

    return unified(
        FileDiff(where(f), outcome.originals[f], new) for f, new in outcome.changed.items()
    )


def merge(outcomes: list[FixOutcome]) -> FixOutcome:
    """One outcome for several paths given, so that all their files are written or none. A file
    that two of them fixed differently stops everything."""
    import os

    if len(outcomes) == 1:
        return outcomes[0]
    out = FixOutcome(originals={}, changed={})
    by_target: dict[str, str] = {}
    for outcome in outcomes:
        for file, text in outcome.changed.items():
            target = os.path.realpath(file)
            if by_target.setdefault(target, text) != text:
                raise FixError(f"{file} was fixed differently from two of the paths given")
            out.changed.setdefault(file, text)
            out.originals.setdefault(file, outcome.originals[file])
        out.fixed.extend(outcome.fixed)
        out.findings.extend(outcome.findings)
        out.files.extend(f for f in outcome.files if f not in out.files)
    return out


def undone(outcome: FixOutcome) -> FixOutcome:
    """The outcome that puts the written files back as they were."""
    return FixOutcome(originals=dict(outcome.changed), changed=dict(outcome.originals))


class WriteAhead:
    """The fix loop's `on_change` when the fixes will be written: stages the changed files in the
    background (EarlyStaging) while the next pass checks them, keeping only the staging of the
    latest texts. `discard` removes what was staged and not written."""

    def __init__(self, folder: str) -> None:
        self.current: EarlyStaging | None = None
        self.folder = folder  # nothing is staged outside it, not even for a moment

    def __call__(self, outcome: FixOutcome) -> None:
        from nginxgen.conf.tree import inside
        from nginxgen.files.writer import EarlyStaging

        self.discard()
        texts = {f: text for f, text in outcome.changed.items() if f != STDIN_NAME}  # printed
        if texts and all(inside(f, self.folder) for f in texts):
            self.current = EarlyStaging(dict(outcome.originals), texts)

    def take(
        self, originals: dict[str, str | None], texts: dict[str, str]
    ) -> tuple[list[Change], dict[Path, Path]]:
        """The changes to write for `texts`, with what was staged for them (see
        EarlyStaging.take); read again here when nothing was staged."""
        from nginxgen.files.writer import replace_read

        current, self.current = self.current, None
        if current is None:
            return replace_read(originals, texts), {}
        return current.take(originals, texts)

    def discard(self) -> None:
        if self.current is not None:
            self.current.discard()
            self.current = None


def write_all(outcome: FixOutcome, ahead: WriteAhead | None = None) -> list[str]:
    """Replace every changed file or none (staged beside it, renamed in, put back on failure).
    A symlinked file is edited at its target; a read-only file or one changed since it was read
    stops everything. `ahead`: the files staged while the last pass ran, used where they match."""
    import os

    from nginxgen.files.writer import replace_all

    originals: dict[str, str | None] = dict(outcome.originals)
    # in the order of outcome.changed
    ready: dict[Path, Path] = {}
    if ahead is None:
        from nginxgen.files.writer import replace_read

        changes = replace_read(originals, outcome.changed)
    else:
        changes, ready = ahead.take(originals, outcome.changed)
    replace_all(changes, ready)
    lines = []
    for file, change in zip(outcome.changed, changes, strict=True):
        target = str(change.path)  # the symlink's target, resolved once by replace_read
        via = f" (the target of the symlink {file})" if target != os.path.abspath(file) else ""
        lines.append(f"fixed {target}{via}")
    return lines
