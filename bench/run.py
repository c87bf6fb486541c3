"""Lint throughput and pre-commit latency: nginxgen lint vs gixy-ng vs the bare crossplane parse.

    python bench/run.py [--gixy PATH] [--runs 5] [--sizes 2000,10000] [--out bench/results.json]

Each case runs once to warm up, then the tools alternate, `--runs` times each; the median wall
time and the peak RSS (os.wait4) are kept. Inputs are generated into a temporary folder: N TLS
vhosts (listen ssl, http2, names, certificate, HSTS, three locations with proxy_pass/root/return),
as one file and as one include per vhost.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

VHOST = """server {{
    listen 443 ssl;
    http2 on;
    server_name site{i}.example.com www.site{i}.example.com;
    ssl_certificate /etc/ssl/site{i}/fullchain.pem;
    ssl_certificate_key /etc/ssl/site{i}/privkey.pem;
    add_header Strict-Transport-Security "max-age=63072000" always;
    location / {{
        proxy_pass http://127.0.0.1:8080;
    }}
    location /static/ {{
        root /var/www/site{i};
    }}
    location /old {{
        return 301 /new;
    }}
}}
"""
HEAD = """events {{}}
http {{
    ssl_protocols TLSv1.2 TLSv1.3;
    ssl_session_cache shared:SSL:10m;
    server {{
        listen 443 ssl default_server;
        ssl_reject_handshake on;
    }}
{body}}}
"""
PARSE = "import sys, crossplane; crossplane.parse(sys.argv[1])"


def write_tree(folder: Path, count: int, split: bool, vhost: str = VHOST, head: str = HEAD) -> Path:
    """N vhosts from the `vhost` template, in nginx.conf or one include each."""
    folder.mkdir(parents=True)
    if split:
        (folder / "sites").mkdir()
        for i in range(count):
            (folder / "sites" / f"site{i}.conf").write_text(vhost.format(i=i))
        body = "    include sites/*.conf;\n"
    else:
        body = "".join(vhost.format(i=i) for i in range(count))
    main = folder / "nginx.conf"
    main.write_text(head.format(body=body))
    return main


def measure(argv: list[str]) -> tuple[float, int]:
    """Wall seconds and peak RSS in MiB of one run."""
    start = time.perf_counter()
    process = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(process.pid, 0)
    elapsed = time.perf_counter() - start
    if os.waitstatus_to_exitcode(status) not in (0, 1):
        raise SystemExit(f"{argv[0]} failed: exit {os.waitstatus_to_exitcode(status)}")
    return elapsed, usage.ru_maxrss // 1024


def compare(tools: dict[str, list[str]], runs: int) -> dict[str, dict[str, float]]:
    for argv in tools.values():
        measure(argv)  # warm-up: page cache, .pyc files
    times: dict[str, list[float]] = {name: [] for name in tools}
    memory: dict[str, int] = dict.fromkeys(tools, 0)
    for _ in range(runs):
        for name, argv in tools.items():  # alternating, so drift hits every tool alike
            seconds, rss = measure(argv)
            times[name].append(seconds)
            memory[name] = max(memory[name], rss)
    return {
        name: {"median_s": round(statistics.median(t), 3), "peak_mib": memory[name]}
        for name, t in times.items()
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--gixy", help="gixy-ng executable (in its own venv)")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--sizes", default="2000,10000")
    parser.add_argument("--out", type=Path, default=Path(__file__).parent / "results.json")
    args = parser.parse_args()
    python = sys.executable
    # The console script, as pre-commit and a shell run it (python -m adds runpy's start-up).
    lint = [
        str(Path(python).with_name("nginxgen")),
        "lint",
        "--nginx-version",
        "1.26.3",
        "--tls-library",
        "openssl-3.5",
    ]
    results: dict[str, object] = {
        "machine": (
            f"{platform.node()} {platform.machine()} {os.cpu_count()} cpus, "
            f"Python {platform.python_version()}"
        ),
        "date": time.strftime("%Y-%m-%d"),
        "runs": args.runs,
        "cases": {},
    }
    cases: dict[str, object] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for size in (int(s) for s in args.sizes.split(",")):
            for split in (False, True):
                label = f"{size} vhosts, {'one include per vhost' if split else 'one file'}"
                main_file = write_tree(Path(tmp) / f"{size}-{split}", size, split)
                tools = {
                    "nginxgen lint": [*lint, str(main_file)],
                    "crossplane parse": [python, "-c", PARSE, str(main_file)],
                }
                if args.gixy and size <= 2000:
                    tools["gixy-ng"] = [args.gixy, str(main_file)]
                cases[label] = compare(tools, args.runs)
                print(label, cases[label], flush=True)
        small = write_tree(Path(tmp) / "one", 1, False)
        cases["pre-commit: one small file"] = compare(
            {
                "nginxgen lint": [*lint, str(small)],
                "crossplane parse": [python, "-c", PARSE, str(small)],
            },
            max(args.runs, 40),  # a few milliseconds each: more runs for a stable median
        )
        print("pre-commit", cases["pre-commit: one small file"])
    results["cases"] = cases
    args.out.write_text(json.dumps(results, indent=2) + "\n")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
