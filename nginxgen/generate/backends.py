"""Plan what nginx does beyond terminating TLS for a site: speak TLS to a backend (a site's
`upstream:`, a stream site's `backend_tls:`), ask clients for certificates
(`client_certificates:`), and terminate TLS for TCP in stream{} (`streams:`).

Every refusal names the field, the value, why it cannot work on this target and what to use
instead; the facts come from `nginxgen.knowledge`. The backend side is always verified: the
generator never writes a TLS backend that anyone on the path could stand in for (NGX801).
"""

from __future__ import annotations

from pathlib import Path

from nginxgen.base import rule_codes
from nginxgen.base.records import field, record
from nginxgen.base.version import Version
from nginxgen.conf.client_certificates import Depth, depth_of_files
from nginxgen.generate.models import (
    BackendTls,
    ClientCertificates,
    StreamSite,
    TLSPolicy,
    Upstream,
    is_address,
)
from nginxgen.generate.plan_common import IgnoreComment, ListenLine, Problems, directive_in
from nginxgen.knowledge import directives, libraries, nginx, pki, tls_groups
from nginxgen.knowledge.target import Target
from nginxgen.knowledge.upstream import request_passes, upstream_keepalive_defaults

# the groups offered to a backend: ML-KEM first, then the policy's classical ones
PQ_GROUP = "X25519MLKEM768"
# what nginx speaks to a backend: never the legacy protocols (NGX805)
BACKEND_PROTOCOLS = ("TLSv1.2", "TLSv1.3")
VERIFY_CHECK_STATUS = 403  # optional client certificates: what the written check answers


@record
class BackendTlsPlan:
    """The `<prefix>_ssl_*` lines towards one backend."""

    prefix: str  # proxy (http and stream) or grpc
    trusted_certificate: str
    verify_depth: int
    name: str  # verified, and sent as SNI
    session_reuse: bool
    protocols: list[str]
    groups: str | None  # `<prefix>_ssl_conf_command Groups` value; None: the library's
    groups_why: str


@record
class UpstreamPlan:
    """A site's pass to a TLS backend through an upstream{} block of its own."""

    block: str  # the upstream{} block's name
    server: str  # its one `server` line's address
    keepalive: int | None  # the block's keepalive line; None: no line
    pass_directive: str  # proxy_pass or grpc_pass
    url: str  # the pass line's URL
    http11: bool  # proxy_http_version 1.1 and an empty Connection header (kept connections)
    header_directive: str  # proxy_set_header or grpc_set_header
    host: str  # the Host (gRPC: the :authority) the backend gets: its name, port as in the URL
    tls: BackendTlsPlan


@record
class ClientCertPlan:
    """ssl_verify_client and what goes with it, in one server."""

    verify: str  # on or optional
    ca: str
    depth: int
    crl: str | None
    ocsp: str | None  # on or leaf
    resolver: list[str]  # for the OCSP responder
    check_status: int | None  # optional: the status of the written $ssl_client_verify check
    # findings the user's choices cause, on the ssl_verify_client line
    suppress: IgnoreComment = field(default_factory=lambda: IgnoreComment([], []))


@record
class StreamPlan:
    """One stream{} server: TLS terminated, the connection passed on."""

    name: str
    listens: list[ListenLine]
    certificates: list[tuple[str, str]]
    backend: str
    tls: BackendTlsPlan | None  # proxy_ssl on towards the backend; None: in the clear


def _trusted(value: str) -> str:
    if value == "system":
        return pki.system_ca_bundle().path
    return value


def _backend_protocols(target: Target) -> list[str]:
    status = nginx.directive_status(target, "TLSv1.3", "protocol_param")
    tls13 = libraries.has(target.library, "tls13") and (status is None or status.available)
    return [p for p in BACKEND_PROTOCOLS if p != "TLSv1.3" or tls13]


