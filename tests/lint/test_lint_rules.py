"""Every rule: a config that triggers it and the same config with the fix applied."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from nginxgen.conf.load import load_path
from nginxgen.knowledge.target import resolve
from nginxgen.lint.findings import Finding
from nginxgen.lint.rules import catalog
from tests.every_rule import lint_checked

OLD = ("1.22.1", "openssl-3.0")
MID = ("1.26.3", "openssl-3.5.7")
NEW = ("1.31.3", "openssl-3.3.7")
ECH = ("1.30.4", "openssl-4.0.3")  # Encrypted Client Hello: nginx >= 1.29.4 with OpenSSL 4.0

DEFAULT = "server { listen 443 ssl default_server; ssl_reject_handshake on; }\n"
SITE = "server {{ listen 443 ssl; server_name b.example; ssl_certificate c; ssl_certificate_key k; {body} }}\n"
HSTS = 'add_header Strict-Transport-Security "max-age=63072000" always;'
# a pass to a TLS backend with every NGX8xx rule satisfied, and an upstream{} block
PASS = (
    "proxy_pass https://localhost; proxy_ssl_verify on; proxy_ssl_trusted_certificate /ca.pem;"
    " proxy_ssl_server_name on;"
)
UPSTREAM = "upstream backend { server api.example:443; }\n"
INTERMEDIATE = (  # Mozilla's intermediate TLS 1.2 suites
    "ssl_ciphers ECDHE-ECDSA-AES128-GCM-SHA256:ECDHE-RSA-AES128-GCM-SHA256:"
    "ECDHE-ECDSA-AES256-GCM-SHA384:ECDHE-RSA-AES256-GCM-SHA384:"
    "ECDHE-ECDSA-CHACHA20-POLY1305:ECDHE-RSA-CHACHA20-POLY1305;"
)
BACKEND = "location / { proxy_pass http://127.0.0.1:8080; }"  # a plain backend the requests reach
CA = "ssl_client_certificate /etc/nginx/client-ca.pem;"
TRUSTED = "ssl_trusted_certificate /etc/nginx/client-ca.pem;"
CRL = "ssl_crl /etc/nginx/client-ca.crl;"
CHECK = "if ($ssl_client_verify != SUCCESS) { return 403; }"
PASS_VERIFY = (
    "proxy_pass http://127.0.0.1:8080; proxy_set_header X-Client-Verify $ssl_client_verify;"
)


def http(
    *parts: str, top: str = "ssl_session_cache shared:S:1m; ssl_protocols TLSv1.2 TLSv1.3;"
) -> str:
    return "events {}\nhttp {\n" + top + "\n" + "".join(parts) + "}\n"


SDEFAULT = "server { listen 8443 ssl default_server; proxy_pass 127.0.0.1:1; }\n"
SSITE = "server {{ listen 8443 ssl; server_name b.example; proxy_pass 127.0.0.1:2; {body} }}\n"


def stream(*parts: str, top: str = "") -> str:
    """A stream{} tree (certificates at stream{} level) beside an http{} one with no TLS."""
    return (
        "events {}\nhttp { server { listen 80; } }\nstream {\n"
        "ssl_certificate c; ssl_certificate_key k;\n" + top + "\n" + "".join(parts) + "}\n"
    )


CASES: list[tuple[str, tuple[str, str], str, str]] = [
    # code, target, triggers, fixed
    (
        "NGX101",
        MID,
        http(DEFAULT, SITE.format(body=f"ssl_ecdh_curve secp384r1; {HSTS}")),
        http(
            DEFAULT,
            SITE.format(body=HSTS),
            top="ssl_session_cache shared:S:1m; ssl_protocols TLSv1.2 TLSv1.3; ssl_ecdh_curve secp384r1;",
        ),
    ),
    (
        "NGX101",
        MID,
        http(DEFAULT, SITE.format(body=f"ssl_conf_command Groups X25519; {HSTS}")),
        http(DEFAULT, SITE.format(body=HSTS)),
    ),
    (
        "NGX102",
        MID,
        http(
            DEFAULT,
            SITE.format(body=f"ssl_session_cache shared:X:10m; {HSTS}"),
            top="ssl_protocols TLSv1.2 TLSv1.3;",
        ),
        http(
            DEFAULT,
            SITE.format(body=HSTS),
            top="ssl_session_cache shared:X:10m; ssl_protocols TLSv1.2 TLSv1.3;",
        ),
    ),
    (
        "NGX103",
        MID,
        http(DEFAULT, SITE.format(body=f"ssl_protocols TLSv1.3; {HSTS}")),
        http(
            DEFAULT,
            SITE.format(body=HSTS),
            top="ssl_session_cache shared:S:1m; ssl_protocols TLSv1.3;",
        ),
    ),
    (
        "NGX104",
        MID,
        http(
            DEFAULT,
            SITE.format(body=f"ssl_early_data on; ssl_conf_command Options AntiReplay; {HSTS}"),
        ),
        http(DEFAULT, SITE.format(body=HSTS)),
    ),
    (
        "NGX105",
        MID,
        http(
            "server { listen 443 ssl default_server; ssl_reject_handshake on; ssl_session_tickets off; }\n",
            SITE.format(body=f"ssl_session_tickets on; {HSTS}"),
        ),
        http(DEFAULT, SITE.format(body=HSTS)),
    ),
    (
        "NGX105",
        MID,
        http(DEFAULT, SITE.format(body=f"ssl_session_tickets off; {HSTS}")),
        http(DEFAULT, SITE.format(body=HSTS)),
    ),
    (
        "NGX106",
        MID,
        http(SITE.format(body=HSTS), SITE.format(body=HSTS).replace("b.example", "c.example")),
        http(
            DEFAULT,
            SITE.format(body=HSTS),
            SITE.format(body=HSTS).replace("b.example", "c.example"),
        ),
    ),
    (  # stream virtual servers (nginx 1.25.5+) on a TLS address
        "NGX106",
        MID,
        stream(SSITE.format(body=""), SSITE.format(body="").replace("b.example", "c.example")),
        stream(SDEFAULT, SSITE.format(body=""), SSITE.format(body="").replace("b.example", "c.example")),
    ),
    (  # and on a plain one whose servers read the ClientHello's name
        "NGX106",
        NEW,
        stream(
            "server { listen 9443; ssl_preread on; proxy_pass 127.0.0.1:1; }\n",
            "server { listen 9443; server_name q.example; proxy_pass 127.0.0.1:2; }\n",
        ),
        stream(
            "server { listen 9443 default_server; ssl_preread on; proxy_pass 127.0.0.1:1; }\n",
            "server { listen 9443; server_name q.example; proxy_pass 127.0.0.1:2; }\n",
        ),
    ),
    ("NGX107", MID, http(DEFAULT, DEFAULT), http(DEFAULT)),
    (  # a vhost without a certificate: the default server's answers its names
        "NGX715",
        MID,
        http(DEFAULT.replace("ssl_reject_handshake on;", "ssl_certificate a; ssl_certificate_key a;"), SITE.format(body=HSTS).replace("ssl_certificate c; ssl_certificate_key k;", "")),
        http(DEFAULT.replace("ssl_reject_handshake on;", "ssl_certificate a; ssl_certificate_key a;"), SITE.format(body=HSTS)),
    ),
    (  # trial 24: an MQTT server's certificate on a plain listen: plain text where TLS was meant
        "NGX716",
        NEW,
        "events {}\nstream { server { listen 8883; ssl_certificate c; ssl_certificate_key k; proxy_pass 127.0.0.1:1883; } }\n",
        "events {}\nstream { server { listen 8883 ssl; ssl_certificate c; ssl_certificate_key k; proxy_pass 127.0.0.1:1883; } }\n",
    ),
    (  # a default server without one: nginx -t refuses (stream: certificates per server)
        "NGX715",
        NEW,
        "events {}\nstream { server { listen 8443 ssl; proxy_pass 127.0.0.1:1; } }\n",
        "events {}\nstream { server { listen 8443 ssl; ssl_certificate c; ssl_certificate_key k; proxy_pass 127.0.0.1:1; } }\n",
    ),
    (
        "NGX201",
        OLD,
        http("ssl_ecdh_curve X25519MLKEM768:X25519;", DEFAULT),
        http("ssl_ecdh_curve X25519:prime256v1;", DEFAULT),
    ),
    (
        "NGX201",
        ("1.26.3", "boringssl"),
        http("ssl_ecdh_curve X25519:secp256r1;", DEFAULT),
        http("ssl_ecdh_curve X25519:P-256;", DEFAULT),
    ),
    (
        "NGX201",
        ("1.26.3", "aws-lc-1.67.0"),
        http("ssl_ecdh_curve X25519Kyber768Draft00:X25519;", DEFAULT),
        http("ssl_ecdh_curve X25519MLKEM768:X25519;", DEFAULT),
    ),
    ("NGX201", OLD, http("ssl_ecdh_curve p-256;", DEFAULT), http("ssl_ecdh_curve P-256;", DEFAULT)),
    (
        "NGX410",
        ("1.26.3", "aws-lc-5.12.0"),
        http("ssl_ciphers ALL:@SECLEVEL=0;", DEFAULT),
        http("ssl_ciphers ECDHE+AESGCM;", DEFAULT),
    ),
    (
        "NGX504",
        OLD,
        http("ssl_conf_command Options KTLS,IgnoreUnexpectedEOF;", DEFAULT),
        http("ssl_conf_command Options KTLS;", DEFAULT),
    ),
    (
        "NGX202",
        OLD,
        http("ssl_ecdh_curve X25519/secp384r1;", DEFAULT),
        http("ssl_ecdh_curve X25519:secp384r1;", DEFAULT),
    ),
    (
        "NGX202",
        OLD,
        http("ssl_ecdh_curve X25519:X25519;", DEFAULT),
        http("ssl_ecdh_curve X25519;", DEFAULT),
    ),
    (
        "NGX202",  # no library takes an empty element
        MID,
        http("ssl_ecdh_curve X25519MLKEM768:X25519:;", DEFAULT),
        http("ssl_ecdh_curve X25519MLKEM768:X25519;", DEFAULT),
    ),
    (
        "NGX204",
        OLD,
        http("ssl_ecdh_curve X25519:X448:secp384r1:secp256k1;", DEFAULT),
        http("ssl_ecdh_curve X25519:X448:secp384r1;", DEFAULT),
    ),
    (
        "NGX204",
        ("1.26.3", "boringssl"),
        http("ssl_ecdh_curve X25519Kyber768Draft00:X25519;", DEFAULT),
        http("ssl_ecdh_curve X25519MLKEM768:X25519;", DEFAULT),
    ),
    (
        "NGX203",
        MID,
        http("ssl_ecdh_curve X25519MLKEM768:X25519;", DEFAULT),
        http("ssl_ecdh_curve X25519MLKEM768/X25519;", DEFAULT),
    ),
    (
        "NGX301",
        OLD,
        http(DEFAULT, SITE.format(body=f"http2 on; {HSTS}")),
        http(
            DEFAULT.replace("ssl default_server", "ssl http2 default_server"),
            SITE.format(body=HSTS).replace("443 ssl;", "443 ssl http2;"),
        ),
    ),
    (
        "NGX301",
        NEW,
        http(DEFAULT, SITE.format(body=f"ssl on; {HSTS}")),
        http(DEFAULT, SITE.format(body=HSTS)),
    ),
    (
        "NGX301",
        NEW,
        http(DEFAULT, SITE.format(body=f"ssl_key_log /tmp/keys; {HSTS}")),
        http(DEFAULT, SITE.format(body=HSTS)),
    ),
    (
        "NGX302",
        MID,
        http(DEFAULT, SITE.format(body=HSTS).replace("443 ssl;", "443 ssl http2;")),
        http(DEFAULT, SITE.format(body=f"http2 on; {HSTS}")),
    ),
    (
        "NGX302",
        OLD,
        http(DEFAULT, SITE.format(body=f"ssl on; {HSTS}")),
        http(DEFAULT, SITE.format(body=HSTS)),
    ),
    ("NGX303", OLD, http(DEFAULT, top="ssl_session_cache shared:S:1m;"), http(DEFAULT)),
    (
        "NGX401",
        MID,
        http(DEFAULT, top="ssl_session_cache shared:S:1m; ssl_protocols TLSv1 TLSv1.2 TLSv1.3;"),
        http(DEFAULT),
    ),
    (
        "NGX402",
        MID,
        http("ssl_ciphers ALL:!ADH:RC4+RSA:+HIGH;", DEFAULT),
        http("ssl_ciphers ECDHE-ECDSA-AES128-GCM-SHA256:ECDHE-RSA-AES128-GCM-SHA256;", DEFAULT),
    ),
    (
        "NGX403",
        MID,
        http("ssl_ciphers ECDHE-RSA-AES128-SHA:ECDHE-RSA-AES128-GCM-SHA256;", DEFAULT),
        http("ssl_ciphers ECDHE-RSA-AES128-GCM-SHA256;", DEFAULT),
    ),
    # no ssl_ciphers: nginx's default HIGH:!aNULL:!MD5, judged like the string written out
    ("NGX402", MID, http(DEFAULT, SITE.format(body=HSTS)), http(INTERMEDIATE, DEFAULT, SITE.format(body=HSTS))),
    ("NGX403", OLD, http(DEFAULT, SITE.format(body=HSTS)), http(INTERMEDIATE, DEFAULT, SITE.format(body=HSTS))),
    ("NGX402", NEW, stream(SDEFAULT), stream(SDEFAULT, top=INTERMEDIATE)),
    (
        "NGX404",
        MID,
        http("ssl_ciphers TLS_AES_128_GCM_SHA256;", DEFAULT),
        http("ssl_conf_command Ciphersuites TLS_AES_128_GCM_SHA256;", DEFAULT),
    ),
    (
        "NGX404",  # a TLS 1.3 name among TLS 1.2 suites: ignored there
        MID,
        http("ssl_ciphers ECDHE-RSA-AES128-GCM-SHA256:TLS_AES_128_GCM_SHA256;", DEFAULT),
        http("ssl_ciphers ECDHE-RSA-AES128-GCM-SHA256;", DEFAULT),
    ),
    (
        "NGX405",
        MID,
        http("ssl_ciphers ECDHE-RSA-AES128-GCM-SHA256;", DEFAULT),
        http(
            "ssl_ciphers ECDHE-RSA-AES128-GCM-SHA256; ssl_conf_command Ciphersuites TLS_AES_128_GCM_SHA256;",
            DEFAULT,
        ),
    ),
    (
        "NGX406",
        MID,
        http("ssl_conf_command Options PrioritizeChaCha;", DEFAULT),
        http("ssl_conf_command Options PrioritizeChaCha; ssl_prefer_server_ciphers on;", DEFAULT),
    ),
    (
        "NGX407",  # found by the generator fuzz on nginx 1.26.3 (nginx -t refused it)
        MID,
        http(DEFAULT, SITE.format(body=f"listen 443 quic; ssl_protocols TLSv1.2; {HSTS}")),
        http(DEFAULT, SITE.format(body=f"listen 443 quic; ssl_protocols TLSv1.2 TLSv1.3; {HSTS}")),
    ),
    (
        "NGX501",
        ("1.26.3", "boringssl"),
        http("ssl_conf_command Options KTLS;", DEFAULT),
        http(DEFAULT),
    ),
    (
        "NGX502",
        ("1.26.3", "boringssl"),
        http("ssl_stapling on; resolver 127.0.0.53;", DEFAULT),
        http(DEFAULT),
    ),
    ("NGX503", ("1.26.3", "libressl-4.3.0"), http("ssl_early_data on;", DEFAULT), http(DEFAULT)),
    (
        "NGX601",
        MID,
        http(DEFAULT, top="ssl_protocols TLSv1.2 TLSv1.3; ssl_session_cache builtin;"),
        http(DEFAULT),
    ),
    (
        "NGX602",
        OLD,
        http(DEFAULT),
        http(
            DEFAULT,
            top="ssl_session_cache shared:S:1m; ssl_protocols TLSv1.2 TLSv1.3; ssl_session_tickets off;",
        ),
    ),
    ("NGX603", MID, http("keepalive_timeout 0;", DEFAULT), http("keepalive_timeout 75s;", DEFAULT)),
    (
        "NGX606",
        ("1.26.3", "boringssl"),
        http(
            DEFAULT,
            top="ssl_session_cache shared:S:1m; ssl_protocols TLSv1.2 TLSv1.3; ssl_session_tickets off;",
        ),
        http(DEFAULT),
    ),
    (
        "NGX604",
        MID,
        http("keepalive_requests 100;", DEFAULT),
        http("keepalive_requests 1000;", DEFAULT),
    ),
    (
        "NGX605",
        MID,
        http("ssl_conf_command Options KTLS;", DEFAULT),
        http("ssl_conf_command Options KTLS; sendfile on;", DEFAULT),
    ),
    (
        "NGX014",
        MID,
        http(  # the first two listens settle the address on ssl and http2, the third not
            DEFAULT.replace("443 ssl", "443 ssl http2"),
            SITE.format(body="").replace("443 ssl;", "443 ssl http2;"),
            SITE.format(body="").replace("b.example", "c.example"),
        ),
        http(
            DEFAULT,
            SITE.format(body="http2 on;"),
            SITE.format(body="http2 on;").replace("b.example", "c.example"),
        ),
    ),
    (
        "NGX016",
        MID,
        http(DEFAULT, SITE.format(body="access_log logs/a.log default;")),
        http(DEFAULT, SITE.format(body="access_log logs/a.log combined;")),
    ),
    (
        "NGX017",
        MID,
        http(DEFAULT, SITE.format(body=""), SITE.format(body="")),
        http(DEFAULT, SITE.format(body=""), SITE.format(body="").replace("b.ex", "c.ex")),
    ),
    (
        "NGX018",
        MID,
        http(DEFAULT, SITE.format(body="").replace("b.example", "b" * 40 + ".example")),
        http(
            "server_names_hash_bucket_size 128;",
            DEFAULT,
            SITE.format(body="").replace("b.example", "b" * 40 + ".example"),
        ),
    ),
    (
        "NGX019",
        MID,
        "user nobody;\nhttp {\n    server { listen 8080; return 204; }\n}\n",
        "user nobody;\nevents {}\nhttp {\n    server { listen 8080; return 204; }\n}\n",
    ),
    (
        "NGX020",
        MID,
        "events {}\nstream { server { listen 127.0.0.1:8443; proxy_pass 127.0.0.1:9443; } }\n"
        "http { server { listen 127.0.0.1:8443; return 204; } }\n",
        "events {}\nstream { server { listen 127.0.0.1:8443; proxy_pass 127.0.0.1:9443; } }\n"
        "http { server { listen 127.0.0.1:9443; return 204; } }\n",
    ),
    (
        "NGX021",
        MID,
        "load_module modules/ngx_stream_module.so;\nload_module /usr/lib/nginx/modules/"
        "ngx_stream_module.so;\nevents {}\n",
        "load_module modules/ngx_stream_module.so;\nevents {}\n",
    ),
    (
        "NGX022",
        MID,
        "events {}\nhttp {\n    map $uri $a {\n        /x 1;\n        /x 2;\n    }\n}\n",
        "events {}\nhttp {\n    map $uri $a {\n        /x 1;\n    }\n}\n",
    ),
    (
        "NGX024",
        MID,
        http(DEFAULT, SITE.format(body=f"{HSTS} location ~ ^/(api|app {{ return 204; }}")),
        http(DEFAULT, SITE.format(body=f"{HSTS} location ~ ^/(api|app) {{ return 204; }}")),
    ),
    (
        "NGX025",
        MID,
        http(DEFAULT, SITE.format(body=f"{HSTS} location /a/ {{ location /b/ {{ }} }}")),
        http(DEFAULT, SITE.format(body=f"{HSTS} location /a/ {{ location /a/b/ {{ }} }}")),
    ),
    (
        "NGX026",
        MID,
        http(DEFAULT, SITE.format(body=f"{HSTS} location ~ /a {{ proxy_pass http://b:8/; }}")),
        http(DEFAULT, SITE.format(body=f"{HSTS} location ~ /a {{ proxy_pass http://b:8; }}")),
    ),
    (
        "NGX027",
        MID,
        http(DEFAULT, SITE.format(body=f"{HSTS} allow 10.0.0.1/8; deny all;")),
        http(DEFAULT, SITE.format(body=f"{HSTS} allow 10.0.0.0/8; deny all;")),
    ),
    (
        "NGX028",
        MID,
        "events {}\nhttp {\n    server { listen [::]:80 ipv6only=off default_server; }\n"
        "    server { listen 80; server_name a.example; }\n}\n",
        "events {}\nhttp {\n    server { listen [::]:80 ipv6only=off default_server; }\n"
        "    server { listen [::]:80; server_name a.example; }\n}\n",
    ),
    (
        "NGX029",
        MID,
        "events {}\nhttp {\n    map $host $v { default 1; }\n    map $uri $v { default 2; }\n"
        "    server { listen 80; return 200 $v; }\n}\n",
        "events {}\nhttp {\n    map $host $v { default 1; }\n    map $uri $w { default 2; }\n"
        "    server { listen 80; return 200 $v$w; }\n}\n",
    ),
    (
        "NGX023",
        MID,
        "events {}\nhttp {\n    map $uri $a {\n        " + "/k" * 30 + " 1;\n    }\n}\n",
        "events {}\nhttp {\n    map_hash_bucket_size 128;\n    map $uri $a {\n        "
        + "/k" * 30
        + " 1;\n    }\n}\n",
    ),
    ("NGX701", MID, http(DEFAULT, SITE.format(body="")), http(DEFAULT, SITE.format(body=HSTS))),
    (
        "NGX702",
        MID,
        http(DEFAULT, SITE.format(body='add_header Strict-Transport-Security "max-age=63072000";')),
        http(DEFAULT, SITE.format(body=HSTS)),
    ),
    (
        "NGX703",
        MID,
        http(
            DEFAULT, SITE.format(body='add_header Strict-Transport-Security "max-age=3600" always;')
        ),
        http(DEFAULT, SITE.format(body=HSTS)),
    ),
    (
        "NGX704",
        MID,
        http(
            DEFAULT, SITE.format(body=f"{HSTS} location /s/ {{ add_header Cache-Control public; }}")
        ),
        http(
            DEFAULT,
            SITE.format(body=f"{HSTS} location /s/ {{ add_header Cache-Control public; {HSTS} }}"),
        ),
    ),
    (
        "NGX704",
        ("1.31.3", "openssl-3.3.7"),
        http(
            DEFAULT, SITE.format(body=f"{HSTS} location /s/ {{ add_header Cache-Control public; }}")
        ),
        http(
            DEFAULT,
            SITE.format(
                body=f"{HSTS} add_header_inherit merge; location /s/ {{ add_header Cache-Control public; }}"
            ),
        ),
    ),
    (  # issue 37: off drops HSTS in a location without add_header lines of its own
        "NGX704",
        NEW,
        http(DEFAULT, SITE.format(body=f"{HSTS} add_header_inherit off; location /static/ {{ }}")),
        http(
            DEFAULT, SITE.format(body=f"{HSTS} add_header_inherit merge; location /static/ {{ }}")
        ),
    ),
    (
        "NGX711",
        MID,
        http("ssl_stapling on;", DEFAULT),
        http("ssl_stapling on; resolver 127.0.0.53;", DEFAULT),
    ),
    (
        "NGX712",
        MID,
        http("ssl_stapling on; resolver 127.0.0.53; ssl_stapling_verify on;", DEFAULT),
        http(
            "ssl_stapling on; resolver 127.0.0.53; ssl_stapling_verify on; ssl_trusted_certificate /ca.pem;",
            DEFAULT,
        ),
    ),
    (
        "NGX713",
        MID,
        http("ssl_early_data on;", DEFAULT, SITE.format(body=f"{HSTS} {BACKEND}")),
        http(
            "ssl_early_data on; ssl_conf_command Options AntiReplay;",
            DEFAULT,
            SITE.format(body=f"{HSTS} {BACKEND}"),
        ),
    ),
    (
        "NGX714",
        MID,
        http(DEFAULT, SITE.format(body=f"ssl_certificate c2; {HSTS}")),
        http(DEFAULT, SITE.format(body=f"ssl_certificate c2; ssl_certificate_key k2; {HSTS}")),
    ),
    ("NGX001", MID, "http { server { listen 443 ssl }\n", "http { }\n"),
    (
        "NGX006",  # Debian 12's nginx.conf line, then a second one at the same level
        OLD,
        http("ssl_protocols TLSv1 TLSv1.1 TLSv1.2 TLSv1.3;\n", DEFAULT),
        http(DEFAULT, top="ssl_session_cache shared:S:1m; ssl_protocols TLSv1.2 TLSv1.3;"),
    ),
    (
        "NGX006",
        MID,
        http("ssl_prefer_server_ciphers off; ssl_prefer_server_ciphers on;", DEFAULT),
        http("ssl_prefer_server_ciphers on;", DEFAULT),
    ),
    ("NGX007", MID, http("add_heder X-A b;", DEFAULT), http("add_header X-A b;", DEFAULT)),
    (
        "NGX007",  # a third-party module's directive: info, naming the module
        MID,
        http('more_set_headers "X: y";', DEFAULT),
        http("add_header X y;", DEFAULT),
    ),
    (
        "NGX008",
        MID,
        http(
            "server { listen 443 ssl default_server; ssl_reject_handshake on; location / { ssl_protocols TLSv1.2; } }"
        ),
        http(
            "server { listen 443 ssl default_server; ssl_reject_handshake on; ssl_protocols TLSv1.2; location / { } }"
        ),
    ),
    (
        "NGX009",
        MID,
        http(
            "server { listen 443 ssl default_server; ssl_reject_handshake on; ssl_certificate a b; }"
        ),
        http(
            "server { listen 443 ssl default_server; ssl_reject_handshake on; ssl_certificate a; ssl_certificate_key b; }"
        ),
    ),
    (
        "NGX010",
        MID,
        http("ssl_session_tickets yes; ssl_buffer_size 4x;", DEFAULT),
        http("ssl_session_tickets on; ssl_buffer_size 4k;", DEFAULT),
    ),
    (
        "NGX011",
        MID,
        http(DEFAULT, SITE.format(body=f"add_header X-Signature $ssl_sigalg always; {HSTS}")),
        http(DEFAULT, SITE.format(body=f"add_header X-Signature $ssl_curve always; {HSTS}")),
    ),
    (
        "NGX012",
        MID,
        http(DEFAULT, SITE.format(body=f"{HSTS} location / {{ limit_req zone=perip; }}")),
        http(
            "limit_req_zone $binary_remote_addr zone=perip:10m rate=5r/s;",
            DEFAULT,
            SITE.format(body=f"{HSTS} location / {{ limit_req zone=perip; }}"),
        ),
    ),
    (
        "NGX013",
        MID,
        http(
            "server { listen 8080 reuseport; server_name a.example; }\n",
            "server { listen 8080 reuseport; server_name b.example; }\n",
        ),
        http(
            "server { listen 8080 reuseport; server_name a.example; }\n",
            "server { listen 8080; server_name b.example; }\n",
        ),
    ),
    (
        "NGX015",
        MID,
        http(
            DEFAULT,
            SITE.format(
                body=f"{HSTS} location / {{ proxy_set_header X-Forwarded-For $remote_addr; "
                "proxy_set_header X-Forwarded-For $remote_addr; proxy_pass http://127.0.0.1:1; }"
            ),
        ),
        http(
            DEFAULT,
            SITE.format(
                body=f"{HSTS} location / {{ proxy_set_header X-Forwarded-For $remote_addr; "
                "proxy_pass http://127.0.0.1:1; }"
            ),
        ),
    ),
    (
        "NGX108",
        MID,
        http(
            "server { listen 443 ssl default_server; http2 on; ssl_reject_handshake on; }\n",
            SITE.format(body=HSTS),
        ),
        http(
            "server { listen 443 ssl default_server; http2 on; ssl_reject_handshake on; return 421; }\n",
            SITE.format(body=HSTS),
        ),
    ),
    (
        "NGX408",
        MID,
        http("ssl_ciphers AES128-SHA128;", DEFAULT),
        http("ssl_ciphers ECDHE-ECDSA-AES128-GCM-SHA256;", DEFAULT),
    ),
    (
        "NGX408",  # LibreSSL takes TLS 1.3 suites from ssl_ciphers: their names enable them
        ("1.25.5", "libressl-4.3.0"),
        http("ssl_ciphers AES128-SHA128;", DEFAULT),
        http("ssl_ciphers TLS_AES_128_GCM_SHA256;", DEFAULT),
    ),
    (
        "NGX408",  # nginx as a client: the string is handed to the library where a pass is TLS
        MID,
        http(
            "proxy_ssl_ciphers AES128-SHA128;",
            SITE.format(body=f"{HSTS} location / {{ proxy_pass https://127.0.0.1:1; }}"),
        ),
        http(
            "proxy_ssl_ciphers AES128-SHA128;",
            SITE.format(body=f"{HSTS} location / {{ proxy_pass http://127.0.0.1:1; }}"),
        ),
    ),
    (
        "NGX409",
        MID,
        http(DEFAULT, top="ssl_session_cache shared:S:1m; ssl_protocols TLSv1.2;"),
        http(DEFAULT),
    ),
    # stream{} (issue 38): the default-server rules hold for stream servers where the facts do
    (
        "NGX101",
        MID,
        stream(SDEFAULT, SSITE.format(body="ssl_ecdh_curve X25519;")),
        stream(SDEFAULT, SSITE.format(body=""), top="ssl_ecdh_curve X25519;"),
    ),
    (
        "NGX102",
        MID,
        stream(SDEFAULT, SSITE.format(body="ssl_session_cache shared:B:1m;")),
        stream(SDEFAULT, SSITE.format(body=""), top="ssl_session_cache shared:B:1m;"),
    ),
    (
        "NGX103",
        MID,
        stream(SDEFAULT, SSITE.format(body="ssl_protocols TLSv1.3;")),
        stream(SDEFAULT, SSITE.format(body=""), top="ssl_protocols TLSv1.3;"),
    ),
    (
        "NGX105",
        MID,
        stream(
            SDEFAULT.replace("proxy_pass", "ssl_session_tickets off; proxy_pass"),
            SSITE.format(body="ssl_session_tickets on;"),
        ),
        stream(SDEFAULT, SSITE.format(body=""), top="ssl_session_tickets off;"),
    ),
    ("NGX107", MID, stream(SDEFAULT, SDEFAULT), stream(SDEFAULT)),
    (
        "NGX109",
        NEW,
        stream(
            "server { listen 9443 default_server; proxy_pass 127.0.0.1:1; }\n",
            "server { listen 9443; server_name q.example; ssl_preread on; proxy_pass 127.0.0.1:2; }\n",
        ),
        stream(
            "server { listen 9443 default_server; proxy_pass 127.0.0.1:1; }\n",
            "server { listen 9443; server_name q.example; proxy_pass 127.0.0.1:2; }\n",
            top="ssl_preread on;",
        ),
    ),
    # Encrypted Client Hello (issue 39); the key file rules NGX751/NGX752 in test_lint_ech
    (
        "NGX110",
        ECH,
        http(DEFAULT, SITE.format(body=f"ssl_ech_file ech.pem; {HSTS}")),
        http(DEFAULT, SITE.format(body=HSTS),
             top="ssl_session_cache shared:S:1m; ssl_protocols TLSv1.3; ssl_ech_file ech.pem;"),
    ),
    (
        "NGX110",  # stream{} alike (scripts/ech_nginx_proof.py, stream-vhost-only)
        ECH,
        stream(SDEFAULT, SSITE.format(body="ssl_ech_file ech.pem;")),
        stream(SDEFAULT, SSITE.format(body=""), top="ssl_ech_file ech.pem;"),
    ),
    (
        "NGX412",
        ECH,
        http(DEFAULT, SITE.format(body=HSTS),
             top="ssl_session_cache shared:S:1m; ssl_protocols TLSv1.2; ssl_ech_file ech.pem;"),
        http(DEFAULT, SITE.format(body=HSTS),
             top="ssl_session_cache shared:S:1m; ssl_protocols TLSv1.3; ssl_ech_file ech.pem;"),
    ),
    (
        "NGX505",
        NEW,
        http(DEFAULT, SITE.format(body=HSTS),
             top="ssl_session_cache shared:S:1m; ssl_protocols TLSv1.3; ssl_ech_file ech.pem;"),
        http(DEFAULT, SITE.format(body=HSTS), top="ssl_session_cache shared:S:1m;"),
    ),
    (
        "NGX801",
        NEW,
        stream("server { listen 5432; proxy_pass db.internal:5432; proxy_ssl on; }\n"),
        stream(
            "server { listen 5432; proxy_pass db.internal:5432; proxy_ssl on; "
            "proxy_ssl_verify on; proxy_ssl_trusted_certificate ca.pem; }\n"
        ),
    ),
    (  # stream's proxy_ssl, verified or not, sends no SNI without proxy_ssl_server_name
        "NGX802",
        NEW,
        stream(
            "server { listen 5432; proxy_pass db.internal:5432; proxy_ssl on; "
            "proxy_ssl_verify on; proxy_ssl_trusted_certificate ca.pem; }\n"
        ),
        stream(
            "server { listen 5432; proxy_pass db.internal:5432; proxy_ssl on; "
            "proxy_ssl_verify on; proxy_ssl_trusted_certificate ca.pem; "
            "proxy_ssl_server_name on; }\n"
        ),
    ),
    (
        "NGX401",
        NEW,
        stream(SDEFAULT, top="ssl_protocols TLSv1 TLSv1.2;"),
        stream(SDEFAULT, top="ssl_protocols TLSv1.2;"),
    ),
    # client certificates (issue 38)
    (
        "NGX010",
        MID,
        http(DEFAULT, SITE.format(body=f"ssl_verify_client on; {HSTS} {CRL}")),
        http(DEFAULT, SITE.format(body=f"ssl_verify_client on; {CA} {HSTS} {CRL}")),
    ),
    (  # 1.26.3 takes only ssl_client_certificate; from 1.27.2 the trusted list is enough
        "NGX010",
        MID,
        http(DEFAULT, SITE.format(body=f"ssl_verify_client optional; {TRUSTED} {CHECK} {CRL}")),
        http(DEFAULT, SITE.format(body=f"ssl_verify_client optional; {CA} {CHECK} {CRL}")),
    ),
    (
        "NGX010",
        MID,
        http(DEFAULT, SITE.format(body=f"ssl_verify_client optional_no_ca; ssl_ocsp on; {CHECK}")),
        http(DEFAULT, SITE.format(body=f"ssl_verify_client optional_no_ca; {CHECK}")),
    ),
    (
        "NGX741",
        MID,
        http(DEFAULT, SITE.format(body=f"ssl_verify_client optional; {CA} {HSTS} {CRL}")),
        http(DEFAULT, SITE.format(body=f"ssl_verify_client optional; {CA} {HSTS} {CRL} {CHECK}")),
    ),
    (
        "NGX741",
        MID,
        http(DEFAULT, SITE.format(body=f"ssl_verify_client optional_no_ca; {HSTS}")),
        http(
            DEFAULT,
            SITE.format(body=f"ssl_verify_client optional_no_ca; {HSTS} location / {{ {PASS_VERIFY} }}"),
        ),
    ),
    (
        "NGX743",
        MID,
        http(
            DEFAULT.replace(
                "ssl_reject_handshake on;", "http2 on; ssl_certificate c; ssl_certificate_key k;"
            ),
            SITE.format(body=f"http2 on; ssl_verify_client on; {CA} {HSTS} {CRL}"),
        ),
        http(
            DEFAULT.replace(
                "ssl_reject_handshake on;", "http2 on; ssl_certificate c; ssl_certificate_key k;"
            ),
            SITE.format(body=f"ssl_verify_client on; {CA} {HSTS} {CRL}"),
        ),
    ),
    (  # the reject-handshake default server shares no connection; the site's second name does
        "NGX743",
        MID,
        http(
            DEFAULT,
            SITE.format(body=f"http2 on; ssl_verify_client on; {CA} {HSTS} {CRL}").replace(
                "server_name b.example", "server_name b.example www.b.example"
            ),
        ),
        http(DEFAULT, SITE.format(body=f"http2 on; ssl_verify_client on; {CA} {HSTS} {CRL}")),
    ),
    (
        "NGX744",
        MID,
        http(DEFAULT, SITE.format(body=f"ssl_verify_client on; {CA} {HSTS}")),
        http(DEFAULT, SITE.format(body=f"ssl_verify_client on; {CA} {HSTS} {CRL}")),
    ),
    (
        "NGX004",
        MID,
        http("ssl_protocols TLSv1 TLSv1.2; # nginxgen: ignore[NGX401]\n", DEFAULT),
        http(
            "ssl_protocols TLSv1 TLSv1.2; # nginxgen: ignore[NGX401] kiosks on Android 4.1\n",
            DEFAULT,
        ),
    ),
    # TLS towards backends (conf/upstream)
    (
        "NGX801",
        MID,
        http(DEFAULT, SITE.format(body=f"{HSTS} location / {{ proxy_pass https://b.example; }}")),
        http(DEFAULT, SITE.format(body=f"{HSTS} location / {{ {PASS} }}")),
    ),
    (
        "NGX801",  # grpc has its own switch: proxy_ssl_verify does not reach it
        MID,
        http(DEFAULT, SITE.format(body=f"{HSTS} proxy_ssl_verify on; proxy_ssl_trusted_certificate /ca.pem; location / {{ grpc_pass grpcs://b.example:50051; }}")),
        http(DEFAULT, SITE.format(body=f"{HSTS} grpc_ssl_verify on; grpc_ssl_trusted_certificate /ca.pem; grpc_ssl_server_name on; location / {{ grpc_pass grpcs://b.example:50051; }}")),
    ),
    (
        "NGX802",
        MID,
        http(DEFAULT, SITE.format(body=f"{HSTS} location / {{ proxy_pass https://localhost; proxy_ssl_verify on; proxy_ssl_trusted_certificate /ca.pem; }}")),
        http(DEFAULT, SITE.format(body=f"{HSTS} location / {{ {PASS} }}")),
    ),
    (
        "NGX803",
        MID,
        http(UPSTREAM, DEFAULT, SITE.format(body=f"{HSTS} location / {{ proxy_pass https://backend; proxy_ssl_verify on; proxy_ssl_trusted_certificate /ca.pem; proxy_ssl_server_name on; }}")),
        http(UPSTREAM, DEFAULT, SITE.format(body=f"{HSTS} location / {{ proxy_pass https://backend; proxy_ssl_verify on; proxy_ssl_trusted_certificate /ca.pem; proxy_ssl_server_name on; proxy_ssl_name api.example; }}")),
    ),
    (
        "NGX804",
        MID,
        http(UPSTREAM, DEFAULT, SITE.format(body=f"{HSTS} location / {{ proxy_pass https://backend; }}")),
        http(UPSTREAM.replace("}", "keepalive 16; }"), DEFAULT, SITE.format(body=f"{HSTS} location / {{ proxy_pass https://backend; proxy_http_version 1.1; proxy_set_header Connection \"\"; }}")),
    ),
    (
        "NGX805",
        MID,
        http(DEFAULT, SITE.format(body=f"{HSTS} location / {{ {PASS} proxy_ssl_protocols TLSv1 TLSv1.2; }}")),
        http(DEFAULT, SITE.format(body=f"{HSTS} location / {{ {PASS} proxy_ssl_protocols TLSv1.2; }}")),
    ),
    (
        "NGX806",
        MID,
        http(DEFAULT, SITE.format(body=f"{HSTS} location / {{ {PASS} proxy_ssl_conf_command Groups X25519:prime256v1; }}")),
        http(DEFAULT, SITE.format(body=f"{HSTS} location / {{ {PASS} proxy_ssl_conf_command Groups X25519MLKEM768:X25519:prime256v1; }}")),
    ),
    (
        "NGX807",
        MID,
        http(UPSTREAM.replace("}", "keepalive 16; }"), DEFAULT, SITE.format(body=f"{HSTS} location /a {{ proxy_pass https://backend; }} location /b {{ proxy_pass https://backend; proxy_ssl_verify on; proxy_ssl_trusted_certificate /ca.pem; proxy_ssl_name api.example; }}")),
        http(UPSTREAM.replace("}", "keepalive 16; }"), DEFAULT, SITE.format(body=f"{HSTS} proxy_ssl_verify on; proxy_ssl_trusted_certificate /ca.pem; proxy_ssl_name api.example; location /a {{ proxy_pass https://backend; }} location /b {{ proxy_pass https://backend; }}")),
    ),
    (
        "NGX807",  # from 1.29.7 a block without a keepalive line keeps connections per location
        NEW,
        http(UPSTREAM.replace("}", "keepalive 16; }"), DEFAULT, SITE.format(body=f"{HSTS} location /a {{ proxy_pass https://backend; }} location /b {{ proxy_pass https://backend; proxy_ssl_server_name on; proxy_ssl_name api.example; }}")),
        http(UPSTREAM, DEFAULT, SITE.format(body=f"{HSTS} location /a {{ proxy_pass https://backend; }} location /b {{ proxy_pass https://backend; proxy_ssl_server_name on; proxy_ssl_name api.example; }}")),
    ),
]  # fmt: skip


def findings_of(
    text: str, target: tuple[str, str], tmp_path: Path, name: str = "nginx.conf"
) -> list[Finding]:
    path = tmp_path / name
    path.write_text(text)
    return lint_checked(load_path(str(path)), resolve(*target))


def codes(
    text: str, target: tuple[str, str], tmp_path: Path, name: str = "nginx.conf"
) -> list[str]:
    return [f.code for f in findings_of(text, target, tmp_path, name)]


# a word said twice in a row, "the default server server (no server_name)", or "((not set))"
# (issue 35)
DOUBLED = re.compile(r"\b(\w+) \1(?![\w.])|\(\(", re.IGNORECASE)


@pytest.mark.parametrize(
    ("code", "target", "bad", "good"), CASES, ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)]
)
def test_rule_fires_and_fix_silences_it(
    code: str, target: tuple[str, str], bad: str, good: str, tmp_path: Path
) -> None:
    found = findings_of(bad, target, tmp_path)
    assert code in [f.code for f in found], f"{code} did not fire"
    doubled = [f.message for f in found if DOUBLED.search(f.message)]
    assert doubled == [], "a word twice in a row"
    assert code not in codes(good, target, tmp_path, "fixed.conf"), (
        f"{code} still fires after the fix"
    )


def test_a_quic_listen_nginx_refuses_is_not_judged_for_its_protocols(tmp_path: Path) -> None:
    # trial 22: on nginx 1.22.1 `quic` is an invalid parameter (NGX010), and nginx -t stops
    # there; NGX407 said a second error, for a reason nginx never reaches
    text = http(DEFAULT, SITE.format(body=f"listen 443 quic; ssl_protocols TLSv1.2; {HSTS}"))
    assert "NGX407" in codes(text, MID, tmp_path)
    old = codes(text, OLD, tmp_path, "old.conf")
    assert "NGX010" in old and "NGX407" not in old


def test_the_session_rules_say_the_default_and_the_shared_cache_in_plain_words(
    tmp_path: Path,
) -> None:
    # trial 22: "for *:443 (none (the default))" and "without a shared: session cache"
    text = http(DEFAULT, SITE.format(body=HSTS), top="")
    said = {f.code: f.message for f in findings_of(text, MID, tmp_path)}
    assert "(none, the default)" in said["NGX601"]
    assert "without a shared session cache (ssl_session_cache shared:...)" in said["NGX602"]


def test_a_protocol_line_that_leaves_no_protocol_is_an_error(tmp_path: Path) -> None:
    # trial 22 (a mail proxy from the nginx wiki): `ssl_protocols TLSv1 SSLv3;` on OpenSSL 3
    # leaves nothing to negotiate, every STARTTLS failed with `protocol version`; lint said an
    # info (dead configuration) and NGX409's "a round trip more"
    text = http(DEFAULT, SITE.format(body=HSTS), top="ssl_protocols TLSv1 SSLv3;")
    said = {f.code: f for f in findings_of(text, MID, tmp_path)}
    assert said["NGX401"].severity == "error" and "every handshake fails" in said["NGX401"].message
    mixed = text.replace("TLSv1 SSLv3;", "TLSv1 TLSv1.2;")
    assert {f.code: f.severity for f in findings_of(mixed, MID, tmp_path, "b.conf")}[
        "NGX401"
    ] == "info"


def test_every_rule_has_a_case() -> None:
    in_inputs = {"NGX002", "NGX003", "NGX005"}  # in test_lint_inputs
    in_inputs |= {"NGX304"}  # needs a binary's nginx -V: in test_advisories
    file_rules = {f"NGX72{i}" for i in range(1, 9)} | {f"NGX73{i}" for i in range(1, 5)}
    # ^ in test_lint_files
    file_rules |= {"NGX742"}  # in test_client_certs (CA files)
    file_rules |= {"NGX411"}  # in test_lint_files and, on the builds, test_value_regressions
    file_rules |= {"NGX413"}  # in test_lint_files (certificate files)
    file_rules |= {"NGX751", "NGX752"}  # in test_lint_ech (ECH key files)
    tested = {c[0] for c in CASES} | in_inputs | file_rules
    assert set(catalog()) == tested


@pytest.mark.parametrize(
    ("body", "target", "where"),
    [
        # the line that drops HSTS: each location that inherits off
        ("add_header_inherit off;\nlocation /a/ { }\nlocation /b/ { }", NEW,
         ["location /a/ { }", "location /b/ { }"]),
        # off in the location itself; the nested location inherits the emptied list: once
        ("location /a/ {\nadd_header_inherit off;\nlocation /a/n/ { }\n}", NEW,
         ["add_header_inherit off;"]),
        # a replacing add_header drops it for the nested location too: once, on that line
        ("location /a/ {\nadd_header X 1;\nlocation /a/n/ { }\n}", NEW, ["add_header X 1;"]),
        ("add_header_inherit merge;\nlocation /a/ {\nadd_header X 1;\n}", NEW, []),
        # before 1.29.3 add_header_inherit is no directive (NGX301): the location replaces
        ("add_header_inherit merge;\nlocation /a/ {\nadd_header X 1;\n}", MID,
         ["add_header X 1;"]),
        ("add_header_inherit off;\nlocation /a/ { }", MID, []),
    ],
)  # fmt: skip
def test_where_hsts_is_dropped(
    body: str, target: tuple[str, str], where: list[str], tmp_path: Path
) -> None:
    config = http(DEFAULT, SITE.format(body=f"{HSTS}\n{body}\n"))
    lines = config.splitlines()
    dropped = [f for f in findings_of(config, target, tmp_path) if f.code == "NGX704"]
    assert [lines[f.line - 1].strip() for f in dropped] == where


def test_hsts_without_always_is_judged_where_https_answers(tmp_path: Path) -> None:
    """NGX702 on a plain-HTTP server's HSTS line was advice about a header browsers ignore there
    (RFC 6797, 8.1): found trying Frappe's bench template as a new user. The HTTPS server's line
    beside it is still judged, as is a snippet's line whose servers are elsewhere."""
    bare = 'add_header Strict-Transport-Security "max-age=63072000";'
    plain = f"server {{ listen 80; server_name b.example; {bare} }}\n"
    assert "NGX702" not in codes(http(plain), MID, tmp_path)
    both = http(DEFAULT, plain, SITE.format(body=bare))
    lines = both.splitlines()
    hits = [f for f in findings_of(both, MID, tmp_path) if f.code == "NGX702"]
    assert [lines[f.line - 1] for f in hits] == [lines[-2]], hits  # the HTTPS server's line
    assert "NGX702" in codes(bare + "\n", MID, tmp_path, "hsts.conf")


