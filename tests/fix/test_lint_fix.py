"""`nginxgen lint --fix / --unsafe-fixes / --diff` (issue 13): fixes change only the lines they
name, in every file of the tree at once or not at all, and a second run changes nothing."""

from __future__ import annotations

import io
import json
import os
from pathlib import Path

import pytest

from nginxgen.shell.cli import main

TARGET = ["--nginx-version", "1.26.3", "--tls-library", "openssl-3.5.7"]
MAIN = (
    b"events {}\n"
    b"http {\n"
    b"    ssl_protocols TLSv1 TLSv1.2 TLSv1.3;  # old clients\n"
    b"    ssl_ciphers ECDHE-ECDSA-AES128-GCM-SHA256:TLS_AES_128_GCM_SHA256;\n"
    b"\n"
    b"    include conf.d/*.conf;\n"
    b"}\n"
)
DEFAULT = b"# the default server\nserver {\n\tlisten 443 ssl default_server;\n\tssl_reject_handshake on;\n\treturn 421;\n}\n"
VHOST = (
    b"server {\r\n"
    b"    listen 443 ssl;\r\n"
    b"    server_name b.example;\r\n"
    b"    ssl_certificate c; ssl_certificate_key k;\r\n"
    b"    ssl_ecdh_curve X25519MLKEM768:X25519;   # pq\r\n"
    b'    add_header Strict-Transport-Security "max-age=63072000";\r\n'
    b"}"
)


def tree(tmp_path: Path) -> Path:
    (tmp_path / "conf.d").mkdir()
    (tmp_path / "nginx.conf").write_bytes(MAIN)
    (tmp_path / "conf.d" / "a.conf").write_bytes(DEFAULT)
    (tmp_path / "conf.d" / "b.ssl.conf").write_bytes(VHOST)
    return tmp_path / "nginx.conf"


