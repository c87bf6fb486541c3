"""`nginxgen lsp`: start the language server, which needs the `lsp` extra (pygls); without it,
one line saying how to install it (exit 2). Both command paths (the fast `nginxgen lsp` and the
typer app's) start it here."""

from __future__ import annotations

import sys


def run_lsp(argv: list[str]) -> int:
    """`nginxgen lsp`: the language server, from the `lsp` extra (pygls)."""
    from nginxgen.base.errors import NginxgenError

    try:
        from nginxgen.lsp.server import main as serve
    except ImportError as exc:
        print(
            f"nginxgen: error: nginxgen lsp needs the lsp extra (pip install 'nginxgen[lsp]'): "
            f"{exc}",
            file=sys.stderr,
        )
        return 2
    try:
        return serve(argv)
    except NginxgenError as exc:
        print(f"nginxgen: error: {exc}", file=sys.stderr)
        return 2