def test_a_line_included_in_several_places_is_one_finding(tmp_path: Path) -> None:
    """One listen file in three servers (nginx-admins-handbook's tree, tried as a new user):
    NGX302 met the line once per server, and where the servers' fixes differed (one server alone
    on its address can take `http2 on;` safely, the others not) the findings differed only in
    that, and both were printed. One finding now, with the fix that goes least far."""
    (tmp_path / "listen.conf").write_text(
        "listen 127.0.0.1:8443 ssl http2;\nssl_certificate c;\nssl_certificate_key k;\n"
    )
    (tmp_path / "a.conf").write_text("server { include listen.conf; server_name a; }\n")
    (tmp_path / "b.conf").write_text(
        "server { include listen.conf; server_name b; }\n"
        "server { include listen.conf; server_name c; }\n"
    )
    text = "events {}\nhttp {\ninclude a.conf;\ninclude b.conf;\n}\n"
    found = [f for f in findings_of(text, MID, tmp_path) if f.code == "NGX302"]
    assert [(f.file.rsplit("/", 1)[-1], f.line) for f in found] == [("listen.conf", 1)], found


def test_http2_moves_safely_beside_a_quic_listen(tmp_path: Path) -> None:
    """Trial 15 (keioni/http3, yurymuski/nginx-http3): `listen ... quic` beside `listen ... ssl
    http2` made NGX302's `http2 on;` fix unsafe, so `--fix` left the deprecation. `http2 on;`
    does nothing to a QUIC listen (it speaks HTTP/3): the fix is safe there."""
    server = (
        "server {{ listen 8443 quic reuseport;\n listen 8443 ssl http2;\n{extra}"
        " ssl_certificate c; ssl_certificate_key k; }}"
    )
    text = "events {}\nhttp {\n" + server.format(extra="") + "\n}\n"
    (found,) = [f for f in findings_of(text, MID, tmp_path) if f.code == "NGX302"]
    assert found.autofix == "safe", found
    shared = server.format(extra="") + "\nserver { listen 8443 ssl; server_name b; }"
    text = "events {}\nhttp {\n" + shared + "\n}\n"
    (found,) = [f for f in findings_of(text, MID, tmp_path) if f.code == "NGX302"]
    assert found.autofix == "unsafe", found  # another server shares the TCP address


