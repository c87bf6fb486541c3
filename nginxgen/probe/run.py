"""Probe one server for each name: every check of nginxgen/probe/checks/ that applies to it (each
says what it sends, what it reads and what the config model predicts for it), the names at the
same time, and the text report of what they found.

The probe's own ClientHellos (nginxgen/probe/hello.py, with X25519 key shares and a well-formed
ML-KEM-768 one) are read only up to the server's first answer; the checks that need a whole
handshake or a request use this Python's TLS library (nginxgen/probe/resumption.py).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, Literal

from nginxgen.base.ech_configs import EchConfig
from nginxgen.base.records import record
from nginxgen.knowledge.target import Library
from nginxgen.probe import checks
from nginxgen.probe.check import HANDSHAKE_ERRORS, Check, Found, NameProbe, not_compared
from nginxgen.probe.hello import connections_made
from nginxgen.probe.plan import Shared

CONCURRENT = 16  # connections at once to one address (each task has one open at a time)


@record
class Probed:
    """One name's result, and what its context checks (checks.SHARED) found inconclusive, a
    problem, or an error: what a name sharing its context takes with its values."""

    found: dict[str, Any]
    context_notes: tuple[list[str], list[str], str | None]  # inconclusive, problems, error


def probe_name(
    address: tuple[str, int],
    sni: str | None,
    timeout: float,
    ech: EchConfig | Literal["grease"] | None = None,
    run: Sequence[Check] | None = None,
    library: Library | None = None,
    http: bool = True,
) -> dict[str, Any]:
    """Every check of `run` (default: all of them) that applies to the name, in order
    (nginxgen/probe/checks/); where a full handshake fails, the checks after it keep their
    values for "not run". `http` False: the port speaks no HTTP (a stream{} listener)."""
    return _probe_name(address, sni, timeout, ech, run, library, http=http).found


def _probe_name(
    address: tuple[str, int],
    sni: str | None,
    timeout: float,
    ech: EchConfig | Literal["grease"] | None,
    run: Sequence[Check] | None,
    library: Library | None,
    context: Probed | None = None,
    http: bool = True,
) -> Probed:
    """probe_name; with `context` (the result of a name nginx answers from the same TLS
    context: plan.py), the context checks are not run: their values and notes are its."""
    connections_made()  # count this name's connections from here
    probe = NameProbe(address, sni, timeout, ech, library, http)
    notes: tuple[list[str], list[str], str | None] = ([], [], None)
    failed = False
    for check in checks.CHECKS if run is None else run:
        if context is not None and check in checks.SHARED:
            probe.found.update({key: context.found[key] for key in check.KEYS})
            continue
        before = len(probe.inconclusive), len(probe.problems)
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
        if check in checks.SHARED:
            notes[0].extend(probe.inconclusive[before[0] :])
            notes[1].extend(probe.problems[before[1] :])
            notes = (notes[0], notes[1], probe.found.get("error") or notes[2])
    if context is not None:  # the context's notes first, as a whole probe lists them
        inconclusive, problems, error = context.context_notes
        probe.inconclusive[:0] = inconclusive
        probe.problems[:0] = problems
        if error and "error" not in probe.found:
            probe.found["error"] = error
    probe.found["inconclusive"] = probe.inconclusive
    probe.found["problems"] = probe.problems
    probe.found["connections"] = connections_made()
    probe.found["context"] = None  # the runner says whose context values a name took, and why
    probe.found["observed_for"] = {
        key: context.found["sni"] if context is not None and check in checks.SHARED else sni
        for check in (checks.CHECKS if run is None else run)
        for key in check.KEYS
    }
    return Probed(probe.found, notes)


def reach(host: str, port: int, timeout: float) -> tuple[str | None, str | None]:
    """(why no TLS can be asked of `host:port` at all, in one line; the address a TCP
    connection reached): one of the two is None. A name that does not resolve and a port that
    refuses are different mistakes (a typo in the name, a server that is down or on another
    port): each is said as such, not as "no TLS answer". The address is the one the model
    reads the answering socket by (base.sockets.socket_answering), resolved here once."""
    import socket

    shown = f"[{host}]:{port}" if ":" in host else f"{host}:{port}"
    try:
        addresses = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except socket.gaierror as exc:
        return f"cannot resolve {host}: {exc.strerror or exc}", None
    try:
        with socket.create_connection((host, port), timeout=timeout) as connected:
            return None, str(connected.getpeername()[0])
    except ConnectionRefusedError:
        resolved = ", ".join(sorted({str(a[4][0]) for a in addresses} - {host}))
        why = f"{shown}: connection refused" + (f" ({host} is {resolved})" if resolved else "")
    except TimeoutError:
        why = f"{shown} did not answer within {timeout:g} s (connection timed out)"
    except OSError as exc:
        why = f"cannot connect to {shown}: {exc.strerror or exc}"
    return why, None


def probe(
    host: str,
    port: int,
    names: list[str | None],
    connect: str | None,
    timeout: float,
    ech: EchConfig | Literal["grease"] | None = None,
    library: Library | None = None,
    shared: Mapping[str, Shared] | None = None,
    concurrent: int = CONCURRENT,
    done: Callable[[dict[str, Any]], None] | None = None,
) -> list[dict[str, Any]]:
    """Each name probed in a task of its own, at most `concurrent` at a time (each has one
    connection open at a time), in the given order; `done` is told of each result as it
    comes. A name of `shared` (plan.py) has its context values from the probe of the name it
    names, and only the per-name checks run for it: should those contradict the sharing (another
    certificate, or its chain read through another version), the name is probed whole after
    all. Threads, not asyncio: every check is a short blocking exchange, and the full handshakes
    use the ssl module's blocking sockets."""
    from concurrent.futures import Future, ThreadPoolExecutor

    address = (connect or host, port)
    shared = shared or {}

    def whole(name: str | None) -> Probed:
        return _probe_name(address, name, timeout, ech, None, library)

    def told(probed: Probed) -> dict[str, Any]:
        if done is not None:
            done(probed.found)
        return probed.found

    def member(name: str) -> dict[str, Any]:
        # the context's name was queued first: it runs or ran already, nothing waits on this
        context = firsts[shared[name].name].result()
        said: dict[str, Any] = {"name": shared[name].name, "why": shared[name].why}
        if context.found.get("error"):  # its context values are not all known: probe whole
            probed = whole(name)
            said["refuted"] = f"a full handshake failed for {said['name']}: probed whole"
        else:
            probed = _probe_name(address, name, timeout, ech, None, library, context)
            why = _refuted(probed.found, context.found)
            if why is not None:
                used = probed.found["connections"]
                probed = whole(name)
                probed.found["connections"] += used
                said["refuted"] = f"{why}: probed whole"
        probed.found["context"] = said
        return told(probed)

    with ThreadPoolExecutor(max_workers=max(1, min(concurrent, len(names)))) as pool:
        firsts: dict[str | None, Future[Probed]] = {
            name: pool.submit(whole, name) for name in names if name not in shared
        }
        later = {
            name: pool.submit(member, name) for name in names if name is not None and name in shared
        }
        return [
            later[name].result() if name in later else told(firsts[name].result()) for name in names
        ]