def _backend_groups(
    tls: BackendTls,
    policy: TLSPolicy,
    target: Target,
    directive: str,
    context: str,
    where: str,
    problems: Problems,
) -> tuple[str | None, str]:
    """The Groups offered to the backend, and why: nginx has no `*_ssl_ecdh_curve`, so only a
    `*_ssl_conf_command Groups` line (a library with SSL_CONF_cmd, nginx >= 1.19.4) chooses
    them; ML-KEM only where the library has it."""
    lib = target.library
    mlkem = tls_groups.find_group(PQ_GROUP)
    assert mlkem is not None  # a group knowledge always has
    if not libraries.has(lib, "ssl_conf_command"):
        why = libraries.capability(lib, "ssl_conf_command").refusal
    elif not directive_in(target, directive, context):
        why = f"this nginx has no {directive} (nginx 1.19.4 added it)"
    elif not mlkem.available(lib):
        why = mlkem.requirement(lib)
    else:
        why = ""
    if tls.post_quantum == "on" and why:
        problems.add(
            f"{where}.post_quantum",
            "on",
            why,
            "use post_quantum: auto (ML-KEM to the backend where the library has it) or off",
        )
    if tls.post_quantum == "off" or why:
        return None, "the library's default groups"
    classical = [
        group.spell(lib)
        for entry in policy.groups
        if (group := tls_groups.find_group(entry.removeprefix("?")))
        and not group.pq
        and group.available(lib)
    ]
    spelled = [mlkem.spell(lib), *(classical or ["X25519"])]
    return ":".join(spelled), "post-quantum key exchange to the backend where it has ML-KEM"


def plan_backend_tls(
    tls: BackendTls,
    prefix: str,
    host: str,
    policy: TLSPolicy,
    target: Target,
    context: str,
    where: str,
    problems: Problems,
) -> BackendTlsPlan:
    """Verified TLS to a backend whose host is `host` (the name checked unless `tls.name`)."""
    groups, why = _backend_groups(
        tls, policy, target, f"{prefix}_ssl_conf_command", context, where, problems
    )
    name = tls.name or host
    assert not is_address(name)  # the models ask for a name where the host is an address
    return BackendTlsPlan(
        prefix=prefix,
        trusted_certificate=_trusted(tls.trusted_certificate),
        verify_depth=tls.verify_depth,
        name=name,
        session_reuse=tls.session_reuse,
        protocols=_backend_protocols(target),
        groups=groups,
        groups_why=why,
    )


def _block_name(site_name: str) -> str:
    return "nginxgen_" + "".join(c if c.isalnum() else "_" for c in site_name.lower())


def plan_upstream(
    upstream: Upstream,
    site_name: str,
    where: str,
    policy: TLSPolicy,
    target: Target,
    problems: Problems,
) -> UpstreamPlan:
    """A pass through an upstream{} block of the site's own (only a block keeps connections),
    with the backend's name written out: without `proxy_ssl_name` nginx would verify and send
    the block's name (NGX803), and without a Host line the backend would be asked for the
    block's name (proxy_pass sends `Host: $proxy_host`; grpc_pass sends the URL's host as
    :authority, and a `grpc_set_header Host` line instead of it). A gRPC URL takes no path:
    nginx refuses one (`invalid host in upstream`), so grpcs://host:port/ passes without it."""
    grpc = upstream.scheme == "grpcs"
    pass_directive = "grpc_pass" if grpc else "proxy_pass"
    if not directive_in(target, pass_directive, "location"):
        problems.add(
            f"{where}.url",
            upstream.url,
            f"this nginx has no {pass_directive} (its module is not built)",
            "use an nginx with the module, or https://",
        )
    host, port = upstream.backend
    block = _block_name(site_name)
    keepalive = _keepalive_line(upstream.keepalive, target)
    tls = plan_backend_tls(
        upstream,
        "grpc" if grpc else "proxy",
        host,
        policy,
        target,
        "location",
        where,
        problems,
    )
    return UpstreamPlan(
        block=block,
        server=f"{host}:{port or 443}",
        keepalive=keepalive,
        pass_directive=pass_directive,
        url=f"{upstream.scheme}://{block}{'' if grpc else upstream.path}",
        http11=not grpc and upstream.keepalive > 0,
        header_directive=request_passes()[pass_directive],
        host=tls.name if port is None else f"{tls.name}:{port}",
        tls=tls,
    )


def _keepalive_line(connections: int, target: Target) -> int | None:
    """`keepalive N` where connections are kept; `keepalive 0` only where nginx keeps them by
    default (1.29.7), since older releases refuse 0 and keep none without the line."""
    if connections > 0:
        return connections
    defaults = upstream_keepalive_defaults(target)
    return 0 if target.nginx >= Version(defaults.since) else None