def test_a_server_is_named_by_its_tcp_address_before_its_quic_one(tmp_path: Path) -> None:
    """Trial 15: with `listen ... quic` first, NGX601 and NGX602 named the server `*:8443/udp`,
    saying QUIC lacks session-ID resumption (it never has it). The TCP address is named."""
    text = (
        "events {}\nhttp {\nserver { listen 8443 quic reuseport;\n listen 8443 ssl;\n"
        " ssl_certificate c; ssl_certificate_key k; }\n}\n"
    )
    found = [f for f in findings_of(text, MID, tmp_path) if f.code in ("NGX601", "NGX602")]
    assert found and all("/udp" not in f.message and "*:8443" in f.message for f in found), found


def test_no_stream_default_server_question_before_1_25_5(tmp_path: Path) -> None:
    """Before stream virtual servers one stream address:port takes one server: no name picks
    another, so NGX106 has nothing to say (and `default_server` is no stream listen parameter)."""
    plain = stream(SSITE.format(body=""), SSITE.format(body="").replace("b.example", "c.example"))
    assert "NGX106" in codes(plain, MID, tmp_path)
    assert "NGX106" not in codes(plain, ("1.24.0", "openssl-3.0"), tmp_path)


def test_protocols_in_vhost_is_honoured_from_1_29_2(tmp_path: Path) -> None:
    config = http(DEFAULT, SITE.format(body=f"ssl_protocols TLSv1.3; {HSTS}"))
    assert "NGX103" in codes(config, ("1.28.3", "openssl-3.5.7"), tmp_path)
    assert "NGX103" not in codes(config, ("1.31.3", "openssl-3.3.7"), tmp_path)
    assert "NGX103" in codes(
        config, ("1.31.3", "libressl-4.3.0"), tmp_path
    )  # no ClientHello callback


