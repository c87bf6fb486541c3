"""`nginxgen lint` (placeholder until the linter lands)."""

from __future__ import annotations

import sys


def run(args: list[str]) -> int:
    print("nginxgen: error: lint is not implemented yet", file=sys.stderr)
    return 2
