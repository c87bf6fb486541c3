"""nginx's security advisories (nginx_advisories.json, from nginx.org/en/security_advisories.html
by scripts/build_advisories.py): which releases each one concerns."""

from __future__ import annotations

from nginxgen.base.records import record
from nginxgen.base.version import Version
from nginxgen.knowledge.data import from_table, json_file


@record(frozen=True)
class Advisory:
    """A security advisory of nginx.org (nginx_advisories.json)."""

    name: str
    severity: str
    cve: str | None
    advisory: str | None
    fixed: tuple[str, ...]  # the first fixed release of each branch


def _branch(version: Version) -> tuple[int, ...]:
    return (*version.parts, 0, 0)[:2]  # 1.30 of 1.30.4 (1.30.0 is stored as 1.30)


def advisories(version: Version) -> list[Advisory]:
    """The advisories whose vulnerable ranges hold this upstream release and whose fix its
    branch does not have (a distribution's package may carry the fix under the same version)."""
    out = []
    branch = _branch(version)
    for data in json_file("nginx_advisories")["advisories"]:
        vulnerable = False
        for span in data["vulnerable"]:
            low, _, high = span.partition("-")
            vulnerable |= Version(low) <= version <= Version(high or low)
        fixes = [Version(f) for f in data["fixed"]]
        fixed = any(version >= f and (_branch(f) == branch or f == max(fixes)) for f in fixes)
        if vulnerable and not fixed:
            out.append(from_table(Advisory, data))
    return out