def test_a_vhost_protocols_line_the_default_server_overrides_enables_nothing(
    tmp_path: Path,
) -> None:
    """Trial 11, F10: before nginx 1.29.2 a vhost's `ssl_protocols TLSv1.1 TLSv1.2` is ignored
    (s_client got TLS 1.3 from that name on Debian 13's nginx): NGX103 says so, and NGX401
    (`TLSv1.1 enabled`) and NGX409 (`switches TLS 1.3 off`) said the opposite on the same line.
    Where the target honours the line, they judge it."""
    config = http(DEFAULT, SITE.format(body=f"ssl_protocols TLSv1.1 TLSv1.2; {HSTS}"))
    ignored = codes(config, ("1.26.3", "openssl-3.5.7"), tmp_path)
    assert "NGX103" in ignored and "NGX401" not in ignored and "NGX409" not in ignored
    honoured = codes(config, ("1.31.3", "openssl-3.3.7"), tmp_path)
    assert "NGX103" not in honoured and "NGX401" in honoured and "NGX409" in honoured


def test_default_server_rules_across_include_files(tmp_path: Path) -> None:
    (tmp_path / "conf.d").mkdir()
    (tmp_path / "conf.d" / "00-default.conf").write_text(DEFAULT)
    (tmp_path / "conf.d" / "10-site.conf").write_text(
        SITE.format(body=f"ssl_ecdh_curve secp384r1; {HSTS}")
    )
    main = tmp_path / "nginx.conf"
    main.write_text(http("include conf.d/*.conf;\n"))
    findings = lint_checked(load_path(str(main)), resolve(*MID))
    (hit,) = [f for f in findings if f.code == "NGX101"]
    assert hit.file.endswith("10-site.conf") and hit.line == 1
    assert "00-default.conf" in hit.message


