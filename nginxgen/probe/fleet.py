"""What a fleet owner reads first of a long probe (issue 47): a progress line while it runs, on a
terminal, and a summary of the results: which names have no post-quantum key exchange, which
certificates expire soon, where the config and the servers disagree, what was a problem or
inconclusive, and which endpoints gave no answer."""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Iterable
from typing import Any, TextIO

from nginxgen.probe.check import not_compared

LISTED = 10  # names listed per summary line, then how many more


class Progress:
    """`probe: 340/1001 names, 812 connections, 4 s`, rewritten in place on stderr at most five
    times a second, only where stderr is a terminal; `close` clears it."""

    def __init__(self, total: int, stream: TextIO | None = None) -> None:
        self.stream = stream or sys.stderr
        self.on = self.stream.isatty()
        self.total, self.count, self.connections = total, 0, 0
        self.started = self.shown = time.monotonic()
        self.lock = threading.Lock()
        self.drawn = False

    def done(self, result: dict[str, Any]) -> None:
        with self.lock:
            self.count += 1
            self.connections += result["connections"]
            self._draw()

    def skip(self, names: int) -> None:
        """Names of an endpoint that gave no answer: counted, not probed."""
        with self.lock:
            self.count += names
            self._draw()

    def _draw(self) -> None:
        now = time.monotonic()
        if not self.on or (now - self.shown < 0.2 and self.count < self.total):
            return
        self.shown, self.drawn = now, True
        seconds = now - self.started
        self.stream.write(f"\rprobe: {self.count}/{self.total} names, {self.connections} "
                          f"connections, {seconds:.0f} s\033[K")  # fmt: skip
        self.stream.flush()

    def close(self) -> None:
        if self.drawn:
            self.stream.write("\r\033[K")
            self.stream.flush()


def _listed(labels: list[str]) -> str:
    more = len(labels) - LISTED
    return ", ".join(labels[:LISTED]) + (f" and {more} more" if more > 0 else "")


def summary(
    results: list[dict[str, Any]], expiring: int, compared: bool, errors: Iterable[str] = ()
) -> list[str]:
    """The fleet summary's lines (a line only where it has something to say, but the first)."""
    named = [r for r in results if r["sni"] is not None]
    endpoints = list(dict.fromkeys(r.get("endpoint") for r in results))
    several = len(endpoints) > 1

    def label(result: dict[str, Any]) -> str:
        name = result["sni"] or "(no SNI)"
        return f"{name} on {result['endpoint']}" if several else name

    total = sum(r["connections"] for r in results)
    lines = [
        f"fleet: {len(named)} names on {len(endpoints)} endpoint{'s' if several else ''} "
        f"(and each without SNI), {total} connections"
    ]
    took = [r for r in results if r.get("context") and not r["context"].get("refuted")]
    refuted = [r for r in results if (r.get("context") or {}).get("refuted")]
    if took or refuted:
        lines.append(
            f"  {len(took)} names took their protocols, suites, groups and resumption from a "
            f"name nginx answers from the same TLS context (--config); {len(refuted)} did not "
            "match it and were probed whole"
        )
    answered = [r for r in named if any(r["protocols"].values())]
    no_pq = [label(r) for r in answered if r.get("pq") == "none"]
    if no_pq:
        lines.append(f"  without post-quantum key exchange: {_listed(no_pq)}")
    soon = sorted(
        (r["certificate"]["days_left"], label(r))
        for r in answered
        if (r.get("certificate") or {}).get("days_left") is not None
        and r["certificate"]["days_left"] < expiring
    )
    gone = [f"{name} ({_days(-days)} ago)" for days, name in soon if days < 0]
    if gone:
        lines.append(f"  certificates expired: {_listed(gone)}")
    coming = [f"{name} ({_days(days)})" for days, name in soon if days >= 0]
    if coming:
        lines.append(f"  certificates expiring within {expiring} days: {_listed(coming)}")
    if compared:
        differ = [r for r in results if r.get("mismatches")]
        count = sum(len(r["mismatches"]) for r in differ)
        unjudged = [r for r in results if not_compared(r)]
        judged = len(results) - len(unjudged)
        # trial 17: "0 on 0 names" read as if no name had been compared
        said = f"{count} on {len(differ)} names" if differ else f"none ({judged} names compared)"
        if differ:
            said += f": {_listed([label(r) for r in differ])}"
        if unjudged:
            listed = _listed([label(r) for r in unjudged])
            said += f" ({judged} compared; " if differ else "; "
            said += f"not compared: {listed}" + (")" if differ else "")
        lines.append(f"  mismatches with the config: {said}")
    for key, what in (("problems", "problems"), ("inconclusive", "inconclusive checks")):
        having = [label(r) for r in results if r.get(key)]
        if having:
            lines.append(f"  {what}: {_listed(having)}")
    for error in errors:
        lines.append(f"  no answer: {error}")
    return lines


def _days(days: int) -> str:
    return "1 day" if days == 1 else f"{days} days"
