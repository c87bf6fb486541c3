"""Lint throughput and pre-commit latency, side by side: nginxgen lint (in as many processes
as it takes, and with --jobs 1) against the bare crossplane parse, gixy-ng and nginx-lint.

    python bench/run.py [--gixy PATH] [--nginx-lint PATH] [--runs 5] [--sizes 2000,10000]
                        [--out bench/results.json]

(`--sizes ""`: the small files only; `--before DIR`: DIR's nginxgen lints them too, alternating.)
gixy-ng and nginx-lint are peers the machine may lack: one not given, or that does not run, is
named in the results under "missing" with the reason, and printed; never left out in silence.

Each case runs once to warm up, then the tools alternate, `--runs` times each; the median wall
and CPU time (user + system, the children's included) and the peak RSS (os.wait4) are kept, and
for each peer the median of the ratios nginxgen lint / peer taken run by run (paired: a machine
whose speed drifts moves both sides of a pair alike). The 1-minute load average is read before
every round: on a machine others share, the wall times are read with it (CPU time counts no
waiting for a core). Every tool runs in the temporary folder (no settings file of a checkout on
its way). Inputs are generated there: N TLS vhosts (listen ssl, http2, names, certificate, HSTS,
three locations with proxy_pass/root/return), as one file and as one include per vhost; and one
small file with one TLS server, alone and with its certificate and key (made by the openssl
command line) for the lint to read.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
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
# one TLS server whose certificate and key files exist: the lint reads them (issue 37)
WITH_CERTIFICATE = """events {{}}
http {{
    ssl_session_cache shared:SSL:10m;
    server {{
        listen 443 ssl;
        server_name www.example.com;
        ssl_certificate {folder}/fullchain.pem;
        ssl_certificate_key {folder}/privkey.pem;
        ssl_stapling on;
        add_header Strict-Transport-Security "max-age=63072000" always;
    }}
}}
"""


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


def write_certificate_tree(folder: Path) -> Path:
    """nginx.conf with one server and its files, as a CA issues them: an ECDSA P-256 leaf with
    an OCSP responder, its intermediate (ECDSA P-384) in fullchain.pem, the key in PKCS#8. Made
    by the openssl command line."""
    folder.mkdir(parents=True)

    def openssl(command: str, *more: str) -> None:
        argv = ["openssl", *command.split(), *more]
        subprocess.run(argv, cwd=folder, check=True, capture_output=True)

    openssl("genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-384 -out ca.key")
    openssl("req -x509 -new -key ca.key -days 30 -out ca.pem -subj", "/O=Bench/CN=Bench CA")
    openssl("genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out privkey.pem")
    openssl("req -new -key privkey.pem -subj /CN=www.example.com -out leaf.csr")
    (folder / "leaf.ext").write_text(
        "subjectAltName=DNS:www.example.com\nauthorityInfoAccess=OCSP;URI:http://ocsp.example.com\n"
    )
    openssl(
        "x509 -req -in leaf.csr -CA ca.pem -CAkey ca.key -CAcreateserial -days 30"
        " -extfile leaf.ext -out leaf.pem"
    )
    chain = (folder / "leaf.pem").read_bytes() + (folder / "ca.pem").read_bytes()
    (folder / "fullchain.pem").write_bytes(chain)
    main = folder / "nginx.conf"
    main.write_text(WITH_CERTIFICATE.format(folder=folder))
    return main


def measure(argv: list[str], cwd: str | None = None) -> tuple[float, int, float]:
    """Wall seconds, peak RSS in MiB and CPU seconds (user and system) of one run."""
    start = time.perf_counter()
    process = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, cwd=cwd)
    assert process.stderr is not None
    errors = process.stderr.read()
    _, status, usage = os.wait4(process.pid, 0)
    elapsed = time.perf_counter() - start
    # exit 1 is a lint with findings; a Python that cannot start the tool exits 1 too
    if os.waitstatus_to_exitcode(status) not in (0, 1) or b"Traceback" in errors:
        raise SystemExit(f"{argv} failed: exit {os.waitstatus_to_exitcode(status)}: {errors!r}")
    return elapsed, usage.ru_maxrss // 1024, usage.ru_utime + usage.ru_stime


def compare(
    tools: dict[str, list[str]], runs: int, cwd: str | None = None
) -> dict[str, dict[str, object]]:
    """Each tool's median wall and CPU time and its peak RSS; for each tool after the first, the
    medians of the first's time over its own, run by run (wall and CPU); the load average met.
    CPU time is the steadier figure on a machine that others share: waiting for a core is not
    counted in it."""
    for argv in tools.values():
        measure(argv, cwd)  # warm-up: page cache, .pyc files
    times: dict[str, list[float]] = {name: [] for name in tools}
    cpu: dict[str, list[float]] = {name: [] for name in tools}
    memory: dict[str, int] = dict.fromkeys(tools, 0)
    load: list[float] = []
    for _ in range(runs):
        load.append(os.getloadavg()[0])
        for name, argv in tools.items():  # alternating, so drift hits every tool alike
            seconds, rss, cpu_seconds = measure(argv, cwd)
            times[name].append(seconds)
            cpu[name].append(cpu_seconds)
            memory[name] = max(memory[name], rss)
    first = next(iter(tools))
    out: dict[str, dict[str, object]] = {}
    for name, t in times.items():
        out[name] = {
            "median_s": round(statistics.median(t), 3),
            "median_cpu_s": round(statistics.median(cpu[name]), 3),
            "peak_mib": memory[name],
        }
        if name != first:
            out[name][f"paired {first} / this, wall"] = _paired(times[first], t)
            out[name][f"paired {first} / this, cpu"] = _paired(cpu[first], cpu[name])
    out["load average"] = {"min": min(load), "median": statistics.median(load), "max": max(load)}
    return out


def _paired(mine: list[float], theirs: list[float]) -> float:
    return round(statistics.median(a / b for a, b in zip(mine, theirs, strict=True)), 3)


def peer(name: str, path: str | None, flag: str) -> tuple[list[str] | None, str]:
    """A peer's command, and its version or why it is missing."""
    if not path:
        return None, f"not given ({flag} PATH)"
    try:
        done = subprocess.run([path, "--version"], capture_output=True, text=True, timeout=60)
    except OSError as exc:
        return None, f"{path} does not run: {exc}"
    version = (done.stdout or done.stderr).strip().splitlines()
    return [path], version[0] if version else f"{name} (no version printed)"