def test_every_rule_documents_itself() -> None:
    for code, entry in catalog().items():
        assert entry.rule.name == entry.rule.name.lower() and " " not in entry.rule.name
        assert entry.rule.severity in ("error", "warning", "info")
        assert len(entry.doc.strip()) > 80, code
        assert entry.rule.fix, code


def test_group_spelled_in_lower_case_is_judged_as_the_library_does(tmp_path: Path) -> None:
    """x25519 is taken by OpenSSL 3.0.22 and AWS-LC 5.12.0 (both list it; reproduced with
    `openssl s_client -groups x25519` and `nginx -t` on the builds), refused by LibreSSL (object
    names, case-sensitive); OpenSSL 1.0.2 lacks the group in every spelling (issue 35)."""
    config = http(
        DEFAULT.replace(
            "ssl_reject_handshake on;", "ssl_reject_handshake on; ssl_ecdh_curve x25519;"
        )
    )
    for target in (OLD, ("1.26.3", "aws-lc-5.12.0")):
        assert "NGX201" not in codes(config, target, tmp_path), target
    (libressl,) = [
        f for f in findings_of(config, ("1.26.3", "libressl-3.8.2"), tmp_path) if f.code == "NGX201"
    ]
    assert "'x25519' (group names are case-sensitive there)" in libressl.message
    assert libressl.fix == "write X25519"
    (old,) = [
        f for f in findings_of(config, ("1.26.3", "openssl-1.0.2"), tmp_path) if f.code == "NGX201"
    ]
    assert old.message.startswith("OpenSSL has X25519 only from 1.1.0")
    assert "X25519" not in old.fix and "prime256v1" in old.fix


