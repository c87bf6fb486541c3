"""Facts of the web platform nginxgen's policies rest on (web.toml): HSTS lifetimes, the
protocol versions below TLS 1.2 and Mozilla's intermediate TLS 1.2 suites (not nginx's facts,
nor a TLS library's)."""

from __future__ import annotations

from functools import cache

from nginxgen.base.records import record
from nginxgen.knowledge.data import from_table, toml_file


@record(frozen=True)
class Hsts:
    """HTTP Strict Transport Security lifetimes (RFC 6797 6.1.1 max-age), in seconds."""

    min_max_age: int  # below it a returning browser's HTTPS-only memory lapses between visits
    recommended_max_age: int
    preload_min_max_age: int  # the preload list's rule (with includeSubDomains)
    source: str


@cache
def hsts() -> Hsts:
    return from_table(Hsts, toml_file("web")["hsts"])


@cache
def legacy_protocols() -> frozenset[str]:
    """Protocol versions below TLS 1.2 (RFC 8996)."""
    return frozenset(toml_file("web")["protocols"]["legacy"])


@cache
def intermediate_ciphers() -> tuple[str, ...]:
    """Mozilla's intermediate TLS 1.2 suites (guideline 6.0), in its order."""
    return tuple(toml_file("web")["intermediate"]["ciphers"])
