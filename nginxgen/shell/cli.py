"""The `nginxgen` command.

`nginxgen lint` takes a fast path that never imports typer, pydantic or jinja2: it runs in
pre-commit on every commit, where start-up time is most of the cost.
"""

from __future__ import annotations

import gc
import sys


def main(argv: list[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    debug = "--debug" in args
    if args[:1] == ["--version"]:  # without typer: packagers and bug reports ask it often
        from nginxgen import __version__

        print(f"nginxgen {__version__}")
        return 0
    if args and args[0] == "lint":
        # Importing allocates only long-lived objects (modules, classes, functions): the cyclic
        # collector's passes over them find nothing and were a twelfth of a one-file lint.
        gc.disable()
        from nginxgen.lint.cli import run as run_lint

        gc.enable()
        return run_lint(args[1:])
    if args and args[0] == "lsp":
        from nginxgen.lsp.launch import run_lsp

        return run_lsp(args[1:])
    from nginxgen.shell.commands import run

    return run(args, debug=debug)


def console() -> None:
    """The `nginxgen` executable: main(), then an exit without the interpreter's last full
    collection. Every object a command makes lives until it ends, so that collection finds
    nothing, and it was a tenth of a one-file lint; freezing them leaves it nothing to walk."""
    code = main()
    gc.freeze()
    sys.exit(code)


if __name__ == "__main__":
    console()
