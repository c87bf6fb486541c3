"""nginx's reading of directive arguments, so that values nginx treats as equal are equal for
every rule, fix and `--into`: `ssl_session_timeout 1440m` and `1d` are one setting, and
changing one into the other is churn, not a fix. Which directive takes which kind of value is a
knowledge fact (nginx.toml, value_types)."""

from __future__ import annotations

import re

from nginxgen import knowledge

# ngx_parse_time's units in seconds (M: a month of 30 days, y: 365 days)
_TIME_UNITS = {"ms": 0.001, "s": 1, "m": 60, "h": 3600, "d": 86400, "w": 604800}
_TIME_UNITS |= {"M": 2592000, "y": 31536000, "": 1}
_TIME_PART = re.compile(r"\s*(\d+)(ms|[smhdwMy]?)")
_SIZE = re.compile(r"(\d+)([kKmMgG]?)")
_SIZE_UNITS = {"": 1, "k": 1024, "m": 1024**2, "g": 1024**3}


def _time(text: str) -> float | None:
    total, at = 0.0, 0
    while at < len(text):
        part = _TIME_PART.match(text, at)
        if part is None or part.end() == at:
            return None
        total += int(part.group(1)) * _TIME_UNITS[part.group(2)]
        at = part.end()
        while at < len(text) and text[at] == " ":
            at += 1
    return total if text.strip() else None


def _size(text: str) -> int | None:
    found = _SIZE.fullmatch(text)
    if found is None:
        return None
    return int(found.group(1)) * _SIZE_UNITS[found.group(2).lower()]


def _cache_part(part: str) -> object:
    """`shared:NAME:SIZE` by its size in bytes; builtin[:N], none, off as written."""
    if part.startswith("shared:"):
        name, _, size = part[len("shared:") :].partition(":")
        return ("shared", name, _size(size) if size else None)
    return part.lower()


def canonical(directive: str, args: list[str]) -> object:
    """The arguments as nginx reads them: equal for every spelling of one setting. Arguments of
    a directive whose kind is not known, or that do not parse, stay as written."""
    kinds = knowledge.nginx_fact("value_types")
    if directive in kinds["time"] and len(args) >= 1:
        parsed = [_time(a) for a in args]
        return tuple(parsed) if None not in parsed else tuple(args)
    if directive in kinds["size"] and len(args) == 1:
        size = _size(args[0])
        return size if size is not None else tuple(args)
    if directive in kinds["flag"] and len(args) == 1:
        return args[0].lower()
    if directive in kinds["bitmask"]:
        return frozenset(a.lower() for a in args)
    if directive in kinds["session_cache"]:
        return frozenset(_cache_part(a) for a in args)
    return tuple(args)


def same_value(directive: str, a: list[str], b: list[str]) -> bool:
    """True when nginx reads the two argument lists of this directive as one setting."""
    return a == b or canonical(directive, a) == canonical(directive, b)
