"""`nginxgen lint`'s command line, read without argparse.

argparse brings gettext and locale along, looks for translation catalogs on disk for every
message it prepares and measures the terminal through shutil: about a fifth of a pre-commit
run's start-up (docs/benchmarks.md). The options are few and flat, so they are data here: one
table read by a small parser and by the help text.
"""

from __future__ import annotations

from nginxgen.base.errors import NginxgenError
from nginxgen.lint.findings import SEVERITIES

FORMATS = ("text", "json", "sarif", "github")


class Option:
    __slots__ = ("choices", "default", "dest", "flag", "help", "kind", "metavar")

    def __init__(
        self,
        flag: str,
        help: str,
        kind: str = "value",  # value | append | switch
        choices: tuple[str, ...] | None = None,
        default: object = None,
        metavar: str | None = None,
    ) -> None:
        self.flag = flag
        self.dest = flag.lstrip("-").replace("-", "_")
        self.help = help
        self.kind = kind
        self.choices = choices
        self.default = [] if kind == "append" else (False if kind == "switch" else default)
        self.metavar = metavar or flag.lstrip("-").upper().replace("-", "_")


OPTIONS = (
    Option("--format", "output format", choices=FORMATS, default="text"),
    Option("--nginx-version", "the nginx version to judge for (e.g. 1.26.3)"),
    Option("--tls-library", "the TLS library (e.g. openssl-3.5.7, boringssl, libressl-4.3.0)"),
    Option("--nginx-bin", "read version and library from this nginx binary's -V"),
    Option("--select", "only these codes or prefixes (NGX1,NGX402)"),
    Option("--ignore", "skip these codes or prefixes"),
    Option("--min-severity", "report only findings from this severity up", choices=SEVERITIES),
    Option(
        "--fail-on",
        "exit 1 only for findings at or above this severity (default: warning; infos are "
        "still printed)",
        choices=SEVERITIES,
    ),
    Option("--root", "load this whole config, report only findings in PATHS", metavar="FILE"),
    Option(
        "--prefix",
        "the tree's prefix (nginx -p): relative includes resolve there, and nginx -t of "
        "--nginx-bin runs there (default: the main file's folder; for nginx -t, the binary's own "
        "prefix on the tree it reads or a copy of it)",
        metavar="DIR",
    ),
    Option(
        "--map",
        "read files the config names under FOLDER from HERE instead (a repository that mirrors "
        "/etc/nginx: --map /etc/nginx=nginx); repeatable",
        kind="append",
        metavar="FOLDER=HERE",
    ),
    Option("--fix", "apply the safe automatic fixes, then report what remains", kind="switch"),
    Option("--unsafe-fixes", "also apply fixes clients may notice (implies --fix)", kind="switch"),
    Option("--diff", "print the fixes as a unified diff and write nothing", kind="switch"),
    Option("--fixable", "only these codes or prefixes may be fixed (NGX1,NGX404)"),
    Option("--unfixable", "never fix these codes or prefixes"),
    Option(
        "--jobs",
        "processes a large tree is read and checked in (default: the usable cores, at most 4; "
        "1: one)",
        metavar="N",
    ),
    Option("--debug", "show tracebacks of internal errors", kind="switch"),
)
BY_FLAG = {option.flag: option for option in OPTIONS}
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
    map: list[str]
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
