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


def flag_on(args: list[str] | None) -> bool:
    """Whether a flag's words turn it on (`ssl_stapling on;`, the last line of the directive in
    effect): nginx reads `on` and `off` in any case (ngx_conf_set_flag_slot and
    ngx_conf_set_enum_slot compare with ngx_strcasecmp), so `ON` is on."""
    return args is not None and len(args) > 0 and args[0].lower() == "on"