def _refuted(found: Found, context: Found) -> str | None:
    """Why a name's own checks contradict sharing its context's values (None: they agree)."""
    mine, theirs = found.get("certificate") or {}, context.get("certificate") or {}
    if mine.get("sha256") != theirs.get("sha256"):
        return f"the certificate sent differs from the one {context['sni']} got"
    if mine.get("chain_from") != theirs.get("chain_from"):
        came = mine.get("chain_from"), context["sni"], theirs.get("chain_from")
        return "its chain came through {}, {}'s through {}".format(*came)
    return None


def text_report(results: list[dict[str, Any]]) -> str:
    lines = []
    # several endpoints (--targets): each one's names under its address (trial 23: two
    # `example.com:` blocks of two endpoints, five `(no SNI):` ones, could not be told apart)
    several = len({r.get("endpoint") for r in results}) > 1
    endpoint = None
    for result in results:
        if several and result.get("endpoint") != endpoint:
            endpoint = result.get("endpoint")
            lines.append(f"== {endpoint}")
        where = f" on port {result['port']}" if "port" in result else ""
        lines.append(f"{result['sni'] or '(no SNI)'}{where}:")
        if result.get("probed_as"):  # chosen from the config (a port stream{} alone serves)
            lines.append(f"  probed as {result['probed_as']}")
        for check in checks.CHECKS:
            if all(key in result for key in check.KEYS):  # a check that ran for this name
                lines.extend(check.text(result))
        if result.get("error"):
            lines.append(f"  {result['error']}")
        for check in result["inconclusive"]:
            lines.append(f"  INCONCLUSIVE {check}")
        for problem in result.get("problems", []):
            lines.append(f"  PROBLEM {problem}")
        for note in not_compared(result):
            where = f"{note['file']}:{note['line']} ({note['setting']})"
            lines.append(f"  NOT COMPARED {where}: {note['value']}")
        for m in result.get("mismatches", []):
            # the line (or default) that decides, then the observation it predicts: a value is
            # of what a client sees, not of the directive (`ssl_session_tickets off` can mean a
            # TLS 1.3 session resumes, from the cache)
            where = f"{m['file']}:{m['line']} ({m['setting']})" if m["file"] else m["setting"]
            if "because" in m:  # a line written for the name that nginx does not apply to it
                said = (
                    f"this line means {m['key']} {m['expected']}, but does not apply here (the "
                    f"server showed {m['observed']})"
                )
            else:
                said = f"{m['key']} {m['expected']} expected, but the server showed {m['observed']}"
            lines.append(f"  MISMATCH {where}: {said}: {m['why']}")
    return "\n".join(lines) + "\n"
