"""`nginxgen lint`: the command's fast path (no typer, pydantic, jinja2 or argparse), so that
pre-commit start-up stays close to the bare parse."""

from __future__ import annotations

import gc
import os
import sys

from nginxgen.errors import NginxgenError
from nginxgen.lint.findings import severity_rank

TYPE_CHECKING = False  # typing is not imported at run time: it slows every pre-commit start
if TYPE_CHECKING:
    from collections.abc import Callable

    from nginxgen.conf.load import Loaded
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
    from nginxgen.conf.load import LoadError, PassCache, load_path
    from nginxgen.conf.tree import notes
    from nginxgen.lint import report
    from nginxgen.lint.options import resolve_options
    from nginxgen.lint.run import lint

    options = resolve_options(args, os.getcwd())
    target, selection, root = options.target, options.selection, options.root
    seen_notes: list[str] = []

    def located(
        path: str,
        overlay: dict[str, str] | None = None,
        shared: PassCache | None = None,
        spans: bool = False,
    ) -> Loaded:
        """The tree of `path`, loaded with its map; what it read outside its folder is said
        once (stderr: the report on stdout stays what its consumer reads)."""
        path_map, infer = options.mapping.for_main(path)
        loaded = load_path(
            path, options.prefix, stdin_text, path_map, overlay, shared, spans, infer
        )
        for line in notes(loaded.inferred, loaded.read_files(), _folder(path)):
            if line not in seen_notes:
                seen_notes.append(line)
                print(f"nginxgen: {line}", file=sys.stderr)
        return loaded

    stdin_text = sys.stdin.read() if "-" in args.paths else None
    if args.fix or args.unsafe_fixes or args.diff:
        from nginxgen.lint.fix import FixError, WriteAhead, run_fixes
        from nginxgen.lint.managed import leave_managed

        classes = frozenset({"safe", "unsafe"} if args.unsafe_fixes else {"safe"})
        may_fix = options.may_fix
        units: list[tuple[str, Callable[[Loaded], list[Finding]]]] = []
        ahead: WriteAhead | None = None
        try:
            if root:
                wanted = {os.path.realpath(p) for p in args.paths}

                def lint_root(loaded: Loaded) -> list[Finding]:
                    only = _given(loaded, wanted, root)  # from the pass's own load, no extra one
                    found = lint(loaded, target, selection, only)
                    return _fixable(leave_managed(found, loaded.texts), may_fix, set(only))

                units.append((root, lint_root))
            else:

                def lint_tree(loaded: Loaded) -> list[Finding]:
                    found = lint(loaded, target, selection)
                    return _fixable(leave_managed(found, loaded.texts), may_fix)

                units.extend((p, lint_tree) for p in args.paths)
            # One tree's fixes are staged on disk while the last pass checks them; several
            # paths are merged first (merge), so they are staged when written.
            ahead = WriteAhead(_folder(units[0][0])) if not args.diff and len(units) == 1 else None
            outcomes = []

            def loader(path: str) -> Callable[[dict[str, str]], Loaded]:
                shared = PassCache()  # one per tree: its passes read and parse each text once
                return lambda fixed: located(path, overlay=fixed, shared=shared, spans=True)

            for path, lint_unit in units:
                outcomes.append(run_fixes(loader(path), lint_unit, classes, on_change=ahead))
            return _report_fixes(args, options, outcomes, [path for path, _ in units], ahead)
        except LoadError as exc:
            print(f"nginxgen: error: {exc}", file=sys.stderr)
            return EXIT_USAGE
        except FixError as exc:
            print(f"nginxgen: internal error: {exc}", file=sys.stderr)
            return EXIT_INTERNAL
        finally:
            if ahead is not None:
                ahead.discard()  # staged but not written (an error, or nothing to write)
    from nginxgen.lint.managed import leave_managed

    carries_fixes = args.format == "sarif"  # SARIF carries each fix's edits; the others its class
    findings = []
    files: list[str] = []
    seen: set[str] = set()
    try:
        if root:
            wanted = {os.path.realpath(p) for p in args.paths}
            loaded = located(root, spans=carries_fixes)
            report_files = _given(loaded, wanted, root)
            got = lint(loaded, target, selection, report_files, build_fixes=carries_fixes)
            findings = leave_managed(got, loaded.texts)
            files = report_files
        else:
            for path in args.paths:
                loaded = located(path, spans=carries_fixes)
                got = lint(loaded, target, selection, build_fixes=carries_fixes)
                findings.extend(leave_managed(got, loaded.texts))
                files.extend(f for f in loaded.files if f not in seen)
                seen.update(loaded.files)
    except LoadError as exc:
        print(f"nginxgen: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    sys.stdout.write(report.render(args.format, findings, target, files))
    failing = any(severity_rank(f.severity) >= severity_rank(options.fail_on) for f in findings)
    return EXIT_FINDINGS if failing else EXIT_CLEAN


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
) -> int:
    """--diff: the diff, exit 1 when it would change something. --fix: write all or nothing
    (with an nginx binary, put back when its `nginx -t` passed before and fails after), report
    what remains and `N fixed, M remaining (K more fixable with --unsafe-fixes)`."""
    from nginxgen.conf.load import STDIN_NAME
    from nginxgen.conf.tree import refuse_outside
    from nginxgen.diff import show
    from nginxgen.lint import report
    from nginxgen.lint.fix import FixError, merge, undone, unified_diff, write_all
    from nginxgen.nginx_check import write_checked

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
        )
        for line in lines:
            print(f"nginxgen: {line}", file=sys.stderr)
    files = sorted({f.file for f in remaining})
    out = sys.stderr if "-" in args.paths else sys.stdout
    out.write(report.render(args.format, remaining, options.target, files))
    more = sum(1 for f in remaining if f.autofix == "unsafe")
    hint = f" ({more} more fixable with --unsafe-fixes)" if more and not args.unsafe_fixes else ""
    # json, sarif and github output is one document a tool reads: the summary goes beside it
    summary = out if args.format == "text" else sys.stderr
    print(f"# {fixed} fixed, {len(remaining)} remaining{hint}", file=summary)
    failing = any(severity_rank(f.severity) >= severity_rank(options.fail_on) for f in remaining)
    return EXIT_FINDINGS if failing else EXIT_CLEAN


def _fixable(
    findings: list[Finding], may_fix: Selection, files: set[str] | None = None
) -> list[Finding]:
    """The findings, with the fixes taken away that `--fixable`/`--unfixable` (or the settings)
    rule out, or that would touch a file outside `files` (with --root, only the files given are
    changed): those are still reported, never applied."""
    from nginxgen.lint.findings import Finding as Found

    def inside(edits: tuple[tuple[str, Edit], ...]) -> tuple[tuple[str, Edit], ...]:
        return edits if files is None or {file for file, _ in edits} <= files else ()

    out = []
    for f in findings:
        if f.autofix is not None:
            allowed = may_fix.wants(f)
            edits = inside(f.edits) if allowed else ()
            if edits != f.edits:
                f = Found(
                    f.code, f.name, f.severity, f.file, f.line, f.message, f.fix,
                    f.autofix if edits else None, edits,
                )  # fmt: skip
        out.append(f)
    return out
