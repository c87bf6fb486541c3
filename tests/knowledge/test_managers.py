"""Who manages a file is decided on evidence (issue 35): a `.sample` suffix alone is not SWAG's,
and a file at certbot's path is certbot's only with bytes certbot released."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from nginxgen.knowledge import managers
from nginxgen.shell.cli import main
from tests.paths import CORPUS, DATA

SWAG_DEFAULTS = CORPUS / "linuxserver__docker-swag" / "root" / "defaults" / "nginx"
BASE_DEFAULTS = (
    CORPUS / "linuxserver__docker-baseimage-alpine-nginx" / "root" / "defaults" / "nginx"
)
PROXY_CONFS = CORPUS / "linuxserver__reverse-proxy-confs"
CERTBOT_OPTIONS = DATA / "certbot" / "options-ssl-nginx.conf"

# Shaped like the sample in Nextcloud's administration manual (admin_manual/installation/): a
# documentation file with a version line of its own, nothing of linuxserver's.
NEXTCLOUD_SAMPLE = """\
# Version 2024-07-17

upstream php-handler {
    server 127.0.0.1:9000;
}

server {
    listen 80;
    server_name cloud.example.com;
    return 301 https://$server_name$request_uri;
}

server {
    listen 443 ssl;
    server_name cloud.example.com;
    root /var/www/nextcloud;
    ssl_certificate     /etc/ssl/nginx/cloud.example.com.crt;
    ssl_certificate_key /etc/ssl/nginx/cloud.example.com.key;
    ssl_protocols TLSv1 TLSv1.2;
    index index.php index.html /index.php$request_uri;
    location / {
        try_files $uri $uri/ /index.php$request_uri;
    }
}
"""


def swag_config(dest: Path) -> Path:
    """/config/nginx as SWAG's init leaves it: the base image's and SWAG's `*.conf.sample` at the
    top and in site-confs/ (SWAG's default.conf.sample replaces the base one), the proxy samples
    in proxy-confs/, and the user's copies without `.sample` made from them on first start."""
    for folder in ("site-confs", "proxy-confs"):
        (dest / folder).mkdir(parents=True)
    for defaults in (BASE_DEFAULTS, SWAG_DEFAULTS):
        for sample in defaults.glob("*.conf.sample"):
            shutil.copy(sample, dest / sample.name)
        for sample in (defaults / "site-confs").glob("*.conf.sample"):
            shutil.copy(sample, dest / "site-confs" / sample.name)
    for sample in PROXY_CONFS.glob("*.conf.sample"):
        shutil.copy(sample, dest / "proxy-confs" / sample.name)
    for name in ("nginx.conf", "ssl.conf", "proxy.conf", "site-confs/default.conf"):
        shutil.copy(dest / f"{name}.sample", dest / name)
    return dest


def test_swag_samples_are_swags_and_the_users_copies_are_not(tmp_path: Path) -> None:
    root = swag_config(tmp_path / "config" / "nginx")
    samples = sorted(root.rglob("*.conf.sample"))
    assert len(samples) > 70  # the top, site-confs/ and proxy-confs/ all seen
    owners = {str(p.relative_to(root)): managers.manager_of(str(p)) for p in samples}
    assert {k: m.key if m else None for k, m in owners.items()} == dict.fromkeys(owners, "swag")
    for name in ("nginx.conf", "ssl.conf", "proxy.conf", "site-confs/default.conf"):
        assert managers.manager_of(str(root / name)) is None, name


def test_the_images_own_defaults_folder_is_swags() -> None:
    # the folder as the image ships it: its samples open with linuxserver's version line
    manager = managers.manager_of(str(SWAG_DEFAULTS / "site-confs" / "default.conf.sample"))
    assert manager is not None and manager.key == "swag"


def test_a_sample_in_a_folder_without_linuxservers_files_is_the_users(tmp_path: Path) -> None:
    docs = tmp_path / "admin_manual" / "installation"
    docs.mkdir(parents=True)
    (docs / "nginx-root.conf.sample").write_text(NEXTCLOUD_SAMPLE)
    assert managers.manager_of(str(docs / "nginx-root.conf.sample")) is None
    # the reverse-proxy-confs repository checked out: SWAG's files, but no SWAG folder
    assert managers.manager_of(str(PROXY_CONFS / "heimdall.subdomain.conf.sample")) is None


def test_a_swag_name_in_another_tree_is_the_users(tmp_path: Path) -> None:
    etc = tmp_path / "etc" / "nginx"
    (etc / "conf.d").mkdir(parents=True)
    (etc / "nginx.conf").write_text("events {}\nhttp { include conf.d/*.conf; }\n")
    shutil.copy(PROXY_CONFS / "heimdall.subdomain.conf.sample", etc / "conf.d")
    (etc / "conf.d" / "nginx-root.conf.sample").write_text(NEXTCLOUD_SAMPLE)
    for name in ("heimdall.subdomain.conf.sample", "nginx-root.conf.sample"):
        assert managers.manager_of(str(etc / "conf.d" / name)) is None, name


def test_lint_calls_only_swags_sample_managed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    target = ["--nginx-version", "1.26.3", "--tls-library", "openssl-3.5.7"]
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "nginx-root.conf.sample").write_text(NEXTCLOUD_SAMPLE)
    root = swag_config(tmp_path / "config" / "nginx")
    swag_sample = root / "site-confs" / "legacy.conf.sample"  # replaced by SWAG's next start
    swag_sample.write_text(NEXTCLOUD_SAMPLE)
    for sample, managed in ((docs / "nginx-root.conf.sample", False), (swag_sample, True)):
        main(["lint", *target, str(sample)])
        out = capsys.readouterr().out
        assert "NGX401" in out, out  # TLSv1: a finding with a fix
        assert ("managed by linuxserver SWAG" in out) is managed, out


