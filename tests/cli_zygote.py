"""A process that has imported nginxgen (every module) and run nothing, and forks a child for
each run of the command it is asked for (tests/cli_process.py says why and how to ask).

    python -m tests.cli_zygote

One request a line on stdin (JSON: argv, cwd, env, the files for stdout and stderr); for each,
the line `started PID` once the child is forked and `exit CODE` once it ended. The zygote itself
never runs a command, so every child starts from the state of a fresh interpreter that has just
imported the modules: no cache of an earlier run (the machine's nginx, a target) is inherited.
"""

from __future__ import annotations

import contextlib
import json
import os
import sys

import nginxgen.shell.cli


def _import_everything() -> None:
    """Every module of nginxgen a command may import, and the libraries it imports late (the
    command line's parameter adapters, templates, certificates): a command's own start-up is
    what the zygote saves. Importing runs no command and fills no cache a run would read."""
    import importlib
    import pkgutil

    import nginxgen

    for module in pkgutil.walk_packages(nginxgen.__path__, "nginxgen."):
        if module.name == "nginxgen.__main__":  # runs the command line
            continue
        with contextlib.suppress(ImportError):  # modules of another platform (the browser's)
            importlib.import_module(module.name)
    for late in ("typer._adapters", "jinja2", "cryptography.x509", "yaml"):
        importlib.import_module(late)


def _child(request: dict[str, object]) -> None:
    """The command in this (forked) process, as `nginxgen ARGS` would run in its cwd and env."""
    code = 1
    try:
        os.chdir(str(request["cwd"]))
        os.environ.clear()
        os.environ.update(request["env"])  # type: ignore[arg-type]
        for fd, path, mode in ((0, os.devnull, os.O_RDONLY),
                               (1, request["stdout"], os.O_WRONLY),
                               (2, request["stderr"], os.O_WRONLY)):  # fmt: skip
            opened = os.open(str(path), mode)
            os.dup2(opened, fd)
            os.close(opened)
        sys.stdin = open(0, encoding="utf-8", closefd=False)  # noqa: SIM115
        sys.stdout = open(1, "w", encoding="utf-8", closefd=False)  # noqa: SIM115
        sys.stderr = open(2, "w", encoding="utf-8", closefd=False)  # noqa: SIM115
        sys.argv = ["nginxgen", *request["argv"]]  # type: ignore[misc]
        nginxgen.shell.cli.console()  # exits: sys.exit, or os._exit after a lint
    except SystemExit as done:
        code = done.code if isinstance(done.code, int) else (0 if done.code is None else 1)
        if isinstance(done.code, str):
            print(done.code, file=sys.stderr)
    except BaseException:  # as an interpreter would: the traceback, exit 1
        import traceback

        traceback.print_exc()
    finally:
        for stream in (sys.stdout, sys.stderr):
            with contextlib.suppress(Exception):  # the reader left: the code is what counts
                stream.flush()
        os._exit(code)


def main() -> None:
    _import_everything()
    for line in sys.stdin:
        request = json.loads(line)
        pid = os.fork()
        if pid == 0:
            _child(request)
        print(f"started {pid}", flush=True)
        _, status = os.waitpid(pid, 0)
        print(f"exit {os.waitstatus_to_exitcode(status)}", flush=True)


if __name__ == "__main__":
    main()
