"""Listen addresses in the one normal form both the generator and the linter use."""

from __future__ import annotations

import re

_SOCKET = re.compile(
    r"^(?:(?:(?P<v6>\[[0-9A-Fa-f:.]+\])|(?P<host>\*|[0-9]{1,3}(?:\.[0-9]{1,3}){3}|[A-Za-z0-9.-]+)):)?"
    r"(?P<port>\d{1,5})$"
)
_PORT_ONLY_HOST = re.compile(r"^(?P<host>\*|[0-9]{1,3}(?:\.[0-9]{1,3}){3}|\[[0-9A-Fa-f:.]+\])$")


def normalize_socket(text: str, default_port: int = 80) -> str:
    """`443` -> `*:443`, `[::]:443` stays, `127.0.0.1` -> `127.0.0.1:80`, `unix:/x` stays.

    nginx treats a bare address as port 80 and a bare port as every IPv4 address (`*`).
    """
    text = text.strip()
    if text.startswith("unix:"):
        return text
    match = _SOCKET.match(text)
    if match and 0 < int(match["port"]) < 65536:
        host = match["v6"] or match["host"] or "*"
        return f"{host.lower()}:{int(match['port'])}"
    bare = _PORT_ONLY_HOST.match(text)
    if bare:
        return f"{bare['host'].lower()}:{default_port}"
    raise ValueError(f"{text!r} is not a listen address (443, [::]:443, 127.0.0.1:8443)")
