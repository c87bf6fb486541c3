"""A library's cipher model: its suite table and alias definitions, read from the knowledge base."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator, Mapping
from functools import cache, cached_property

from nginxgen.base.records import field, record, replace
from nginxgen.base.version import Version
from nginxgen.knowledge.data import KNOWLEDGE_DIR, toml_file

TYPE_CHECKING = False  # typing is not imported at run time: it slows every pre-commit start
if TYPE_CHECKING:
    from typing import Any

    from nginxgen.knowledge.builds import Library


@record(frozen=True)
class CipherSuite:
    name: str  # OpenSSL name (TLS 1.3 suites: the IANA name)
    iana: str
    code: int
    protocol: str  # the oldest protocol it works with, as `openssl ciphers -v` prints it
    kx: str
    au: str
    enc: str  # e.g. AESGCM(256)
    bits: int
    mac: str
    strength: str  # HIGH, MEDIUM, LOW or NONE
    in_default: bool
    fips: bool
    default_seclevel: bool  # usable at the library's default security level
    strength_bits: int

    @property
    def tls13(self) -> bool:
        return self.protocol == "TLSv1.3"

    @property
    def psk_or_srp(self) -> bool:
        """Needs a pre-shared key or SRP password: nothing a web server sets up."""
        return "PSK" in self.kx or self.kx == "SRP" or self.au in ("PSK", "SRP")


@record(frozen=True)
class Alias:
    """Field constraints; a suite matches when every constraint holds."""

    name: str
    allowed: dict[str, frozenset[str]] = field(default_factory=dict)
    protocol: str | None = None
    not_default: bool = False
    fips: bool = False

    def matches(self, suite: CipherSuite) -> bool:
        if any(getattr(suite, key) not in values for key, values in self.allowed.items()):
            return False
        if self.protocol is not None and suite.protocol != self.protocol:
            return False
        if self.not_default and suite.in_default:
            return False
        return not (self.fips and not suite.fips)


@record(frozen=True)
class SecurityLevels:
    min_bits: tuple[int, ...]  # by level
    sha1_bits: int
    forward_secret_from_level: int
    forward_secret_kx: frozenset[str]


@record(frozen=True)
class CipherModel:
    name: str
    source: str
    suites: tuple[CipherSuite, ...]  # TLS <= 1.2 suites in OpenSSL's collection order
    tls13: tuple[CipherSuite, ...]
    default_ciphersuites: tuple[str, ...]
    aliases: Mapping[str, frozenset[str]]  # alias -> names of the suites it matches
    default_rule: str
    default_seclevel: int
    seclevel: SecurityLevels
    default_order: tuple[tuple[str, str], ...]
    suiteb: dict[str, str]
    standard_names: bool = False  # IANA names accepted as words (and `_` a word character)
    any_case: bool = False  # every word compared in any letter case (OpenSSL 4.0)
    approximate: str | None = None
    # `[A|B]` equal-preference groups are words of the string (BoringSSL, AWS-LC)
    equal_preference: bool = False

    @cached_property
    def by_name(self) -> dict[str, CipherSuite]:
        return {s.name: s for s in (*self.suites, *self.tls13)}

    @cached_property
    def by_iana(self) -> dict[str, CipherSuite]:
        return {s.iana: s for s in (*self.suites, *self.tls13)}

    @cached_property
    def folded(self) -> dict[str, str]:
        """Where the library reads words in any case: a word in lower case -> the alias, suite
        name or IANA name it is (the first in the library's order: suites, then aliases)."""
        words = [*self.by_name, *self.by_iana, *self.aliases]
        return {w.lower(): w for w in reversed(words)}


def _data() -> dict[str, Any]:
    return toml_file("cipher_models")


def _alias(name: str, spec: dict[str, Any], universe: dict[str, set[str]]) -> Alias:
    allowed: dict[str, frozenset[str]] = {}
    for key in ("kx", "au", "enc", "mac", "strength"):
        if key in spec:
            allowed[key] = frozenset(spec[key])
        if f"{key}_not" in spec:
            allowed[key] = frozenset(universe[key] - set(spec[f"{key}_not"]))
    return Alias(
        name,
        allowed,
        protocol=spec.get("protocol"),
        not_default=spec.get("not_default", False),
        fips=spec.get("fips", False),
    )


class LazyAliases(Mapping[str, frozenset[str]]):
    """alias -> the names of the suites it matches, each worked out the first time it is asked
    for: a lint reads a handful of the seventy aliases, and start-up time is pre-commit time."""

    def __init__(
        self, rules: dict[str, Any], suites: list[CipherSuite], universe: dict[str, set[str]]
    ) -> None:
        self._rules = rules
        self._suites = suites
        self._universe = universe
        self._done: dict[str, frozenset[str]] = {}
        self._indexes: dict[str, dict[object, set[str]]] = {}
        self._parts: dict[str, tuple[frozenset[str], frozenset[str] | None, bool]] = {}

    def __getitem__(self, name: str) -> frozenset[str]:
        if name not in self._done:
            self._done[name] = self.members(_alias(name, self._rules[name], self._universe))
        return self._done[name]

    def members(self, alias: Alias) -> frozenset[str]:
        """The names of the suites `alias.matches`, from an index of each field it constrains:
        set operations, not every suite tested against every alias (the default order alone
        reads twenty aliases, in every lint of a server without ssl_ciphers)."""
        names: set[str] | None = None
        for key, values in alias.allowed.items():
            index = self._index(key)
            found: set[str] = set().union(*(index.get(value, ()) for value in values))
            names = found if names is None else names & found
        if names is None:
            names = {s.name for s in self._suites}
        if alias.protocol is not None:
            names &= self._index("protocol").get(alias.protocol, set())
        if alias.not_default:
            names -= self._index("in_default").get(True, set())
        if alias.fips:
            names &= self._index("fips").get(True, set())
        return frozenset(names)

    def parts(self, name: str) -> tuple[frozenset[str], frozenset[str] | None, bool]:
        """An alias as ssl_cipher_process_rulestr() combines it with others in `A+B`: the suites
        its other fields match, its strength bits (its classes, and FIPS for the FIPS flag;
        None: it has none) and its COMPLEMENTOFDEFAULT flag. The strength bits are not a plain
        set of suites: see engine._element."""
        if name not in self._parts:
            alias = _alias(name, self._rules[name], self._universe)
            allowed = {k: v for k, v in alias.allowed.items() if k != "strength"}
            strong = set(alias.allowed.get("strength", ()))
            if alias.fips:
                strong.add("FIPS")
            other = self.members(Alias(name, allowed, protocol=alias.protocol))
            self._parts[name] = (other, frozenset(strong) or None, alias.not_default)
        return self._parts[name]

    def strong(self, bits: frozenset[str]) -> set[str]:
        """The suites with one of these strength bits (a class, or FIPS for a FIPS suite)."""
        found = set().union(*(self._index("strength").get(b, ()) for b in bits))
        if "FIPS" in bits:
            found |= self._index("fips").get(True, set())
        return found

    def not_default(self) -> set[str]:
        return {s.name for s in self._suites} - self._index("in_default").get(True, set())

    def _index(self, key: str) -> dict[object, set[str]]:
        """A field's value -> the names of the suites that have it."""
        if key not in self._indexes:
            index: dict[object, set[str]] = {}
            for suite in self._suites:
                index.setdefault(getattr(suite, key), set()).add(suite.name)
            self._indexes[key] = index
        return self._indexes[key]

    def __contains__(self, name: object) -> bool:
        return name in self._rules

    def __iter__(self) -> Iterator[str]:
        return iter(self._rules)

    def __len__(self) -> int:
        return len(self._rules)


@cache
def load_model(name: str, approximate: str | None = None) -> CipherModel:
    data = _data()
    spec = data["models"][name]
    with open(os.path.join(KNOWLEDGE_DIR, "ciphers", spec["table"]), encoding="utf-8") as handle:
        table_text = handle.read()
    table = json.loads(table_text)
    overrides = {**data["strength_bits"], **spec.get("strength_bits", {})}
    rows = []
    for row in table["suites"]:  # each row a fresh dict, made a suite's fields in place
        row["code"] = int(row["code"], 16)
        row["strength_bits"] = overrides.get(row["enc"], row["bits"])
        rows.append(CipherSuite(**row))
    legacy = sorted((s for s in rows if not s.tls13), key=lambda s: -s.code)
    universe: dict[str, set[str]] = {
        key: {getattr(s, key) for s in legacy} for key in ("kx", "au", "enc", "mac", "strength")
    }
    dropped = set(spec.get("without_aliases", ()))
    rules = {name: rule for name, rule in data["aliases"].items() if name not in dropped}
    aliases = LazyAliases(rules, legacy, universe)
    return CipherModel(
        name=name,
        source=table["source"],
        suites=tuple(legacy),
        tls13=tuple(s for s in rows if s.tls13),
        default_ciphersuites=tuple(table["default_ciphersuites"]),
        aliases=aliases,
        default_rule=spec["default_rule"],
        default_seclevel=spec["default_seclevel"],
        seclevel=SecurityLevels(
            min_bits=tuple(data["seclevel"]["min_bits"]),
            sha1_bits=data["seclevel"]["sha1_bits"],
            forward_secret_from_level=data["seclevel"]["forward_secret_from_level"],
            forward_secret_kx=frozenset(data["seclevel"]["forward_secret_kx"]),
        ),
        default_order=tuple((op, word) for op, word in data["default_order"]["steps"]),
        suiteb=dict(data["suiteb"]),
        standard_names=spec.get("standard_names", False),
        any_case=spec.get("any_case", False),
        approximate=approximate,
    )


def model_for(library: Library) -> CipherModel:
    """The cipher model of a target library: the first `select` entry that matches it."""
    for entry in _data()["select"]:
        kind = entry["library"]
        if kind not in ("*", library.kind):
            continue
        below = entry.get("below")
        if below and (library.version is None or not library.version < Version(below)):
            continue
        approximate = entry.get("approximate")
        if approximate is None:
            return load_model(entry["model"])
        model = _as_measured(load_model(entry["model"], approximate), library)
        return _grouped(model) if entry.get("equal_preference") else model
    raise LookupError(f"no cipher model for {library}")


_GROUPED: dict[int, CipherModel] = {}  # by the model's id: models are made once and kept


def _grouped(model: CipherModel) -> CipherModel:
    """The model, reading `[A|B]` equal-preference groups (made once per model)."""
    found = _GROUPED.get(id(model))
    if found is None:
        found = _GROUPED[id(model)] = replace(model, equal_preference=True)
    return found


def _as_measured(model: CipherModel, library: Library) -> CipherModel:
    """An approximate model (another library's rules) without the TLS 1.2 suites the library
    itself does not have, where each name was measured alone under its nginx -t
    (knowledge/tls_tables: BoringSSL and AWS-LC have no DHE, CCM, ARIA or Camellia suites;
    trial 10: NGX402 listed AES256-CCM for BoringSSL, which s_client could not get)."""
    from nginxgen.knowledge.library_tables import library_table

    table = library_table(library)
    if table is None or not table.names_measured:
        return model
    refused = frozenset(
        s.name for s in model.suites if table.cipher_strings.get(s.name) is not None
    )
    return _without(model.name, model.approximate, table.library, refused) if refused else model


@cache
def _without(
    name: str, approximate: str | None, measured: str, refused: frozenset[str]
) -> CipherModel:
    """Model `name` less the suites `measured` (a library table) refused, once per library."""
    model = load_model(name, approximate)
    legacy = tuple(s for s in model.suites if s.name not in refused)
    universe: dict[str, set[str]] = {
        key: {getattr(s, key) for s in legacy} for key in ("kx", "au", "enc", "mac", "strength")
    }
    assert isinstance(model.aliases, LazyAliases)
    return replace(
        model,
        name=f"{name}/{measured}",  # its own name: what is worked out per model is keyed by it
        suites=legacy,
        aliases=LazyAliases(model.aliases._rules, list(legacy), universe),
        approximate=f"{approximate}, less the suites {measured} does not have",
    )


def model_names() -> list[str]:
    return list(_data()["models"])
