"""The value differential's disagreements (issue 36), one case each: lint with the target of
the build where the case occurred (no nginx needed), and the same case under that build's real
`nginx -t` (tests/fuzzing/values.py's skeleton: an HTTPS server with a real certificate and a
stream server). Each case says what nginx does with it; lint must have an error on the case's
line exactly when nginx refuses."""

from __future__ import annotations

from pathlib import Path

import pytest

from nginxgen.base.version import Version
from nginxgen.conf.load import load_path
from nginxgen.knowledge.target import Target, parse_library
from nginxgen.lint.run import lint
from tests.builds import Build
from tests.conftest import require_build
from tests.fuzzing import values
from tests.fuzzing.generate_check import real_files

# the builds' targets, as their `nginx -V` states them
TARGETS = {
    "bookworm": ("1.22.1", "openssl-3.0.22"),
    "trixie": ("1.26.3", "openssl-3.5.9"),
    "wheel": ("1.31.3", "openssl-3.3.7"),
    "awslc": ("1.26.3", "aws-lc-5.12.0"),
    "boringssl": ("1.26.3", "boringssl"),
    "openssl36": ("1.28.3", "openssl-3.6.3"),
    "openssl40": ("1.28.3", "openssl-4.0.3"),
}

# (build, context, directive, arguments, nginx's message or None where it starts)
CASES = [
    # NGX401 is not an error: every build starts with SSLv2 and SSLv3 named
    ("trixie", "http", "ssl_protocols", ("SSLv2", "SSLv3", "TLSv1.2"), None),
    ("boringssl", "server", "ssl_protocols", ("sslV3", "SSLv2", "TLSv1.3"), None),
    ("bookworm", "server", "ssl_protocols", ("SSLv3", "TLSv1", "TLSv1.2"), None),
    # ssl_ocsp_cache: off or shared:NAME:SIZE only
    ("trixie", "http", "ssl_ocsp_cache", ("shar_d:a:b:abc",), 'invalid OCSP cache "shar_d:a:b:abc"'),
    ("awslc", "server", "ssl_ocsp_cache", ("shared:tls_cache",), 'invalid OCSP cache "shared:tls_cache"'),
    ("bookworm", "server", "ssl_ocsp_cache", ("OFF",), 'invalid OCSP cache "OFF"'),
    ("wheel", "stream", "ssl_ocsp_cache", ("shared:SSL:16k",), 'OCSP cache "shared:SSL:16k" is too small'),
    ("trixie", "server", "ssl_ocsp_cache", ("shared:OCSP:1m",), None),
    # *_ssl_certificate_cache (1.27.4+): max=, inactive=, valid=, off; max= unless off
    ("wheel", "location", "uwsgi_ssl_certificate_cache", ("75s", "1kb"), 'invalid parameter "75s"'),
    ("wheel", "http", "grpc_ssl_certificate_cache", ("valid=512",),
     '"grpc_ssl_certificate_cache" must have the "max" parameter'),
    ("wheel", "stream", "proxy_ssl_certificate_cache", ("VALID=",), 'invalid parameter "VALID="'),
    ("wheel", "server", "ssl_certificate_cache", ("max=0",), 'invalid parameter "max=0"'),
    ("wheel", "server", "ssl_certificate_cache", ("max=100", "inactive=1h", "valid=30s"), None),
    ("wheel", "http", "proxy_ssl_certificate_cache", ("valid=1m", "off"), None),
    # http2 post handlers
    ("bookworm", "http", "http2_streams_index_size", ("776",),
     '"http2_streams_index_size" directive must be a power of two'),
    ("wheel", "server", "http2_pool_size", ("5512",), "the pool size must be a multiple of 16"),
    ("trixie", "server", "http2_pool_size", ("96",), "the pool size must be no less than 112"),
    ("boringssl", "http", "http2_chunk_size", ("0",), "the http2 chunk size cannot be zero"),
    ("trixie", "http", "http2_streams_index_size", ("64",), None),
    # ssl_verify_client on/optional needs a CA list in a server TLS is set up for
    ("bookworm", "http", "ssl_verify_client", ("ON",), "no ssl_client_certificate for ssl_verify_client"),
    ("awslc", "server", "ssl_verify_client", ("optional",), "no ssl_client_certificate for ssl_verify_client"),
    ("wheel", "stream_server", "ssl_verify_client", ("on",),
     "no ssl_client_certificate or ssl_trusted_certificate for ssl_verify_client"),
    ("trixie", "server", "ssl_verify_client", ("optional_no_ca",), None),
    # ssl_ocsp where the library has no OCSP (BoringSSL)
    ("boringssl", "server", "ssl_ocsp", ("on",), '"ssl_ocsp" is not supported on this platform'),
    ("trixie", "server", "ssl_ocsp", ("leaf",), None),
    # a second certificate without its key, in a stream server too
    ("wheel", "stream_server", "ssl_certificate", ("CERT",), 'no "ssl_certificate_key" is defined'),
    # listen: an IPv6 address without its "]"; setfib= is FreeBSD's
    ("trixie", "server", "listen", ("[::1:9444",), 'invalid host in "[::1:9444" of the "listen" directive'),
    ("awslc", "server", "listen", ("127.0.0.1:9444", "setfib=1"), 'invalid parameter "setfib=1"'),
    ("bookworm", "server", "listen", ("127.0.0.1:9444:1",), 'invalid port in "127.0.0.1:9444:1" of the "listen" directive'),
    # a seconds setting reads 99999999999y without overflow
    ("bookworm", "server", "ssl_session_timeout", ("99999999999y",), None),
    # upstream conf commands reach the library only where a pass goes to TLS
    ("wheel", "server", "grpc_ssl_conf_command", ("no_ssl3", "on"), None),
    ("trixie", "location", "proxy_ssl_conf_command", ("VerifyMoe", "RequirePostHandshake"), None),
    # the `ssl` flag of 1.22 (a custom setter around the flag slot)
    ("bookworm", "http", "ssl", ("10mb",), 'invalid value "10mb" in "ssl" directive, it must be "on" or "off"'),
    # listen's parameters refused beside quic
    ("boringssl", "server", "listen", ("[::1]:9444", "ssl", "quic"), '"ssl" parameter is incompatible with "quic"'),
    # ssl_conf_command: a file that is there, closed lists, a CipherString that matches nothing
    ("trixie", "server", "ssl_conf_command", ("ClientCAStore", "CHAIN"), None),
    ("trixie", "server", "ssl_conf_command", ("MinProtocol", "DTLSv1.22"),
     'SSL_CONF_cmd("MinProtocol", "DTLSv1.22") failed'),
    ("bookworm", "server", "ssl_conf_command", ("SignatureAlgorithms", "MD5+RSA"),
     'SSL_CONF_cmd("SignatureAlgorithms", "MD5+RSA") failed'),
    ("bookworm", "server", "ssl_conf_command", ("VerifyMode", "Requir"), 'SSL_CONF_cmd("VerifyMode", "Requir") failed'),
    ("bookworm", "http", "ssl_conf_command", ("CipherString", "+ECDHE-RSA-AES128-SHA:ecdhe-psk-aes128-cbc-sha"),
     'SSL_CONF_cmd("CipherString"'),
    # BoringSSL: a string whose suites it does not have
    ("boringssl", "server", "ssl_ciphers", ("ARIA256:ecdhe-ecdsa-camellia256-sha384",), "SSL_CTX_set_cipher_list("),
    ("boringssl", "server", "ssl_ciphers", ("DHE-RSA-AES256-CCM8;-NULL-MD5;!AES256-SHA256",),
     "SSL_CTX_set_cipher_list("),
    ("boringssl", "server", "ssl_ciphers", ("HIGH:NOSUCHWORD",), None),
    # `auto` is nginx's word of ssl_ecdh_curve, no group of OpenSSL's
    ("bookworm", "http", "ssl_conf_command", ("Curves", "auto"), 'SSL_CONF_cmd("Curves", "auto") failed'),
    ("trixie", "server", "ssl_conf_command", ("Groups", "auto"), 'SSL_CONF_cmd("Groups", "auto") failed'),
    ("wheel", "server", "ssl_conf_command", ("Groups", "X25519:auto"), 'SSL_CONF_cmd("Groups", "X25519:auto")'),
    # so_keepalive= reads on, off or idle:interval:count
    ("awslc", "server", "listen", ("127.0.0.1:9444", "so_keepalive=1k"), 'invalid so_keepalive value: "1k"'),
    ("trixie", "server", "listen", ("127.0.0.1:9444", "so_keepalive=0::0"), 'invalid so_keepalive value: "0::0"'),
    ("trixie", "server", "listen", ("127.0.0.1:9444", "so_keepalive=30m::10"), None),
    # signature algorithm lists: names and SIG+HASH words as each build took them alone
    ("openssl40", "stream", "ssl_conf_command", ("ClientSignatureAlgorithms", "onn"),
     'SSL_CONF_cmd("ClientSignatureAlgorithms", "onn") failed'),
    ("wheel", "http", "ssl_conf_command", ("SignatureAlgorithms", "MD5R+SA"),
     'SSL_CONF_cmd("SignatureAlgorithms", "MD5R+SA") failed'),
    ("trixie", "http", "ssl_conf_command", ("SignatureAlgorithms", "ed225519"),
     'SSL_CONF_cmd("SignatureAlgorithms", "ed225519") failed'),
    ("bookworm", "server", "ssl_conf_command", ("SignatureAlgorithms", "Rsa+SHA256"),
     'SSL_CONF_cmd("SignatureAlgorithms", "Rsa+SHA256") failed'),
    ("trixie", "server", "ssl_conf_command", ("SignatureAlgorithms", "rsa_pss_rsae_SHA256:Rsa+SHA256"), None),
    ("openssl40", "server", "ssl_conf_command", ("SignatureAlgorithms", "ECDSA+Sha256"),
     'SSL_CONF_cmd("SignatureAlgorithms", "ECDSA+Sha256") failed'),
    ("openssl36", "server", "ssl_conf_command", ("SignatureAlgorithms", "SHA384+ECDSA : MlDsa44"), None),
    ("bookworm", "server", "ssl_conf_command", ("SignatureAlgorithms", "RSA+SHA256:RSA+SHA256"),
     'SSL_CONF_cmd("SignatureAlgorithms", "RSA+SHA256:RSA+SHA256") failed'),
    # ECDHParameters: automatic in any case, else one group
    ("openssl36", "http", "ssl_conf_command", ("ECDHParameters", "oo"), 'SSL_CONF_cmd("ECDHParameters", "oo") failed'),
    ("openssl40", "server", "ssl_conf_command", ("ECDHParameters", "+Automatic"), None),
    ("wheel", "server", "ssl_conf_command", ("ECDHParameters", "X25519:P-256"),
     'SSL_CONF_cmd("ECDHParameters", "X25519:P-256") failed'),
    ("trixie", "server", "ssl_conf_command", ("ECDHParameters", "X25519"), None),
    # OpenSSL 4.0 dropped the curves RFC 8422 deprecates, in any letter case; 3.6 still has them
    ("openssl40", "stream", "ssl_ecdh_curve", ("Secp160R1",), 'SSL_CTX_set1_curves_list("Secp160R1") failed'),
    ("openssl40", "server", "ssl_ecdh_curve", ("X25519:X448:secp384r1:secp256k1",),
     'SSL_CTX_set1_curves_list("X25519:X448:secp384r1:secp256k1") failed'),
    ("openssl36", "server", "ssl_ecdh_curve", ("Secp256K1",), None),
    # OpenSSL 4.0 reads cipher-string words in any case (aDH is ADH, kECDHe kECDHE) and has no
    # SSLv3 or FIPS alias; 3.6 reads them exactly
    ("openssl40", "stream_server", "ssl_ciphers", ("+TLS_AES_256_GCM_SHA384:ECDHE-RSA-AES128-SHA256:!AES256-SHA:!kECDHe",),
     "SSL_CTX_set_cipher_list("),
    ("openssl40", "stream", "ssl_ciphers", ("+DHE-PSK-NULL-SHA256:aDH",), None),
    ("openssl40", "server", "ssl_ciphers", ("high:!anull:@seclevel=2",), None),
    ("openssl40", "server", "ssl_ciphers", ("SSLv3:FIPS",), "SSL_CTX_set_cipher_list("),
    ("openssl36", "server", "ssl_ciphers", ("high:!anull",), "SSL_CTX_set_cipher_list("),
    ("openssl40", "server", "ssl_conf_command", ("Ciphersuites", "Tls_Aes_256_Gcm_Sha384"), None),
    ("openssl36", "server", "ssl_conf_command", ("Ciphersuites", "Tls_Aes_256_Gcm_Sha384"),
     'SSL_CONF_cmd("Ciphersuites", "Tls_Aes_256_Gcm_Sha384") failed'),
    # @SECLEVEL against the skeleton's ECDSA P-256 certificate (128 bits): 4 and 5 refuse it
    ("bookworm", "http", "ssl_ciphers", ("+ECDHE-PSK-CAMELLIA128-SHA256:-ECDHE-RSA-AES128-SHA256:+AESGCM:+ALL:aRSA:@SECLEVEL=5",),
     "ee key too small"),
    ("trixie", "server", "ssl_ciphers", ("+CBC:AESCCM8:!aGOST94:PSK-AES128-CCM:+AES128-SHA:@SECLEVEL=5",), "ee key too small"),
    ("openssl40", "stream", "ssl_ciphers", ("AESCCM:@SECLEVEL=5",), "ee key too small"),
    ("wheel", "stream_server", "ssl_ciphers", ("HIGH:@SECLEVEL=4",), "ee key too small"),
    ("openssl36", "server", "ssl_ciphers", ("HIGH:@SECLEVEL=3",), None),
    # AWS-LC and BoringSSL: a string that leaves none of their suites; AWS-LC reads DEFAULT, HIGH
    # and FIPS only as the first word
    ("awslc", "http", "ssl_ciphers", ("+AES128-CCM:!NULL-SHA:FIPS:kDHEPSK",), "SSL_CTX_set_cipher_list("),
    ("awslc", "server", "ssl_ciphers", ("ECDSA,!ALL,+ECDHE-ECDSA-AES128-CCM,DHE-RSA-AES256-GCM-SHA384",),
     "SSL_CTX_set_cipher_list("),
    ("awslc", "server", "ssl_ciphers", ("ECDSA:-ECDSA:HIGH",), "SSL_CTX_set_cipher_list("),
    ("awslc", "server", "ssl_ciphers", ("HIGH:-HIGH:ECDSA",), None),
    ("awslc", "server", "ssl_ciphers", ("3DES:ADH-AES256-SHA256:!DHE-RSA-AES256-CCM8",), None),
    ("boringssl", "server", "ssl_ciphers", ("ECDSA:!ALL:NULL-SHA",), "SSL_CTX_set_cipher_list("),
    ("boringssl", "server", "ssl_ciphers", ("+AES128-CCM:!NULL-SHA:FIPS:kDHEPSK",), None),
    # stream's listen refuses some parameters beside udp, by release; the lists' order decides
    ("openssl36", "stream_server", "listen", ("9444", "udp", "deferred"),
     '"listen" directive "deferred" parameter is incompatible with "udp"'),
    ("openssl36", "stream_server", "listen", ("9444", "udp", "ssl", "fastopen=1"),
     '"listen" directive "fastopen" parameter is incompatible with "udp"'),
    ("wheel", "stream_server", "listen", ("9444", "udp", "so_keepalive=on", "multipath"),
     '"listen" directive "multipath" parameter is incompatible with "udp"'),
    ("openssl40", "stream_server", "listen", ("9444", "udp", "reuseport"), None),
    # RecordPadding: atoi before OpenSSL 3.5, from 3.5 one or two numbers split at a comma
    ("trixie", "http", "ssl_conf_command", ("RecordPadding", "bc"), 'SSL_CONF_cmd("RecordPadding", "bc") failed'),
    ("openssl40", "server", "ssl_conf_command", ("RecordPadding", "512,x"), 'SSL_CONF_cmd("RecordPadding", "512,x") failed'),
    ("openssl36", "server", "ssl_conf_command", ("RecordPadding", "5x,512"), None),
    ("wheel", "server", "ssl_conf_command", ("RecordPadding", "bc"), None),
    ("bookworm", "server", "ssl_conf_command", ("RecordPadding", "16385"), 'SSL_CONF_cmd("RecordPadding", "16385") failed'),
    # AWS-LC keeps a 3DES suite no OpenSSL table of the engine names: not judged
    ("awslc", "http", "ssl_ciphers", ("!MD5:3DES:+RSA-PSK-AES256-GCM-SHA384",), None),
]  # fmt: skip