def test_certbots_path_is_certbots_only_with_bytes_it_released(tmp_path: Path) -> None:
    options = tmp_path / "letsencrypt" / "options-ssl-nginx.conf"
    options.parent.mkdir()
    absent = managers.manager_of(str(options))  # certbot installs it there when it is missing
    assert absent is not None and absent.key == "certbot"
    shutil.copy(CERTBOT_OPTIONS, options)
    released = managers.manager_of(str(options))
    assert released is not None and released.key == "certbot"
    # changed by hand: certbot keeps the user's copy and never updates it again
    options.write_text(CERTBOT_OPTIONS.read_text() + "ssl_stapling on;\n")
    assert managers.manager_of(str(options)) is None
    assert managers.manager_of(str(options), options.read_text()) is None


HESTIA_SSL = """#=========================================================================#
# Default Web Domain Template                                             #
# DO NOT MODIFY THIS FILE! CHANGES WILL BE LOST WHEN REBUILDING DOMAINS   #
#=========================================================================#

server {
    listen      192.0.2.1:443 ssl;
    server_name example.com;
    ssl_certificate      /home/admin/conf/web/example.com/ssl/example.com.pem;
    ssl_certificate_key  /home/admin/conf/web/example.com/ssl/example.com.key;
    ssl_protocols TLSv1 TLSv1.2;
}
"""


def test_a_panels_generated_vhost_is_never_fixed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # seen on HestiaCP's tree by a new user: --fix rewrote a domain file its header says the
    # panel rebuilds; wherever it lies, that header makes it the panel's
    site = tmp_path / "conf.d" / "domains" / "example.com.ssl.conf"
    site.parent.mkdir(parents=True)
    site.write_text(HESTIA_SSL)
    target = ["--nginx-version", "1.26.3", "--tls-library", "openssl-3.5.7"]
    assert main(["lint", "--fix", *target, str(site)]) == 1
    out = capsys.readouterr().out
    assert "NGX401" in out and "managed by HestiaCP" in out and "nginx.ssl.conf_" in out, out
    assert site.read_text() == HESTIA_SSL


def test_star_patterns_match_as_fnmatch_does() -> None:
    """managers.toml's patterns use `*` alone, and star_match reads them as fnmatch would."""
    import fnmatch
    import itertools

    patterns = [
        p
        for _, known in managers._managers()
        for p in (*known.paths, *(known.folder.names if known.folder else ()))
    ]
    assert patterns and not any(c in p for p in patterns for c in "?[]")
    paths = [
        "/etc/letsencrypt/options-ssl-nginx.conf",
        "/srv/x/letsencrypt/ssl-dhparams.pem",
        "/letsencrypt/options-ssl-nginx.conf",
        "/etc/letsencrypt/options-ssl-nginx.conf.bak",
        "/home/u/conf/web/example.com/nginx.ssl.conf",
        "/home/u/conf/web/nginx.conf",
        "/data/nginx/proxy_host/1.conf",
        "/etc/nginx/nginx.conf",
        "proxy.conf.sample",
        "a.conf.sample.conf",
        "",
    ]
    checked = 0
    for path, pattern in itertools.product(paths, [*patterns, "a*b*b", "*", "ab", "*x*"]):
        assert managers.star_match(path, pattern) == fnmatch.fnmatchcase(path, pattern), (
            path,
            pattern,
        )
        checked += managers.star_match(path, pattern)
    assert checked >= 8
