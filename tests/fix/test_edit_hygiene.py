"""Edits people can trust (issue 26): files another tool manages are never written, a safe fix
keeps the user's intent, nothing is rewritten with the same bytes, and machine-readable output
stays one document."""

from __future__ import annotations

import hashlib
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from nginxgen.conf.load import load_path
from nginxgen.edit.edits import Edit
from nginxgen.knowledge import managers
from nginxgen.lint.findings import Applicability, Finding, Severity, fix_classes
from nginxgen.lint.fix import run_fixes
from nginxgen.shell.cli import main
from tests.builds import Build
from tests.conftest import require_build
from tests.directive_probe import nginx_t
from tests.paths import DATA
from tests.pki import CertificateFactory
from tests.stock_trees import stock_tree

TARGET = ["--nginx-version", "1.26.3", "--tls-library", "openssl-3.5.7"]
CERTBOT_OPTIONS = DATA / "certbot" / "options-ssl-nginx.conf"


def lint(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(["lint", *TARGET, *args])
    out, err = capsys.readouterr()
    return code, out, err


def certbot_tree(root: Path) -> Path:
    """Two sites as certbot installs them: each server includes certbot's options file; the
    default server decides the session settings for both."""
    (root / "letsencrypt").mkdir(parents=True)
    shutil.copy(CERTBOT_OPTIONS, root / "letsencrypt" / "options-ssl-nginx.conf")
    conf = root / "nginx.conf"
    conf.write_text(
        "events {}\nhttp {\n"
        "  server { listen 443 ssl default_server; server_name a.example;\n"
        "    ssl_session_cache shared:A:1m; ssl_reject_handshake on; }\n"
        "  server { listen 443 ssl; server_name b.example;\n"
        f"    include {root}/letsencrypt/options-ssl-nginx.conf; # managed by Certbot\n"
        "  }\n}\n"
    )
    return conf


def test_certbots_released_options_file_is_recognised_by_its_bytes() -> None:
    text = CERTBOT_OPTIONS.read_text()
    digest = hashlib.sha256(CERTBOT_OPTIONS.read_bytes()).hexdigest()
    manager = managers.manager_of("/srv/elsewhere/tls.conf", text)
    assert manager is not None and manager.key == "certbot" and manager.never_write, digest
    assert managers.manager_of("/srv/elsewhere/tls.conf", text + "# mine\n") is None
    by_path = managers.manager_of("/etc/letsencrypt/options-ssl-nginx.conf")
    assert by_path is not None and by_path.key == "certbot"


def test_the_manager_table_names_its_sources() -> None:
    known = [m for m, _ in managers._managers()]
    assert len(known) >= 6
    assert all(m.source and m.override and m.display for m in known)


@pytest.mark.parametrize("flag", ["--fix", "--unsafe-fixes"])
def test_fixes_never_write_certbots_file(
    flag: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    conf = certbot_tree(tmp_path)
    options = tmp_path / "letsencrypt" / "options-ssl-nginx.conf"
    before = options.read_bytes(), options.stat().st_ino
    code, out, err = lint(capsys, flag, str(conf))
    assert (options.read_bytes(), options.stat().st_ino) == before
    assert "fixed" not in err.replace("# ", "")  # nothing was written anywhere
    assert code == 1 and "NGX102" in out
    assert f"{options} is managed by certbot, which nginxgen never writes" in out


def test_plain_lint_does_not_call_a_managed_line_fixable(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    conf = certbot_tree(tmp_path)
    _, out, _ = lint(capsys, "--format", "json", str(conf))
    in_options = [
        f for f in json.loads(out)["findings"] if f["file"].endswith("options-ssl-nginx.conf")
    ]
    assert in_options and all(f["autofix"] is None for f in in_options)


def test_a_safe_fix_keeps_an_ignored_line_that_says_what_the_user_wants(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    conf = tmp_path / "nginx.conf"
    text = (
        "events {}\nhttp {\n"
        "  server { listen 443 ssl default_server; ssl_reject_handshake on; }\n"
        "  server { listen 443 ssl; server_name b.example;\n"
        "    ssl_ecdh_curve X25519MLKEM768:X25519;  # PQ first\n  }\n}\n"
    )
    conf.write_text(text)
    code, out, _ = lint(capsys, "--fix", str(conf))
    assert conf.read_text() == text and code == 1 and "NGX101" in out
    lint(capsys, "--unsafe-fixes", str(conf))
    fixed = conf.read_text()
    default_server = fixed.split("server {")[1]
    assert "ssl_ecdh_curve X25519MLKEM768" in default_server  # moved where it takes effect


def test_json_output_of_a_fix_is_one_document(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    conf = tmp_path / "nginx.conf"
    conf.write_text(
        "events {}\nhttp {\n  ssl_protocols TLSv1.2 TLSv1.3;\n"
        "  ssl_ciphers ECDHE-ECDSA-AES128-GCM-SHA256:TLS_AES_128_GCM_SHA256;\n"
        "  server { listen 443 ssl default_server; ssl_reject_handshake on; }\n}\n"
    )
    for fmt in ("json", "sarif"):
        _, out, err = lint(capsys, "--fix", "--format", fmt, str(conf))
        json.loads(out)  # the whole of stdout, nothing after it
        assert "fixed, " in err and "fixed, " not in out


def test_a_fix_that_leaves_the_same_bytes_writes_nothing(tmp_path: Path) -> None:
    conf = tmp_path / "nginx.conf"
    conf.write_text("events {}\nhttp { ssl_session_tickets on; }\n")
    start = conf.read_bytes().index(b"on;")
    same = (str(conf), Edit(start, start + 2, b"on"))  # replaces "on" with "on"
    calls = []

    def lint_pass(loaded: object) -> list[Finding]:
        calls.append(1)
        if len(calls) > 1:
            return []
        return [
            Finding(
                "NGX000", "t", Severity.INFO, str(conf), 2, "m", "f", Applicability.SAFE, (same,)
            )
        ]

    outcome = run_fixes(
        lambda overlay: load_path(str(conf), overlay=overlay), lint_pass, fix_classes(unsafe=False)
    )
    assert outcome.changed == {} and outcome.originals == {}
    assert outcome.fixed == ["NGX000"]


def test_equal_values_are_not_churn(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # `1440m` and `1d`, `On` and `on`, `1m` and `1024k`: one setting each, as nginx reads them
    conf = tmp_path / "nginx.conf"
    conf.write_text(
        "events {}\nhttp {\n"
        "  server { listen 443 ssl default_server; ssl_reject_handshake on;\n"
        "    ssl_session_timeout 1d; ssl_session_tickets on; ssl_session_cache shared:S:1m; }\n"
        "  server { listen 443 ssl; server_name b.example;\n"
        "    ssl_session_timeout 1440m; ssl_session_tickets On;\n"
        "    ssl_session_cache shared:S:1024k; }\n}\n"
    )
    _, out, _ = lint(capsys, "--format", "json", "--select", "NGX102,NGX105", str(conf))
    assert json.loads(out)["findings"] == []


def test_into_never_writes_certbots_options_file(
    provisioned: tuple[dict[str, Build], dict[str, str]], tmp_path: Path
) -> None:
    build = require_build(provisioned, "trixie")
    main_conf = stock_tree("nginx-org", build, tmp_path / "nginx")
    tree = main_conf.parent
    certs = CertificateFactory(tmp_path / "certs")
    site = certs.leaf("a.test")
    shutil.copy(CERTBOT_OPTIONS, tree / "options-ssl-nginx.conf")
    options = tree / "options-ssl-nginx.conf"
    (tree / "letsencrypt").mkdir()
    options = options.rename(tree / "letsencrypt" / "options-ssl-nginx.conf")
    (tree / "conf.d" / "a.test.conf").write_text(
        "server {\n    server_name a.test;\n"
        "    listen 443 ssl; # managed by Certbot\n"
        f"    ssl_certificate {site.fullchain}; # managed by Certbot\n"
        f"    ssl_certificate_key {site.key}; # managed by Certbot\n"
        f"    include {options}; # managed by Certbot\n}}\n"
    )
    before = options.read_bytes(), options.stat().st_ino
    new = certs.leaf("b.test")
    done = subprocess.run(
        [sys.executable, "-m", "nginxgen", "generate", "--preset", "intermediate",
         *build.target_flags, "--domain", "b.test", "--cert", str(new.fullchain),
         "--key", str(new.key), "--into", str(tree)],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    assert (options.read_bytes(), options.stat().st_ino) == before
    report = done.stdout + done.stderr
    # tickets: ours would be on (nginx 1.26.3 rotates their keys), certbot's say off
    assert "ssl_session_tickets off kept" in report and "managed by certbot" in report
    assert "1440m" not in report  # 1440m is 1d: nothing to change, nothing to keep
    checked = build.nginx(
        "-p", f"{tree}/", "-c", str(main_conf), "-e", str(tree / "error.log"), "-t"
    )
    assert checked.returncode == 0, checked.stderr


def test_a_draft_group_is_renamed_before_any_fix_builds_on_it(
    provisioned: tuple[dict[str, Build], dict[str, str]],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    build = require_build(provisioned, "trixie")  # OpenSSL 3.5: X25519MLKEM768, no Kyber draft
    conf = tmp_path / "nginx.conf"
    text = (
        "events {}\nhttp {\n" + "\n".join(build.temp_path_directives) + "\n"
        "  server { listen 127.0.0.1:8443 ssl default_server;\n"
        "    ssl_reject_handshake on;\n    ssl_ecdh_curve X25519Kyber768Draft00:X25519; }\n}\n"
    )
    conf.write_text(text)
    (tmp_path / "t").mkdir()
    assert "SSL_CTX_set1_curves_list" in nginx_t(build, text, tmp_path / "t")
    flags = ["lint", *build.target_flags]
    main([*flags, "--fix", str(conf)])
    assert conf.read_text() == text  # no safe fix: renaming changes the code point
    assert "NGX201" in capsys.readouterr().out
    assert main([*flags, "--unsafe-fixes", str(conf)]) == 1
    capsys.readouterr()
    assert "ssl_ecdh_curve X25519MLKEM768/X25519;" in conf.read_text()
    assert nginx_t(build, conf.read_text(), tmp_path / "t") == ""


def test_a_spelling_the_library_refuses_is_respelled_safely(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    conf = tmp_path / "nginx.conf"
    conf.write_text(
        "events {}\nhttp {\n  server { listen 443 ssl default_server; ssl_reject_handshake on;\n"
        "    ssl_ecdh_curve secp256r1:X25519; }\n}\n"
    )
    main(["lint", "--nginx-version", "1.26.3", "--tls-library", "boringssl", "--fix", str(conf)])
    out = capsys.readouterr().out
    assert "ssl_ecdh_curve P-256:X25519;" in conf.read_text() or "prime256v1" in conf.read_text()
    assert "NGX201" not in out


def test_http2_parameter_fix_is_safe_only_where_it_keeps_behaviour(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    alone = (
        "events {}\nhttp {\n  server {\n    listen 443 ssl http2;\n    listen [::]:443 ssl http2;\n"
        "    server_name a.example;\n  }\n}\n"
    )
    conf = tmp_path / "nginx.conf"
    conf.write_text(alone)
    lint(capsys, "--fix", "--select", "NGX302", str(conf))
    assert conf.read_text() == alone.replace(" http2;", ";").replace(
        "    server_name a.example;\n", "    http2 on;\n    server_name a.example;\n"
    )
    # another server on the same address got HTTP/2 from this listen: moving it is unsafe
    shared = alone.replace(
        "  }\n}\n", "  }\n  server { listen 443 ssl; server_name b.example; }\n}\n"
    )
    conf.write_text(shared)
    lint(capsys, "--fix", "--select", "NGX302", str(conf))
    assert conf.read_text() == shared
    # a listen of the server without the parameter would get HTTP/2 from `http2 on;`
    mixed = alone.replace("    listen [::]:443 ssl http2;\n", "    listen 8443 ssl;\n")
    conf.write_text(mixed)
    lint(capsys, "--fix", "--select", "NGX302", str(conf))
    assert conf.read_text() == mixed


def test_the_fix_of_a_finding_on_a_managed_file_does_not_say_to_edit_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """PeerTube's server repeats ssl_protocols after certbot's include (trial 21): NGX006's fix
    said `change the first ssl_protocols line`, a line of certbot's file, while its message said
    the file is certbot's to write. The fix now says where the change belongs."""
    conf = certbot_tree(tmp_path)
    text = conf.read_text().replace(
        "# managed by Certbot\n", "# managed by Certbot\n    ssl_protocols TLSv1.2 TLSv1.3;\n"
    )
    conf.write_text(text)
    _, out, _ = lint(capsys, "--format", "json", "--select", "NGX006", str(conf))
    [finding] = [f for f in json.loads(out)["findings"] if "ssl_protocols" in f["message"]]
    assert "change the first" not in finding["fix"], finding
    assert finding["fix"].startswith(
        f"leave {tmp_path}/letsencrypt/options-ssl-nginx.conf as "
        "certbot wrote it; instead: in the server block"
    ), finding
