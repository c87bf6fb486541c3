"""Regenerate docs/rules/ (one page per lint rule, and an index) and the rule index lint reads
(nginxgen/lint/rules/_index.py) from the rule modules.

Usage: python scripts/render_rule_docs.py
"""

from pathlib import Path

from nginxgen.lint.rule_docs import write
from nginxgen.lint.rules import render_index

if __name__ == "__main__":
    root = Path(__file__).resolve().parent.parent
    folder = root / "docs" / "rules"
    print(f"{len(write(folder))} files written under {folder}")
    index = root / "nginxgen" / "lint" / "rules" / "_index.py"
    index.write_text(render_index(), encoding="utf-8")
    print(f"wrote {index}")
