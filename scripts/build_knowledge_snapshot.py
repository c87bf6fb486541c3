"""Rewrite nginxgen/knowledge/snapshot.json from the knowledge TOML files.

Usage: python scripts/build_knowledge_snapshot.py
"""

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from nginxgen.knowledge.data import SNAPSHOT, read_toml_files

if __name__ == "__main__":
    Path(SNAPSHOT).write_text(
        json.dumps(read_toml_files(), sort_keys=True) + "\n", encoding="utf-8"
    )
    print(f"wrote {SNAPSHOT}")
