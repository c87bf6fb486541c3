"""A plain lint of findings that have a fix against findings that have none (issue 24).

    python bench/lazy_fixes.py [--vhosts 2000] [--runs 7]

Two trees of N TLS vhosts in one file behind a reject-handshake default server, alike but for
one line per vhost: `keepalive_timeout 0;` (NGX603, whose fix deletes the line) or
`ssl_stapling on;` without a resolver or responder (NGX711, no automatic fix). A plain
`nginxgen lint` of each, alternating, median of `--runs`; also `--format sarif` (which
carries the edits, so builds them) on the fixable tree. Prints one JSON document.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from run import measure, write_tree

VHOST = """server {{
    listen 443 ssl;
    server_name site{i}.example.com;
    ssl_certificate /etc/ssl/site{i}/fullchain.pem;
    ssl_certificate_key /etc/ssl/site{i}/privkey.pem;
    add_header Strict-Transport-Security "max-age=63072000" always;
    location / {{
        proxy_pass http://127.0.0.1:8080;
    }}
    @LINE@
}}
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--vhosts", type=int, default=2000)
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args()
    lint = [str(Path(sys.executable).with_name("nginxgen")), "lint", "--nginx-version", "1.26.3",
            "--tls-library", "openssl-3.5"]  # fmt: skip
    with tempfile.TemporaryDirectory() as tmp:
        with_fix = VHOST.replace("@LINE@", "keepalive_timeout 0;")
        without = VHOST.replace("@LINE@", "ssl_stapling on;   ")  # the same length
        fixable = write_tree(Path(tmp) / "fixable", args.vhosts, False, with_fix)
        unfixable = write_tree(Path(tmp) / "unfixable", args.vhosts, False, without)
        argvs = {
            "fixable findings": [*lint, str(fixable)],
            "unfixable findings": [*lint, str(unfixable)],
            "fixable findings, --format sarif": [*lint, "--format", "sarif", str(fixable)],
        }
        for argv in argvs.values():
            measure(argv)  # warm-up
        times: dict[str, list[float]] = {name: [] for name in argvs}
        for _ in range(args.runs):
            for name, argv in argvs.items():
                times[name].append(measure(argv)[0])
    medians = {name: round(statistics.median(t), 3) for name, t in times.items()}
    print(json.dumps({
        "machine": f"{platform.node()} {os.cpu_count()} cpus, Python {platform.python_version()}",
        "date": time.strftime("%Y-%m-%d"),
        "vhosts": args.vhosts,
        "median_s": medians,
        "ratio": round(medians["fixable findings"] / medians["unfixable findings"], 3),
    }))  # fmt: skip


if __name__ == "__main__":
    main()
