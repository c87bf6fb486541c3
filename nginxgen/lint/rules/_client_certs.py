"""What the client-certificate rules share: each TLS server nginx makes an SSL context for, with
its client-certificate settings as the config model reads them (conf/client_certs.py)."""

from __future__ import annotations

from collections.abc import Iterator

from nginxgen.conf.client_certificates import ClientCertificates, client_certificates
from nginxgen.lint.context import Context


def has_context(server_settings: ClientCertificates) -> bool:
    """Whether nginx makes an SSL context for the server, and so reads its client-certificate
    settings (ngx_http_ssl_merge_srv_conf): certificates in effect, or ssl_reject_handshake on."""
    server = server_settings.server
    reject = server.value("ssl_reject_handshake")
    return bool(server.effective("ssl_certificate")) or (reject or [""])[0].lower() == "on"


def verifying(ctx: Context) -> Iterator[ClientCertificates]:
    """The client-certificate settings of every server with an SSL context, memoized per model:
    several rules read them."""

    def compute() -> list[ClientCertificates]:
        found = [client_certificates(ctx.config, s) for s in ctx.config.servers]
        return [f for f in found if has_context(f)]

    return iter(ctx.memo("client_certificates", compute))


def once(lines: set[int], settings: ClientCertificates) -> bool:
    """Whether the verify line of these settings is reported for the first time (an http{}-level
    line applies to every server: one finding, on that line)."""
    key = id(settings.verify.line) if settings.verify.line else id(settings.server)
    if key in lines:
        return False
    lines.add(key)
    return True
