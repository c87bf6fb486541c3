"""mail{} cipher suites on real nginx (trial 22: an IMAP proxy with `ssl_ciphers ALL:@SECLEVEL=0`,
or none, drew no finding where the same lines in http{} draw NGX402 and NGX403). Each mail
server has a TLS context of its own where it sets one up (`listen ... ssl`, STARTTLS); nginx's
default list there is http{}'s, `HIGH:!aNULL:!MD5`. Lint judges both, `openssl s_client`
negotiates the suites it names, and the unsafe fix (Mozilla's intermediate list in mail{})
passes nginx -t and leaves only forward-secret AEAD suites. Only Debian's builds have the mail
module."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.builds import Build
from tests.helpers import make_cert
from tests.live import (
    Server,
    cipher_findings,
    cipher_fix_holds,
    free_port,
    nginx_check,
    prepare_prefix,
    s_client,
)

STATIC_RSA_CBC = "AES128-SHA"  # no forward secrecy (NGX402), CBC with SHA-1 (NGX403)
AEAD = "ECDHE-RSA-AES128-GCM-SHA256"


def tree(folder: Path, build: Build, port: int, ciphers: str) -> Path:
    pair = make_cert(folder, "mail.test", "rsa")
    conf = folder / "nginx.conf"
    conf.write_text(
        f"{build.load_module('mail')}worker_processes auto;\nevents {{}}\nmail {{\n"
        "    auth_http 127.0.0.1:9/auth;\n    ssl_protocols TLSv1.2 TLSv1.3;\n"
        f"    ssl_certificate {pair.cert};\n    ssl_certificate_key {pair.key};\n{ciphers}"
        f"    server {{ listen 127.0.0.1:{port} ssl; protocol imap; }}\n}}\n"
    )
    return conf


def negotiates(client: Build, port: int, cipher: str) -> bool:
    done = s_client(client, port, "mail.test", version="1.2", ciphers=cipher, path=None)
    return done.cipher == cipher


@pytest.mark.live
@pytest.mark.parametrize("build", ["bookworm", "trixie"], indirect=True)
@pytest.mark.parametrize("ciphers", ["", "    ssl_ciphers ALL:@SECLEVEL=0;\n"])
def test_mail_suites_are_judged_and_the_fix_holds(
    build: Build, client: Build, ciphers: str, tmp_path: Path
) -> None:
    port = free_port()
    conf = tree(tmp_path, build, port, ciphers)
    found = cipher_findings(conf, build)
    assert sorted(f.code for f in found) == ["NGX402", "NGX403"], found
    if not ciphers:  # nginx's default: said at the mail{} line, where the line would go
        at = conf.read_text().splitlines().index("mail {") + 1
        assert all(f.line == at and "nginx's default" in f.message for f in found), found
    prepare_prefix(conf, build)
    assert nginx_check(build, conf).returncode == 0
    with Server(build, conf, [port]):
        assert negotiates(client, port, STATIC_RSA_CBC)
    if ciphers:  # a line the user wrote: the fix is the user's to choose
        return
    cipher_fix_holds(build, conf)
    with Server(build, conf, [port]):
        assert not negotiates(client, port, STATIC_RSA_CBC)
        assert negotiates(client, port, AEAD)