def _depth_needed(*paths: str | None) -> Depth | None:
    """What the CA files need of ssl_verify_depth (lint's NGX742 asks the same): the client CA
    and ssl_trusted_certificate, which nginx adds to the same trust store. None where one
    cannot be read here, as the model may name files of another machine."""
    files = []
    for path in paths:
        if path is None:
            continue
        try:
            files.append(Path(path).read_bytes())
        except OSError:
            return None
    return depth_of_files(files)


def plan_client_certificates(
    certs: ClientCertificates, where: str, policy: TLSPolicy, target: Target, problems: Problems
) -> ClientCertPlan:
    """ssl_verify_client with its CA list; `optional` with the check that refuses what did
    not verify (NGX741), revocation by CRL and/or OCSP."""
    ocsp = None if certs.ocsp == "off" else certs.ocsp
    if ocsp is not None:
        if not directive_in(target, "ssl_ocsp", "server"):
            problems.add(
                f"{where}.ocsp",
                certs.ocsp,
                "ssl_ocsp needs nginx 1.19.0",
                "use client_certificates.crl, or upgrade nginx",
            )
        if not libraries.has(target.library, "ocsp_client"):
            problems.add(
                f"{where}.ocsp",
                certs.ocsp,
                libraries.capability(target.library, "ocsp_client").refusal,
                "use client_certificates.crl",
            )
        if not policy.resolver:
            problems.lacks(
                f"{where}.ocsp",
                certs.ocsp,
                "a resolver for the host of the OCSP responder each client certificate names, "
                "and policy.resolver is empty",
                "set policy.resolver (e.g. [127.0.0.53]), or use client_certificates.crl",
            )
    needed = _depth_needed(certs.ca, policy.ocsp_trusted_certificate)
    if needed is not None and needed.needed > certs.depth:
        problems.refuse(
            f"{where}.depth",
            f"{certs.depth} is too low for the CA files: a client certificate issued by "
            f"{needed.issuer} needs {needed.needed} (the CA certificates above the client's, "
            f"the root not counted); set depth: {needed.needed}",
        )
    suppress = IgnoreComment([], [])
    if certs.crl is None and ocsp is None:
        suppress.add(
            rule_codes.CLIENT_REVOCATION_UNCHECKED,
            "client_certificates sets neither crl nor ocsp",
        )
    return ClientCertPlan(
        suppress=suppress,
        verify="on" if certs.verify == "required" else "optional",
        ca=certs.ca,
        depth=certs.depth,
        crl=certs.crl,
        ocsp=ocsp,
        resolver=list(policy.resolver) if ocsp else [],
        check_status=VERIFY_CHECK_STATUS if certs.verify == "optional" else None,
    )


def stream_module(target: Target) -> str | None:
    """The file `load_module` loads before stream{} where the target's nginx has stream as a
    module of its own (`--with-stream=dynamic`, as Debian builds it); None where it is built in
    (or not known: a target not read from a binary)."""
    if target.dynamic is None or "stream" not in target.dynamic or target.modules_path is None:
        return None
    return f"{target.modules_path.rstrip('/')}/{nginx.dynamic_module('stream').file}"


def plan_stream(
    stream: StreamSite, index: int, policy: TLSPolicy, target: Target, problems: Problems
) -> StreamPlan:
    """A stream{} server of its own address:port (so it is that address's default server)."""
    where = f"streams[{index}]"
    lacking = [
        module
        for module in ("ngx_stream_ssl_module", "ngx_stream_proxy_module")
        if directives.module_built(target, module) is False
    ]
    if lacking:
        problems.add(
            where,
            stream.name,
            f"this nginx is built without {' and '.join(lacking)} (configure --with-stream "
            "--with-stream_ssl_module)",
            "use an nginx built with stream TLS, or drop streams:",
        )
    if len(stream.certificates) > 1 and not libraries.has(target.library, "multiple_certificates"):
        problems.add(
            f"{where}.certificates",
            f"{len(stream.certificates)} pairs",
            libraries.capability(target.library, "multiple_certificates").refusal,
            "give one certificate",
        )
    tls = None
    if stream.backend_tls is not None:
        host = stream.backend_host or ""
        tls = plan_backend_tls(
            stream.backend_tls,
            "proxy",
            host,
            policy,
            target,
            "stream_server",
            f"{where}.backend_tls",
            problems,
        )
    return StreamPlan(
        name=stream.name,
        listens=[ListenLine([sock, "ssl"]) for sock in stream.listen],
        certificates=[(c.cert, c.key) for c in stream.certificates],
        backend=stream.backend,
        tls=tls,
    )
