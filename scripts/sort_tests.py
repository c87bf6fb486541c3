"""Sort the test files into folders by feature (issue 45): each tests/test_*.py still at the top
goes, by `git mv`, to the folder that the longest prefix of its name in TABLE gives; then every
reference to a test file in a folder, as a path (tests/test_x.py) or a module (tests.test_x),
anywhere in the repository, is rewritten to its place, and a moved file's Path(__file__)
climbs one folder more. The shared helpers (helpers.py, live.py, builds.py, conftest.py...),
tests/data, tests/logs and tests/fuzzing stay where they are.

Rerun it after a merge: it moves what is still at the top and rewrites the old references any
branch brought to files already sorted. A test file that no prefix matches stops it before
anything moves: add its prefix to TABLE. --dry-run prints the moves only. The moves of its
first run are listed in scripts/sort_tests.moves.

    python scripts/sort_tests.py [--dry-run]
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
TESTS = REPO / "tests"

# (prefix of the file name without test_ and .py, folder); the longest prefix that matches wins
TABLE: tuple[tuple[str, str], ...] = (
    # the config model: reading, routing, effective values, stream, backends
    ("backend_pools", "conf"),
    ("client_certs", "conf"),
    ("client_certificates_live", "conf"),
    ("certificate_per_name_live", "conf"),
    ("handshake_context_live", "conf"),
    ("effective", "conf"),
    ("headers_live", "conf"),
    ("lexer", "conf"),
    ("source_model", "conf"),
    ("stream", "conf"),
    ("tree_location", "conf"),
    ("newcomer_trees", "conf"),
    ("upstream", "conf"),
    ("structure_oracle", "conf"),
    ("fuzz_backends", "conf"),
    ("fuzz_live", "conf"),
    # lint: rules, inputs, settings, the oracles of what nginx refuses
    ("lint_", "lint"),
    ("live_rules", "lint"),
    ("rule_", "lint"),
    ("lazy_fixes", "lint"),
    ("fuzz_lint", "lint"),
    ("grammar_oracle", "lint"),
    ("value_", "lint"),
    ("variable_oracle", "lint"),
    ("default_server_live", "lint"),
    ("listen_certificate_live", "lint"),
    ("pre_commit", "lint"),
    ("early_data", "lint"),
    ("default_ciphers", "lint"),
    ("trusted_certificates", "lint"),
    ("stream_sni", "lint"),
    # fix: --fix, --unsafe-fixes, --diff, the edits and the writer
    ("lint_fix", "fix"),
    ("fix_", "fix"),
    ("fuzz_fix", "fix"),
    ("edits", "fix"),
    ("early_staging", "fix"),
    ("diff_apply", "fix"),
    ("edit_hygiene", "fix"),
    # generate
    ("generate_", "generate"),
    ("presets", "generate"),
    ("live_presets", "generate"),
    ("live_sslyze", "generate"),
    ("render_property", "generate"),
    ("fuzz_generate", "generate"),
    ("fuzz_regressions", "generate"),
    ("site_file", "generate"),
    ("problem_lines", "generate"),
    # generate --into
    ("generate_into", "into"),
    ("certbot_journey", "into"),
    # probe
    ("probe_", "probe"),
    ("hpke", "probe"),
    ("fuzz_observer", "probe"),
    # report, the language server, the browser page
    ("report", "report"),
    ("lsp", "lsp"),
    ("web", "web"),
    # the facts: knowledge, the target, the TLS libraries' tables and ciphers
    ("knowledge", "knowledge"),
    ("releases", "knowledge"),
    ("advisories", "knowledge"),
    ("target", "knowledge"),
    ("machine_target", "knowledge"),
    ("library_tables", "knowledge"),
    ("cipher", "knowledge"),
    ("tls_libraries_live", "knowledge"),
    ("newest_builds_live", "knowledge"),
    ("duplicate_directives", "knowledge"),
    ("managers", "knowledge"),
    # formats and primitives below every feature
    ("der", "formats"),
    ("ech", "formats"),
    ("records", "formats"),
    # the repository as a whole: its floors, packaging, provisioning, the test markers
    ("architecture", "house"),
    ("packaging", "house"),
    ("provision", "house"),
    ("markers", "house"),
    ("self_contained", "house"),
    ("doctor", "house"),
    ("api", "house"),  # the one face the shells stand on
)
FOLDERS = sorted({folder for _, folder in TABLE})
# this script and the record of its first run name the old paths on purpose
KEEP = {"scripts/sort_tests.py", "scripts/sort_tests.moves"}


def folder_of(name: str) -> str | None:
    """The folder of tests/test_<name>.py."""
    matches = [(len(prefix), folder) for prefix, folder in TABLE if name.startswith(prefix)]
    return max(matches)[1] if matches else None


def git(*args: str) -> str:
    return subprocess.run(
        ["git", *args], cwd=REPO, check=True, capture_output=True, text=True
    ).stdout


def moves() -> dict[Path, Path]:
    """Each test file at the top, and where it goes; exits naming the files without a place."""
    found = {path: folder_of(path.stem.removeprefix("test_")) for path in TESTS.glob("test_*.py")}
    lost = sorted(path.name for path, folder in found.items() if folder is None)
    if lost:
        sys.exit(f"sort_tests: no folder for {', '.join(lost)}: add a prefix to TABLE")
    return {path: TESTS / str(folder) / path.name for path, folder in sorted(found.items())}


def sorted_files() -> dict[str, str]:
    """Every test file in a folder of TABLE: its name (without .py), and its folder."""
    return {
        path.stem: folder
        for folder in FOLDERS
        for path in sorted((TESTS / folder).glob("test_*.py"))
    }


def rewrite(text: str, places: dict[str, str]) -> str:
    """References to a test file at the top, rewritten to its folder: as a path, a module and
    a glob (tests/test_fuzz_*.py: the fuzzers now live in several folders)."""
    names = "|".join(sorted(map(re.escape, places), key=len, reverse=True))
    path = re.compile(rf"(?<![\w.-])tests/({names})(?!\w)")
    module = re.compile(rf"(?<![\w.])tests\.({names})(?!\w)")
    text = path.sub(lambda m: f"tests/{places[m[1]]}/{m[1]}", text)
    text = module.sub(lambda m: f"tests.{places[m[1]]}.{m[1]}", text)
    return re.sub(r"(?<![\w.-])tests/(test_\w*\*)", r"tests/*/\1", text)


HERE = r"Path\(__file__\)\.resolve\(\)\.parent"


def climb(text: str) -> str:
    """A moved file is one folder further down: its Path(__file__) climbs become tests.paths'
    REPO (a third .parent is what tests/house/test_self_contained.py takes for a climb out of
    the repository)."""
    text, to_repo = re.subn(HERE + r"\.parent(?![.\w])", "REPO", text)
    text, to_tests = re.subn(HERE + r"(?![.\w])", 'REPO / "tests"', text)
    if not to_repo + to_tests:
        return text
    text = re.sub(r"^REPO = REPO\n", "", text, flags=re.MULTILINE)
    imported = r"^from [\w.]+ import (\([^)]*\bREPO\b[^)]*\)|.*\bREPO\b)"
    if not re.search(imported, text, re.MULTILINE):
        text = text.replace(
            "from __future__ import annotations\n",
            "from __future__ import annotations\n\nfrom tests.paths import REPO\n",
            1,
        )
    return text


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dry-run", action="store_true", help="print the moves, change nothing")
    args = parser.parse_args()
    planned = moves()
    for source, target in planned.items():
        print(f"{source.relative_to(REPO)} -> {target.relative_to(REPO)}")
    if args.dry_run:
        return 0
    for source, target in planned.items():
        target.parent.mkdir(exist_ok=True)
        init = target.parent / "__init__.py"
        if not init.exists():
            init.write_text("")
            git("add", str(init.relative_to(REPO)))
        git("mv", str(source.relative_to(REPO)), str(target.relative_to(REPO)))
        target.write_text(climb(target.read_text()))
    places = sorted_files()
    listed = git("ls-files", "-z", "--cached", "--others", "--exclude-standard").split("\0")
    changed = []
    for name in sorted(set(filter(None, listed)) - KEEP):
        file = REPO / name
        if not file.is_file() or file.is_symlink():
            continue
        try:
            text = file.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue  # not text
        new = rewrite(text, places)
        if new != text:
            file.write_text(new, encoding="utf-8")
            changed.append(name)
    print(f"sort_tests: {len(planned)} moved, references rewritten in {len(changed)} files")
    python = [name for name in changed if name.endswith(".py")]
    moved = [str(target.relative_to(REPO)) for target in planned.values()]
    for target in planned.values():
        if "Path(__file__)" in target.read_text():
            print(
                f"sort_tests: {target.relative_to(REPO)} still climbs from Path(__file__): check it"
            )
    if python or moved:  # module names changed length and order: imports sorted again
        ruff = [sys.executable, "-m", "ruff"]
        subprocess.run([*ruff, "check", "--select", "I", "--fix", "-q", *python, *moved], cwd=REPO)
        # a moved file's `from pathlib import Path` may be left unused by climb()
        subprocess.run([*ruff, "check", "--select", "F401", "--fix", "-q", *moved], cwd=REPO)
        subprocess.run([*ruff, "format", "-q", *python, *moved], cwd=REPO)
        # a longer path can push a line of prose past the limit: those are rewrapped by hand
        subprocess.run([*ruff, "check", "--select", "E501", "-q", *python], cwd=REPO)
    return 0


if __name__ == "__main__":
    sys.exit(main())
