"""The house's floors (issues 24 and 37): every module of nginxgen stands on a floor, and nothing
it reaches may be on a floor above. "Reaches" follows imports transitively: at module level, in
a function (it runs the first time the function does), and under `if TYPE_CHECKING:` (a floor
that names a higher floor's type depends on it as much as one that calls it), together with the
packages an import runs on the way (`nginxgen.lint.rules.x` runs `nginxgen/lint/__init__.py`).
Imports made from computed names (the rule catalog's importlib call) are not seen."""

from __future__ import annotations

import ast
import subprocess
import sys
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from tests.paths import REPO

# Bottom first: the folders of nginxgen on each floor (issue 45: folders are floors). A module's
# floor is its folder's; it may reach its own floor and those below. Only the package's face
# (`__init__`) and `python -m nginxgen` (`__main__`) stand outside a folder.
FLOORS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("formats and primitives", ("__init__", "base")),
    ("files", ("files",)),
    ("knowledge with the target", ("knowledge",)),
    ("cipher strings", ("ciphers",)),
    ("config model", ("conf",)),
    ("lossless edits", ("edit",)),
    ("live server and logs", ("probe", "report")),
    ("generator", ("generate",)),
    ("into a tree", ("into",)),
    ("linter", ("lint",)),
    ("one face", ("api",)),  # the in-process API: lint, fix, generate, explain as records
    ("shells", ("lsp", "shell", "web", "__main__")),
)
LOOSE = ("__init__", "__main__")  # the only modules of nginxgen/ outside a folder

# Floors order packages one way only: these never reach each other in either direction.
APART: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("lint", ("generate", "into", "probe", "report")),
)

# Where an import statement stands, as a chain says it.
KINDS = {"module": "", "function": " (in a function)", "type": " (for a type)"}


@dataclass(frozen=True)
class Import:
    source: str
    line: int
    target: str
    kind: str  # one of KINDS

    def __str__(self) -> str:
        return f"{self.source}:{self.line}{KINDS[self.kind]} -> {self.target}"


