"""The `nginxgen` command.

`nginxgen lint` takes a fast path that never imports typer, pydantic or jinja2: it runs in
pre-commit on every commit, where start-up time is most of the cost.
"""

from __future__ import annotations

import sys


def main(argv: list[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    debug = "--debug" in args
    if args and args[0] == "lint":
        from nginxgen.lint.cli import run as run_lint

        return run_lint(args[1:])
    from nginxgen.commands import run

    return run(args, debug=debug)


if __name__ == "__main__":
    sys.exit(main())
