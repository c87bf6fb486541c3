"""`nginxgen lint`'s command line, read without argparse.

argparse brings gettext and locale along, looks for translation catalogs on disk for every
message it prepares and measures the terminal through shutil: about a fifth of a pre-commit
run's start-up (docs/benchmarks.md). The options are few and flat, so they are data
(nginxgen.files.options, where every option is declared once), read by a small parser and by
the help text.
"""

from __future__ import annotations

from nginxgen.base.errors import NginxgenError
from nginxgen.files.options import BY_FLAG, FORMATS, OPTIONS

__all__ = ["BY_FLAG", "FORMATS", "OPTIONS", "Arguments", "HelpRequested", "help_text", "parse"]

USAGE = "usage: nginxgen lint [options] PATH [PATH ...]"


class Arguments:
    """The parsed command line: one attribute per option (dashes as underscores), and paths."""

    format: str
    nginx_version: str | None
    tls_library: str | None
    nginx_bin: str | None
    select: str | None
    ignore: str | None
    min_severity: str | None
    fail_on: str | None
    root: str | None
    prefix: str | None
    path_map: list[str]
    fix: bool
    unsafe_fixes: bool
    fixable: str | None
    unfixable: str | None
    diff: bool
    jobs: str | None
    debug: bool

    def __init__(self) -> None:
        self.paths: list[str] = []
        for option in OPTIONS:
            value = option.default
            setattr(self, option.dest, list(value) if isinstance(value, list) else value)


class HelpRequested(Exception):
    pass


def help_text() -> str:
    lines = [
        USAGE,
        "",
        "Lint nginx configs for TLS pitfalls. Exit: 0 clean (or only findings below --fail-on), "
        "1 findings, 2 unreadable input or bad arguments, 3 internal error.",
        "",
        "PATH: nginx.conf, an included snippet, an `nginx -T` dump, or - for stdin",
        "",
        "options:",
        "  -h, --help            show this help and exit",
    ]
    for option in OPTIONS:
        head = option.flag if option.kind == "switch" else f"{option.flag} {option.metavar}"
        choices = f" ({'|'.join(option.choices)})" if option.choices else ""
        lines.append(f"  {head:<21} {option.help}{choices}")
    return "\n".join(lines) + "\n"


def parse(argv: list[str]) -> Arguments:
    """Raises NginxgenError with one line for a bad command line, HelpRequested for -h."""
    args = Arguments()
    items = list(argv)
    only_paths = False
    while items:
        item = items.pop(0)
        if only_paths or item == "-" or not item.startswith("-"):
            args.paths.append(item)
            continue
        if item == "--":
            only_paths = True
            continue
        if item in ("-h", "--help"):
            raise HelpRequested
        flag, has_value, inline = item.partition("=")
        option = BY_FLAG.get(flag)
        if option is None:
            raise NginxgenError(f"unknown option {flag} ({USAGE})")
        if option.kind == "switch":
            if has_value:
                raise NginxgenError(f"{flag} takes no value")
            setattr(args, option.dest, True)
            continue
        if has_value:
            value = inline
        elif items:
            value = items.pop(0)
        else:
            raise NginxgenError(f"{flag} needs a value")
        if option.choices and value not in option.choices:
            raise NginxgenError(f"{flag}: {value!r} is not one of {', '.join(option.choices)}")
        if option.kind == "append":
            getattr(args, option.dest).append(value)
        else:
            setattr(args, option.dest, value)
    if not args.paths:
        raise NginxgenError(f"no PATH given ({USAGE})")
    return args
