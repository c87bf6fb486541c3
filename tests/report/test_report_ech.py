"""The Encrypted Client Hello share in `nginxgen report`, on the log nginx 1.30.4 with OpenSSL
4.0.3 wrote (tests/logs/ech-nginx-1.30.4.log, how it was made: tests/logs/README.md), and
`$ssl_ech_status` in the generated log format only where the target serves ECH."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from nginxgen.knowledge import logs
from nginxgen.knowledge.target import resolve
from nginxgen.shell.cli import main
from tests.paths import REPO

LOG = REPO / "tests" / "logs" / "ech-nginx-1.30.4.log"


def test_ech_share_per_site_from_a_real_log(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["report", "--format", "json", str(LOG)]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["variables"]["ech"] == "ssl_ech_status"
    # the log's own values, counted here without nginxgen: SUCCESS per server_name
    lines = [json.loads(line) for line in LOG.read_text().splitlines()]
    for site in ("a.example", "public.example"):
        mine = [x for x in lines if x["server_name"] == site]
        accepted = sum(x["ech"] == "SUCCESS" for x in mine)
        assert report["sites"][site]["ech"] == {
            "count": accepted, "share": round(accepted / len(mine), 4)
        }  # fmt: skip
    assert report["overall"]["ech"] == {"count": 4, "share": 0.5}
    assert main(["report", str(LOG)]) == 0
    text = capsys.readouterr().out
    assert "  Encrypted Client Hello         50.0% (4)" in text


def test_a_format_without_the_variable_has_no_ech_row(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The same lines read with a format that does not name $ssl_ech_status: no ECH figure,
    not a share of 0."""
    fmt = '{"server_name":"$server_name","protocol":"$ssl_protocol","requests":"$connection_requests"}'
    assert main(["report", "--format", "json", "--log-format", fmt, str(LOG)]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["overall"]["ech"] is None and report["overall"]["connections"] == 8
    assert main(["report", "--log-format", fmt, str(LOG)]) == 0
    assert "Encrypted Client Hello" not in capsys.readouterr().out


def test_a_log_written_without_ech_has_no_ech_row(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """The log of a target without ECH (the generated format leaves `ech` out, below) read with
    the default format, which has it: the lines decide, so no ECH figure and no variable."""
    lines = [json.loads(line) for line in LOG.read_text().splitlines()]
    log = tmp_path / "tls.log"
    log.write_text("".join(json.dumps({k: v for k, v in x.items() if k != "ech"}) + "\n"
                           for x in lines))  # fmt: skip
    assert main(["report", "--format", "json", str(log)]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["variables"]["ech"] is None, report["variables"]
    assert report["overall"]["ech"] is None and report["overall"]["connections"] == 8
    assert all(site["ech"] is None for site in report["sites"].values())
    assert report["variables"]["protocol"] == "ssl_protocol"  # the fields the lines have stay
    assert main(["report", str(log)]) == 0
    assert "Encrypted Client Hello" not in capsys.readouterr().out


@pytest.mark.parametrize(
    ("nginx", "library", "logged"),
    [("1.30.4", "openssl-4.0.3", True), ("1.31.3", "openssl-3.3.7", False),
     ("1.28.3", "openssl-4.0.3", False), ("1.31.3", "boringssl", False)],
)  # fmt: skip
def test_the_generated_format_logs_ech_where_the_target_serves_it(
    nginx: str, library: str, logged: bool
) -> None:
    variables = {f.variable for f in logs.log_fields(resolve(nginx, library))}
    assert ("ssl_ech_status" in variables) == logged
