"""`nginxgen probe` wall time on loopback (issue 16): one name, and 200 names on one endpoint.

    python bench/probe.py [--runs 3] [--names 200] [--build trixie]

Serves the generated `intermediate` preset on a provisioned build (python scripts/provision.py)
with one server for all names (a certificate for *.bench.test), then times the whole command
`nginxgen probe 127.0.0.1:PORT --sni ... --format json` (median of the runs), with the number of
connections it reports.
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from tests.builds import build_or_exit
from tests.generate.test_live_presets import Served, generate
from tests.live import Server


def timed_probe(port: int, names: list[str]) -> tuple[float, int]:
    nginxgen = str(Path(sys.executable).with_name("nginxgen"))
    argv = [nginxgen, "probe", f"127.0.0.1:{port}", "--format", "json"]
    for name in names:
        argv += ["--sni", name]
    start = time.perf_counter()
    done = subprocess.run(argv, capture_output=True, text=True, check=False)
    seconds = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"probe failed ({done.returncode}): {done.stderr[-500:]}")
    results = json.loads(done.stdout)
    if any(not r["protocols"]["TLSv1.3"] for r in results[:-1]):
        raise SystemExit("a name did not answer TLS 1.3: the bench is not measuring a probe")
    found = re.search(r"(\d+) connections", done.stderr)
    return seconds, int(found.group(1)) if found else -1


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--names", type=int, default=200)
    parser.add_argument("--build", default="trixie")
    args = parser.parse_args()
    build = build_or_exit(args.build)
    with tempfile.TemporaryDirectory() as tmp:
        served = generate("intermediate", build, Path(tmp))
        assert isinstance(served, Served), served.stderr
        site = served.conf.parent / "example.com.ssl.conf"
        names = [f"n{i}.example.com" for i in range(args.names)]
        text = site.read_text()
        site.write_text(re.sub(r"server_name [^;]+;", "server_name .example.com;", text, count=1))
        results = {}
        with Server(build, served.conf, [served.port]):
            for label, asked in (("1 name", names[:1]), (f"{args.names} names", names)):
                runs = [timed_probe(served.port, asked) for _ in range(args.runs)]
                seconds = statistics.median(s for s, _ in runs)
                results[label] = {"seconds": round(seconds, 2), "connections": runs[0][1]}
                print(f"{label}: {seconds:.2f} s (median of {args.runs}), {runs[0][1]} connections")
    print(json.dumps(results))


if __name__ == "__main__":
    main()
