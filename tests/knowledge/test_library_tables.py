"""The TLS library tables (nginxgen/knowledge/tls_tables/) against the real builds: they
regenerate byte for byte from scripts/build_library_tables.py, and lint's group, cipher-string
and ssl_conf_command findings agree with real `nginx -t` on every build (issue 36)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from nginxgen.conf.load import load_path
from nginxgen.lint.findings import Finding
from nginxgen.lint.run import Selection, lint
from tests.builds import ALL_BUILD_NAMES, Build
from tests.cli_process import nginxgen as run_nginxgen
from tests.conftest import require_build
from tests.fuzzing.generate_check import build_target
from tests.helpers import missing_real_part
from tests.knowledge.test_tls_libraries_live import one_server
from tests.live import free_port, nginx_check, prepare_prefix
from tests.paths import REPO

TABLES = REPO / "nginxgen" / "knowledge" / "tls_tables"
ALL_BUILDS = ALL_BUILD_NAMES

# The rules that say "nginx -t fails" about a value of these directives.
VALUE_ERRORS = {"NGX201", "NGX202", "NGX408", "NGX410", "NGX501", "NGX504"}

# (line, what the issue or the tables showed): each runs on every build, nginx -t the oracle
LINES = [
    "ssl_ecdh_curve X25519:X448:secp384r1:secp256k1;",  # mailcow's real line
    "ssl_ecdh_curve secp256k1;",
    "ssl_ecdh_curve brainpoolP512r1;",
    "ssl_ecdh_curve secp224r1;",
    "ssl_ecdh_curve P-224;",
    "ssl_ecdh_curve sect571r1;",
    "ssl_ecdh_curve B-571;",
    "ssl_ecdh_curve X25519:prime256v1:X25519;",  # a group listed twice
    "ssl_ecdh_curve prime256v1:P-256;",  # twice, under two names
    "ssl_ecdh_curve X25519Kyber768Draft00:X25519;",
    "ssl_ecdh_curve ?nosuchgroup:X25519;",
    "ssl_ecdh_curve SECP256K1;",
    "ssl_ecdh_curve curveSM2MLKEM768:X25519;",  # OpenSSL 4.0's alone (trial 21)
    # empty elements and spaces (the trials' reproducers: lint said nothing)
    "ssl_ecdh_curve X25519::prime256v1;",
    "ssl_ecdh_curve X25519:prime256v1:;",
    "ssl_ecdh_curve :X25519;",
    'ssl_ecdh_curve "X25519: prime256v1";',
    "ssl_ecdh_curve X25519MLKEM768/X25519/;",
    "ssl_conf_command Groups X25519::prime256v1;",
    'ssl_conf_command Groups "X25519 :prime256v1";',
    "ssl_ciphers ALL:@SECLEVEL=0;",
    "ssl_ciphers DEFAULT:@SECLEVEL=6;",
    "ssl_ciphers eNULL;",
    "ssl_ciphers HIGH:eNULL;",
    "ssl_conf_command NoSuchCommand x;",
    "ssl_conf_command Option KTLS;",
    "ssl_conf_command Options Bogus;",
    "ssl_conf_command Options KTLS,IgnoreUnexpectedEOF;",
    'ssl_conf_command Options "KTLS PrioritizeChaCha";',
    "ssl_conf_command options ktls;",
    "ssl_conf_command Ciphersuites BOGUS;",
    "ssl_conf_command Ciphersuites TLS_AES_128_GCM_SHA256:BOGUS;",
    "ssl_conf_command Ciphersuites tls_aes_128_gcm_sha256;",
    "ssl_conf_command MinProtocol TLSv13;",
]


def test_one_table_per_build() -> None:
    """One table per build in the manifest (a build added there is one more table)."""
    names = sorted(p.name for p in TABLES.glob("*.json"))
    assert len(names) == len(ALL_BUILDS) + 1 and "names.json" in names, names


@pytest.mark.parametrize("build_name", ALL_BUILDS)
def test_tables_regenerate_byte_for_byte(
    provisioned: tuple[dict[str, Build], dict[str, str]], tmp_path: Path, build_name: str
) -> None:
    """Each committed table is what the script writes from its build today, and the names
    probed are what every build lists (one build a test: on two cores the seven ran 167 s in
    one, the last test of a CI run)."""
    builds, missing = provisioned
    for name in ALL_BUILDS:
        require_build(provisioned, name)
    if missing:
        missing_real_part(f"builds missing: {missing}")
    script = str(REPO / "scripts" / "build_library_tables.py")
    done = subprocess.run(
        [sys.executable, script, "--build", build_name, "--out", str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    made = sorted(p.name for p in tmp_path.glob("*.json"))
    assert made == sorted(["names.json", f"{builds[build_name].tls_library}.json"])
    for name in made:
        assert (tmp_path / name).read_bytes() == (TABLES / name).read_bytes(), name


def _findings(build: Build, conf: Path) -> list[Finding]:
    return lint(load_path(str(conf)), build_target(build), Selection())


@pytest.mark.parametrize("build_name", ALL_BUILDS)
def test_value_errors_agree_with_nginx_t(
    provisioned: tuple[dict[str, Build], dict[str, str]], tmp_path: Path, build_name: str
) -> None:
    """Lint says an error about the line exactly where the build's nginx -t fails; where it
    passes, at most a warning."""
    build = require_build(provisioned, build_name)
    wrong = []
    for at, line in enumerate(LINES):
        folder = tmp_path / str(at)
        folder.mkdir()
        conf = one_server(folder, free_port(), line)
        prepare_prefix(conf, build, workers=1)
        refused = nginx_check(build, conf).returncode != 0
        errors = [f for f in _findings(build, conf) if f.code in VALUE_ERRORS]
        if refused != bool(errors):
            wrong.append(f"{line} nginx -t {'fails' if refused else 'passes'}; lint: {errors}")
    assert not wrong, "\n".join(wrong)


@pytest.mark.parametrize("build_name", ["bookworm", "trixie", "wheel"])
def test_mailcow_curves_warn_about_secp256k1_only(
    provisioned: tuple[dict[str, Build], dict[str, str]], tmp_path: Path, build_name: str
) -> None:
    """mailcow's line starts nginx on OpenSSL 3.0, 3.3 and 3.5: a warning naming secp256k1 and
    the standard behind it, no error."""
    build = require_build(provisioned, build_name)
    conf = one_server(tmp_path, free_port(), "ssl_ecdh_curve X25519:X448:secp384r1:secp256k1;")
    prepare_prefix(conf, build, workers=1)
    assert nginx_check(build, conf).returncode == 0
    found = _findings(build, conf)
    assert not [f for f in found if f.severity == "error"], found
    (warning,) = [f for f in found if f.code == "NGX204"]
    assert warning.severity == "warning"
    assert "secp256k1" in warning.message and "RFC 8422" in warning.message


def test_brainpool_warns_unless_the_policy_lists_it(tmp_path: Path) -> None:
    """Brainpool is NGX204 in a hand-written config, and silent in one generated under the
    bsi-tr-02102-2 preset, whose policy lists it (the generator says why in the file)."""
    from nginxgen.knowledge.target import resolve
    from tests.helpers import make_cert

    target = resolve("1.26.3", "openssl-3.5.9")
    pair = make_cert(tmp_path / "certs")
    out = tmp_path / "out"
    done = run_nginxgen(
        "generate",
        "--preset",
        "bsi-tr-02102-2",
        "--domain",
        "example.com",
        "--cert",
        str(pair.cert),
        "--key",
        str(pair.key),
        "--nginx-version",
        "1.26.3",
        "--tls-library",
        "openssl-3.5.9",
        "--out",
        str(out),
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    tls = (out / "tls.conf").read_text()
    assert "ignore[NGX204] policy.groups lists brainpool" in tls
    assert "BSI TR-02102-2" in tls
    assert "NGX204" not in [
        f.code for f in lint(load_path(str(out / "nginx.conf")), target, Selection())
    ]
    (out / "tls.conf").write_text(
        "\n".join(x for x in tls.splitlines() if "ignore[NGX204]" not in x) + "\n"
    )
    found = lint(load_path(str(out / "nginx.conf")), target, Selection())
    assert {f.code for f in found if "brainpool" in f.message} == {"NGX204"}


def test_each_table_is_named_for_its_library() -> None:
    """A lint opens only its target's table, chosen by file name: the name must be the library
    the file was measured on, and every target of a measured series finds its table."""
    from nginxgen.knowledge.library_tables import library_table, library_tables
    from nginxgen.knowledge.target import parse_library

    tables = library_tables()
    assert len(tables) == len(list(TABLES.glob("*.json"))) - 1  # names.json is no table
    for table in tables:
        assert (TABLES / f"{table.library}.json").is_file()
        assert library_table(parse_library(table.library)) == table


def test_a_group_only_some_builds_have_is_said_so() -> None:
    """A name groups.toml does not describe but a measured build took (OpenSSL 4.0's
    curveSM2MLKEM768) was said to be known by no TLS library (trial 21)."""
    from nginxgen.knowledge.tls_groups import unknown_group

    assert unknown_group("curveSM2MLKEM768") == (
        "only OpenSSL 4.0.3 of the libraries measured here has the group 'curveSM2MLKEM768'"
    )
    assert unknown_group("nosuchgroup") == "no TLS library knows the group 'nosuchgroup'"
