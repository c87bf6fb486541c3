"""Probe one server for each name: every check of nginxgen/probe/checks/ that applies to it (each
says what it sends, what it reads and what the config model predicts for it), the names at the
same time, and the text report of what they found.

The probe's own ClientHellos (nginxgen/probe/hello.py, with X25519 key shares and a well-formed
ML-KEM-768 one) are read only up to the server's first answer; the checks that need a whole
handshake or a request use this Python's TLS library (nginxgen/probe/session.py).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

from nginxgen.ech import EchConfig
from nginxgen.probe import checks
from nginxgen.probe.check import HANDSHAKE_ERRORS, Check, NameProbe
from nginxgen.probe.hello import connections_made
from nginxgen.target import Library

CONCURRENT = 16  # names probed at once


def probe_name(
    address: tuple[str, int],
    sni: str | None,
    timeout: float,
    ech: EchConfig | Literal["grease"] | None = None,
    run: Sequence[Check] | None = None,
    library: Library | None = None,
) -> dict[str, Any]:
    """Every check of `run` (default: all of them) that applies to the name, in order
    (nginxgen/probe/checks/); where a full handshake fails, the checks after it keep their
    values for "not run"."""
    connections_made()  # count this name's connections from here
    probe = NameProbe(address, sni, timeout, ech, library)
    failed = False
    for check in checks.CHECKS if run is None else run:
        if failed or not check.runs(probe.found):
            probe.found.update(check.KEYS)
            continue
        try:
            probe.found.update(check.observe(probe))
        except HANDSHAKE_ERRORS as exc:
            probe.found.update(check.KEYS)
            probe.found["error"] = f"full handshake failed: {exc}"
            # what the checks after it would have seen is not known: neither yes nor no
            probe.inconclusive.append(f"{probe.found['error']}; the checks after it did not run")
            failed = True
    probe.found["inconclusive"] = probe.inconclusive
    probe.found["problems"] = probe.problems
    probe.found["connections"] = connections_made()
    return probe.found


def unreachable(host: str, port: int, timeout: float) -> str | None:
    """Why no TLS can be asked of `host:port` at all, in one line (None: a TCP connection
    opens). A name that does not resolve and a port that refuses are different mistakes (a
    typo in the name, a server that is down or on another port): each is said as such, not
    as "no TLS answer"."""
    import socket

    shown = f"[{host}]:{port}" if ":" in host else f"{host}:{port}"
    try:
        addresses = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except socket.gaierror as exc:
        return f"cannot resolve {host}: {exc.strerror or exc}"
    try:
        with socket.create_connection((host, port), timeout=timeout):
            return None
    except ConnectionRefusedError:
        resolved = ", ".join(sorted({str(a[4][0]) for a in addresses} - {host}))
        return f"{shown}: connection refused" + (f" ({host} is {resolved})" if resolved else "")
    except TimeoutError:
        return f"{shown} did not answer within {timeout:g} s (connection timed out)"
    except OSError as exc:
        return f"cannot connect to {shown}: {exc.strerror or exc}"


def probe(
    host: str,
    port: int,
    names: list[str | None],
    connect: str | None,
    timeout: float,
    ech: EchConfig | Literal["grease"] | None = None,
    library: Library | None = None,
) -> list[dict[str, Any]]:
    """Each name probed in a thread of its own, at most CONCURRENT at a time, in the given
    order. Threads, not asyncio: every check is a short blocking exchange, and the full
    handshakes use the ssl module's blocking sockets."""
    from concurrent.futures import ThreadPoolExecutor

    address = (connect or host, port)
    with ThreadPoolExecutor(max_workers=max(1, min(CONCURRENT, len(names)))) as pool:
        return list(
            pool.map(lambda name: probe_name(address, name, timeout, ech, library=library), names)
        )


def text_report(results: list[dict[str, Any]]) -> str:
    lines = []
    for result in results:
        where = f" on port {result['port']}" if "port" in result else ""
        lines.append(f"{result['sni'] or '(no SNI)'}{where}:")
        for check in checks.CHECKS:
            if all(key in result for key in check.KEYS):  # a check that ran for this name
                lines.extend(check.text(result))
        if result.get("error"):
            lines.append(f"  {result['error']}")
        for check in result["inconclusive"]:
            lines.append(f"  INCONCLUSIVE {check}")
        for problem in result.get("problems", []):
            lines.append(f"  PROBLEM {problem}")
        for m in result.get("mismatches", []):
            # the line (or default) that decides, then the observation it predicts: a value is
            # of what a client sees, not of the directive (`ssl_session_tickets off` can mean a
            # TLS 1.3 session resumes, from the cache)
            where = f"{m['file']}:{m['line']} ({m['setting']})" if m["file"] else m["setting"]
            lines.append(
                f"  MISMATCH {where}: {m['key']} {m['expected']} expected, but the server showed "
                f"{m['observed']}: {m['why']}"
            )
    return "\n".join(lines) + "\n"
