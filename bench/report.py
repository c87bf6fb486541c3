"""`nginxgen report` on large generated TLS access logs (issue 17).

    python bench/report.py [--lines 1000000] [--runs 3]

Writes a log in the generated `nginxgen_tls` format (a fixed-seed mix of sites, protocols,
groups with hex and GREASE spellings, resumption, several requests per connection), then times
`nginxgen report LOG --format json` and reads its peak memory (ru_maxrss of the child) at
N/10 and N lines: flat memory means streaming. It also times the line parsers the choice was
made between on the same file: orjson, the standard json module, and the format as a regular
expression (what any non-JSON format gets).
"""

from __future__ import annotations

import argparse
import json
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

SITES = [f"site{i}.example" for i in range(20)]
GROUPS = [
    ("X25519MLKEM768", "X25519MLKEM768:X25519:prime256v1"),
    ("0x11ec", "0x2a2a:0x11ec:X25519:prime256v1:secp384r1"),
    ("X25519", "0x3a3a:0x11ec:X25519:prime256v1"),  # offered ML-KEM, got X25519
    ("X25519", "X25519:prime256v1"),
    ("prime256v1", "prime256v1:secp384r1"),
]


def write_log(path: Path, lines: int, seed: int = 17) -> None:
    rng = random.Random(seed)
    connection, requests = 0, 0
    base = 1_700_000_000
    with path.open("w") as out:
        for index in range(lines):
            if requests == 0 or rng.random() < 0.4:
                connection += 1
                requests = 0
                site = rng.choice(SITES)
                protocol = "TLSv1.2" if rng.random() < 0.15 else "TLSv1.3"
                curve, curves = rng.choice(GROUPS)
                reused = "r" if rng.random() < 0.3 else "."
                early = "1" if protocol == "TLSv1.3" and rng.random() < 0.02 else ""
                cipher = (
                    "TLS_AES_128_GCM_SHA256"
                    if protocol == "TLSv1.3"
                    else "ECDHE-ECDSA-AES128-GCM-SHA256"
                )
            requests += 1
            moment = time.strftime("%Y-%m-%dT%H:%M:%S+00:00", time.gmtime(base + index // 20))
            record = {
                "time": moment, "server_name": site, "host": site, "sni": site,
                "protocol": protocol, "cipher": cipher, "curve": curve, "curves": curves,
                "reused": reused, "early_data": early if requests == 1 else "",
                "http": "HTTP/2.0", "connection": str(connection), "requests": str(requests),
                "status": "200", "request_time": "0.004",
                "remote_addr": f"198.51.100.{connection % 250}",
            }  # fmt: skip
            out.write(json.dumps(record, separators=(",", ":")) + "\n")


def run_report(log: Path) -> tuple[float, int]:
    """Wall seconds and peak RSS (KiB) of one `nginxgen report` run."""
    nginxgen = str(Path(sys.executable).with_name("nginxgen"))
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    start = time.perf_counter()
    done = subprocess.run(
        [nginxgen, "report", str(log), "--format", "json"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        check=False,
    )
    seconds = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"report failed: {done.stderr.decode()}")
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    return seconds, max(peak, before)


def parser_times(log: Path) -> dict[str, float]:
    """Each candidate parser turning every line of the log into the report's values."""
    from nginxgen.report import logformat

    fmt = logformat.generated_format()
    variables = list(fmt.role_variables().values())
    stdlib = json.loads

    def loop(parse: Callable[[bytes], object]) -> float:
        start = time.perf_counter()
        with log.open("rb") as handle:
            for line in handle:
                parse(line)
        return time.perf_counter() - start

    return {
        "orjson (used for JSON formats)": loop(logformat.make_parser(fmt)),
        "json (stdlib)": loop(lambda line: [stdlib(line).get(k) for k in ("protocol", "curve")]),
        "the format as a regular expression": loop(logformat._regex_parser(fmt, variables)),
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--lines", type=int, default=1_000_000)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    results: dict[str, object] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for lines in (args.lines // 10, args.lines):
            log = Path(tmp) / f"tls-{lines}.log"
            write_log(log, lines)
            runs = [run_report(log) for _ in range(args.runs)]
            seconds = statistics.median(s for s, _ in runs)
            peak = max(kib for _, kib in runs)
            results[f"{lines} lines"] = {
                "seconds": round(seconds, 2),
                "peak_rss_mib": round(peak / 1024, 1),
            }
            mib = peak / 1024
            median = f"{seconds:.2f} s (median of {args.runs})"
            print(f"{lines:>9,} lines: {median}, peak RSS {mib:.1f} MiB")
            if lines == args.lines:
                for name, took in parser_times(log).items():
                    print(f"  parse only, {name}: {took:.2f} s")
                    results[f"parse only, {name}"] = round(took, 2)
    print(json.dumps(results))


if __name__ == "__main__":
    main()
