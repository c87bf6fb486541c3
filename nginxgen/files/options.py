"""Every option a user can give nginxgen, declared once: its flag, its help, and whether the
settings file (`[tool.nginxgen]` or .nginxgen.toml) and the editor's settings may give it too.
One name serves the three places: the flag `--path-map`, the settings key `path-map`, the
editor key `pathMap` (the settings key in camel case).

`nginxgen lint` reads its command line from this table (nginxgen.lint.args), the settings file
checks its keys against it (nginxgen.files.settings), the language server reads the editor's
settings through it (nginxgen.lsp.workspace), and the other commands' flags that are the same
option (the target, the tree's map and prefix) are made from it (nginxgen.shell.commands).
"""

from __future__ import annotations

from nginxgen.base.severity import SEVERITIES

FORMATS = ("text", "json", "sarif", "github")


class Option:
    """One option. `kind`: value | append | switch. `setting`: the shape of its value in the
    settings file (string | codes | severity | table), or None where only a flag gives it.
    `editor`: the language server takes it from the editor's settings."""

    __slots__ = (
        "aliases", "choices", "default", "dest", "editor", "flag", "help", "key", "kind",
        "metavar", "setting",
    )  # fmt: skip

    def __init__(
        self,
        flag: str,
        help: str,
        kind: str = "value",
        choices: tuple[str, ...] | None = None,
        default: object = None,
        metavar: str | None = None,
        aliases: tuple[str, ...] = (),
        setting: str | None = None,
        editor: bool = False,
    ) -> None:
        self.flag = flag
        self.key = flag.lstrip("-")  # the settings file's key
        self.dest = self.key.replace("-", "_")
        self.help = help
        self.kind = kind
        self.choices = choices
        self.default = [] if kind == "append" else (False if kind == "switch" else default)
        self.metavar = metavar or self.key.upper().replace("-", "_")
        self.aliases = aliases
        self.setting = setting
        self.editor = editor

    @property
    def editor_key(self) -> str:
        """The key in the editor's `nginxgen` settings: the settings key in camel case."""
        first, *rest = self.key.split("-")
        return first + "".join(word.capitalize() for word in rest)


OPTIONS = (
    Option("--format", "output format", choices=FORMATS, default="text"),
    Option(
        "--nginx-version",
        "the nginx version to judge for (e.g. 1.26.3; default: the machine's nginx)",
        setting="string",
        editor=True,
    ),
    Option(
        "--tls-library",
        "the TLS library (e.g. openssl-3.5.7, openssl-3.0, boringssl, aws-lc-1.37.0, "
        "libressl-4.3.0)",
        setting="string",
        editor=True,
    ),
    Option(
        "--nginx-bin",
        "the nginx binary whose -V gives the version and library (default: the machine's "
        "nginx, on PATH or in the usual places)",
        setting="string",
        editor=True,
    ),
    Option("--select", "only these codes or prefixes (NGX1,NGX402)", setting="codes"),
    Option("--ignore", "skip these codes or prefixes", setting="codes"),
    Option(
        "--min-severity",
        "report only findings from this severity up",
        choices=SEVERITIES,
        setting="severity",
    ),
    Option(
        "--fail-on",
        "exit 1 only for findings at or above this severity (default: warning; infos are "
        "still printed)",
        choices=SEVERITIES,
        setting="severity",
    ),
    Option(
        "--root",
        "the tree's main file, when it is not the file given (lint PATHS, probe --config) or "
        "DIR/nginx.conf (generate --into DIR): loaded whole, only the files given reported",
        metavar="FILE",
        setting="string",
        editor=True,
    ),
    Option(
        "--prefix",
        "the tree's prefix (nginx -p): nginx -t of --nginx-bin runs there (default: the "
        "binary's own prefix on the tree it reads or a copy of it), and the relative includes "
        "of a file linted alone or from stdin resolve there (a main file's resolve against its "
        "own folder, as with nginx -c FILE)",
        metavar="DIR",
        setting="string",
    ),
    Option(
        "--path-map",
        "read files the config names under FOLDER from HERE instead (a repository that mirrors "
        "/etc/nginx: --path-map /etc/nginx=nginx); repeatable; also --map",
        kind="append",
        metavar="FOLDER=HERE",
        aliases=("--map",),
        setting="table",
        editor=True,
    ),
    Option("--fix", "apply the safe automatic fixes, then report what remains", kind="switch"),
    Option("--unsafe-fixes", "also apply fixes clients may notice (implies --fix)", kind="switch"),
    Option(
        "--diff", "print what would be written as a unified diff, and write nothing", kind="switch"
    ),
    Option("--fixable", "only these codes or prefixes may be fixed (NGX1,NGX404)", setting="codes"),
    Option("--unfixable", "never fix these codes or prefixes", setting="codes"),
    Option(
        "--jobs",
        "processes a large tree is read and checked in (default: the usable cores, at most 4; "
        "1: one)",
        metavar="N",
    ),
    Option("--debug", "show tracebacks of internal errors", kind="switch"),
)
BY_FLAG = {name: option for option in OPTIONS for name in (option.flag, *option.aliases)}
SETTINGS = {option.key: option.setting for option in OPTIONS if option.setting}
