"""Write nginxgen/knowledge/nginx_advisories.json from nginx.org's security advisory list.

    python scripts/build_advisories.py --repo CLONE_OF_nginx/nginx.org

Reads xml/en/security_advisories.xml at the clone's newest commit: each advisory's name,
severity, CVE, advisory link, the vulnerable version ranges and the releases that fixed it
(nginx/Windows-only entries are left out: nginxgen targets Unix builds; so is an advisory no
release fixes, which no choice of version avoids).
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
from pathlib import Path

OUT = Path(__file__).resolve().parent.parent / "nginxgen" / "knowledge" / "nginx_advisories.json"
ITEM = re.compile(r"<item\s+(.*?)>", re.S)
ATTRIBUTE = re.compile(r'(\w+)="([^"]*)"')


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repo", type=Path, required=True)
    args = parser.parse_args()
    git = ["git", "-C", str(args.repo)]
    commit = subprocess.run(
        [*git, "rev-parse", "HEAD"], capture_output=True, text=True, check=True
    ).stdout.strip()
    xml = subprocess.run(
        [*git, "show", "HEAD:xml/en/security_advisories.xml"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    advisories = []
    for match in ITEM.finditer(xml):
        item = dict(ATTRIBUTE.findall(match.group(1)))
        if "vulnerable" not in item or "Windows" in item["vulnerable"]:
            continue
        if item.get("good", "none") == "none":
            continue  # no release fixes it (nginx declined): no version choice avoids it
        advisories.append(
            {
                "name": item["name"],
                "severity": item.get("severity", ""),
                "cve": f"CVE-{item['cve']}" if item.get("cve") else None,
                "advisory": item.get("advisory"),
                "vulnerable": [r.strip() for r in item["vulnerable"].split(",") if r.strip()],
                "fixed": [
                    g.strip().rstrip("+")
                    for g in item.get("good", "").split(",")
                    if g.strip() and g.strip() != "none"
                ],
            }
        )
    document = {
        "about": "nginx.org's security advisories: vulnerable ranges (a-b, inclusive) and the "
        "first fixed release of each branch (scripts/build_advisories.py).",
        "source": f"github.com/nginx/nginx.org xml/en/security_advisories.xml at {commit}",
        "advisories": advisories,
    }
    OUT.write_text(json.dumps(document, indent=1) + "\n")
    print(f"wrote {OUT}: {len(advisories)} advisories")


if __name__ == "__main__":
    main()
