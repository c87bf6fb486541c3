"""Where the test data lives: inside this repository, under tests/data/ (issue 23). Every
third-party file there is listed in tests/data/PROVENANCE.tsv with its repository, commit, path
and licence."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

REPO = Path(__file__).resolve().parent.parent
DATA = REPO / "tests" / "data"
PROVENANCE = DATA / "PROVENANCE.tsv"
CORPUS = DATA / "corpus"  # real-world configs, in their repositories' folder layout
LAYOUTS = DATA / "layouts"  # stock trees as packages ship them
GUIDELINES = DATA / "mozilla" / "guidelines"  # Mozilla's guideline JSON
REFERENCE_OUTPUTS = DATA / "mozilla" / "reference-outputs"  # what Mozilla's generator prints
EXAMPLES = REPO / "examples"


def corpus_files() -> list[Path]:
    """Every file of the corpus (configs, licences and all), in a stable order."""
    return sorted(p for p in CORPUS.rglob("*") if p.is_file())


def example_and_corpus_files() -> list[Path]:
    """Every rendered example and every corpus file: the texts the lexer and parsers must take."""
    return sorted(EXAMPLES.rglob("*.conf")) + corpus_files()


def script(name: str) -> ModuleType:
    """scripts/NAME.py as a module (a table script whose parser a test reruns)."""
    spec = importlib.util.spec_from_file_location(name, REPO / "scripts" / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
