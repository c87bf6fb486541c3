"""What a probe check is, and what every check works with.

A check is one module of nginxgen/probe/checks/, listed in `CHECKS` there in the order the checks
run. It has:

- `KEYS`: the keys of the probe's JSON it fills, each with its value where the check does not run;
- `runs(found)`: whether it applies to a name, from what the checks before it found;
- `observe(probe)`: what it sends to the server and what it reads back, as the values of its KEYS;
- `predict(model, found)`: what the config model (nginxgen/conf/per_name.py) says about what it
  observed, each answer beside the observation, in the probe's terms;
- `text(found)`: its lines of the text report.

Adding a check is adding a module and naming it in `CHECKS`; the runner (probe/run.py) and the
comparison (probe/predict.py) only iterate over them.
"""

from __future__ import annotations

import ssl
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, Generic, Literal, Protocol, TypeVar

from nginxgen.base.ech_configs import EchConfig
from nginxgen.base.records import record
from nginxgen.conf.per_name import Answer, Ignored, NameModel
from nginxgen.knowledge.target import Library
from nginxgen.probe.hello import Flight, HelloReply, ask, tls12_flight
from nginxgen.probe.pages import Page, get_pages, pages_in, requests, unanswered
from nginxgen.probe.resumption import connect_tls, request_host, shared_context
from nginxgen.probe.tls13_flight import Tls13Flight, tls13_flight

T = TypeVar("T")


class per_probe(Generic[T]):  # a decorator, named like the one it stands for
    """functools.cached_property without its lock: on Python 3.11 that lock is one for every
    instance, so the names probed at once took their full handshakes one at a time (a fleet
    probe spent half its wall time waiting there). A NameProbe belongs to one thread."""

    def __init__(self, func: Callable[[Any], T]) -> None:
        self.func = func
        self.name = func.__name__

    def __get__(self, instance: Any, owner: type | None = None) -> T:
        value = self.func(instance)
        instance.__dict__[self.name] = value  # found there from now on: no descriptor call
        return value


Found = Mapping[str, Any]  # what the checks found for one name, by JSON key
MISSING_PAGE = "/nginxgen-probe-404"  # a page the site most likely lacks
PAGES = ("/", MISSING_PAGE)  # what the checks ask the server for (HSTS; client certificates)


@record(frozen=True)
class Prediction:
    """One observation of one name: the model's answer, put in the probe's terms, beside what
    the probe observed. `key` names the observation (its place in the probe's JSON, dotted),
    `setting` the directive that decides it: `ssl_session_tickets off` is a setting, "a TLS 1.3
    session resumed" is what a client sees, and a value is always of the observation. `value`
    is None where the model predicts nothing."""

    key: str
    setting: str
    answer: Answer
    value: Any
    ignored: tuple[tuple[Ignored, Any], ...]  # each ignored line with what it meant, in terms
    seen: Any
    page: str | None = None  # for HSTS: the response it is about


def expect(
    answer: Answer,
    seen: Any,
    key: str,
    terms: Callable[[Any], Any] = lambda v: v,
    page: str | None = None,
) -> Prediction:
    """The model's `answer` (and each line it ignores) in the probe's `terms`, beside `seen`,
    the value of the probe's JSON `key`."""

    def put(value: Any) -> Any:
        return None if value is None else terms(value)

    ignored = tuple((i, put(i.meant)) for i in answer.ignored)
    return Prediction(key, answer.key, answer, put(answer.value), ignored, seen, page)


def expect_suites(
    answer: Callable[[], Answer],
    observed: Mapping[str, Any] | None,
    probed: Iterable[str],
    key: str,
) -> list[Prediction]:
    """The suites the model says are taken, among the `probed` ones, beside the ones the probe
    saw `accepted` (nothing where that version was not probed)."""
    if not observed or "accepted" not in observed:
        return []
    asked = frozenset(probed)
    return [expect(answer(), set(observed["accepted"]), key, lambda v: v & asked)]


