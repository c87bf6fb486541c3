"""The target's nginx release is affected by nginx.org security advisories.

With `--nginx-bin` (the exact release the server runs, from `nginx -V`), lint names the
advisories nginx.org lists for that upstream release and the release of its branch that fixed
each. A distribution's package may carry the fix under the same version number (Debian's
security updates do): check its changelog before upgrading.

For example, nginx 1.26.3 (from `nginx -V`) draws CVE-2026-42533 and others; the way out is a
release that fixes them (1.30.4, 1.31.3), or a package that backports the fixes.

Sources: nginx.org/en/security_advisories.html (github.com/nginx/nginx.org
xml/en/security_advisories.xml, read by scripts/build_advisories.py).
"""

from __future__ import annotations

from collections.abc import Iterator

from nginxgen.base.version import Version
from nginxgen.conf.load import Stmt
from nginxgen.knowledge import advisories
from nginxgen.lint.context import Context, Rule
from nginxgen.lint.findings import Finding, Severity

RULE = Rule(
    code="NGX304",
    name="security-advisories",
    severity=Severity.INFO,
    fix="upgrade nginx to a release that fixes them, or check that the package backports the fixes",
)
ORDER = {"major": 0, "high": 0, "medium": 1, "low": 2}


def check(ctx: Context) -> Iterator[Finding]:
    loaded = ctx.config.loaded
    if not ctx.target.exact or not loaded.files:
        return  # a version given by hand may be a distribution's, patched: nothing exact to say
    found = advisories.advisories(ctx.target.nginx)
    if not found:
        return
    found.sort(key=lambda a: ORDER.get(a.severity, 3))
    named = ", ".join(f"{a.cve or a.name} ({a.severity})" for a in found)
    fixed = _fixing_all(found)
    yield ctx.finding(
        RULE,
        Stmt("", [], 1, loaded.files[0]),
        f"nginx {ctx.target.nginx} is affected by {len(found)} nginx.org security advisories: "
        f"{named}",
        f"upgrade to nginx {' or '.join(fixed)} (or a package that backports the fixes)",
    )


def _fixing_all(found: list[advisories.Advisory]) -> list[str]:
    """The releases to name: of the versions the advisories list as fixed, those no advisory
    affects, the first of each release line (1.30.4 for the stable line, 1.31.3 for mainline),
    the two newest lines. A version that fixes one advisory can be affected by another."""
    first: dict[tuple[int, ...], Version] = {}
    for text in {f for a in found for f in a.fixed}:
        version = Version(text)
        line = tuple(version.parts[:2])
        if not advisories.advisories(version) and (line not in first or version < first[line]):
            first[line] = version
    return [str(first[line]) for line in sorted(first)[-2:]]
