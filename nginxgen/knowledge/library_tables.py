"""What each TLS library build accepted under `nginx -t`, measured by
scripts/build_library_tables.py (one JSON file per build in knowledge/tls_tables/): groups, group
list syntax, cipher strings, ssl_conf_command values, signature algorithms."""

from __future__ import annotations

import json
import os
from functools import cache

from nginxgen.base.records import field, record
from nginxgen.base.version import Version
from nginxgen.knowledge.builds import LIBRARY_KINDS
from nginxgen.knowledge.data import KNOWLEDGE_DIR

TYPE_CHECKING = False  # typing is not imported at run time: it slows every pre-commit start
if TYPE_CHECKING:
    from nginxgen.knowledge.builds import Library

# The example list of each syntax feature in the tables (GROUP_LISTS of the script) that answers
# for a feature of libraries.toml [syntax]
_SYNTAX_PROBES = {
    "question": "question_known",
    "star": "star",
    "tuple": "tuple",
    "dash": "dash",
    "duplicates": "duplicate",
    "empty": "empty_entry",
    "spaces": "space_in_quotes",
}


@record(frozen=True)
class LibraryTable:
    """What one TLS library build accepted under `nginx -t` (a file of knowledge/tls_tables/)."""

    library: str  # as --tls-library takes it: "openssl-3.0.22", "boringssl"
    kind: str
    version: Version | None
    groups: dict[str, bool]  # a one-name ssl_ecdh_curve, by name as written
    syntax: dict[str, bool]  # libraries.toml [syntax] feature -> accepted
    cipher_strings: dict[str, str | None]  # ssl_ciphers value -> None, or the library's reason
    # every suite name of any library was measured alone: a word that is no measured keyword
    # or name matches nothing there
    names_measured: bool
    conf_refused: str | None  # why every ssl_conf_command is refused (no SSL_CONF_cmd)
    conf_commands: dict[str, str | None]  # "Name Value" -> None, or the library's reason
    # `SignatureAlgorithms ELEMENT` -> accepted, for the elements of scripts/build_library_tables.py
    # SIGALG_NAMES (empty where not measured), get_sigorhash's SIG and HASH words, the partner
    # each was probed with ({"sig": "SHA256", "hash": "ECDSA"}) and the list syntax features
    sigalgs: dict[str, bool] = field(default_factory=dict)
    sigalg_words: tuple[tuple[str, ...], tuple[str, ...]] = ((), ())
    sigalg_partners: dict[str, str] = field(default_factory=dict)
    sigalg_syntax: dict[str, bool] = field(default_factory=dict)  # list feature -> accepted


TABLES_DIR = os.path.join(KNOWLEDGE_DIR, "tls_tables")


@cache
def _table_names() -> tuple[str, ...]:
    """The measured libraries, by file name: each file is named for its `library` value."""
    return tuple(
        sorted(
            name[:-5]
            for name in os.listdir(TABLES_DIR)
            if name.endswith(".json") and name != "names.json"
        )
    )


def library_tables() -> tuple[LibraryTable, ...]:
    """Every measured table."""
    return tuple(_read_table(name) for name in _table_names())


@cache
def _read_table(name: str) -> LibraryTable:
    """One measured table, read once, only when a rule asks (a plain lint of a config without
    these directives never opens one, and a lint opens only its target's)."""
    with open(os.path.join(TABLES_DIR, f"{name}.json"), encoding="utf-8") as handle:
        data = json.load(handle)
    kind, version = _split_library(data["library"])
    conf = data["conf_command"]
    lists = data["group_lists"]
    sigalgs = data.get("sigalgs", {})
    return LibraryTable(
        library=data["library"],
        kind=kind,
        version=version,
        groups=data["groups"],
        syntax={f: lists[probe]["accepted"] for f, probe in _SYNTAX_PROBES.items()},
        cipher_strings={
            **data.get("cipher_names", {}),
            **data["cipher_keywords"],
            **data["cipher_strings"],
        },
        names_measured="cipher_names" in data,
        conf_refused=conf.get("refused"),
        conf_commands=conf.get("commands", {}),
        sigalgs=sigalgs.get("elements", {}),
        sigalg_words=(tuple(sigalgs.get("sig_words", ())), tuple(sigalgs.get("hash_words", ()))),
        sigalg_partners=sigalgs.get("partners", {}),
        sigalg_syntax={f: v["accepted"] for f, v in sigalgs.get("lists", {}).items()},
    )


def _split_library(text: str) -> tuple[str, Version | None]:
    for kind in sorted(LIBRARY_KINDS, key=len, reverse=True):
        if text == kind:
            return kind, None
        if text.startswith(f"{kind}-"):
            return kind, Version(text[len(kind) + 1 :])
    raise ValueError(f"not a TLS library: {text!r}")


def library_table(library: Library) -> LibraryTable | None:
    """The measured table of `library`'s release series, if a build of it was probed."""
    name = next((n for n in _table_names() if _answers(n, library)), None)
    return _read_table(name) if name is not None else None


def _answers(name: str, library: Library) -> bool:
    """Whether the table named `name` answers for `library`: the same library and release
    series (OpenSSL 3.0.x, AWS-LC 5.12.x), or both without a version (BoringSSL)."""
    kind, version = _split_library(name)
    if library.kind != kind:
        return False
    if library.version is None or version is None:
        return library.version is None and version is None
    return (*library.version.parts, 0)[:2] == (*version.parts, 0)[:2]  # 3 is 3.0
