"""nginx's reading of directive arguments, so that values nginx treats as equal are equal for
every rule, fix and `--into`: `ssl_session_timeout 1440m` and `1d` are one setting, and
changing one into the other is churn, not a fix. Which directive takes which kind of value is a
knowledge fact (nginx.toml, value_types)."""

from __future__ import annotations

from nginxgen import knowledge

# ngx_parse_time's units, largest first, in seconds (M: 30 days, y: 365 days); "ms" apart
_TIME_UNITS = (("y", 31536000), ("M", 2592000), ("w", 604800), ("d", 86400), ("h", 3600),
               ("m", 60), ("s", 1))  # fmt: skip
_MAX = 2**63 - 1


def parse_time(text: str, is_sec: bool) -> int | None:
    """Milliseconds as nginx's ngx_parse_time reads the value (None: `nginx -t` refuses it).
    Units in falling order, each once, optionally separated by spaces; a last bare number
    counts as seconds. A seconds setting (is_sec) takes y and M but no ms; a milliseconds
    setting takes ms but no y or M."""
    total, value, valid, step, at = 0, 0, False, -1 if is_sec else 1, 0
    while at < len(text):
        char = text[at]
        if char.isdigit() and char.isascii():
            value = value * 10 + int(char)
            valid, at = True, at + 1
            continue
        if text.startswith("ms", at):
            if is_sec or step >= 7:
                return None
            step, scale, at = 7, 1, at + 2
        elif char == " ":
            if step >= 6:
                return None
            step, scale, at = 8, 1000, at + 1
        else:
            found = [i for i, (unit, _) in enumerate(_TIME_UNITS) if unit == char]
            if not found or step >= found[0]:
                return None
            step, scale, at = found[0], _TIME_UNITS[found[0]][1] * 1000, at + 1
        total += value * scale
        value = 0
        while at < len(text) and text[at] == " ":
            at += 1
    if not valid:
        return None
    total += value * 1000
    return total if total <= _MAX else None


def parse_size(text: str, offset: bool = False) -> int | None:
    """Bytes as ngx_parse_size reads the value (k K m M; ngx_parse_offset also g G)."""
    units = "kKmMgG" if offset else "kKmM"
    number, unit = (text[:-1], text[-1]) if text and text[-1] in units else (text, "")
    if not number.isdigit() or not number.isascii():
        return None
    size = int(number) * {"": 1, "k": 1024, "m": 1024**2, "g": 1024**3}[unit.lower()]
    return size if size <= _MAX else None


def _cache_part(part: str) -> object:
    """`shared:NAME:SIZE` by its size in bytes; builtin[:N], none, off as written."""
    if part.startswith("shared:"):
        name, _, size = part[len("shared:") :].partition(":")
        return ("shared", name, parse_size(size) if size else None)
    return part.lower()


def canonical(directive: str, args: list[str]) -> object:
    """The arguments as nginx reads them: equal for every spelling of one setting. Arguments of
    a directive whose kind is not known, or that do not parse, stay as written."""
    kinds = knowledge.nginx_fact("value_types")
    if directive in kinds["time"] and len(args) >= 1:
        parsed = [parse_time(a, True) or parse_time(a, False) for a in args]
        return tuple(parsed) if None not in parsed else tuple(args)
    if directive in kinds["size"] and len(args) == 1:
        size = parse_size(args[0])
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
