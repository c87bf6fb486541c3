"""Ask a real nginx build which directives take a block, context by context.

nginx's ngx_conf_handler() checks a directive's NGX_CONF_BLOCK flag before anything else about
it: `NAME {}` for a directive without the flag fails with `directive "NAME" is not terminated by
";"`, and `NAME;` for one with the flag fails with `directive "NAME" has no opening "{"`. A name
the build does not know fails with `unknown directive`, one in the wrong place with `is not
allowed here`. Each probe is one `nginx -t` of a tiny file (a few milliseconds).

Used by scripts/build_directive_table.py (which writes nginxgen/knowledge/directives.json) and by
tests/test_directive_table.py (which checks that file against every build).
"""

from __future__ import annotations

import re
import subprocess
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from tests.builds import Build

# Probe context -> (the file around the probe, the enclosing block's directive name as the
# linter sees it; None: the top of the main file).
CONTEXTS: dict[str, tuple[str, str | None]] = {
    "main": ("@", None),
    "events": ("events { @ }", "events"),
    "http": ("events {} http { @ }", "http"),
    "server": ("events {} http { server { @ } }", "server"),
    "location": ("events {} http { server { location / { @ } } }", "location"),
    "if": ("events {} http { server { location / { if ($uri) { @ } } } }", "if"),
    "limit_except": (
        "events {} http { server { location / { limit_except GET { @ } } } }",
        "limit_except",
    ),
    "upstream": ("events {} http { upstream u { @ } }", "upstream"),
    "stream": ("events {} stream { @ }", "stream"),
    "stream_server": ("events {} stream { server { @ } }", "server"),
    "stream_upstream": ("events {} stream { upstream u { @ } }", "upstream"),
    "mail": ("events {} mail { @ }", "mail"),
    "mail_server": ("events {} mail { server { @ } }", "server"),
}
NAME_CANDIDATE = re.compile(rb"[a-z][a-z0-9_]{1,48}")


def nginx_t(build: Build, text: str, folder: Path) -> str:
    """The first [emerg] message of `nginx -t` on this text ("" when the syntax is ok)."""
    return nginx_t_at(build, text, folder)[0]


def nginx_t_at(build: Build, text: str, folder: Path) -> tuple[str, int | None]:
    """nginx_t's message, and the line of the file nginx names with it (None: none named)."""
    conf = folder / "nginx.conf"
    conf.write_bytes(text.encode("utf-8", errors="surrogateescape"))
    result = subprocess.run(
        [
            *build.nginx_argv,
            "-p",
            f"{folder}/",
            "-c",
            str(conf),
            "-e",
            "/dev/null",
            "-t",
            "-g",
            f"pid {folder}/nginx.pid;",
        ],
        capture_output=True,
        text=True,
        errors="replace",
        timeout=30,
        check=False,
        env=build.env(),
    )
    if "syntax is ok" in result.stderr:
        return "", None
    found = re.search(r"\[emerg\] (.*?)(?: in \S+:(\d+))?$", result.stderr, re.M)
    if found is None:
        return result.stderr.strip(), None
    return found.group(1), int(found.group(2)) if found.group(2) else None


def probe(build: Build, name: str, context: str, folder: Path) -> str:
    """block | simple | absent (unknown here, or this context's module is not built in)."""
    around = CONTEXTS[context][0]
    opened = nginx_t(build, around.replace("@", f"{name} {{}}"), folder)
    if opened == f'directive "{name}" is not terminated by ";"':
        return "simple"
    if opened.startswith(("unknown directive", f'"{name}" directive is not allowed here')):
        return "absent"
    closed = nginx_t(build, around.replace("@", f"{name};"), folder)
    if closed == f'directive "{name}" has no opening "{{"':
        return "block"
    raise RuntimeError(f"{build.name}: {name} in {context}: {opened!r} / {closed!r}")


def known(build: Build, name: str, folder: Path) -> bool:
    """Whether the build has a directive of this name anywhere."""
    message = nginx_t(build, f"{name} {{}}", folder)
    return not message.startswith(f'unknown directive "{name}"')


def candidates(build: Build) -> set[str]:
    """Every word in the nginx binary that could be a directive name."""
    binary = Path(build.nginx_argv[-1])
    return {m.decode() for m in NAME_CANDIDATE.findall(binary.read_bytes())}


def probe_all(build: Build, names: list[str], contexts: list[str]) -> dict[tuple[str, str], str]:
    """(name, context) -> block | simple | absent, for every pair, two threads at a time."""

    def one(pair: tuple[str, str]) -> tuple[tuple[str, str], str]:
        with tempfile.TemporaryDirectory(prefix="nginxgen-probe-") as tmp:
            return pair, probe(build, pair[0], pair[1], Path(tmp))

    pairs = [(n, c) for n in names for c in contexts]
    with ThreadPoolExecutor(max_workers=2) as pool:
        return dict(pool.map(one, pairs))


def known_names(build: Build, names: set[str]) -> list[str]:
    def one(name: str) -> str | None:
        with tempfile.TemporaryDirectory(prefix="nginxgen-probe-") as tmp:
            return name if known(build, name, Path(tmp)) else None

    with ThreadPoolExecutor(max_workers=2) as pool:
        return sorted(n for n in pool.map(one, sorted(names)) if n)
