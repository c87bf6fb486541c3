"""The proxy and grpc modules' header hashes: which headers each release puts in them and with
which sizes (nginx_header_hashes.json, read off nginx's sources by
scripts/build_header_hash_tables.py), and nginx's ngx_hash_init, emulated, to tell whether a
list of names fits (`could not build optimal proxy_headers_hash, ...` where it does not).

ngx_hash_init (src/core/ngx_hash.c) puts each name in bucket `key % size`; an element takes
NGX_HASH_ELT_SIZE, `sizeof(void *) + ngx_align(len + 2, sizeof(void *))` bytes, and a bucket
holds `bucket_size - sizeof(void *)`. It tries each size from `start` (nelts divided by the
elements of 16 bytes a bucket holds) up to max_size and takes the first where every bucket
fits; where none does it warns and builds with max_size anyway. Equal names (ngx_hash_key_lc
folds the case) always share a bucket: two of 15 to 22 characters, 32 bytes each, never fit
the 56 bytes of a 64-byte bucket, whatever the max size. ngx_cacheline_size is taken as 64
(x86-64; the script's docstring says why).
"""

from __future__ import annotations

from functools import cache, lru_cache

from nginxgen.base.records import record
from nginxgen.knowledge.data import holds, json_file, release_index

TYPE_CHECKING = False  # typing is not imported at run time: it slows every pre-commit start
if TYPE_CHECKING:
    from typing import Any

CACHELINE = 64  # ngx_cacheline_size
POINTER = 8  # sizeof(void *) on a 64-bit build
MASK = (1 << 64) - 1  # ngx_uint_t


@record(frozen=True)
class HashModule:
    """One module's header hashes in a release (proxy or grpc)."""

    module: str  # "proxy": its directives are proxy_set_header, proxy_hide_header, ...
    hash: str  # "proxy_headers_hash", the name nginx's messages give both of its hashes
    headers: tuple[str, ...]  # sent unless a line of the level's list names them
    cache_headers: tuple[str, ...]  # the same where the level caches (proxy_cache); () none
    hide_headers: tuple[str, ...]  # hidden from the client unless a pass_header line names them
    max_size: int  # the defaults (bucket_size after ngx_align to the cache line)
    bucket_size: int
    sizes_directives: bool  # MODULE_headers_hash_max_size and _bucket_size set them
    host_skipped: bool  # the list's `Host` lines stay out of the hash (from 1.31.4)
    source_unset: bool  # a server without lines under http{} without lines builds its own


@record(frozen=True)
class Outcome:
    """What ngx_hash_init makes of a list of names: "ok", "warn" (could not build optimal) or
    "emerg" (could not build: nginx -t fails), in nginx's words, and for a name too long for a
    bucket its index."""

    kind: str
    message: str = ""
    culprit: int | None = None


@cache
def _table() -> dict[str, Any]:
    return json_file("nginx_header_hashes")


@cache
def modules(version: str) -> tuple[HashModule, ...]:
    """The modules' hash facts for an nginx release, proxy first (the order nginx merges the
    modules in: auto/modules lists the proxy module before grpc)."""
    table = _table()
    at = release_index(tuple(table["releases"]), version)
    out = []
    for module in ("proxy", "grpc"):
        entry = next(e for e in table["modules"][module] if holds(e["ranges"], at))
        out.append(
            HashModule(
                module=module,
                hash=entry["hash"],
                headers=tuple(entry["headers"]),
                cache_headers=tuple(entry.get("cache_headers", ())),
                hide_headers=tuple(entry["hide_headers"]),
                max_size=entry["max_size"],
                bucket_size=entry["bucket_size"],
                sizes_directives=entry["sizes_directives"],
                host_skipped=entry["host_skipped"],
                source_unset=entry["source_unset"],
            )
        )
    return tuple(out)


@cache
def sizes_removed(version: str) -> bool:
    """Whether ngx_hash_init's check for a name too long for a bucket also measures names taken
    out of the list (a proxy_pass_header's): before 1.21.4."""
    table = _table()
    at = release_index(tuple(table["releases"]), version)
    entries = table["hash_init"]["hash_init"]
    return bool(next(e for e in entries if holds(e["ranges"], at))["sizes_removed"])


def align(size: int, boundary: int = CACHELINE) -> int:
    """ngx_align."""
    return (size + boundary - 1) & ~(boundary - 1)


def key_lc(name: bytes) -> int:
    """ngx_hash_key_lc: key * 31 + the lowercased byte, in a 64-bit ngx_uint_t."""
    key = 0
    for byte in name.lower():
        key = (key * 31 + byte) & MASK
    return key


def element_size(name: bytes) -> int:
    """NGX_HASH_ELT_SIZE."""
    return POINTER + align(len(name) + 2, POINTER)


@lru_cache(maxsize=1024)
def build(
    hash_name: str,
    names: tuple[bytes, ...],
    removed: frozenset[int],
    max_size: int,
    bucket_size: int,
    measure_removed: bool = False,
) -> Outcome:
    """ngx_hash_init of `names` (lowercased; those at the indexes in `removed` taken out of the
    list, ngx_hash_key_t's key.data NULL) with these sizes. Cached: a fleet's thousands of
    levels hold a handful of distinct lists."""
    hash_max = f"could not build {hash_name}, you should increase {hash_name}_max_size: "
    if max_size == 0:
        return Outcome("emerg", f"{hash_max}{max_size}")
    if bucket_size > 65536 - CACHELINE:
        return Outcome(
            "emerg",
            f"could not build {hash_name}, too large {hash_name}_bucket_size: {bucket_size}",
        )
    for index, name in enumerate(names):
        if (measure_removed or index not in removed) and bucket_size < element_size(name) + POINTER:
            message = (
                f"could not build {hash_name}, you should increase "
                f"{hash_name}_bucket_size: {bucket_size}"
            )
            return Outcome("emerg", message, index)
    kept = [(key_lc(name), element_size(name)) for i, name in enumerate(names) if i not in removed]
    usable = bucket_size - POINTER
    nelts = len(names)
    start = max(nelts // (usable // (2 * POINTER)), 1)
    if max_size > 10000 and nelts and max_size // nelts < 100:
        start = max_size - 1000
    size = _fitting(tuple(kept), start, max_size, usable)
    kind, message = "ok", ""
    if size is None:
        size = max_size
        kind = "warn"
        message = (
            f"could not build optimal {hash_name}, you should increase either "
            f"{hash_name}_max_size: {max_size} or {hash_name}_bucket_size: {bucket_size}; "
            f"ignoring {hash_name}_bucket_size"
        )
    filled: dict[int, int] = {}
    for key, elt in kept:
        at = key % size
        filled[at] = filled.get(at, POINTER) + elt
        if filled[at] > 65536 - CACHELINE:
            return Outcome("emerg", f"{hash_max}{max_size}")
    return Outcome(kind, message)


def _fitting(
    kept: tuple[tuple[int, int], ...], start: int, max_size: int, usable: int
) -> int | None:
    """The first size from `start` to `max_size` at which every bucket holds its elements
    (None: none does)."""
    same: dict[int, int] = {}
    for key, elt in kept:
        same[key] = same.get(key, 0) + elt
        if same[key] > usable:
            return None  # equal keys share a bucket at every size: no need to try them all
    for size in range(start, max_size + 1):
        filled: dict[int, int] = {}
        for key, elt in kept:
            at = key % size
            total = filled.get(at, 0) + elt
            if total > usable:
                break
            filled[at] = total
        else:
            return size
    return None
