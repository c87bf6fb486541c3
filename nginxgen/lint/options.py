"""`nginxgen lint`'s options, resolved once: each flag, else the settings file's key
(`[tool.nginxgen]` in pyproject.toml, or .nginxgen.toml), else the default, into one record the
command reads. Every value is checked here: a bad one is one line naming the flag, or the
settings file and line, and exit 2."""

from __future__ import annotations

import os

from nginxgen.base.errors import NginxgenError
from nginxgen.base.records import record
from nginxgen.conf.tree import TreeMapping, parse_map
from nginxgen.lint.findings import Severity
from nginxgen.lint.run import Selection

TYPE_CHECKING = False  # typing is not imported at run time: it slows every pre-commit start
if TYPE_CHECKING:
    from typing import Any

    from nginxgen.knowledge.target import Target
    from nginxgen.lint.args import Arguments


@record
class LintOptions:
    target: Target
    nginx_bin: str | None  # a binary whose `nginx -t` runs before and after a fix is written
    selection: Selection  # the findings reported
    may_fix: Selection  # the findings whose fixes may be applied
    fail_on: Severity  # the lowest severity that makes the exit code 1
    root: str | None  # the main file whose tree includes the files given
    prefix: str | None  # the folder relative includes resolve against
    mapping: TreeMapping  # where the tree's folders are (nginxgen.conf.tree)
    jobs: int = 0  # processes for a large tree (0: nginxgen.base.forks decides; 1: one)


def resolve_options(args: Arguments, cwd: str) -> LintOptions:
    """The flags given, with the settings found from `cwd` filling what they leave out."""
    from nginxgen.files.settings import find_settings, where
    from nginxgen.knowledge.target import resolve_set

    found = find_settings(cwd)
    conf: dict[str, Any] = found[1] if found else {}

    def codes(key: str) -> set[str]:
        """The codes of --KEY, else of the settings' KEY (errors name the line it is on)."""
        given = getattr(args, key)
        if given:
            return codes_of(given, f"--{key}")
        if found and key in conf:
            return codes_of(conf[key], f"{where(found[0], key)}: {key}")
        return set()

    target = resolve_set(args.nginx_version, args.tls_library, args.nginx_bin, found)
    # a binary named here also checks a fix with its `nginx -t`; the machine's is only read
    flags = args.nginx_version or args.tls_library
    nginx_bin = args.nginx_bin or (None if flags else conf.get("nginx-bin"))
    selection = Selection(
        select=codes("select"),
        ignore=codes("ignore"),
        min_severity=Severity(args.min_severity or conf.get("min-severity", Severity.INFO)),
    )
    # checked with or without --fix: a typo in the settings is found on the first plain lint
    may_fix = Selection(select=codes("fixable"), ignore=codes("unfixable"))
    mapping = _mapping(args, conf, found[0] if found else None)
    mapping.conf_path = target.conf_path
    return LintOptions(
        target=target,
        nginx_bin=nginx_bin,
        selection=selection,
        may_fix=may_fix,
        fail_on=Severity(args.fail_on or conf.get("fail-on", Severity.WARNING)),
        root=args.root or conf.get("root"),
        prefix=args.prefix or conf.get("prefix"),
        mapping=mapping,
        jobs=_jobs(args.jobs),
    )


def _jobs(given: str | None) -> int:
    """--jobs N: a whole number from 1 up; not given: 0 (as many as are worth it)."""
    if given is None:
        return 0
    if not given.isdigit() or int(given) < 1:
        raise NginxgenError(f"--jobs: {given!r} is not a whole number from 1 up")
    return int(given)


def codes_of(text: str | list[str], where: str) -> set[str]:
    """Rule codes, code prefixes or rule names, each one checked: a typo is an error, not a
    selection of nothing."""
    from nginxgen.lint.rules import selector_problem

    items = text if isinstance(text, list) else text.split(",")
    codes = {
        c.strip().upper() if c.strip()[:3].upper() == "NGX" else c.strip()
        for c in items
        if c.strip()
    }
    for code in sorted(codes):
        problem = selector_problem(code)
        if problem:
            raise NginxgenError(problem, where=where)
    return codes


def _mapping(args: Arguments, conf: dict[str, Any], settings_file: str | None) -> TreeMapping:
    """Where the tree's folders are: `--map` (relative to the working folder), else the
    settings' path-map (relative to the settings file), else the binary's `--conf-path` and
    what nginxgen.conf.tree infers."""
    given = parse_map(args.path_map, os.getcwd())
    table = conf.get("path-map")
    if not given and isinstance(table, dict) and settings_file:
        entries = [f"{source}={here}" for source, here in table.items()]
        given = parse_map(entries, os.path.dirname(settings_file), where="path-map")
    return TreeMapping(given)
