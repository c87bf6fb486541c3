"""`nginxgen lint --fix` against plain `nginxgen lint` on the same tree (issue 13).

    python bench/fix.py [--runs 5] [--vhosts 2000] [--dir FOLDER]

The tree: N TLS vhosts, each with one finding that has an automatic fix (HSTS without
`always`, NGX702, unsafe), in one file and one include per vhost. Each run lints a fresh copy,
then fixes another fresh copy (so every fix run has all N fixes to make); the tools alternate
and the median wall time is kept. The copies are removed at the end, not between runs.
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from run import HEAD, write_tree

VHOST = """server {{
    listen 443 ssl;
    http2 on;
    server_name site{i}.example.com;
    ssl_certificate /etc/ssl/site{i}/fullchain.pem;
    ssl_certificate_key /etc/ssl/site{i}/privkey.pem;
    add_header Strict-Transport-Security "max-age=63072000";
    location / {{
        proxy_pass http://127.0.0.1:8080;
    }}
}}
"""


def timed(argv: list[str]) -> float:
    start = time.perf_counter()
    done = subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    if done.returncode not in (0, 1):
        raise SystemExit(f"{argv} failed: exit {done.returncode}")
    return time.perf_counter() - start


def file_system(folder: str) -> str:
    """The file system the trees live on, and for ext4 whether it has a journal: without one,
    creating files soon after many deletions is slow in the kernel (docs/benchmarks.md)."""
    done = subprocess.run(
        ["df", "--output=source,fstype", folder], capture_output=True, text=True, check=False
    )
    source, kind = [*(done.stdout.splitlines() or [""])[-1].split(), "?", "?"][:2]
    if kind == "ext4":
        journal = Path(f"/proc/fs/jbd2/{Path(source).name}-8").exists()
        kind += " with a journal" if journal else " without a journal"
    return f"{kind} ({source})"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--vhosts", type=int, default=2000)
    parser.add_argument("--dir", help="where the trees are made (default: the system's temp)")
    args = parser.parse_args()
    nginxgen = str(Path(sys.executable).with_name("nginxgen"))
    target = ["--nginx-version", "1.26.3", "--tls-library", "openssl-3.5"]
    results = {}
    with tempfile.TemporaryDirectory(dir=args.dir) as tmp:
        print(f"trees in {tmp}: {file_system(tmp)}", flush=True)
        for split in (False, True):
            label = f"{args.vhosts} vhosts, {'one include per vhost' if split else 'one file'}"
            tree = write_tree(Path(tmp) / f"source-{split}", args.vhosts, split, VHOST, HEAD)
            source = tree.parent
            times: dict[str, list[float]] = {"lint": [], "lint --unsafe-fixes": []}
            for run in range(args.runs + 1):  # the first is a warm-up
                for name, extra in (("lint", []), ("lint --unsafe-fixes", ["--unsafe-fixes"])):
                    copy = Path(tmp) / f"run-{split}-{run}-{len(extra)}"
                    shutil.copytree(source, copy)
                    seconds = timed([nginxgen, "lint", *target, *extra, str(copy / "nginx.conf")])
                    if run:
                        times[name].append(seconds)
                    # The copies stay until the end: on ext4 without a journal, files created
                    # within a minute of thousands of deletions cost 0.2-0.7 ms each in the
                    # kernel, which would bill the next run for this one's clean-up.
            medians = {name: round(statistics.median(t), 3) for name, t in times.items()}
            medians["ratio"] = round(medians["lint --unsafe-fixes"] / medians["lint"], 2)
            results[label] = medians
            print(label, medians, flush=True)
    print(json.dumps(results))


if __name__ == "__main__":
    main()