def _case(directive: str, args: tuple[str, ...], context: str) -> values.Case:
    cert = real_files().certificates[1]["cert"]  # not the skeleton's: a second certificate
    files = {"CERT": cert, "CHAIN": real_files().chain}
    return values.Case(directive, tuple(files.get(a, a) for a in args), context, "")


def _lint_errors_on_line(build: str, case: values.Case, folder: Path) -> list[str]:
    nginx, library = TARGETS[build]
    target = Target(nginx=Version(nginx), library=parse_library(library), exact=True)
    pair = real_files().certificates[0]
    text = values._blank(values.SKELETON + values.STREAM_SKELETON, pair, keep_marks=True)
    rendered, line = values.Skeleton(text, values.CONTEXTS).render(case.context, case.line)
    conf = folder / "nginx.conf"
    conf.write_text(rendered)
    findings = lint(load_path(str(conf)), target, values.ALL_RULES, build_fixes=False)
    return [f"{f.code} {f.message}" for f in findings if f.severity == "error" and f.line == line]


@pytest.mark.parametrize(("build", "context", "directive", "args", "message"), CASES)
def test_lint_says_what_nginx_does(
    build: str, context: str, directive: str, args: tuple[str, ...], message: str | None,
    tmp_path: Path,
) -> None:  # fmt: skip
    errors = _lint_errors_on_line(build, _case(directive, args, context), tmp_path)
    if message is None:
        assert errors == [], errors
    else:
        assert errors, f"no error for {directive} {args} on {build}"
        # NGX010 speaks nginx's words; other rules (NGX714) their own
        ngx010 = [e for e in errors if e.startswith("NGX010 ")]
        assert all(message in e for e in ngx010), errors


@pytest.mark.parametrize("build", sorted(TARGETS))
def test_nginx_does_what_the_cases_say(
    build: str, provisioned: tuple[dict[str, Build], dict[str, str]]
) -> None:
    checker = values.Checker(require_build(provisioned, build))
    wrong = []
    for name, context, directive, args, message in CASES:
        if name != build:
            continue
        verdict = checker.check(_case(directive, args, context))
        said = verdict.message if verdict.nginx == "refused" else None
        if (said is None) != (message is None) or (message and message not in said):
            wrong.append(f"{directive} {args}: nginx {said!r}, case {message!r}")
        elif not verdict.agrees:
            wrong.append(f"{directive} {args}: lint {verdict.lint_here}, nginx {said!r}")
    assert not wrong, wrong
