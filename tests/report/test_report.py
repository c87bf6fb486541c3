"""`nginxgen report` on hand-written logs: exact counts, other formats, bad input."""

from __future__ import annotations

import contextlib
import gzip
import io
import json
import subprocess
import sys
from pathlib import Path

import pytest

from nginxgen.report.logformat import (
    COMBINED,
    ROLES,
    LogFormat,
    generated_format,
    make_parser,
)
from nginxgen.report.tally import group_view
from nginxgen.shell.cli import main
from tests.cli_process import nginxgen as run_nginxgen
from tests.helpers import CertPair


def line(**values: str) -> str:
    """One line of the generated format (every field, as nginx 1.27.5+ writes it)."""
    fields = {
        "time": "2026-11-23T05:10:00+00:00",
        "server_name": "a.example",
        "host": "a.example",
        "sni": "a.example",
        "protocol": "TLSv1.3",
        "cipher": "TLS_AES_128_GCM_SHA256",
        "curve": "X25519",
        "curves": "X25519:prime256v1",
        "reused": ".",
        "early_data": "",
        "http": "HTTP/1.1",
        "connection": "1",
        "requests": "1",
        "status": "200",
        "request_time": "0.000",
        "remote_addr": "127.0.0.1",
    }
    fields.update(values)
    return json.dumps(fields, separators=(",", ":"))


def report(*args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    """`nginxgen report` as the console script runs it, main(), but in this process (starting
    an interpreter for each run was most of this file's time), with stdin, stdout and stderr of
    its own."""
    out, err = (io.TextIOWrapper(io.BytesIO(), encoding="utf-8") for _ in range(2))
    given = sys.stdin
    # buffered as a pipe is: the reader peeks at the first bytes for gzip's magic
    sys.stdin = io.TextIOWrapper(io.BufferedReader(io.BytesIO(stdin.encode())), encoding="utf-8")
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = main(["report", *args])
    finally:
        sys.stdin = given
    text = []
    for stream in (out, err):
        stream.flush()
        text.append(stream.buffer.getvalue().decode())  # type: ignore[attr-defined]
    return subprocess.CompletedProcess(["nginxgen", "report", *args], code, *text)


def as_json(*args: str) -> dict:  # type: ignore[type-arg]
    done = report(*args, "--format", "json")
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)  # type: ignore[no-any-return]


MIX = [
    # connection 1: ML-KEM (named, as 1.27.5+ logs it), two requests
    line(connection="1", requests="1", curve="X25519MLKEM768", curves="X25519MLKEM768:X25519"),
    line(connection="1", requests="2", curve="X25519MLKEM768", curves="X25519MLKEM768:X25519"),
    # connection 2: ML-KEM as nginx 1.26 logs it (hex), GREASE in the list
    line(connection="2", curve="0x11ec", curves="0xbaba:0x11ec:X25519:prime256v1"),
    # connection 3: offered ML-KEM, got X25519 (a colon list on the server)
    line(connection="3", curve="X25519", curves="0x2a2a:0x11ec:X25519"),
    # connection 4: TLS 1.2, resumed, other site; offering ML-KEM does not count on TLS 1.2
    line(
        connection="4",
        server_name="b.example",
        protocol="TLSv1.2",
        cipher="ECDHE-ECDSA-AES128-GCM-SHA256",
        curve="X25519",
        curves="X25519MLKEM768:X25519",
        reused="r",
        time="2026-11-23T06:01:00+00:00",
    ),
    # connection 5: 0-RTT, resumed
    line(connection="5", reused="r", early_data="1", time="2026-11-23T06:30:00+00:00"),
    # plain HTTP on port 80, answered by a server with `server_name ""`: the site is the host
    line(connection="6", server_name="", protocol="", cipher="", curve="", curves="", reused=""),
]


