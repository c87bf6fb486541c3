"""nginx's regular expressions (PCRE) read by Python's `re`, where the two agree: the one place
that compiles a server_name or location regex to predict what nginx picks (conf/config,
conf/responses).

PCRE writes a named group `(?<name>...)` or `(?'name'...)`, the form nginx's documentation
uses (https://nginx.org/en/docs/http/server_names.html#regex_names); Python's `re` wants
`(?P<name>...)`, and refuses the others. Back-references by name are `\\k<name>`, `\\k'name'`
or `\\k{name}` in PCRE and `(?P=name)` in Python. Both are rewritten here; lookbehinds
(`(?<=`, `(?<!`) and escaped parentheses are left as they are. What Python still cannot
compile (PCRE's own constructs: `\\K`, recursion, callouts) is None: not predictable here.
"""

from __future__ import annotations

import re
from functools import lru_cache

# a `(` not escaped (an even number of backslashes before it), then PCRE's named-group forms
_GROUP = re.compile(r"(?<!\\)((?:\\\\)*)\(\?(?:<(?![=!])([A-Za-z_]\w*)>|'([A-Za-z_]\w*)')")
_BACKREF = re.compile(r"(?<!\\)((?:\\\\)*)\\k(?:<(\w+)>|'(\w+)'|\{(\w+)\})")


def to_python(pattern: str) -> str:
    """The pattern with PCRE's named-group and named back-reference forms in Python's."""
    if "(?" in pattern:
        pattern = _GROUP.sub(lambda m: f"{m[1]}(?P<{m[2] or m[3]}>", pattern)
    if "\\k" in pattern:
        pattern = _BACKREF.sub(lambda m: f"{m[1]}(?P={m[2] or m[3] or m[4]})", pattern)
    return pattern


@lru_cache(maxsize=1024)  # bounded: patterns come from the config being read
def compiled(pattern: str, ignore_case: bool = False) -> re.Pattern[str] | None:
    """The pattern compiled as Python reads it (None: a construct Python's re lacks)."""
    try:
        return re.compile(to_python(pattern), re.IGNORECASE if ignore_case else 0)
    except re.error:
        return None
