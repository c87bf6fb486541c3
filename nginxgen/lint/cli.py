"""`nginxgen lint`: the command's fast path (no typer, pydantic, jinja2 or argparse), so that
pre-commit start-up stays close to the bare parse."""

from __future__ import annotations

import gc
import os
import sys

from nginxgen.base.errors import NginxgenError
from nginxgen.lint.findings import Applicability, fix_classes

TYPE_CHECKING = False  # typing is not imported at run time: it slows every pre-commit start
if TYPE_CHECKING:
    from collections.abc import Callable

    from nginxgen.conf.load import Loaded, PassCache
    from nginxgen.edit.edits import Edit
    from nginxgen.lint.args import Arguments
    from nginxgen.lint.findings import Finding
    from nginxgen.lint.fix import FixOutcome, WriteAhead
    from nginxgen.lint.options import LintOptions
    from nginxgen.lint.run import Selection

EXIT_CLEAN, EXIT_FINDINGS, EXIT_USAGE, EXIT_INTERNAL = 0, 1, 2, 3


def run(argv: list[str]) -> int:
    from nginxgen.lint.args import HelpRequested, help_text, parse

    try:
        args = parse(argv)
    except HelpRequested:
        sys.stdout.write(help_text())
        return EXIT_CLEAN
    except NginxgenError as exc:
        print(f"nginxgen lint: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    # A lint builds millions of small long-lived objects: with the default thresholds the cyclic
    # collector's repeated full passes were a fifth of the time on 10,000 vhosts. Rarer passes
    # keep the speed and still free the few cycles (generators, tracebacks).
    thresholds = gc.get_threshold()
    gc.set_threshold(100_000, 50, 1000)
    try:
        return _run(args)
    except NginxgenError as exc:
        print(f"nginxgen: error: {exc}", file=sys.stderr)
        return exc.exit_code
    except Exception as exc:
        if args.debug:
            raise
        print(
            f"nginxgen: internal error: {type(exc).__name__}: {exc} (--debug for the traceback)",
            file=sys.stderr,
        )
        return EXIT_INTERNAL
    finally:
        gc.set_threshold(*thresholds)


def _run(args: Arguments) -> int:
    from nginxgen.conf.load import LoadError
    from nginxgen.lint.options import resolve_options

    options = resolve_options(args, os.getcwd())
    stdin_text = sys.stdin.read() if "-" in args.paths else None
    if stdin_text is not None and not stdin_text.strip():
        # `nginx -T | nginxgen lint -` where nginx -T failed prints nothing: a clean report of
        # nothing would be a green check on a tree nginx refuses (trial 24)
        print(
            "nginxgen: error: <stdin>: nothing to lint on standard input (did the command "
            "before the pipe fail? nginx -T prints nothing when nginx -t fails)",
            file=sys.stderr,
        )
        return EXIT_USAGE
    trees = _Trees(options, stdin_text)
    try:
        if args.fix or args.unsafe_fixes or args.diff:
            return _fix(args, options, trees)
        return _report(args, options, trees)
    except LoadError as exc:
        print(f"nginxgen: error: {exc}", file=sys.stderr)
        return EXIT_USAGE


class _Trees:
    """Loads each tree with its map (nginxgen.conf.tree), and says once, on stderr, where it
    read it from and what it read outside its folder: stdout stays the report its consumer
    reads."""

    def __init__(self, options: LintOptions, stdin_text: str | None) -> None:
        self.options = options
        self.stdin_text = stdin_text
        self.said: list[str] = []
        # main files of copies whose includes nginx reads elsewhere (conf.load.read_elsewhere)
        self.elsewhere: dict[str, str] = {}
        self.asked: set[str] = set()

    def load(
        self,
        path: str,
        overlay: dict[str, str] | None = None,
        shared: PassCache | None = None,
        spans: bool = False,
    ) -> Loaded:
        from nginxgen.conf.load import load_path, read_elsewhere, where_read

        path_map, infer = self.options.mapping.for_main(path)
        options = self.options
        loaded = load_path(
            path,
            options.prefix,
            self.stdin_text,
            path_map,
            overlay,
            shared,
            spans,
            infer,
            options.jobs,
            options.mapping.conf_path,
        )
        for line in where_read(loaded, options.mapping, path, _folder(path)):
            if line not in self.said:
                self.said.append(line)
                print(f"nginxgen: {line}", file=sys.stderr)
        # asked once per tree, and only by the fix passes (an overlay): a plain lint runs no
        # nginx -t
        if overlay is not None and path not in self.asked:
            self.asked.add(path)
            if (place := read_elsewhere(loaded)) is not None:
                self.elsewhere[path] = place
        return loaded


def _report(args: Arguments, options: LintOptions, trees: _Trees) -> int:
    """A plain lint: the findings of each tree (with --root, of the files given), rendered."""
    from nginxgen.lint import output as report
    from nginxgen.lint.run import lint_tree

    carries_fixes = args.format == "sarif"  # SARIF carries each fix's edits; the others its class
    findings = []
    files: list[str] = []
    target, selection = options.target, options.selection
    if options.root:
        loaded = trees.load(options.root, spans=carries_fixes)
        files = _given(loaded, {os.path.realpath(p) for p in args.paths}, options.root)
        findings = lint_tree(loaded, target, selection, files, carries_fixes, options.jobs)
    else:
        seen: set[str] = set()
        mains = _mains(args.paths, trees, carries_fixes)
        for _, loaded in mains:
            findings.extend(lint_tree(loaded, target, selection, None, carries_fixes, options.jobs))
            files.extend(f for f in loaded.files if f not in seen)
            seen.update(loaded.files)
        if len(mains) > 1:
            findings = _once(findings)
    _say_target(args, options)
    sys.stdout.write(report.render(args.format, findings, options.target, files))
    return _exit_code(findings, options)


def _say_target(args: Arguments, options: LintOptions) -> None:
    """In every mode (JSON, SARIF, --diff included), once the files were read: which nginx the
    findings and fixes are for, and where that came from."""
    print(f"nginxgen: {options.target.stated()}", file=sys.stderr)
    if options.target.guessed and (args.fix or args.unsafe_fixes or args.diff):
        print(
            "nginxgen: fixes that are right only for some nginx releases or TLS libraries "
            "(`http2 on;`, group spellings) are unsafe while the target is assumed",
            file=sys.stderr,
        )


def _exit_code(findings: list[Finding], options: LintOptions) -> int:
    failing = any(f.severity.at_least(options.fail_on) for f in findings)
    return EXIT_FINDINGS if failing else EXIT_CLEAN


def _fix(args: Arguments, options: LintOptions, trees: _Trees) -> int:
    """--fix, --unsafe-fixes, --diff: each tree's fix loop, then one write of all or none."""
    from nginxgen.conf.load import PassCache
    from nginxgen.lint.fix import FixError, WriteAhead, run_fixes

    classes = fix_classes(args.unsafe_fixes)
    units = _fix_units(args, options, trees)
    # One tree's fixes are staged on disk while the last pass checks them; several paths are
    # merged first (merge), so they are staged when written.
    ahead = WriteAhead(_folder(units[0][0])) if not args.diff and len(units) == 1 else None

    def loader(path: str) -> Callable[[dict[str, str]], Loaded]:
        shared = PassCache()  # one per tree: its passes read and parse each text once
        return lambda fixed: trees.load(path, overlay=fixed, shared=shared, spans=True)

    try:
        outcomes = [
            run_fixes(loader(path), lint_unit, classes, on_change=ahead)
            for path, lint_unit in units
        ]
        mains = [path for path, _ in units]
        return _report_fixes(args, options, outcomes, mains, ahead, trees.elsewhere)
    except FixError as exc:
        print(f"nginxgen: internal error: {exc}", file=sys.stderr)
        return EXIT_INTERNAL
    finally:
        if ahead is not None:
            ahead.discard()  # staged but not written (an error, or nothing to write)


def _fix_units(
    args: Arguments, options: LintOptions, trees: _Trees
) -> list[tuple[str, Callable[[Loaded], list[Finding]]]]:
    """Each tree the fix loop runs on, with the lint of one pass: its findings, with the fixes
    --fixable/--unfixable and --root leave (with --root, only the files given change)."""
    from nginxgen.lint.run import lint_tree

    target, selection, may_fix, root, jobs = (
        options.target, options.selection, options.may_fix, options.root, options.jobs
    )  # fmt: skip
    if root:
        wanted = {os.path.realpath(p) for p in args.paths}

        def lint_root(loaded: Loaded) -> list[Finding]:
            only = _given(loaded, wanted, root)  # from the pass's own load, no extra one
            return _fixable(
                lint_tree(loaded, target, selection, only, jobs=jobs), may_fix, set(only)
            )

        return [(root, lint_root)]

    def lint_one(loaded: Loaded) -> list[Finding]:
        return _fixable(lint_tree(loaded, target, selection, jobs=jobs), may_fix)

    if len(set(args.paths)) == 1:  # one tree: the fix loop loads it, not once more beforehand
        return [(args.paths[0], lint_one)]
    return [(path, lint_one) for path, _ in _mains(args.paths, trees, spans=False)]


def _mains(paths: list[str], trees: _Trees, spans: bool) -> list[tuple[str, Loaded]]:
    """The trees to lint for the paths given, each file once however many paths name it:
    pre-commit passes `nginx.conf conf.d/site.conf`, and a file that another path's tree
    already includes is linted there, where its context is known (`./a.conf` and `a.conf`,
    or a symlink and its target, are one path). `-` (stdin) is always its own tree."""
    loaded: list[tuple[str, Loaded]] = []
    named: set[str] = set()
    for path in paths:
        real = path if path == "-" else os.path.realpath(path)
        if real in named:
            continue
        named.add(real)
        loaded.append((path, trees.load(path, spans=spans)))
    if len(loaded) == 1:
        return loaded  # nothing to compare: no real path of every file read (a fleet's tree)
    reads = [{os.path.realpath(f) for f in tree.files} for _, tree in loaded]
    kept = []
    for number, (path, tree) in enumerate(loaded):
        real = os.path.realpath(path)
        others = [r for n, r in enumerate(reads) if n != number and r != reads[number]]
        # included by another path's tree (that does not include this one back): linted there
        covered = path != "-" and any(
            real in other and not (other <= reads[number]) for other in others
        )
        if not covered:
            kept.append((path, tree))
    return kept


def _once(findings: list[Finding]) -> list[Finding]:
    """Each finding once, whichever tree reported it (a file two given trees include)."""
    seen: set[tuple[str, int, str, str]] = set()
    out = []
    for f in findings:
        key = (os.path.realpath(f.file) if f.file != "-" else f.file, f.line, f.code, f.message)
        if key not in seen:
            seen.add(key)
            out.append(f)
    return out


def _folder(main: str) -> str:
    """The folder a lint of `main` may write in (its fixes): the main file's."""
    return os.path.dirname(os.path.abspath(main))


def _given(loaded: Loaded, wanted: set[str], root: str) -> list[str]:
    """The files of the loaded tree that the command line named (with --root); a file the
    root does not include would be silently skipped, so it is an error (exit 2)."""
    files = [f for f in loaded.files if os.path.realpath(f) in wanted]
    missing = wanted - {os.path.realpath(f) for f in files}
    if missing:
        raise NginxgenError(
            f"not included by {root} (the --root), so nginx never reads it; lint it without "
            "--root, or give the root that includes it",
            where=os.path.relpath(min(missing)),
        )
    return files


def _report_fixes(
    args: Arguments,
    options: LintOptions,
    outcomes: list[FixOutcome],
    mains: list[str],
    ahead: WriteAhead | None,
    elsewhere: dict[str, str],
) -> int:
    """--diff: the diff, exit 1 when it would change something. --fix: write all or nothing
    (with an nginx binary, put back when its `nginx -t` passed before and fails after), report
    what remains and `N fixed, M remaining (K more fixable with --unsafe-fixes)`."""
    from nginxgen.conf.load import STDIN_NAME
    from nginxgen.conf.tree import refuse_outside
    from nginxgen.files.diff import show
    from nginxgen.files.nginx_check import write_checked
    from nginxgen.lint import output as report
    from nginxgen.lint.fix import FixError, merge, undone, unified_diff, write_all

    _say_target(args, options)

    try:
        result = merge(outcomes)
    except FixError as exc:
        print(f"nginxgen: internal error: {exc}; nothing written", file=sys.stderr)
        return EXIT_INTERNAL
    folders = [_folder(main) for main in mains if main != "-"]
    changed = [f for f in result.changed if f != STDIN_NAME]
    refuse_outside(changed, folders, "the main file's folder")
    if args.diff:
        return show(unified_diff(result))
    if STDIN_NAME in result.changed:  # `-`: the fixed text is the output
        sys.stdout.write(result.changed.pop(STDIN_NAME))
        result.originals.pop(STDIN_NAME, None)
    remaining, fixed = result.findings, len(result.fixed)
    if result.changed:
        mains = [p for p in mains if p != "-"]
        lines = write_checked(
            options.nginx_bin,
            mains,
            lambda: write_all(result, ahead),
            lambda: write_all(undone(result)),
            options.prefix,
            {main: elsewhere[main] for main in mains if main in elsewhere},
        )
        for line in lines:
            print(f"nginxgen: {line}", file=sys.stderr)
    # the files read, as a plain lint counts them (trial 24: only those with findings left)
    files = sorted({f.file for f in remaining}) if options.root else result.files
    out = sys.stderr if "-" in args.paths else sys.stdout
    out.write(report.render(args.format, remaining, options.target, files))
    more = sum(1 for f in remaining if f.autofix is Applicability.UNSAFE)
    hint = f" ({more} more fixable with --unsafe-fixes)" if more and not args.unsafe_fixes else ""
    # json, sarif and github output is one document a tool reads: the summary goes beside it
    summary = out if args.format == "text" else sys.stderr
    print(f"# {fixed} fixed, {len(remaining)} remaining{hint}", file=summary)
    return _exit_code(remaining, options)


def _fixable(
    findings: list[Finding], may_fix: Selection, files: set[str] | None = None
) -> list[Finding]:
    """The findings, with the fixes taken away that `--fixable`/`--unfixable` (or the settings)
    rule out, or that would touch a file outside `files` (with --root, only the files given are
    changed): those are still reported, never applied."""
    from nginxgen.base.records import replace

    def inside(edits: tuple[tuple[str, Edit], ...]) -> tuple[tuple[str, Edit], ...]:
        return edits if files is None or {file for file, _ in edits} <= files else ()

    out = []
    for f in findings:
        if f.autofix is not None:
            allowed = may_fix.wants(f)
            edits = inside(f.edits) if allowed else ()
            if edits != f.edits:
                # a fix taken away leaves no edits and no files it would touch
                f = replace(f, autofix=f.autofix if edits else None, edits=edits, touches=())
        out.append(f)
    return out