def test_generated_format_counts_exactly(tmp_path: Path) -> None:
    log = tmp_path / "tls.log"
    log.write_text("\n".join(MIX) + "\n")
    out = as_json(str(log), "--by", "hour")
    overall = out["overall"]
    assert out["unit"] == "connection"
    assert out["lines"] == {"read": 7, "unreadable": 0, "unreadable_examples": []}
    assert overall["connections"] == 5
    assert overall["plain_http"] == 1
    assert overall["requests"] == 6
    assert overall["requests_per_connection"] == 1.2
    assert overall["protocols"] == {
        "TLSv1.3": {"count": 4, "share": 0.8},
        "TLSv1.2": {"count": 1, "share": 0.2},
    }
    assert overall["groups"] == {
        "X25519MLKEM768": {"count": 2, "share": 0.4},
        "X25519": {"count": 3, "share": 0.6},
    }
    assert overall["pq"] == {"count": 2, "share": 0.4}
    assert overall["pq_offered_not_used"] == {"count": 1, "share": 0.2}
    assert overall["resumed"] == {"count": 2, "share": 0.4}
    assert overall["early_data"] == {"count": 1, "share": 0.2}
    assert set(out["sites"]) == {"a.example", "b.example"}
    assert out["sites"]["a.example"]["plain_http"] == 1
    assert out["sites"]["b.example"]["connections"] == 1
    assert [p["period"] for p in out["periods"]] == ["2026-11-23T05", "2026-11-23T06"]
    assert [p["overall"]["connections"] for p in out["periods"]] == [3, 2]


def test_by_day_and_text(tmp_path: Path) -> None:
    log = tmp_path / "tls.log"
    log.write_text("\n".join(MIX) + "\n")
    out = as_json(str(log), "--by", "day")
    assert [(p["period"], p["overall"]["connections"]) for p in out["periods"]] == [
        ("2026-11-23", 5)
    ]
    text = report(str(log)).stdout
    assert "all sites: 5 TLS connections, 6 requests (1.2 per connection)" in text
    assert "offered ML-KEM, got classical  20.0% (1)" in text


def test_stdin_and_gzip_read_the_same(tmp_path: Path) -> None:
    data = "\n".join(MIX) + "\n"
    packed = tmp_path / "tls.log.1.gz"
    packed.write_bytes(gzip.compress(data.encode()))
    from_gzip = as_json(str(packed))
    done = report("-", "--format", "json", stdin=data)
    assert json.loads(done.stdout)["overall"] == from_gzip["overall"]
    assert from_gzip["overall"]["connections"] == 5


def test_without_connection_requests_counts_requests(tmp_path: Path) -> None:
    log = tmp_path / "combined.log"
    fmt = COMBINED + " $ssl_protocol $ssl_cipher"
    rows = [
        '192.0.2.1 - - [23/Nov/2026:05:00:01 +0000] "GET / HTTP/1.1" 200 12 "-" "curl/8" '
        "TLSv1.3 TLS_AES_256_GCM_SHA384",
        '192.0.2.2 - - [23/Nov/2026:05:00:02 +0000] "GET /a b HTTP/1.1" 404 0 "-" '
        '"Mozilla/5.0 (X11; Linux)" TLSv1.2 ECDHE-RSA-AES128-GCM-SHA256',
        '192.0.2.3 - - [23/Nov/2026:06:00:02 +0000] "GET / HTTP/1.1" 200 1 "-" "x" - -',
    ]
    log.write_text("\n".join(rows) + "\n")
    out = as_json(str(log), "--log-format", fmt, "--by", "hour")
    assert out["unit"] == "request"
    overall = out["overall"]
    assert overall["connections"] == 2 and overall["plain_http"] == 1
    assert overall["protocols"]["TLSv1.3"]["count"] == 1
    assert overall["ciphers"]["ECDHE-RSA-AES128-GCM-SHA256"]["count"] == 1
    assert overall["groups"] is None and overall["pq"] is None and overall["resumed"] is None
    assert [p["period"] for p in out["periods"]] == ["2026-11-23T05", "2026-11-23T06"]
    assert "not in the log format" in report(str(log), "--log-format", fmt).stdout


def test_format_found_by_name_in_config(tmp_path: Path) -> None:
    log = tmp_path / "tls.log"
    log.write_text(
        "a.example|TLSv1.3|X25519MLKEM768|1\na.example|TLSv1.3|X25519|1\nb.example|TLSv1.2|X25519|2\n"
    )
    conf = tmp_path / "nginx.conf"
    conf.write_text(
        "events {}\nhttp {\n"
        "    log_format pipes '$host|$ssl_protocol|$ssl_curve|$connection_requests';\n"
        f"    access_log {log} pipes;\n"
        "}\n"
    )
    by_path = as_json(str(log), "--config", str(conf))
    by_name = as_json(str(log), "--config", str(conf), "--log-format", "pipes")
    assert by_path["overall"] == by_name["overall"]
    assert by_path["overall"]["connections"] == 2 and by_path["overall"]["requests"] == 3
    assert by_path["overall"]["pq"] == {"count": 1, "share": 0.5}
    missing = report(str(log), "--config", str(conf), "--log-format", "main")
    assert missing.returncode == 2
    assert missing.stderr.count("\n") == 1 and "no log_format 'main'" in missing.stderr


