"""The `nginxgen` command.

`nginxgen lint` takes a fast path that never imports typer, pydantic or jinja2: it runs in
pre-commit on every commit, where start-up time is most of the cost.
"""

from __future__ import annotations

import contextlib
import gc
import os
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
    nothing, and it was a tenth of a one-file lint; freezing them leaves it nothing to walk.

    A lint then leaves at once (os._exit, once stdout and stderr are flushed): tearing down the
    interpreter frees every module, table and parsed tree one object at a time, which no one
    waits for. A lint registers no exit handler, holds no temporary file, and has written and
    closed every file it fixes before it returns (a staging child that is not taken removes its
    files when the pipe to it closes). Other commands exit as usual: their thread pools and
    temporary folders are closed by exit handlers."""
    code = main()
    gc.freeze()
    if sys.argv[1:2] == ["lint"]:
        try:
            sys.stdout.flush()
        except BrokenPipeError:  # the reader left (`| head`): what it read is what it wanted
            code = code or 1
        with contextlib.suppress(OSError):
            sys.stderr.flush()
        os._exit(code)
    sys.exit(code)


if __name__ == "__main__":
    console()
