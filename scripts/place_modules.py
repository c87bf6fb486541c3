"""Place every module of nginxgen/ in the folder of its floor (issue 45), and rewrite the imports
and dotted names that name a module by its old place. Rerunnable: a module already moved is
left where it is, and the rewrite only touches names of the old places, so a branch written
against the old places can be merged and then this script run again.

    python scripts/place_modules.py          # move (git mv) and rewrite
    python scripts/place_modules.py --check  # exit 1 when a file still names an old place
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent

# old dotted module -> new dotted module (a package moves with every module in it)
MOVES: dict[str, str] = {
    # floor 1, base: formats and primitives
    "nginxgen.errors": "nginxgen.base.errors",
    "nginxgen.records": "nginxgen.base.records",
    "nginxgen.version": "nginxgen.base.version",
    "nginxgen.resources": "nginxgen.base.resources",
    "nginxgen.sockets": "nginxgen.base.sockets",
    "nginxgen.spelling": "nginxgen.base.spelling",
    "nginxgen.console": "nginxgen.base.console",
    "nginxgen.severity": "nginxgen.base.severity",
    "nginxgen.rule_codes": "nginxgen.base.rule_codes",
    "nginxgen.pem": "nginxgen.base.pem",
    "nginxgen.der": "nginxgen.base.der",
    "nginxgen.ech": "nginxgen.base.ech_configs",
    "nginxgen.forks": "nginxgen.base.forks",
    # floor 2, files
    "nginxgen.diff": "nginxgen.files.diff",
    "nginxgen.writer": "nginxgen.files.writer",
    "nginxgen.nginx_check": "nginxgen.files.nginx_check",
    "nginxgen.certs": "nginxgen.files.certs",
    "nginxgen.settings": "nginxgen.files.settings",
    "nginxgen.pinned": "nginxgen.files.pinned",
    # floor 3, knowledge with the target
    "nginxgen.target": "nginxgen.knowledge.target",
    "nginxgen.values": "nginxgen.knowledge.equal_values",
    # the engine's suite table beside the engine (knowledge stands below the ciphers it feeds)
    "nginxgen.knowledge.cipher_suites": "nginxgen.ciphers.suites",
    # names that said two things
    "nginxgen.generate.values": "nginxgen.generate.quoting",
    "nginxgen.generate.planning": "nginxgen.generate.plan_common",
    "nginxgen.edit.tree": "nginxgen.edit.tree_sources",
    "nginxgen.conf.client_tls": "nginxgen.conf.as_client",
    "nginxgen.conf.client_certs": "nginxgen.conf.client_certificates",
    "nginxgen.lint.report": "nginxgen.lint.output",
    "nginxgen.ciphers.report": "nginxgen.ciphers.listing",
    "nginxgen.lsp.session": "nginxgen.lsp.workspace",
    "nginxgen.probe.session": "nginxgen.probe.resumption",
    # the shells
    "nginxgen.cli": "nginxgen.shell.cli",
    "nginxgen.commands": "nginxgen.shell.commands",
    "nginxgen.doctor": "nginxgen.shell.doctor",
}

NEW_PACKAGES = {
    "nginxgen/base": "Floor 1: formats and primitives every other floor stands on (errors, typed\n"
    "records, versions, certificates' and ECH configs' encodings, how a command prints).",
    "nginxgen/files": "Floor 2: reading and writing the user's files (settings, certificates, diffs,\n"
    "the all-or-none writer, nginx -t around a write).",
    "nginxgen/shell": "The shells: the command line over the features (the language server is\n"
    "nginxgen/lsp/, the in-process API nginxgen/api/).",
}

TEXT_FILES = ("*.py", "*.toml", "*.md", "*.yaml", "*.yml", "*.cfg", "*.txt", "*.j2", "run")
SKIP = (".git", ".venv", ".cache", "node_modules", "site-build")


def path_of(module: str) -> Path:
    """The file (or package folder) of a dotted module, relative to the repository."""
    parts = module.split(".")
    folder = REPO.joinpath(*parts)
    return folder if folder.is_dir() else folder.with_suffix(".py")


def move() -> None:
    for folder, doc in NEW_PACKAGES.items():
        init = REPO / folder / "__init__.py"
        if not init.exists():
            init.parent.mkdir(parents=True, exist_ok=True)
            init.write_text(f'"""{doc}"""\n')
            subprocess.run(["git", "add", str(init)], cwd=REPO, check=True)
    for old, new in MOVES.items():
        source, target = path_of(old), path_of(new)
        if not source.exists():
            continue  # moved already
        if source.is_dir():
            target = REPO.joinpath(*new.split("."))
        else:
            target = REPO.joinpath(*new.split(".")).with_suffix(".py")
        target.parent.mkdir(parents=True, exist_ok=True)
        subprocess.run(["git", "mv", str(source), str(target)], cwd=REPO, check=True)


def _pattern() -> re.Pattern[str]:
    names = sorted(MOVES, key=len, reverse=True)
    # a dotted name as a whole word, or as a path (nginxgen/target.py) in prose and tables
    alternatives = "|".join(re.escape(n) for n in names)
    return re.compile(rf"(?<![\w.])({alternatives})(?![\w])")


def _paths() -> re.Pattern[str]:
    names = sorted(MOVES, key=len, reverse=True)
    alternatives = "|".join(re.escape(n.replace(".", "/")) for n in names)
    return re.compile(rf"(?<![\w/])({alternatives})(\.py|/)")


def _from_imports(text: str) -> str:
    """`from nginxgen import target` -> `from nginxgen.knowledge import target`, and the like,
    for modules imported by their name from their package."""

    def one(match: re.Match[str]) -> str:
        package, names = match[1], match[2]
        moved = []
        kept = []
        for name in [n.strip() for n in names.split(",") if n.strip()]:
            bare = name.split(" as ")[0].strip()
            full = f"{package}.{bare}"
            if full in MOVES:
                new_package, new_name = MOVES[full].rsplit(".", 1)
                alias = name.split(" as ")[1].strip() if " as " in name else bare
                rename = f" as {alias}" if alias != new_name else ""
                moved.append(f"from {new_package} import {new_name}{rename}")
            else:
                kept.append(name)
        if not moved:
            return match[0]
        lines = [f"from {package} import {', '.join(kept)}"] if kept else []
        indent = match[0][: len(match[0]) - len(match[0].lstrip())]
        return "\n".join(indent + line for line in lines + moved)

    return re.sub(r"(?m)^[ \t]*from (nginxgen(?:\.\w+)*) import ([\w, ]+)$", one, text)


def rewrite(text: str) -> str:
    text = _from_imports(text)
    text = _pattern().sub(lambda m: MOVES[m[1]], text)
    return _paths().sub(lambda m: MOVES[m[1].replace("/", ".")].replace(".", "/") + m[2], text)


def files() -> list[Path]:
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=REPO,
        capture_output=True,
        check=True,
    ).stdout.split(b"\0")
    out = []
    for name in (n.decode() for n in listed if n):
        path = REPO / name
        if any(part in SKIP for part in path.parts) or not path.is_file():
            continue
        if any(path.match(glob) for glob in TEXT_FILES) and "tests/data" not in name:
            out.append(path)
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true")
    args = parser.parse_args()
    if not args.check:
        move()
    stale = []
    for path in files():
        if path == Path(__file__).resolve():
            continue
        text = path.read_text(encoding="utf-8", errors="surrogateescape")
        new = rewrite(text)
        if new != text:
            stale.append(str(path.relative_to(REPO)))
            if not args.check:
                path.write_text(new, encoding="utf-8", errors="surrogateescape")
    if args.check and stale:
        print("names an old place: " + ", ".join(stale))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
