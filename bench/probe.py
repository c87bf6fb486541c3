"""`nginxgen probe` wall time on loopback (issues 16 and 47): 1, 200, 1,000 and 5,000 names on
one endpoint.

    python bench/probe.py [--runs 3] [--names 1 200 1000 5000] [--build trixie] [--no-config]

Serves the generated `intermediate` preset on a provisioned build (python scripts/provision.py)
with one server for all names (`server_name .example.com`, a certificate for *.example.com),
then times the whole command `nginxgen probe 127.0.0.1:PORT --sni ... --format json --config
nginx.conf` (median of the runs) for each size, with the connections it reports (which do not
depend on the machine's load), the CPU seconds the probe and nginx spent (medians: where the
time goes on a shared machine) and the load average before and after. With --config the names
share one TLS context (nginxgen/probe/plan.py); --no-config probes every name whole.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
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

# bytecode cached as an installed package has it: with PYTHONDONTWRITEBYTECODE set (as in some
# shells here), every run compiled nginxgen's modules again, 0.7 s of a one-name probe
ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def cpu_seconds(master: int) -> float:
    """CPU seconds (user and system) of the nginx master `master` and its workers so far."""
    total = 0
    for entry in Path("/proc").iterdir():
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue
        if entry.name == str(master) or fields[1] == str(master):
            total += int(fields[11]) + int(fields[12])  # utime, stime (proc(5))
    return total / os.sysconf("SC_CLK_TCK")


def probe_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def timed_probe(
    port: int, names: list[str], conf: Path | None, flags: list[str], master: int
) -> tuple[float, int, float, float]:
    """(seconds, connections, the probe's CPU seconds, nginx's CPU seconds) of one run."""
    nginxgen = str(Path(sys.executable).with_name("nginxgen"))
    argv = [nginxgen, "probe", f"127.0.0.1:{port}", "--format", "json", *flags]
    if conf is not None:
        argv += ["--config", str(conf)]
    for name in names:
        argv += ["--sni", name]
    cpu, served, start = probe_cpu(), cpu_seconds(master), time.perf_counter()
    done = subprocess.run(argv, capture_output=True, text=True, check=False, env=ENV)
    seconds = time.perf_counter() - start
    cpu, served = probe_cpu() - cpu, cpu_seconds(master) - served
    if done.returncode != 0:
        raise SystemExit(f"probe failed ({done.returncode}): {done.stderr[-500:]}")
    results = json.loads(done.stdout)
    if any(not r["protocols"]["TLSv1.3"] for r in results[:-1]):
        raise SystemExit("a name did not answer TLS 1.3: the bench is not measuring a probe")
    found = re.search(r"(\d+) connections", done.stderr)
    return seconds, int(found.group(1)) if found else -1, cpu, served


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--names", type=int, nargs="+", default=[1, 200, 1000, 5000])
    parser.add_argument("--build", default="trixie")
    parser.add_argument("--no-config", action="store_true", help="probe every name whole")
    args = parser.parse_args()
    build = build_or_exit(args.build)
    results = {"build": args.build, "config": not args.no_config, "load_before": os.getloadavg()}
    with tempfile.TemporaryDirectory() as tmp:
        served = generate("intermediate", build, Path(tmp))
        assert isinstance(served, Served), served.stderr
        site = served.conf.parent / "example.com.ssl.conf"
        text = site.read_text()
        site.write_text(re.sub(r"server_name [^;]+;", "server_name .example.com;", text, count=1))
        conf = None if args.no_config else served.conf
        with Server(build, served.conf, [served.port]) as server:
            assert server.process is not None
            for size in args.names:
                names = [f"n{i}.example.com" for i in range(size)]
                runs = [timed_probe(served.port, names, conf, build.target_flags,
                                    server.process.pid) for _ in range(args.runs)]  # fmt: skip
                seconds = statistics.median(r[0] for r in runs)
                cpu = statistics.median(r[2] for r in runs)
                nginx = statistics.median(r[3] for r in runs)
                label = f"{size} name" + ("s" if size > 1 else "")
                results[label] = {
                    "seconds": round(seconds, 2),
                    "runs": [round(r[0], 2) for r in runs],
                    "connections": runs[0][1],
                    "probe_cpu": round(cpu, 2),
                    "nginx_cpu": round(nginx, 2),
                    "load": os.getloadavg()[0],
                }
                load = results[label]["load"]
                print(f"{label}: {seconds:.2f} s (median of {args.runs}), {runs[0][1]} connections"
                      f"; CPU: probe {cpu:.2f} s, nginx {nginx:.2f} s; load {load:.1f}",
                      flush=True)  # fmt: skip
    results["load_after"] = os.getloadavg()
    print(json.dumps(results))


if __name__ == "__main__":
    main()