def console_script(python: str, checkout: Path) -> list[str]:
    """The command pip's console script for `nginxgen` runs, for this checkout: its entry point
    from its pyproject.toml, imported from the checkout."""
    text = (checkout / "pyproject.toml").read_text(encoding="utf-8")
    found = re.search(r'^nginxgen = "([\w.]+):(\w+)"', text, re.MULTILINE)
    if found is None:
        raise SystemExit(f"{checkout}/pyproject.toml names no nginxgen entry point")
    module, function = found.groups()
    code = f"import re, sys; from {module} import {function}; sys.exit({function}())"
    # -P: `python -c` would put the working folder (often another checkout) ahead of PYTHONPATH
    return ["env", f"PYTHONPATH={checkout}", python, "-P", "-c", code]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--gixy", help="gixy-ng executable (in its own venv)")
    parser.add_argument(
        "--nginx-lint", help="nginx-lint executable (Rust), built from its pinned repository"
    )
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--sizes", default="2000,10000")
    parser.add_argument("--out", type=Path, default=Path(__file__).parent / "results.json")
    parser.add_argument(
        "--before",
        type=Path,
        help="another checkout of nginxgen: its lint runs beside this one's on the small files",
    )
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
    # with --before, each checkout runs its own entry point, as its console script would
    here = console_script(python, Path(__file__).parent.parent) if args.before else lint[:1]
    before = console_script(python, args.before) if args.before else []
    results: dict[str, object] = {
        "machine": (
            f"{platform.node()} {platform.machine()} {os.cpu_count()} cpus, "
            f"Python {platform.python_version()}"
        ),
        "date": time.strftime("%Y-%m-%d"),
        "runs": args.runs,
        "cases": {},
    }
    peers: dict[str, list[str]] = {}
    versions: dict[str, str] = {}  # each peer that runs: its path and version
    missing: dict[str, str] = {}  # each that does not: why
    for name, path, flag in (
        ("gixy-ng", args.gixy, "--gixy"),
        ("nginx-lint", args.nginx_lint, "--nginx-lint"),
    ):
        command, said = peer(name, path, flag)
        if command is None:
            missing[name] = said
            print(f"missing peer {name}: {said}", flush=True)
        else:
            peers[name] = command
            versions[name] = f"{said} ({path})"
    results["peers"], results["missing"] = versions, missing
    cases: dict[str, object] = {}
    with tempfile.TemporaryDirectory() as tmp:
        # the small files first: a child's peak RSS counts what it shares with this process when
        # forked, and this process grows with the large trees
        small_files = {
            "pre-commit: one small file": write_tree(Path(tmp) / "one", 1, False),
            "pre-commit: one small file that reads its certificate": write_certificate_tree(
                Path(tmp) / "certificate"
            ),
        }
        for label, small in small_files.items():
            tools = {
                "nginxgen lint": [*here, *lint[1:], str(small)],
                "crossplane parse": [python, "-c", PARSE, str(small)],
            }
            if args.before:
                tools["nginxgen lint, before"] = [*before, *lint[1:], str(small)]
            for name, command in peers.items():
                tools[name] = [*command, str(small)]
            # a few milliseconds each: more runs for a stable median
            cases[label] = compare(tools, max(args.runs, 40), tmp)
            print(label, cases[label], flush=True)
        for size in (int(s) for s in args.sizes.split(",") if s):
            for split in (False, True):
                label = f"{size} vhosts, {'one include per vhost' if split else 'one file'}"
                main_file = write_tree(Path(tmp) / f"{size}-{split}", size, split)
                tools = {
                    "nginxgen lint": [*lint, str(main_file)],
                    "nginxgen lint --jobs 1": [*lint, "--jobs", "1", str(main_file)],
                    "crossplane parse": [python, "-c", PARSE, str(main_file)],
                }
                for name, command in peers.items():
                    # gixy-ng took 2.8 s a run on 2,000 vhosts (docs/benchmarks.md)
                    if name != "gixy-ng" or size <= 2000:
                        tools[name] = [*command, str(main_file)]
                cases[label] = compare(tools, args.runs, tmp)
                print(label, cases[label], flush=True)
    results["cases"] = cases
    args.out.write_text(json.dumps(results, indent=2) + "\n")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
