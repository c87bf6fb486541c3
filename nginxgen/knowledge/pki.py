"""Certificate authorities (pki.toml): what is known of a CA whose certificates are kept under a
path by convention, and the system's bundle of public CAs."""

from __future__ import annotations

from functools import cache

from nginxgen.base.records import record
from nginxgen.knowledge.data import from_table, toml_file


@record(frozen=True)
class CertificateAuthority:
    display: str
    no_ocsp_url_since: str | None
    source: str


def authority_by_path(path: str) -> CertificateAuthority | None:
    """The CA whose certificates are kept under this path by convention (certbot's
    /etc/letsencrypt/), if any."""
    for data in toml_file("pki")["ca"].values():
        if path.startswith(tuple(data["path_prefixes"])):
            since = data.get("no_ocsp_url_since")
            return from_table(CertificateAuthority, data, no_ocsp_url_since=since)
    return None


@record(frozen=True)
class SystemCaBundle:
    """The operating system's bundle of public CAs (Debian's and Ubuntu's ca-certificates)."""

    path: str
    source: str


@cache
def system_ca_bundle() -> SystemCaBundle:
    return from_table(SystemCaBundle, toml_file("pki")["system_ca_bundle"])


@record(frozen=True)
class CloudflareOriginPull:
    """Cloudflare's Authenticated Origin Pulls CA: where Cloudflare publishes it (`download`)
    and where the cloudflare-origin-pull preset expects it (`path`)."""

    display: str
    download: str
    path: str
    source: str


@cache
def cloudflare_origin_pull() -> CloudflareOriginPull:
    return from_table(CloudflareOriginPull, toml_file("pki")["cloudflare_origin_pull"])
