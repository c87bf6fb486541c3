"""Listen addresses in the one normal form both the generator and the linter use."""

from __future__ import annotations

import re

from nginxgen.base.patterns import lazy

TYPE_CHECKING = False  # typing is not imported at run time: it slows every pre-commit start
if TYPE_CHECKING:
    import ipaddress

_SOCKET = re.compile(
    r"^(?:(?:(?P<v6>\[[0-9A-Fa-f:.]+\])|(?P<host>\*|[0-9]{1,3}(?:\.[0-9]{1,3}){3}|[A-Za-z0-9.-]+)):)?"
    r"(?P<port>\d{1,5})$"
)
_PORT_ONLY_HOST = lazy(r"^(?P<host>\*|[0-9]{1,3}(?:\.[0-9]{1,3}){3}|\[[0-9A-Fa-f:.]+\])$")


def normalize_socket(text: str, default_port: int = 80) -> str:
    """`443` -> `*:443`, `[::]:443` stays, `127.0.0.1` -> `127.0.0.1:80`, `unix:/x` stays.

    nginx treats a bare address as port 80 and a bare port as every IPv4 address (`*`). One
    address has one form: nginx compares the parsed addresses, so `0.0.0.0:443` is `*:443` (two
    default servers there are a duplicate, found trying ONLYOFFICE's sample as a new user), and
    an IPv6 address is written as Python's ipaddress compresses it (`[0::1]` is `[::1]`).
    """
    text = text.strip()
    if text.startswith("unix:"):
        return text
    match = _SOCKET.match(text)
    if match and 0 < int(match["port"]) < 65536:
        host = _one_form(match["v6"] or match["host"] or "*")
        return f"{host}:{int(match['port'])}"
    bare = _PORT_ONLY_HOST.match(text)
    if bare:
        return f"{_one_form(bare['host'])}:{default_port}"
    raise ValueError(f"{text!r} is not a listen address (443, [::]:443, 127.0.0.1:8443)")


def _one_form(host: str) -> str:
    host = host.lower()
    if host == "0.0.0.0":
        return "*"
    if host.startswith("[") and host != "[::]":
        ip = _ip(host)
        if ip is not None:
            return "[::]" if ip.is_unspecified else f"[{ip.compressed}]"
    return host


def link_local(address: str) -> str | None:
    """The IPv6 link-local address (fe80::/10) a listen's `[...]` names, as inet_ntop prints it;
    None for any other (read without ipaddress unless it may be one)."""
    if address[:4].lower() not in ("[fe8", "[fe9", "[fea", "[feb"):
        return None
    ip = _ip(address.partition("]")[0] + "]")
    return ip.compressed if ip is not None and ip.version == 6 and ip.is_link_local else None


def _ip(text: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    import ipaddress  # only where a host is compared: ipaddress and socket cost a lint's start

    try:
        return ipaddress.ip_address(text.strip("[]"))
    except ValueError:
        return None


def _resolved(host: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    """The address a client connecting to `host` reaches first (as the probe connects)."""
    ip = _ip(host)
    if ip is not None:
        return ip
    import socket as socketlib

    try:
        infos = socketlib.getaddrinfo(host, None, type=socketlib.SOCK_STREAM)
    except (OSError, UnicodeError):
        return None
    return _ip(str(infos[0][4][0])) if infos else None


def socket_answering(sockets: list[str], host: str | None) -> str | None:
    """Of normalized sockets on one port, the one nginx answers a connection to `host` on: the
    socket of that very address, else the wildcard of its family (`*` or `0.0.0.0`, `[::]`),
    as nginx finds the address's configuration by the connection's local address
    (ngx_http_init_connection). Without a host, or one none of them serves, the first."""
    if not sockets:
        return None
    ip = _resolved(host) if host and len(sockets) > 1 else None
    if ip is None:
        return sockets[0]
    wildcards = ("[::]",) if ip.version == 6 else ("*", "0.0.0.0")
    exact = None
    family = None
    for socket in sockets:
        address = socket.rsplit(":", 1)[0]
        if _ip(address) == ip:
            exact = exact or socket
        elif address in wildcards:
            family = family or socket
    return exact or family or sockets[0]


def address_text(socket: str) -> str:
    """An address:port as nginx prints it in its messages (ngx_sock_ntop): the IPv4 wildcard
    `*` is 0.0.0.0, and a UDP socket (`/udp`: QUIC's, stream's `udp`) is its address alone."""
    socket = socket.removesuffix("/udp")
    return "0.0.0.0" + socket[1:] if socket.startswith("*:") else socket


def ptocidr(text: str) -> str:
    """A network as ngx_ptocidr reads it (allow, deny, geo, set_real_ip_from): "ok", "done"
    (bits set beyond the mask: nginx warns and clears them) or "error". ngx_inet_addr takes four
    dotted decimals of at most 255 (`010.0.0.1` too, never 255.255.255.255: that is its
    INADDR_NONE), else an IPv6 address; a mask is digits (ngx_atoi) up to 32 or 128."""
    address, slash, mask = text.partition("/")
    octets = address.split(".")
    if len(octets) == 4 and all(o.isdigit() or o == "" for o in octets) and address.isascii():
        values = [int(o or "0") for o in octets]
        if any(v > 255 for v in values) or values == [255, 255, 255, 255]:
            return "error"
        bits, width = int.from_bytes(bytes(values), "big"), 32
    else:
        import ipaddress

        if "%" in address or not address:
            return "error"
        try:
            bits, width = int(ipaddress.IPv6Address(address)), 128
        except ValueError:
            return "error"
    if not slash:
        return "ok"
    if not mask.isdigit() or not mask.isascii() or int(mask) > width:
        return "error"
    kept = ((1 << width) - 1) ^ ((1 << (width - int(mask))) - 1)
    return "ok" if bits & ~kept & ((1 << width) - 1) == 0 else "done"
