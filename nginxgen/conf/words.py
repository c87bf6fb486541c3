"""How an argument is written so that nginx reads it back as the same word
(ngx_conf_read_token: whitespace, `;`, `{`, `}`, quotes, `#` and `\\` end or change a word)."""

from __future__ import annotations


def quoted(text: str) -> str:
    """Double-quoted, with `\\` and `"` escaped."""
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def word(text: str) -> str:
    """Bare when nothing in it ends or changes a word, else quoted()."""
    if text and not any(c in text for c in " \t\r\n;{}\"'#\\"):
        return text
    return quoted(text)