def modules(root: Path, package: str) -> dict[str, Path]:
    """Every module of `package` under `root`, by dotted name (a package by its own name)."""
    found = {}
    for path in sorted((root / package).rglob("*.py")):
        parts = path.relative_to(root).with_suffix("").parts
        found[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return found


def _kinds(tree: ast.Module) -> dict[int, str]:
    """The kind of every node that is not at module level, by id."""
    kinds: dict[int, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            for inner in node.body:
                kinds.update((id(n), "function") for n in ast.walk(inner))
    for node in ast.walk(tree):  # second: a TYPE_CHECKING block in a function is still for a type
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            kinds.update((id(n), "type") for inner in node.body for n in ast.walk(inner))
    return kinds


def imports(name: str, path: Path, known: dict[str, Path]) -> list[Import]:
    """The modules of `known` that importing `name` (at `path`) runs or names, each with the
    packages on its way."""
    tree = ast.parse(path.read_text(), str(path))
    kinds = _kinds(tree)
    here = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            wanted = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            anchor = here[: len(here) - node.level + 1] if node.level else []
            base = ".".join([*anchor, node.module] if node.module else anchor)
            # `from package import module` runs the module; `from module import name` does not
            wanted = [
                f"{base}.{alias.name}" if f"{base}.{alias.name}" in known else base
                for alias in node.names
            ]
        else:
            continue
        for target in wanted:
            parts = target.split(".")
            # the module, then the packages on its way below the root (the root only when named)
            steps = [target, *(".".join(parts[:end]) for end in range(2, len(parts)))]
            for step in steps:
                if step in known and step != name:
                    found.append(Import(name, node.lineno, step, kinds.get(id(node), "module")))
    return found


def graph(root: Path, package: str) -> dict[str, list[Import]]:
    known = modules(root, package)
    return {name: imports(name, path, known) for name, path in known.items()}


def reach(edges: dict[str, list[Import]], start: str) -> dict[str, list[Import]]:
    """Every module `start` reaches, with one shortest chain of imports to it."""
    paths: dict[str, list[Import]] = {start: []}
    queue = deque([start])
    while queue:
        current = queue.popleft()
        for edge in edges[current]:
            if edge.target not in paths:
                paths[edge.target] = [*paths[current], edge]
                queue.append(edge.target)
    del paths[start]
    return paths


def top(name: str) -> str:
    """The top-level module or package a module belongs to (`__init__` for the root itself)."""
    parts = name.split(".")
    return parts[1] if len(parts) > 1 else "__init__"


def floor_numbers(floors: tuple[tuple[str, tuple[str, ...]], ...]) -> dict[str, int]:
    return {member: n for n, (_, members) in enumerate(floors) for member in members}


def _chains(
    edges: dict[str, list[Import]], offends: Callable[[str, str], bool]
) -> dict[tuple[str, str], list[Import]]:
    """For each (package, package it reaches) that `offends`, the shortest chain found."""
    found: dict[tuple[str, str], list[Import]] = {}
    for name in edges:
        for reached, path in reach(edges, name).items():
            pair = (top(name), top(reached))
            if offends(*pair) and (pair not in found or len(path) < len(found[pair])):
                found[pair] = path
    return dict(sorted(found.items()))


def above_floor(
    edges: dict[str, list[Import]], floors: tuple[tuple[str, tuple[str, ...]], ...]
) -> list[str]:
    """One line per (package, higher package it reaches), with the shortest chain found."""
    number = floor_numbers(floors)
    chains = _chains(edges, lambda low, high: number[high] > number[low])
    return [
        f"{low} ({floors[number[low]][0]}) reaches {high} ({floors[number[high]][0]}): "
        + " ; ".join(map(str, path))
        for (low, high), path in chains.items()
    ]


def reaching(
    edges: dict[str, list[Import]], apart: tuple[tuple[str, tuple[str, ...]], ...]
) -> list[str]:
    """One line per pair that must stay apart and does not, with the shortest chain found."""
    pairs = {(one, other) for one, others in apart for other in others}
    pairs |= {(other, one) for one, other in pairs}
    chains = _chains(edges, lambda one, other: (one, other) in pairs)
    return [f"{a} reaches {b}: " + " ; ".join(map(str, p)) for (a, b), p in chains.items()]


def test_every_module_sits_in_the_folder_of_its_floor() -> None:
    loose = sorted(p.stem for p in (REPO / "nginxgen").glob("*.py") if p.stem not in LOOSE)
    assert loose == []  # a module beside the folders says nothing of where it stands
    folders = {p.name for p in (REPO / "nginxgen").iterdir() if (p / "__init__.py").is_file()}
    assert sorted(folders - floor_numbers(FLOORS).keys()) == []


def test_every_module_has_a_floor() -> None:
    tops = {top(name) for name in modules(REPO, "nginxgen")}
    placed = floor_numbers(FLOORS)
    assert sorted(tops - placed.keys()) == []  # a new package says where it stands
    assert sorted(placed.keys() - tops) == []  # and the table names nothing that is gone
    assert sum(len(members) for _, members in FLOORS) == len(placed)  # each on one floor


def test_nothing_reaches_above_its_floor() -> None:
    assert above_floor(graph(REPO, "nginxgen"), FLOORS) == []


def test_the_linter_and_its_siblings_stay_apart() -> None:
    assert reaching(graph(REPO, "nginxgen"), APART) == []


def test_reading_certificates_loads_cryptography_only_once_there_is_a_file() -> None:
    code = (
        "import sys; import nginxgen.files.certs, nginxgen.conf.files, nginxgen.base.pem, nginxgen.base.der; "
        "print(sorted(m for m in sys.modules if m.split('.')[0] == 'cryptography'))"
    )
    # from the repository, so that its nginxgen is the one imported (python -c puts "" first)
    result = subprocess.run(
        [sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, check=True
    )
    assert result.stdout == "[]\n"


def _plant(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)


def test_the_check_follows_functions_types_and_chains(tmp_path: Path) -> None:
    # low's function imports mid; mid names a type of high: low reaches high through mid
    _plant(
        tmp_path,
        {
            "house/__init__.py": "",
            "house/low/__init__.py": "",
            "house/low/a.py": "def f():\n    from house.mid import b\n",
            "house/mid/__init__.py": "",
            "house/mid/b.py": "TYPE_CHECKING = False\nif TYPE_CHECKING:\n    from house.high.c import C\n",
            "house/high/__init__.py": "",
            "house/high/c.py": "from ..low import a\nclass C: ...\n",
        },
    )
    edges = graph(tmp_path, "house")
    # `from house.mid import b` runs the module b and the package house.mid on its way
    assert [str(e) for e in edges["house.low.a"]] == [
        "house.low.a:2 (in a function) -> house.mid.b",
        "house.low.a:2 (in a function) -> house.mid",
    ]
    assert [str(e) for e in edges["house.high.c"]] == [
        "house.high.c:1 -> house.low.a",  # a relative import, resolved
        "house.high.c:1 -> house.low",
    ]
    floors = (("bottom", ("__init__", "low")), ("middle", ("mid",)), ("top", ("high",)))
    assert above_floor(edges, floors) == [
        "low (bottom) reaches high (top): house.low.a:2 (in a function) -> house.mid.b ; "
        "house.mid.b:3 (for a type) -> house.high.c",
        "low (bottom) reaches mid (middle): house.low.a:2 (in a function) -> house.mid.b",
        "mid (middle) reaches high (top): house.mid.b:3 (for a type) -> house.high.c",
    ]
    assert reaching(edges, (("high", ("mid",)),)) == [
        "high reaches mid: house.high.c:1 -> house.low.a ; house.low.a:2 (in a function) -> house.mid.b",
        "mid reaches high: house.mid.b:3 (for a type) -> house.high.c",
    ]
    assert above_floor(edges, (("one floor", ("__init__", "high", "low", "mid")),)) == []


def circles(edges: dict[str, list[Import]]) -> list[list[str]]:
    """The modules that reach each other in a loop (strongly connected, more than one), each
    loop sorted; every kind of import counts, as for the floors."""
    found = []
    seen: set[str] = set()
    for name in sorted(edges):
        if name in seen:
            continue
        ahead = reach(edges, name)
        loop = sorted({name, *(m for m in ahead if name in reach(edges, m))})
        seen.update(loop)
        if len(loop) > 1:
            found.append(loop)
    return found


def test_no_module_reaches_itself_through_others() -> None:
    assert circles(graph(REPO, "nginxgen")) == []


def test_the_circle_check_sees_a_loop(tmp_path: Path) -> None:
    _plant(
        tmp_path,
        {
            "house/__init__.py": "",
            "house/a.py": "def f():\n    from house import b\n",
            "house/b.py": "TYPE_CHECKING = False\nif TYPE_CHECKING:\n    from house.a import f\n",
            "house/c.py": "from house import a\n",
        },
    )
    assert circles(graph(tmp_path, "house")) == [["house.a", "house.b"]]
