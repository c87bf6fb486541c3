"""Regenerate docs/rules/ (one page per lint rule, and an index) from the rule modules.

Usage: python scripts/render_rule_docs.py
"""

from pathlib import Path

from nginxgen.lint.rule_docs import write

if __name__ == "__main__":
    folder = Path(__file__).resolve().parent.parent / "docs" / "rules"
    print(f"{len(write(folder))} files written under {folder}")
