"""`nginxgen report` on logs real nginx wrote in the formats people have (issue 35): Debian's
default `access_log` (the predefined `combined`), the nginx.org package's `main`, formats with
`$scheme` or `$https` but no `$ssl_protocol`, and the format the report's own hint gives, all
written at once for a known mix of HTTPS and plain HTTP requests made with curl."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from nginxgen.report.logformat import COMBINED, generated_log_directives
from tests.builds import Build
from tests.cli_process import nginxgen as run_nginxgen
from tests.generate.test_live_presets import NAME, Served, generate
from tests.helpers import require_program
from tests.live import Server

BUILDS = ["bookworm", "trixie", "wheel"]
# the nginx.org packages' /etc/nginx/nginx.conf
MAIN = (
    "'$remote_addr - $remote_user [$time_local] \"$request\" '\n"
    "        '$status $body_bytes_sent \"$http_referer\" '\n"
    '        \'"$http_user_agent" "$http_x_forwarded_for"\''
)
SCHEMED = "'$remote_addr [$time_local] \"$request\" $status $scheme'"
FLAGGED = f"'{COMBINED} $https'"  # escape=default logs an empty $https as nothing
HTTPS_REQUESTS, PLAIN_REQUESTS = 5, 2


def serve_all_formats(build: Build, folder: Path) -> Path:
    """Serve a generated site with every format logging at the http{} level (each request goes
    to every log), make the known mix of requests, and return the prefix with the logs."""
    curl = require_program("curl", "the HTTP client of this test")
    served = generate("intermediate", build, folder)
    assert isinstance(served, Served), served.stderr
    prefix = served.conf.parent
    # the report's hint, as a user would paste it, writing into the test prefix (renamed: the
    # generated tls.conf has its own nginxgen_tls)
    hint = [
        line.replace("/var/log/nginx/nginxgen-tls.log", f"{prefix}/hinted.log").replace(
            "nginxgen_tls", "hinted"
        )
        for line in generated_log_directives()
    ]
    logs = [
        f"log_format main {MAIN};",
        "access_log main.log main;",
        f"log_format schemed {SCHEMED};",
        "access_log schemed.log schemed;",
        f"log_format flagged {FLAGGED};",
        "access_log flagged.log flagged;",
        *hint,
    ]
    text = served.conf.read_text()
    assert "access_log access.log;" in text  # Debian's default: no format named, so combined
    served.conf.write_text(text.replace("http {\n", "http {\n" + "\n".join(logs) + "\n", 1))
    resolve = [f"{NAME}:{p}:127.0.0.1" for p in (served.port, served.http_port)]
    urls = [f"https://{NAME}:{served.port}/"] * HTTPS_REQUESTS
    urls += [f"http://{NAME}:{served.http_port}/"] * PLAIN_REQUESTS
    with Server(build, served.conf, [served.port, served.http_port]):
        for url in urls:  # one connection each
            done = subprocess.run(
                [curl, "-sSk", "-o", "/dev/null", "-w", "%{http_code}",
                 *(a for r in resolve for a in ("--resolve", r)), url],
                capture_output=True, text=True, timeout=30, check=False,
            )  # fmt: skip
            # 308: the generated plain HTTP server redirects to HTTPS
            assert done.returncode == 0 and done.stdout in ("200", "308"), done
    return prefix


def report(*args: str) -> subprocess.CompletedProcess[str]:
    return run_nginxgen("report", *args, timeout=60)


def as_json(*args: str) -> dict:  # type: ignore[type-arg]
    done = report(*args, "--format", "json")
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)  # type: ignore[no-any-return]


@pytest.mark.parametrize("build", BUILDS, indirect=True)
def test_formats_of_real_logs(build: Build, tmp_path: Path) -> None:
    prefix = serve_all_formats(build, tmp_path)
    conf = str(prefix / "nginx.conf")
    total = HTTPS_REQUESTS + PLAIN_REQUESTS
    combined, main = str(prefix / "access.log"), str(prefix / "main.log")

    # without a format: the default nginxgen_tls reads no line: exit 2, one line each, a hint
    done = report(combined, main)
    assert done.returncode == 2 and done.stdout == ""
    errors = done.stderr.splitlines()
    assert len(errors) == 2, done.stderr
    for name, error in zip((combined, main), errors, strict=True):
        assert error.startswith(f"nginxgen: error: {name}: no line reads as the default ")
        assert "nginxgen_tls" in error and "line 1)" in error
        assert "--log-format combined" in error and "--config nginx.conf" in error

    # Debian's default log, by name and found through the config: TLS unknown, never plain HTTP
    for args in (("--log-format", "combined"), ("--config", conf)):
        out = as_json(combined, *args)
        assert out["format"] == "combined" and out["lines"]["read"] == total
        assert (out["tls_known"], out["protocol_known"]) == (False, False)
        overall = out["overall"]
        assert overall["tls_unknown"] == total
        assert overall["connections"] is None and overall["plain_http"] is None
        assert overall["protocols"] is None
        assert out["tls_hint"] == generated_log_directives()
        text = report(combined, *args).stdout
        assert "records no TLS fields" in text
        assert f"all sites: {total} requests, TLS unknown" in text
        assert "plain HTTP request" not in text and "TLS request" not in text

    # the nginx.org package's main, named in the config
    out = as_json(main, "--config", conf)
    assert out["format"] == "main" and out["tls_known"] is False
    assert out["overall"]["tls_unknown"] == total and out["lines"]["unreadable"] == 0

    # $scheme or $https but no $ssl_protocol: TLS told from plain, the protocol unknown
    for log, marker in (("schemed.log", "scheme"), ("flagged.log", "https")):
        out = as_json(str(prefix / log), "--config", conf)
        assert (out["tls_known"], out["protocol_known"]) == (True, False)
        assert out["variables"]["tls"] == marker
        overall = out["overall"]
        assert (overall["connections"], overall["plain_http"]) == (HTTPS_REQUESTS, PLAIN_REQUESTS)
        assert overall["tls_unknown"] == 0 and overall["protocols"] is None
        text = report(str(prefix / log), "--config", conf).stdout
        assert f"{HTTPS_REQUESTS} TLS requests (protocol not logged)" in text
        assert f"{PLAIN_REQUESTS} plain HTTP requests" in text

    # the hint, followed: every connection counted with its protocol, nothing more to hint
    out = as_json(str(prefix / "hinted.log"))
    assert (out["tls_known"], out["protocol_known"], out["tls_hint"]) == (True, True, None)
    overall = out["overall"]
    assert (overall["connections"], overall["plain_http"]) == (HTTPS_REQUESTS, PLAIN_REQUESTS)
    assert sum(e["count"] for e in overall["protocols"].values()) == HTTPS_REQUESTS
