"""Write nginxgen/knowledge/directives.json: which directives take a block, read off real nginx.

    python scripts/build_directive_table.py

Every name in the nginx binaries of the provisioned builds (and crossplane's directive table) that
a build knows is probed in every context (see tests/directive_probe.py). A name that takes a block
everywhere is `block`, one that never does is `simple`; a name that depends on where it stands
(`server` is a block in http{} and a plain line in upstream{}) lists the enclosing blocks for
each. tests/test_directive_table.py checks the file against the builds on every run.
"""

from __future__ import annotations

import json
import sys
from collections import defaultdict
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from crossplane.analyzer import DIRECTIVES  # noqa: E402

from tests.builds import load_builds  # noqa: E402
from tests.directive_probe import CONTEXTS, candidates, known_names, probe_all  # noqa: E402

OUT = REPO / "nginxgen" / "knowledge" / "directives.json"
# Blocks whose content nginx hands to the block's own handler, not to directives: any word may
# start a line there (ngx_http_core_types, ngx_http_map_block, ngx_http_geo_block,
# ngx_http_split_clients_block, ngx_http_charset_map_block, and their stream twins).
FREE_CONTENT = ["charset_map", "geo", "map", "split_clients", "types"]


def main() -> None:
    builds, missing = load_builds()
    if missing:
        raise SystemExit(f"builds missing: {missing} (run scripts/provision.py)")
    seen: dict[str, dict[str, set[str]]] = defaultdict(lambda: defaultdict(set))
    where: dict[str, str] = {}  # a probe context where the name is allowed, for the test
    described = []
    for build in builds.values():
        names = known_names(build, candidates(build) | set(DIRECTIVES))
        print(f"{build.name}: {len(names)} directives", file=sys.stderr)
        described.append(f"nginx {build.nginx_version} with {build.tls_library} ({build.name})")
        for (name, context), kind in probe_all(build, names, list(CONTEXTS)).items():
            if kind != "absent":
                seen[name][str(CONTEXTS[context][1])].add(kind)
                where.setdefault(name, context)
    block, simple, mixed = {}, {}, {}
    for name in sorted(seen):
        kinds = set().union(*seen[name].values())
        if kinds == {"block"}:
            block[name] = where[name]
        elif kinds == {"simple"}:
            simple[name] = where[name]
        else:
            mixed[name] = {
                parent.replace("None", "(top)"): sorted(k)[0] if len(k) == 1 else "either"
                for parent, k in sorted(seen[name].items())
            }
    data = {
        "about": "Directives that take a block ({ ... }) and directives that end with `;`, as "
        "the builds below answered `nginx -t` probes (tests/directive_probe.py), each with a "
        "context it was probed in. `mixed` maps "
        "the enclosing block's directive name to the kind there; `free_content` blocks hold "
        "values, not directives.",
        "source": "nginx ngx_conf_file.c ngx_conf_handler() (NGX_CONF_BLOCK); probed on "
        + "; ".join(described),
        "free_content": FREE_CONTENT,
        "block": block,
        "simple": simple,
        "mixed": mixed,
    }
    OUT.write_text(json.dumps(data, indent=1) + "\n")
    print(f"{len(block)} block, {len(simple)} simple, {len(mixed)} mixed -> {OUT}", file=sys.stderr)


if __name__ == "__main__":
    main()
