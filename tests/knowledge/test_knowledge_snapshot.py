"""The JSON snapshot the lint path reads is exactly the knowledge TOML files it was made from."""

from __future__ import annotations

import json
from pathlib import Path

from nginxgen.knowledge.data import SNAPSHOT, read_toml_files


def test_snapshot_is_current() -> None:
    fresh = read_toml_files()
    stored = json.loads(Path(SNAPSHOT).read_text(encoding="utf-8"))
    assert stored == fresh, "run: python scripts/build_knowledge_snapshot.py"