class NameProbe:
    """One name being probed: where, what the checks so far found, what was inconclusive or
    broken for clients, and the full handshakes several checks read (each made once)."""

    def __init__(
        self,
        address: tuple[str, int],
        sni: str | None,
        timeout: float,
        ech: EchConfig | Literal["grease"] | None = None,
        library: Library | None = None,
        http: bool = True,
    ) -> None:
        self.address = address
        self.sni = sni
        self.timeout = timeout
        # whether pages are asked on the TLS 1.3 flight's connection: not of a stream{} port,
        # whose backend may never answer (trial 23: each stream probe waited out --timeout)
        self.http = http
        self.ech = ech  # what `--ech-config` asks to try: a config, "grease" or None
        self.library = library  # the target's TLS library: what the suites probed must cover
        self.found: dict[str, Any] = {"sni": sni}
        self.inconclusive: list[str] = []
        self.problems: list[str] = []  # what breaks clients, whatever the config says
        self._pages: dict[str, Page] | None = None

    def hello(
        self, version: str, groups: Sequence[str], shares: Sequence[str] = (), **kw: Any
    ) -> HelloReply:
        """The server's first answer to one ClientHello of the probe's own."""
        return ask(self.address, self.sni, version, groups, shares, timeout=self.timeout, **kw)

    def verdict(self, check: str, answer: HelloReply, ok: bool) -> bool | None:
        """A timeout or a reset is neither yes nor no: None, and listed."""
        if answer.inconclusive:
            self.inconclusive.append(f"{check}: {answer.alert}")
            return None
        return ok

    @property
    def suites_not_known(self) -> str | None:
        """Why the suites probed may lack some of the target library's (None: they cover all;
        no target: the library is not known, and neither is that)."""
        from nginxgen.ciphers.suites import suites_not_known

        if self.library is None:
            return None
        return suites_not_known(self.library)

    def offers(self, version: str) -> bool:
        return bool((self.found.get("protocols") or {}).get(version))

    @per_probe
    def handshake(self) -> tuple[str | None, bytes | None]:
        """(the ALPN protocol chosen, the leaf as DER) of one full handshake by this Python's
        TLS library, offering h2 and http/1.1."""
        context = shared_context(("h2", "http/1.1"))
        with connect_tls(self.address, self.sni, context, self.timeout) as tls:
            return tls.selected_alpn_protocol(), tls.getpeercert(binary_form=True)

    @per_probe
    def tls13_flight(self) -> Tls13Flight | None:
        """The server's TLS 1.3 flight, decrypted, and its answers to a GET of each of PAGES
        (None: TLS 1.3 is off or it cannot be read)."""
        if not self.offers("TLSv1.3"):
            return None
        asked = requests(request_host(self.address, self.sni), list(PAGES)) if self.http else b""
        return tls13_flight(self.address, self.sni, self.timeout, asked)

    def page(self, path: str) -> Page:
        """The answer to a GET of `path` (one of PAGES) for this name, from a client without a
        certificate: read on the TLS 1.3 flight's connection, which asks for every page, else
        on one connection for all of them. A page the server did not answer there is asked on
        a connection of its own: it closed after an earlier one (as nginx does after a 400),
        or the page before it got no answer in time (the pages are answered in order). A page
        that got no answer in time is not asked again: one wait, not one per check that reads
        it (the caller says it was not checked, and why: Page.unanswered)."""
        if self._pages is None:
            flight = self.tls13_flight
            got, timed_out = (pages_in(flight.answers), flight.timed_out) if flight else ([], False)
            if not got and not timed_out:  # nothing came there: all of them on one connection
                got, timed_out = get_pages(self.address, self.sni, list(PAGES), self.timeout)
            self._pages = dict(zip(PAGES, got, strict=False))
            if timed_out and len(got) < len(PAGES):
                waited = PAGES[len(got)]
                self._pages[waited] = unanswered(waited, True, self.timeout)
        if path not in self._pages:
            alone, timed_out = get_pages(self.address, self.sni, [path], self.timeout)
            self._pages[path] = alone[0] if alone else unanswered(path, timed_out, self.timeout)
        return self._pages[path]

    @per_probe
    def flight(self) -> Tls13Flight | Flight | None:
        """The chain as sent: from TLS 1.3's decrypted flight, else from TLS 1.2's clear one."""
        if self.tls13_flight is not None:
            return self.tls13_flight
        if self.offers("TLSv1.2"):
            return tls12_flight(self.address, self.sni, self.timeout)
        return None


class Check(Protocol):
    """A module of nginxgen/probe/checks/ (see this module's docstring)."""

    KEYS: Mapping[str, Any]

    def runs(self, found: Found) -> bool: ...

    def observe(self, probe: NameProbe) -> dict[str, Any]: ...

    def predict(self, model: NameModel, found: Found) -> list[Prediction]: ...

    def text(self, found: Found) -> list[str]: ...


def offers_tls(found: Found) -> bool:
    """Whether the name has a TLS version the full-handshake checks can use."""
    protocols = found["protocols"]
    return bool(protocols.get("TLSv1.2") or protocols.get("TLSv1.3"))


HANDSHAKE_ERRORS = (OSError, ssl.SSLError)


def not_compared(result: dict[str, Any]) -> list[dict[str, Any]]:
    """The config's notes on what it could not compare for this name (a port stream{} passes
    on to a variable, a mail{} listener)."""
    return [note for note in result.get("config", []) if note.get("compared") is False]