def snapshot(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*.conf"))}


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(["lint", *TARGET, *args])
    out, err = capsys.readouterr()
    return code, out, err


def test_the_summary_after_fixes_counts_the_files_a_lint_counts(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """After --fix, `# N file(s)` is the tree's files as a plain lint counts them, not those
    left with findings (trial 24: 2 where lint says 4)."""
    conf = tree(tmp_path)
    (tmp_path / "conf.d" / "quiet.conf").write_text("# nothing to say\n")
    _, plain, _ = run(capsys, str(conf))
    assert "# 4 file(s)," in plain, plain
    _, fixed, _ = run(capsys, "--fix", str(conf))
    assert "# 4 file(s)," in fixed, fixed


def test_safe_fixes_touch_only_their_lines(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    conf = tree(tmp_path)
    code, out, _ = run(capsys, "--fix", str(conf))
    after = snapshot(tmp_path)
    # NGX404 (safe): the TLS 1.3 name leaves ssl_ciphers. NGX101 has no safe fix: the vhost's
    # ignored post-quantum line is what the user wanted, deleting it would lose that (issue 26)
    assert after["nginx.conf"] == MAIN.replace(b":TLS_AES_128_GCM_SHA256", b"")
    assert after["conf.d/b.ssl.conf"] == VHOST
    assert after["conf.d/a.conf"] == DEFAULT  # tabs, comment untouched
    assert "# 1 fixed," in out and "more fixable with --unsafe-fixes" in out
    assert "NGX101" in out
    assert code == 1  # NGX602 (a warning, no automatic fix) remains
    assert not list(tmp_path.rglob(".*"))  # nothing staged is left behind
    # a second run changes nothing
    code, out, _ = run(capsys, "--fix", str(conf))
    assert snapshot(tmp_path) == after and "# 0 fixed," in out


def test_unsafe_fixes_and_json_autofix(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    import json

    conf = tree(tmp_path)
    _, out, _ = run(capsys, "--format", "json", str(conf))
    classes = {f["code"]: f["autofix"] for f in json.loads(out)["findings"]}
    assert classes["NGX404"] == "safe" and classes["NGX101"] == "unsafe"
    assert classes["NGX401"] == "unsafe" and classes["NGX702"] == "unsafe"
    assert classes["NGX602"] is None
    run(capsys, "--unsafe-fixes", str(conf))
    after = snapshot(tmp_path)
    assert b"    ssl_protocols TLSv1.2 TLSv1.3;  # old clients\n" in after["nginx.conf"]
    assert (
        b'    add_header Strict-Transport-Security "max-age=63072000" always;\r\n'
        in after["conf.d/b.ssl.conf"]
    )


def test_diff_writes_nothing(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    conf = tree(tmp_path)
    before = snapshot(tmp_path)
    code, out, _ = run(capsys, "--diff", str(conf))
    assert code == 1 and snapshot(tmp_path) == before
    assert "ssl_ecdh_curve" not in out  # the user's ignored PQ line is not a safe deletion
    added = [
        line for line in out.splitlines() if line.startswith("+") and not line.startswith("+++")
    ]
    assert added == ["+    ssl_ciphers ECDHE-ECDSA-AES128-GCM-SHA256;"]  # nothing else added
    clean = tmp_path / "clean.conf"
    clean.write_text("events {}\nhttp {}\n")
    assert run(capsys, "--diff", str(clean))[0] == 0


def test_read_only_file_stops_everything(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # the mode bits are what nginxgen checks, so this holds when the tests run as root too
    conf = tree(tmp_path)
    before = snapshot(tmp_path)
    os.chmod(tmp_path / "conf.d" / "b.ssl.conf", 0o444)
    code, _, err = run(capsys, "--unsafe-fixes", str(conf))
    assert code == 2 and "read-only" in err and "nothing written" in err
    assert snapshot(tmp_path) == before  # nginx.conf was fixable, but all or nothing


def test_symlinked_vhost_is_edited_at_its_target(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    conf = tree(tmp_path)
    available = tmp_path / "sites-available"
    available.mkdir()
    (tmp_path / "conf.d" / "b.ssl.conf").rename(available / "b.conf")
    (tmp_path / "conf.d" / "b.ssl.conf").symlink_to("../sites-available/b.conf")
    _, _, err = run(capsys, "--unsafe-fixes", str(conf))
    assert (tmp_path / "conf.d" / "b.ssl.conf").is_symlink()
    assert b'"max-age=63072000" always;' in (available / "b.conf").read_bytes()  # NGX702
    assert "the target of the symlink" in err


def test_a_file_with_a_syntax_error_gets_no_fix(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    conf = tree(tmp_path)
    broken = MAIN.replace(b"include conf.d/*.conf;", b"include conf.d/*.conf")
    conf.write_bytes(broken)
    run(capsys, "--fix", str(conf))
    assert conf.read_bytes() == broken


def test_stdin_prints_the_fixed_text(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    text = "events {}\nhttp {\n  ssl_ciphers ECDHE-ECDSA-AES128-GCM-SHA256:TLS_AES_128_GCM_SHA256;\n}\n"
    monkeypatch.setattr("sys.stdin", io.StringIO(text))
    run(capsys, "--fix", "-")  # consumes the output
    monkeypatch.setattr("sys.stdin", io.StringIO(text))
    main(["lint", *TARGET, "--fix", "-"])
    out, err = capsys.readouterr()
    assert out == text.replace(":TLS_AES_128_GCM_SHA256", "")
    assert "# 1 fixed" in err


def test_rule_metadata_states_each_fix_class(tmp_path: Path) -> None:
    """The docs page (from Rule.autofix) says the class the findings carry."""
    from nginxgen.conf.load import load_path
    from nginxgen.knowledge.target import resolve
    from nginxgen.lint.rules import catalog
    from nginxgen.lint.run import Selection, lint

    findings = lint(load_path(str(tree(tmp_path))), resolve("1.26.3", "openssl-3.5.7"), Selection())
    fixable = [f for f in findings if f.autofix]
    assert len(fixable) >= 4
    for finding in fixable:
        documented = catalog()[finding.code].rule.autofix
        assert documented is not None and documented[0] == finding.autofix, finding.code


@pytest.mark.parametrize(
    ("before", "after", "flag"),
    [
        (  # NGX006: an exact repeat goes (safe)
            "events {}\nhttp {\n    ssl_prefer_server_ciphers on;\n    ssl_prefer_server_ciphers on;\n}\n",
            "events {}\nhttp {\n    ssl_prefer_server_ciphers on;\n}\n",
            "--fix",
        ),
        (  # NGX006: a merged ssl_protocols takes the second line's value (unsafe)
            "events {}\nhttp {\n    ssl_protocols TLSv1 TLSv1.1 TLSv1.2 TLSv1.3;\n    ssl_protocols TLSv1.2 TLSv1.3;\n}\n",
            "events {}\nhttp {\n    ssl_protocols TLSv1.2 TLSv1.3;\n}\n",
            "--unsafe-fixes",
        ),
        (  # NGX302: listen ... http2 -> http2 on (unsafe), twice in one server; the new line
            # goes after the listens, not after the locations (found trying public configs)
            "events {}\nhttp {\n  server {\n    listen 443 ssl http2;\n    listen [::]:443 ssl http2;\n    server_name a.example;\n    location / {}\n  }\n}\n",
            "events {}\nhttp {\n  server {\n    listen 443 ssl;\n    listen [::]:443 ssl;\n    http2 on;\n    server_name a.example;\n    location / {}\n  }\n}\n",
            "--unsafe-fixes",
        ),
    ],
)
def test_more_fixes(
    before: str, after: str, flag: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    conf = tmp_path / "nginx.conf"
    conf.write_text(before)
    run(capsys, flag, str(conf))
    assert conf.read_text() == after
    run(capsys, flag, str(conf))
    assert conf.read_text() == after  # idempotent


def _no_fix_cases() -> set[str]:
    from tests.lint.test_lint_rules import CASES

    return {
        bad
        for code, _, bad, _ in CASES
        if (code == "NGX006" and "ssl_prefer_server_ciphers off;" in bad)
        or (code == "NGX404" and "ssl_ciphers TLS_AES_128_GCM_SHA256;" in bad)
        # a vhost's own ssl_conf_command Groups: moving one of several command lines into the
        # default server is not automatic, and deleting it would lose what was wanted
        or (code == "NGX101" and "ssl_conf_command Groups" in bad)
        # a group the library lacks with no successor it has: what to use instead is a choice
        or (code == "NGX201" and "ssl_ecdh_curve X25519MLKEM768:X25519;" in bad)
        # only `ssl on;` has a replacement that is certain; a directive a release lacks is
        # the user's to replace or drop
        or (code == "NGX301" and "ssl on;" not in bad and "ssl off;" not in bad)
        # a cipher string written out: which of its suites to keep is the admin's choice (only
        # nginx's default list, where no line is written, gets one: Mozilla's intermediate)
        or (code in ("NGX402", "NGX403") and "ssl_ciphers" in bad)
    }


NO_AUTOMATIC_FIX = _no_fix_cases()


def fixable_cases() -> list[tuple[str, tuple[str, str], str]]:
    from nginxgen.lint.rules import catalog
    from tests.lint.test_lint_rules import CASES

    fixable = {code for code, e in catalog().items() if e.rule.autofix}
    return [(code, target, bad) for code, target, bad, _ in CASES if code in fixable]


@pytest.mark.parametrize(
    ("code", "target", "bad"), fixable_cases(), ids=[c[0] for c in fixable_cases()]
)
def test_each_fixable_rule_is_fixed_once_and_for_all(
    code: str, target: tuple[str, str], bad: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import json

    conf = tmp_path / "nginx.conf"
    conf.write_text(bad)
    flags = ["--nginx-version", target[0], "--tls-library", target[1]]
    flag = "--unsafe-fixes"  # safe fixes included
    main(["lint", *flags, "--format", "json", "--select", code, str(conf)])
    before = json.loads(capsys.readouterr().out)["findings"]
    assert before
    if not any(f["autofix"] for f in before):
        # the value only the user has: which of two different lines they meant, which suites
        # a string of TLS 1.3 names only should have had
        assert bad in NO_AUTOMATIC_FIX, (code, bad)
        return
    main(["lint", *flags, flag, "--select", code, str(conf)])
    capsys.readouterr()
    fixed = conf.read_text()
    assert fixed != bad
    main(["lint", *flags, "--format", "json", "--select", code, str(conf)])
    assert json.loads(capsys.readouterr().out)["findings"] == [], fixed
    main(["lint", *flags, flag, str(conf)])
    capsys.readouterr()
    main(["lint", *flags, flag, str(conf)])
    capsys.readouterr()
    settled = conf.read_text()
    main(["lint", *flags, flag, str(conf)])
    capsys.readouterr()
    assert conf.read_text() == settled  # a further run changes nothing


def test_at_least_twenty_rules_have_a_fix() -> None:
    from nginxgen.lint.rules import catalog

    fixable = {code for code, e in catalog().items() if e.rule.autofix}
    assert len(fixable) >= 20
    assert {"NGX101", "NGX102", "NGX103", "NGX104", "NGX105"} <= fixable
    assert fixable <= {c[0] for c in fixable_cases()}, "each fixable rule needs a case"


def test_sarif_carries_the_fix(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    import json

    conf = tree(tmp_path)
    _, out, _ = run(capsys, "--format", "sarif", str(conf))
    doc = json.loads(out)
    fixed = [r for r in doc["runs"][0]["results"] if "fixes" in r]
    assert {r["ruleId"] for r in fixed} >= {"NGX101", "NGX404", "NGX702"}
    (ngx404,) = [r for r in fixed if r["ruleId"] == "NGX404"]
    change = ngx404["fixes"][0]["artifactChanges"][0]
    replacement = change["replacements"][0]
    start = replacement["deletedRegion"]["byteOffset"]
    end = start + replacement["deletedRegion"]["byteLength"]
    data = Path(change["artifactLocation"]["uri"]).read_bytes()
    patched = data[:start] + replacement["insertedContent"]["text"].encode() + data[end:]
    assert patched == MAIN.replace(b":TLS_AES_128_GCM_SHA256", b"")
    assert ngx404["properties"]["autofix"] == "safe"


def test_fixable_and_unfixable(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    conf = tree(tmp_path)
    _, out, _ = run(capsys, "--fix", "--unfixable", "NGX404", str(conf))
    assert b"TLS_AES_128_GCM_SHA256" in conf.read_bytes()  # reported, not changed
    assert "NGX404" in out
    assert b"ssl_ecdh_curve" in (tmp_path / "conf.d" / "b.ssl.conf").read_bytes()  # no safe fix
    (tmp_path / "again").mkdir()
    conf = tree(tmp_path / "again")
    run(capsys, "--unsafe-fixes", "--fixable", "NGX4", str(conf))
    after = snapshot(tmp_path / "again")
    assert b"ssl_protocols TLSv1.2 TLSv1.3;" in after["nginx.conf"]  # NGX401
    assert b"ssl_ecdh_curve" in after["conf.d/b.ssl.conf"]  # NGX101 not fixable here
    (tmp_path / "settings").mkdir()
    conf = tree(tmp_path / "settings")
    monkeypatch.chdir(tmp_path / "settings")
    (tmp_path / "settings" / ".nginxgen.toml").write_text('unfixable = ["NGX101"]\n')
    run(capsys, "--unsafe-fixes", str(conf))
    assert b"ssl_ecdh_curve" in (tmp_path / "settings" / "conf.d" / "b.ssl.conf").read_bytes()


def test_root_changes_only_the_files_given(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    conf = tree(tmp_path)
    vhost = tmp_path / "conf.d" / "b.ssl.conf"
    run(capsys, "--unsafe-fixes", "--root", str(conf), str(vhost))
    after = snapshot(tmp_path)
    assert after["nginx.conf"] == MAIN and after["conf.d/a.conf"] == DEFAULT
    # NGX702's fix stays in the vhost; NGX101's move would touch a.conf, which was not given,
    # and there is no safe variant to fall back to: its line stays, as written (an ignored line
    # enforces nothing: NGX203 does not rewrite it, trial 24)
    assert after["conf.d/b.ssl.conf"] == VHOST.replace(
        b'"max-age=63072000";', b'"max-age=63072000" always;'
    )


def test_two_equal_statements_on_one_line_are_told_apart(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Found by the fix fuzz: joined by (file, line, name, arguments), these two could not be told
    # apart (a fix once deleted one while changing the other); they got no fix. Each loaded
    # statement now carries its offset in the file, so each is the lossless one at that offset.
    conf = tmp_path / "nginx.conf"
    text = (
        "events {}\nhttp {\nssl_ciphers ECDHE-ECDSA-AES128-GCM-SHA256;\n"
        "server { listen 443 ssl default_server; ssl_reject_handshake on; }\n"
        "server { listen 443 ssl; server_name b.example; ssl_certificate c; ssl_certificate_key k; "
        "ssl_session_cache shared:X:10m; ssl_session_cache shared:X:10m; }\n}\n"
    )  # the vhost has a certificate: nginx -t refuses one without beside a rejecting default
    conf.write_text(text)
    _, out, err = run(capsys, "--unsafe-fixes", str(conf))
    assert "internal error" not in err
    assert conf.read_text() == (
        "events {}\nhttp {\nssl_ciphers ECDHE-ECDSA-AES128-GCM-SHA256;\n"
        "server {\n    ssl_session_cache shared:X:10m;\n"
        "    listen 443 ssl default_server; ssl_reject_handshake on; }\n"
        "server { listen 443 ssl; server_name b.example; ssl_certificate c; ssl_certificate_key k; }\n}\n"
    )  # both lines gone from the vhost, the cache once in the default server (NGX102's fix;
    # it went after the default server's `}` on that line, at http{} level, until that was mended)
    assert "NGX006" not in out and "NGX102" not in out and "2 fixed" in out


def test_many_merged_repeats_settle_in_one_pass(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Found by the fix fuzz: pairwise merges of twelve ssl_protocols lines took more than the
    # ten passes --fix allows; one fix now takes them all (the last line's value, on the first).
    conf = tmp_path / "nginx.conf"
    lines = "".join(f"    ssl_protocols TLSv1.2 TLSv1.3;  # {i}\n" for i in range(12))
    conf.write_text("events {}\nhttp {\n" + lines + "}\n")
    code, out, err = run(capsys, "--unsafe-fixes", "--fixable", "NGX006", str(conf))
    assert code == 0 and "internal error" not in err, err
    assert conf.read_text() == "events {}\nhttp {\n    ssl_protocols TLSv1.2 TLSv1.3;  # 0\n}\n"
    assert "# 1 fixed, 0 remaining" in out  # one fix, all eleven findings gone


def test_each_file_is_read_once_per_pass(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 24: each pass of a fix run lexes a file at most once (and a file it did not change
    not at all after the first), and the edits are made on the lossless model built from that
    reading: the lossless model never lexes a file itself."""
    from collections import Counter

    from nginxgen.conf import load
    from nginxgen.edit import source

    passes: list[Counter[str]] = []
    scan, load_path = load.scan, load.load_path

    def counting_scan(text: str, filename: str | None = None, *args: object, **kwargs: object):  # type: ignore[no-untyped-def]
        passes[-1][os.path.basename(filename or "")] += 1
        return scan(text, filename, *args, **kwargs)  # type: ignore[arg-type]

    def counting_load(*args: object, **kwargs: object):  # type: ignore[no-untyped-def]
        passes.append(Counter())
        return load_path(*args, **kwargs)  # type: ignore[arg-type]

    def refuse(data: bytes) -> None:
        raise AssertionError("the lossless model lexed a file a second time")

    monkeypatch.setattr(load, "scan", counting_scan)
    monkeypatch.setattr(load, "load_path", counting_load)
    monkeypatch.setattr(source, "read", refuse)
    conf = tree(tmp_path)
    _, _, err = run(capsys, "--unsafe-fixes", str(conf))
    assert "internal error" not in err, err
    assert "fixed" in err
    assert len(passes) >= 2  # at least one that fixes and the one that checks
    assert passes[0] == {"nginx.conf": 1, "a.conf": 1, "b.ssl.conf": 1}
    assert all(max(lexed.values(), default=1) == 1 for lexed in passes), passes


def test_vhosts_that_disagree_get_no_move(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Found by the live editor check (tests/fuzzing/live.py check_live_fix): two vhosts whose
    ignored groups differ were both moved into the default server, the second over the first,
    so one vhost's line was dropped and its groups never took effect. One default server cannot
    give both: neither is moved. Where they agree, the move is offered."""
    site = (
        "server {{ listen 443 ssl; server_name {n}.example; ssl_certificate c; "
        "ssl_certificate_key k; ssl_ecdh_curve {g}; }}\n"
    )
    default = "server { listen 443 ssl default_server; ssl_reject_handshake on; }\n"
    conf = tmp_path / "nginx.conf"
    for groups, moved in ((("secp384r1", "prime256v1"), False), (("secp384r1", "secp384r1"), True)):
        text = (
            "events {}\nhttp {\n"
            + default
            + "".join(site.format(n=n, g=g) for n, g in zip(("a", "b"), groups, strict=True))
            + "}\n"
        )
        conf.write_text(text)
        _, out, _ = run(capsys, "--format", "json", "--select", "NGX101", str(conf))
        found = json.loads(out)["findings"]
        assert len(found) == 2
        assert all((f["autofix"] == "unsafe") == moved for f in found), found


def test_a_move_keeps_lines_meant_for_another_tls_address(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The move of NGX101 (and its siblings) on a vhost or default server that also listens on
    another TLS address: a vhost's line stays (it decides on the address where the vhost is the
    default server) while its value is copied; a default server's own line is never overwritten
    (it speaks for its other address too), so nothing is moved into it."""
    site = "ssl_certificate c; ssl_certificate_key k; ssl_ecdh_curve secp384r1;"
    conf = tmp_path / "nginx.conf"
    conf.write_text(
        "events {}\nhttp {\n"
        "server { listen 443 ssl default_server; ssl_reject_handshake on; }\n"
        f"server {{ listen 443 ssl; listen 8443 ssl; server_name a.example; {site} }}\n"
        "}\n"
    )
    run(capsys, "--unsafe-fixes", "--select", "NGX101", str(conf))
    assert conf.read_text().count("ssl_ecdh_curve secp384r1;") == 2  # copied, and kept
    _, out, _ = run(capsys, "--format", "json", "--select", "NGX101", str(conf))
    assert json.loads(out)["findings"] == []
    conf.write_text(
        "events {}\nhttp {\n"
        "server { listen 443 ssl default_server; listen 8443 ssl; ssl_certificate c; "
        "ssl_certificate_key k; ssl_ecdh_curve prime256v1; }\n"
        f"server {{ listen 443 ssl; server_name a.example; {site} }}\n"
        "}\n"
    )
    _, out, _ = run(capsys, "--format", "json", "--select", "NGX101", str(conf))
    found = json.loads(out)["findings"]
    assert len(found) == 1 and found[0]["autofix"] is None, found


@pytest.mark.parametrize("between", [" ", "\n        "])
def test_a_statement_nginx_refuses_gets_no_advice_fix_over_several_lines(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], between: str
) -> None:
    """NGX010 names `ssl_protocols TLSv1\\n TLSv13;` at its last line, as nginx does, and
    NGX401's advice at its first: the fix is held back all the same, as on one line (it wrote
    `ssl_protocols TLSv13;`, still refused)."""
    conf = tmp_path / "nginx.conf"
    protocols = f"ssl_protocols TLSv1{between}TLSv13;"
    conf.write_text(
        "events {}\nhttp {\n    server {\n        listen 127.0.0.1:8443 ssl;\n"
        f"        ssl_certificate a.pem;\n        ssl_certificate_key a.key;\n        {protocols}\n"
        "    }\n}\n"
    )
    _, out, err = run(capsys, "--unsafe-fixes", "--select", "NGX010,NGX401", str(conf))
    assert "internal error" not in err
    assert protocols in conf.read_text(), out
    assert "NGX401" in out and "NGX010" in out
