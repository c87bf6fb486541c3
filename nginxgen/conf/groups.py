"""Group lists as written in ssl_ecdh_curve and ssl_conf_command Groups: each entry with its
prefixes (`?`, `*`, `-`) and the tuple it is in (OpenSSL 3.5 `a/b` lists)."""

from __future__ import annotations

from nginxgen.base.records import record


@record(frozen=True)
class GroupEntry:
    raw: str
    name: str
    prefixes: str  # any of "?", "*", "-"
    tuple_index: int


def parse_groups(text: str) -> list[GroupEntry]:
    entries = []
    for index, part in enumerate(text.split("/")):
        for raw in part.split(":"):
            raw = raw.strip()
            if not raw:
                continue
            name = raw.lstrip("?*-")
            entries.append(GroupEntry(raw, name, raw[: len(raw) - len(name)], index))
    return entries
