"""Regenerate examples/ (every preset for each example target).

Usage: python scripts/render_examples.py
"""

from pathlib import Path

from nginxgen.generate.examples import write_examples

if __name__ == "__main__":
    root = Path(__file__).resolve().parent.parent / "examples"
    print(f"{len(write_examples(root))} files written under {root}")
