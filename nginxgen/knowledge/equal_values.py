"""nginx's reading of directive arguments, so that values nginx treats as equal are equal for
every rule, fix and `--into`: `ssl_session_timeout 1440m` and `1d` are one setting, and
changing one into the other is churn, not a fix. Which directive takes which kind of value is a
knowledge fact (nginx.toml, value_types)."""

from __future__ import annotations

from nginxgen.knowledge import nginx

# ngx_parse_time's units in seconds (M: 30 days, y: 365 days), each with its step: a unit may
# only follow larger ones; "ms" (step 8) apart
_TIME_UNITS = {"y": (1, 31536000), "M": (2, 2592000), "w": (3, 604800), "d": (4, 86400),
               "h": (5, 3600), "m": (6, 60), "s": (7, 1)}  # fmt: skip
_MSEC, _LAST = 8, 9
_MAX = 2**63 - 1


def parse_time(text: str, is_sec: bool) -> int | None:
    """Milliseconds as nginx's ngx_parse_time reads the value (None: `nginx -t` refuses it).
    Units in falling order, each once, optionally separated by spaces; a last bare number
    counts as seconds. A seconds setting (is_sec) takes y and M but no ms; a milliseconds
    setting takes ms but no y or M. Overflow is judged as nginx does, in the setting's own
    unit: `99999999999y` fits a seconds setting (3.2e18 s) and overflows a milliseconds one."""
    # step by step as src/core/ngx_parse.c (unchanged since 1.9.x): `value` is the number being
    # read, `total` the sum so far, both in seconds (is_sec) or milliseconds
    total, value, valid, at = 0, 0, False, 0
    step = 0 if is_sec else _TIME_UNITS["M"][0]
    while at < len(text):
        char = text[at]
        at += 1
        if char.isdigit() and char.isascii():
            if value > (_MAX - int(char)) // 10:
                return None
            value, valid = value * 10 + int(char), True
            continue
        unit = _time_unit(text, at, step, is_sec)
        if unit is None:
            return None
        step, seconds, at = unit
        scale = 1 if step == _MSEC else seconds * (1 if is_sec else 1000)
        if value > _MAX // scale:
            return None
        if total > _MAX - value * scale:
            return None
        total, value = total + value * scale, 0
        while at < len(text) and text[at] == " ":
            at += 1
    if not valid:
        return None
    if not is_sec:
        if value > _MAX // 1000:
            return None
        value *= 1000
    if total > _MAX - value:
        return None
    return (total + value) * (1000 if is_sec else 1)


def _time_unit(text: str, at: int, step: int, is_sec: bool) -> tuple[int, int, int] | None:
    """The unit ending a number at text[at - 1] after the unit `step`: its step, its seconds,
    and where reading goes on; None where nginx refuses it (out of order, or a unit the setting
    does not take)."""
    char = text[at - 1]
    if char == "m" and text.startswith("s", at):
        if is_sec or step >= _MSEC:
            return None
        return _MSEC, 0, at + 1
    if char == " ":
        if step >= _TIME_UNITS["s"][0]:
            return None
        return _LAST, 1, at
    if char in _TIME_UNITS:
        unit_step, seconds = _TIME_UNITS[char]
        # "y" only first; any other unit only after larger ones
        if step > unit_step - 1 if char == "y" else step >= unit_step:
            return None
        return unit_step, seconds, at
    return None


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
    kinds = nginx.value_types()
    if directive in kinds.time and len(args) >= 1:
        parsed = [parse_time(a, True) or parse_time(a, False) for a in args]
        return tuple(parsed) if None not in parsed else tuple(args)
    if directive in kinds.size and len(args) == 1:
        size = parse_size(args[0])
        return size if size is not None else tuple(args)
    if directive in kinds.flag and len(args) == 1:
        return args[0].lower()
    if directive in kinds.bitmask:
        return frozenset(a.lower() for a in args)
    if directive in kinds.session_cache:
        return frozenset(_cache_part(a) for a in args)
    return tuple(args)


def same_value(directive: str, a: list[str], b: list[str]) -> bool:
    """True when nginx reads the two argument lists of this directive as one setting."""
    return a == b or canonical(directive, a) == canonical(directive, b)