def test_the_catalog_says_every_severity_a_rule_reports(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """NGX401 is a warning for TLS 1.0 the library still speaks and info where it cannot
    (issue 35: `nginxgen rules` listed only "warning"); not an error for SSLv3 beside a protocol
    that works: nginx starts with it (issue 36); an error where the line leaves no protocol the
    library negotiates, as NGX413 for a certificate no suite can use (trial 22)."""
    from nginxgen.shell.cli import main

    seen = set()
    for protocols, target in (
        ("SSLv3 TLSv1.2", OLD),
        ("SSLv3 TLSv1.2", ("1.22.1", "openssl-1.1.1")),
        ("TLSv1 TLSv1.2", ("1.22.1", "openssl-1.1.1")),
        ("TLSv1 TLSv1.2", OLD),  # OpenSSL 3.0 at security level 1 cannot negotiate TLS 1.0
        ("TLSv1 SSLv3", OLD),  # nothing left: every handshake fails
    ):
        config = http(DEFAULT, top=f"ssl_session_cache shared:S:1m; ssl_protocols {protocols};")
        seen |= {f.severity for f in findings_of(config, target, tmp_path) if f.code == "NGX401"}
    rule = catalog()["NGX401"].rule
    assert seen == set(rule.severities) == {"info", "warning", "error"}
    main(["rules"])
    (line,) = [li for li in capsys.readouterr().out.splitlines() if li.startswith("NGX401")]
    assert line.split()[1] == "info-error"


def test_a_severity_the_rule_does_not_declare_is_refused(tmp_path: Path) -> None:
    from nginxgen.conf.config import build
    from nginxgen.lint.context import Context

    path = tmp_path / "nginx.conf"
    path.write_text(http(DEFAULT))
    ctx = Context(build(load_path(str(path))), resolve(*MID))
    rule = catalog()["NGX101"].rule
    stmt = ctx.config.servers[0].stmt
    assert ctx.finding(rule, stmt, "as declared").severity == rule.severity
    with pytest.raises(ValueError, match="NGX101 reports error"):
        ctx.finding(rule, stmt, "undeclared", severity="error")


def test_a_missing_include_leaves_session_settings_unknown(tmp_path: Path) -> None:
    """NGX601/602 do not call the session settings absent where an include that may set them
    cannot be read; NGX002 reports the include (issue 35)."""
    server = (
        "server { listen 443 ssl default_server; ssl_reject_handshake on;"
        " include snippets/session.conf; }\n"
    )
    config = http(server, top="ssl_protocols TLSv1.2 TLSv1.3;")
    found = codes(config, OLD, tmp_path)
    assert "NGX002" in found and "NGX601" not in found and "NGX602" not in found
    (tmp_path / "snippets").mkdir()
    (tmp_path / "snippets" / "session.conf").write_text("# nothing set here\n")
    found = codes(config, OLD, tmp_path)
    assert "NGX002" not in found and "NGX601" in found and "NGX602" in found
    # at http{} level the include is unknown only where the server does not decide itself
    top = "ssl_protocols TLSv1.2 TLSv1.3; include missing.conf;"
    decided = DEFAULT.replace(
        "ssl_reject_handshake on;", "ssl_reject_handshake on; ssl_session_cache builtin;"
    )
    assert "NGX601" not in codes(http(DEFAULT, top=top), OLD, tmp_path)
    assert "NGX601" in codes(http(decided, top=top), OLD, tmp_path)


def test_an_ignored_group_line_is_not_judged_for_what_it_enforces(tmp_path: Path) -> None:
    """A vhost's ssl_ecdh_curve under a default server that decides the groups (NGX101) offers
    and enforces nothing: NGX203 said its ML-KEM was "offered but not enforced" on the same line
    NGX101 says is ignored (trial 24). Where the line is the default server's own, it is said."""
    vhost = (
        "server { listen 443 ssl; server_name b.example; ssl_certificate c.pem; "
        "ssl_certificate_key c.key; ssl_ecdh_curve X25519MLKEM768:X25519; }"
    )
    found = codes(http(DEFAULT, vhost), MID, tmp_path)
    assert "NGX101" in found and "NGX203" not in found, found
    default = DEFAULT.replace(
        "default_server;", "default_server; ssl_ecdh_curve X25519MLKEM768:X25519;"
    )
    assert default != DEFAULT
    assert "NGX203" in codes(http(default), MID, tmp_path)


def test_a_name_conflict_of_one_file_included_twice_says_so(tmp_path: Path) -> None:
    """One server file included twice conflicts with itself: the fix names the double include,
    not "the other server" (trial 24: twelve such warnings, one server_name line each)."""
    (tmp_path / "conf.d").mkdir()
    site = tmp_path / "conf.d" / "a.conf"
    site.write_text("server { listen 8080; server_name a.example; }\n")
    text = "events {}\nhttp {\n    include conf.d/*.conf;\n    include conf.d/*.conf;\n}\n"
    (found,) = [f for f in findings_of(text, MID, tmp_path) if f.code == "NGX017"]
    assert (found.file, found.line) == (str(site), 1), found
    assert found.fix == (
        f"{site} is read twice (included twice, as nginx reads it for each include): remove one "
        "of the includes"
    ), found.fix
    site.write_text(site.read_text() + "server { listen 8080; server_name a.example; }\n")
    once = text.replace("    include conf.d/*.conf;\n", "", 1)
    (other,) = [f for f in findings_of(once, MID, tmp_path) if f.code == "NGX017"]
    assert other.line == 2 and "remove it from the other's server_name" in (other.fix or ""), other