def test_bad_lines_are_counted_not_fatal(tmp_path: Path) -> None:
    log = tmp_path / "tls.log"
    log.write_bytes(
        (MIX[0] + "\n").encode() + b"\x00\xffgarbage\n" + b'{"time":' + b"\n" + b"[1,2]\n\n"
    )
    out = as_json(str(log))
    assert out["lines"]["unreadable"] == 3
    assert [e["line"] for e in out["lines"]["unreadable_examples"]] == [2, 3, 4]
    assert out["overall"]["connections"] == 1


def test_truncated_gzip_reports_what_was_read_and_exits_2(tmp_path: Path) -> None:
    data = ("\n".join(MIX[:3]) + "\n").encode() * 200
    packed = gzip.compress(data)
    cut = tmp_path / "tls.log.gz"
    cut.write_bytes(packed[: len(packed) // 2])
    done = report(str(cut), "--format", "json")
    assert done.returncode == 2
    assert done.stderr.startswith(f"nginxgen: error: {cut}: compressed data ends early after line")
    assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr
    assert 0 < json.loads(done.stdout)["lines"]["read"] < 600


def test_empty_missing_and_not_gzip(tmp_path: Path) -> None:
    empty = tmp_path / "empty.log"
    empty.write_text("")
    done = report(str(empty))
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("0 lines read, 0 unreadable")
    # no line tells which fields the log lacks: the format's all stand, at 0 (docs/report.md)
    overall = json.loads(report(str(empty), "--format", "json").stdout)["overall"]
    assert overall["ech"] == overall["resumed"] == {"count": 0, "share": None}
    missing = report(str(tmp_path / "nope.log"))
    assert missing.returncode == 2 and missing.stdout == ""  # no empty report, one line
    assert (
        missing.stderr == f"nginxgen: error: {tmp_path / 'nope.log'}: No such file or directory\n"
    )
    folder = report(str(tmp_path))
    assert folder.returncode == 2 and folder.stderr.count("\n") == 1
    bad_gzip = tmp_path / "bad.gz"
    bad_gzip.write_bytes(b"\x1f\x8bnot really gzip")
    done = report(str(bad_gzip))
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert done.stderr.count("\n") == 1


def test_html_escapes_what_clients_sent(tmp_path: Path) -> None:
    log = tmp_path / "tls.log"
    log.write_text(line(server_name="<script>alert(1)</script>") + "\n")
    page = tmp_path / "report.html"
    done = report(str(log), "--html", str(page))
    assert done.returncode == 0, done.stderr
    text = page.read_text()
    assert "<script>" not in text and "&lt;script&gt;" in text


@pytest.mark.parametrize(
    ("value", "name", "pq"),
    [
        ("0x11ec", "X25519MLKEM768", True),
        ("0x11EB", "SecP256r1MLKEM768", True),
        ("0x6399", "X25519Kyber768Draft00", True),
        ("0xbaba", None, False),  # GREASE
        ("0x1d", "x25519", False),
        ("X25519MLKEM768", "X25519MLKEM768", True),
        ("prime256v1", "prime256v1", False),
        ("0x4242", "0x4242", False),
    ],
)
def test_group_names(value: str, name: str | None, pq: bool) -> None:
    view = group_view(value)
    assert (view.name, view.pq) == (name, pq)


def test_generated_format_is_the_template_one(tmp_path: Path, ecdsa_pair: CertPair) -> None:
    """The report's default format is the one generate writes for a current nginx."""
    out = tmp_path / "out"
    done = run_nginxgen(
        "generate",
        "--preset",
        "intermediate",
        "--domain",
        "example.com",
        "--cert",
        str(ecdsa_pair.cert),
        "--key",
        str(ecdsa_pair.key),
        "--out",
        str(out),
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    from nginxgen.conf.load import load_path, walk
    from nginxgen.report.logformat import parse_log_format_args

    written = [
        s for s in walk(load_path(str(out / "tls.conf")).statements) if s.directive == "log_format"
    ]
    assert len(written) == 1
    fmt = generated_format(everywhere=True)
    assert parse_log_format_args(written[0].args[0], written[0].args[1:]) == fmt
    # the report's default reads it: the same fields, and $ssl_ech_status where nginx has it
    at = fmt.variables.index("ssl_early_data") + 1
    assert generated_format().variables == [*fmt.variables[:at], "ssl_ech_status",
                                            *fmt.variables[at:]]  # fmt: skip
    assert fmt.json_keys() is not None
    parse = make_parser(fmt)
    assert parse(MIX[0].encode()) is not None
    values = parse(MIX[2].encode())
    assert values is not None and "0x11ec" in values
    # $ssl_protocol plays two roles: the protocol, and what tells TLS from plain HTTP
    values = make_parser(LogFormat("x", "$ssl_protocol"))(b"TLSv1.3\n")
    roles = dict(zip(ROLES, values or (), strict=True))
    assert {role for role, value in roles.items() if value is not None} == {"protocol", "tls"}
    assert roles["protocol"] == roles["tls"] == "TLSv1.3"


def test_sites_beyond_the_limit_share_one_row(tmp_path: Path) -> None:
    """$host is whatever clients send: a log of many made-up names keeps a bounded table."""
    from nginxgen.report.tally import MAX_SITES, OTHER_SITES

    log = tmp_path / "tls.log"
    names = [f"h{i}.example" for i in range(MAX_SITES + 50)]
    log.write_text("".join(line(server_name="", host=n, connection=str(i)) + "\n"
                           for i, n in enumerate(names)))  # fmt: skip
    out = as_json(str(log))
    assert len(out["sites"]) == MAX_SITES + 1
    assert out["sites"][OTHER_SITES]["connections"] == 50
    assert out["overall"]["connections"] == MAX_SITES + 50


# Debian's default access_log (the predefined `combined`): HTTPS and plain HTTP look the same
DEBIAN = [
    '192.0.2.1 - - [23/Nov/2026:05:00:01 +0000] "GET / HTTP/2.0" 200 612 "-" "curl/8.14.1"',
    '192.0.2.2 - - [23/Nov/2026:05:00:02 +0000] "GET / HTTP/1.1" 301 169 "-" "Mozilla/5.0 (X11)"',
    '192.0.2.1 - - [23/Nov/2026:06:10:00 +0000] "GET /a HTTP/2.0" 404 153 "-" "curl/8.14.1"',
]


def test_a_format_without_tls_fields_says_tls_unknown(tmp_path: Path) -> None:
    log = tmp_path / "access.log"
    log.write_text("\n".join(DEBIAN) + "\n")
    out = as_json(str(log), "--log-format", "combined", "--by", "hour")
    assert (out["tls_known"], out["protocol_known"], out["variables"]["tls"]) == (
        False,
        False,
        None,
    )
    for part in (out["overall"], out["sites"]["-"], out["periods"][0]["overall"]):
        assert part["connections"] is None and part["plain_http"] is None
        assert part["requests"] is None and part["protocols"] is None
    assert out["overall"]["tls_unknown"] == 3
    assert [p["overall"]["tls_unknown"] for p in out["periods"]] == [2, 1]
    hint = "\n".join(out["tls_hint"])
    assert hint.startswith("log_format nginxgen_tls escape=json\n") and "$ssl_protocol" in hint
    text = report(str(log), "--log-format", "combined").stdout
    assert "this format (combined) records no TLS fields" in text
    # trial 23: where a server has an access_log of its own, the http{} line alone logs nothing
    assert "with an access_log of its own takes none from http{}" in " ".join(text.split())
    assert "all sites: 3 requests, TLS unknown" in text
    assert "plain HTTP" not in text.replace("TLS and plain HTTP cannot be told apart", "")
    page = tmp_path / "report.html"
    assert report(str(log), "--log-format", "combined", "--html", str(page)).returncode == 0
    assert "records no TLS fields" in page.read_text()


@pytest.mark.parametrize(
    ("variable", "tls", "plain", "escape"),
    [
        ("scheme", "https", "http", "default"),
        ("https", "on", "", "default"),  # nginx logs the empty $https as nothing
        ("https", "on", "", "json"),
        ("ssl_cipher", "TLS_AES_128_GCM_SHA256", "-", "default"),
        ("ssl_cipher", "TLS_AES_128_GCM_SHA256", "", "json"),
    ],
)
def test_tls_without_protocol(
    tmp_path: Path, variable: str, tls: str, plain: str, escape: str
) -> None:
    """A format that tells TLS from plain HTTP but not the protocol: counted apart, protocol
    unknown, the hint still given."""
    log = tmp_path / "access.log"
    conf = tmp_path / "nginx.conf"
    if escape == "json":
        text = f'{{"remote_addr":"$remote_addr","time":"$time_iso8601","v":"${variable}"}}'
        rows = [json.dumps({"remote_addr": "192.0.2.1", "time": "2026-11-23T05:00:00+00:00",
                            "v": v}) for v in (tls, tls, plain)]  # fmt: skip
    else:
        text = f"$remote_addr [$time_local] ${variable}"
        rows = [f"192.0.2.1 [23/Nov/2026:05:00:01 +0000] {v}" for v in (tls, tls, plain)]
    log.write_text("\n".join(rows) + "\n")
    conf.write_text(
        f"events {{}}\nhttp {{\n    log_format tlsflag escape={escape} '{text}';\n"
        f"    access_log {log} tlsflag;\n}}\n"
    )
    out = as_json(str(log), "--config", str(conf))
    assert (out["tls_known"], out["protocol_known"]) == (True, False)
    assert out["variables"]["tls"] == variable and out["tls_hint"] is not None
    overall = out["overall"]
    assert (overall["connections"], overall["plain_http"], overall["tls_unknown"]) == (2, 1, 0)
    assert overall["protocols"] is None
    text_out = report(str(log), "--config", str(conf)).stdout
    assert "all sites: 2 TLS requests (protocol not logged), 1 plain HTTP request" in text_out
    assert f"records whether a request used TLS (${variable})" in text_out


def test_the_protocol_wins_over_other_tls_fields(tmp_path: Path) -> None:
    """$scheme says TLS, but $ssl_protocol is preferred: it says the protocol too."""
    log = tmp_path / "access.log"
    log.write_text("https TLSv1.2\nhttp -\n")
    out = as_json(str(log), "--log-format", "$scheme $ssl_protocol")
    assert out["variables"]["tls"] == "ssl_protocol" and out["tls_hint"] is None
    assert out["overall"]["protocols"] == {"TLSv1.2": {"count": 1, "share": 1.0}}
    assert out["overall"]["plain_http"] == 1


def test_no_readable_line_exits_2_with_a_hint(tmp_path: Path) -> None:
    """Debian's log read with the default format: no report of nothing, one line per input."""
    debian, other, empty = tmp_path / "access.log", tmp_path / "other.log", tmp_path / "e.log"
    debian.write_text("\n\n" + "\n".join(DEBIAN) + "\n")
    other.write_text("not a log line\n")
    empty.write_text("")
    done = report(str(debian), str(empty), str(other), "--format", "json")
    assert done.returncode == 2 and done.stdout == ""
    first, second = done.stderr.splitlines()
    assert first.startswith(
        f"nginxgen: error: {debian}: no line reads as the default nginxgen_tls format "
        "(the first that does not: line 3); its lines read as nginx's combined format: "
        "give the format that wrote it: --log-format combined, --config nginx.conf"
    )
    assert second.startswith(f"nginxgen: error: {other}: no line reads as the default")
    assert "line 1)" in second and "combined format:" not in second  # not combined
    assert "--log-format combined" in second and "--log-format '$remote_addr" in second
    # a format from a config is named with it; an input that cannot be opened keeps its line
    conf = tmp_path / "nginx.conf"
    conf.write_text("events {}\nhttp {\n    log_format pipes '$host|$ssl_protocol';\n}\n")
    done = report(str(other), str(tmp_path / "gone.log"), "--config", str(conf),
                  "--log-format", "pipes")  # fmt: skip
    assert done.returncode == 2
    assert done.stderr.splitlines() == [
        f"nginxgen: error: {other}: no line reads as log_format pipes of {conf} (the first that "
        "does not: line 1); give the format that wrote it: --log-format combined, --config "
        "nginx.conf (the log_format of the access_log that writes it), or the format itself: "
        "--log-format '$remote_addr [$time_local] ...'",
        f"nginxgen: error: {tmp_path / 'gone.log'}: No such file or directory",
    ]
    # one readable line is enough for a report: the rest are counted as unreadable
    debian.write_text(line() + "\n" + "\n".join(DEBIAN) + "\n")
    out = as_json(str(debian))
    assert out["lines"]["read"] == 4 and out["lines"]["unreadable"] == 3
