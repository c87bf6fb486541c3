"""The browser page's speed in headless Chromium (issue 46): bytes on a cold load, time to the
first config on screen, time to lint ready, time to the engine's first generated config, and a
warm lint of a 300-line config. Not a test: numbers for docs/benchmarks.md.

    python bench/web.py [--runs 3] [--downloads DIR]

The page is built from this checkout (nginxgen.web.build, from the pinned downloads in DIR:
default $NGINXGEN_BUILDS/downloads/web, as provisioning leaves them) and served from
127.0.0.1; each cold run is a new Chromium with an empty profile, every request outside the
page's origin refused (none is made). Times are the page's own (performance.now() from the
navigation), read over the DevTools pipe, never with --virtual-time-budget (which stops the
page's clocks). Prints one JSON document and a Markdown block with the machine, the date and the
load average (other jobs share this machine)."""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from nginxgen.web.build import build_site, server  # noqa: E402
from tests.browser import Chromium, OfflinePage, chromium_binary  # noqa: E402

TARGET = ("1.26.3", "openssl-3.5.7")


def config_of(lines: int) -> str:
    """An http{} with TLS servers until it has `lines` lines (their mistakes included: some
    findings to report, as a real config has)."""
    out = ["events {}", "http {", "    ssl_session_cache shared:SSL:10m;"]
    index = 0
    while len(out) < lines - 1:
        index += 1
        out += [
            "    server {",
            f"        listen 443 ssl{' default_server' if index == 1 else ''};",
            f"        server_name site{index}.example.com;",
            f"        ssl_certificate /etc/ssl/site{index}/fullchain.pem;",
            f"        ssl_certificate_key /etc/ssl/site{index}/privkey.pem;",
            "        ssl_protocols TLSv1.2 TLSv1.3;"
            if index % 3
            else "        ssl_protocols TLSv1 TLSv1.2;",
            '        add_header Strict-Transport-Security "max-age=63072000" always;',
            "        location / { root /var/www/html; }",
            "    }",
        ]
    return "\n".join([*out[: lines - 1], "}"]) + "\n"


def cold_run(binary: str, origin: str, site: Path) -> dict[str, float]:
    with Chromium(binary) as browser:
        page = OfflinePage(browser, origin)
        browser.call("Page.navigate", page.session, url=f"{origin}index.html")
        page.wait_until("window.nginxgen && window.nginxgen.times.firstConfig")
        page.wait_until("window.nginxgen.times.generateReady", timeout=300)
        times = page.evaluate("JSON.stringify(window.nginxgen.times)")
        result = {k: round(v) for k, v in json.loads(times).items()}
        # every request the page and its worker made (the tab's interception sees both), by
        # the size of the file served: the static server sends each whole and uncompressed
        served = [site / url.removeprefix(origin).split("?")[0] for url in page.requested]
        result["bytes"] = sum(path.stat().st_size for path in served if path.is_file())
        result["requests"] = len(served)
        result["blocked"] = len(page.blocked)
        result.update(warm_lint(page))
        result.update(warm_load(browser, origin))
        return result


def warm_lint(page: OfflinePage, lines: int = 300, repeat: int = 15) -> dict[str, float]:
    """The engine's lint of a `lines`-line config, after a first run: the median of `repeat`
    (and the page's whole lint with both fix runs, as the Lint view calls it, the worker's
    round trip included)."""
    text = config_of(lines)
    program = f"""
import json, time
from nginxgen import api
choice = api.TargetChoice(*{TARGET!r})
text = {text!r}
api.lint_text(text, "nginx.conf", choice)
spent = []
for _ in range({repeat}):
    started = time.perf_counter()
    api.lint_text(text, "nginx.conf", choice)
    spent.append((time.perf_counter() - started) * 1000)
json.dumps(spent)
"""
    spent = json.loads(page.evaluate(f"window.nginxgen.python({json.dumps(program)})"))
    view = page.evaluate(
        "(async () => { const t = performance.now();"
        f" await window.nginxgen.engine('lint', {json.dumps(text)}, 'nginx.conf', '{TARGET[0]}',"
        f" '{TARGET[1]}'); return performance.now() - t; }})()"
    )
    return {
        "lint_300_median_ms": round(statistics.median(spent), 1),
        "lint_300_min_ms": round(min(spent), 1),
        "lint_view_300_ms": round(view, 1),
    }


def warm_load(browser: Chromium, origin: str) -> dict[str, float]:
    """A second load in a new tab of the same browser: from its HTTP cache."""
    page = OfflinePage(browser, origin)
    browser.call("Page.navigate", page.session, url=f"{origin}index.html")
    page.wait_until("window.nginxgen && window.nginxgen.times.lintReady", timeout=300)
    times = json.loads(page.evaluate("JSON.stringify(window.nginxgen.times)"))
    page.close()
    return {
        "warm_first_config": round(times["firstConfig"]),
        "warm_lint_ready": round(times["lintReady"]),
    }


def machine() -> str:
    model = next(
        (line.split(":", 1)[1].strip() for line in Path("/proc/cpuinfo").read_text().splitlines()
         if line.startswith("model name")),
        platform.machine(),
    )  # fmt: skip
    return f"{os.cpu_count()} cores, {model}"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    builds = Path(os.environ.get("NGINXGEN_BUILDS", REPO / ".cache" / "builds"))
    parser.add_argument("--downloads", type=Path, default=builds / "downloads" / "web")
    args = parser.parse_args()
    binary = chromium_binary()
    if binary is None:
        print("bench/web.py: chromium is not installed", file=sys.stderr)
        return 1
    with tempfile.TemporaryDirectory() as folder:
        site = build_site(Path(folder) / "site", args.downloads, offline=True)
        running = server(site, "127.0.0.1", 0)
        threading.Thread(target=running.serve_forever, daemon=True).start()
        origin = f"http://127.0.0.1:{running.server_port}/"
        load_before = os.getloadavg()
        runs = []
        for _ in range(args.runs):
            runs.append(cold_run(binary, origin, site))
            time.sleep(1)
        load_after = os.getloadavg()
        running.shutdown()
    document = {
        "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        "machine": machine(),
        "chromium": binary,
        "load_average": [round(x, 2) for x in (*load_before, *load_after)],
        "runs": runs,
    }
    print(json.dumps(document, indent=1))
    keys = [
        ("bytes", "bytes transferred, cold load (bodies)"),
        ("requests", "requests, cold load"),
        ("firstConfig", "first config on screen (ms)"),
        ("lintReady", "lint ready (ms)"),
        ("generateReady", "the engine's first generated config (ms)"),
        ("lint_300_median_ms", "warm lint, 300 lines, engine (ms, median of 15)"),
        ("lint_view_300_ms", "the Lint view's call, 300 lines, with both fix runs (ms)"),
        ("warm_first_config", "second load (HTTP cache): first config (ms)"),
        ("warm_lint_ready", "second load (HTTP cache): lint ready (ms)"),
    ]
    print(f"\n{document['date']}, {document['machine']}, load average "
          f"{load_before[0]:.2f} before and {load_after[0]:.2f} after\n")  # fmt: skip
    print("| measure | " + " | ".join(f"run {i + 1}" for i in range(len(runs))) + " |")
    print("|---|" + "---|" * len(runs))
    for key, label in keys:
        print(f"| {label} | " + " | ".join(f"{run[key]:,}" for run in runs) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
