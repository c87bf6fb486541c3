"""Typed models of what the generator renders: a TLS policy, sites and the default server.

These only check what can be checked without a target (shapes, ranges, safe characters);
`validate.py` checks a model against the nginx and TLS library it is for.
"""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Iterable
from typing import Annotated, Any, Literal

from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    ValidationError,
    create_model,
    field_validator,
    model_validator,
)

from nginxgen.base.sockets import normalize_socket
from nginxgen.generate.quoting import check_path, check_server_name, check_token
from nginxgen.knowledge import web

Protocol = Literal["TLSv1", "TLSv1.1", "TLSv1.2", "TLSv1.3"]


def _yaml_switch(value: object) -> object:
    """YAML 1.1 reads an unquoted on/off (and yes/no, true/false) as a boolean: take it as the
    on/off the user wrote."""
    if isinstance(value, bool):
        return "on" if value else "off"
    return value


# auto: on where the target can, off elsewhere
Switch = Annotated[
    Literal["auto", "on", "off"],
    BeforeValidator(_yaml_switch, json_schema_input_type=Literal["auto", "on", "off"] | bool),
]
ServerName = Annotated[str, AfterValidator(check_server_name)]
SafePath = Annotated[str, AfterValidator(check_path)]
_SIZE = re.compile(r"^\d+[kKmM]?$")
_DURATION = re.compile(r"^\d+(ms|s|m|h|d|w|M|y)?$")


def _yaml_off(value: object) -> object:
    """`access_log: off` unquoted is YAML 1.1's false: the off the user wrote."""
    return "off" if value is False else value


# the TLS access log's path, or "off"
LogPath = Annotated[
    SafePath, BeforeValidator(_yaml_off, json_schema_input_type=str | Literal[False])
]


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class SessionPolicy(Strict):
    cache_size_mb: int | None = Field(10, ge=1, le=4096)  # None: no shared cache (`off`)
    cache_name: str = "SSL"
    timeout: str = "1d"
    tickets: Switch = "auto"  # auto: on only where keys rotate by themselves

    @field_validator("cache_name")
    @classmethod
    def _name(cls, value: str) -> str:
        return check_token(value, "cache name")

    @field_validator("timeout")
    @classmethod
    def _timeout(cls, value: str) -> str:
        if not _DURATION.match(value):
            raise ValueError(f"{value!r} is not an nginx time (e.g. 1d, 4h, 600s)")
        return value


class Keepalive(Strict):
    timeout: int = Field(
        75, ge=1, le=3600, description="seconds; 0 would cost a handshake per request"
    )
    requests: int = Field(1000, ge=100, le=1_000_000)


class EchPolicy(Strict):
    """Encrypted Client Hello for every site: the default server's key files decide it (so it
    is a policy, not a site's setting), and each site's names get a DNS HTTPS record."""

    public_name: ServerName = Field(
        description="the outer name clients show; one of the sites must serve it (retries)"
    )
    keys: list[SafePath] = Field(
        [],
        description="key files (openssl ech -out): the current one first, then the previous "
        "ones kept for clients with an old DNS record; none: a new key, ech.pem in --out",
    )
    dns_ttl: int = Field(3600, ge=60, le=86400, description="TTL of the HTTPS records, seconds")

    @field_validator("public_name")
    @classmethod
    def _plain(cls, value: str) -> str:
        if value.startswith("*."):
            raise ValueError("the public name is a host name, not a wildcard")
        return value.rstrip(".").lower()

    @field_validator("keys")
    @classmethod
    def _distinct(cls, value: list[str]) -> list[str]:
        if len(set(value)) != len(value):
            raise ValueError("a key file is listed twice")
        return value


class TLSPolicy(Strict):
    protocols: list[Protocol] = Field(min_length=1)
    ciphers: list[str] = []  # TLS 1.2 and older, OpenSSL names, in order
    seclevel: int | None = Field(None, ge=0, le=5)
    ciphersuites: list[str] = []  # TLS 1.3, IANA names, in order
    # Groups in preference order, any library's spelling; a leading `?` drops the group where
    # the target lacks it instead of refusing the target.
    groups: list[str] = Field(min_length=1)
    pq_enforce: Switch = "auto"  # ask a client that sent a classical key share for ML-KEM
    server_preference: bool = False
    prioritize_chacha: Switch = "off"
    session: SessionPolicy = SessionPolicy()
    ktls: Switch = "off"
    early_data: bool = False
    ocsp_stapling: bool = False
    # Issuer, intermediates and root: nginx verifies stapled responses only against these.
    ocsp_trusted_certificate: SafePath | None = None
    resolver: list[str] = []
    dhparam: SafePath | None = None
    buffer_size: str | None = None
    keepalive: Keepalive = Keepalive()
    ech: EchPolicy | None = None  # Encrypted Client Hello (nginx >= 1.29.4 with OpenSSL 4.0)

    @field_validator("ciphers", "ciphersuites")
    @classmethod
    def _names(cls, value: list[str]) -> list[str]:
        for name in value:
            check_token(name, "cipher")
        if len(set(value)) != len(value):
            raise ValueError("a cipher is listed twice")
        return value

    @field_validator("groups")
    @classmethod
    def _groups(cls, value: list[str]) -> list[str]:
        for name in value:
            check_token(name, "group")
        names = [n.removeprefix("?").lower() for n in value]
        if len(set(names)) != len(names):
            raise ValueError("a group is listed twice")
        return value

    @field_validator("resolver")
    @classmethod
    def _resolver(cls, value: list[str]) -> list[str]:
        return [check_token(v, "resolver") for v in value]

    @field_validator("buffer_size")
    @classmethod
    def _size(cls, value: str | None) -> str | None:
        if value is not None and not _SIZE.match(value):
            raise ValueError(f"{value!r} is not an nginx size (e.g. 4k, 16k)")
        return value

    @field_validator("protocols")
    @classmethod
    def _protocols(cls, value: list[Protocol]) -> list[Protocol]:
        if len(set(value)) != len(value):
            raise ValueError("a protocol is listed twice")
        return value


class Hsts(Strict):
    max_age: int = Field(default_factory=lambda: web.hsts().recommended_max_age)
    include_subdomains: bool = True
    preload: bool = False

    @model_validator(mode="after")
    def _lifetime(self) -> Hsts:
        # Below the minimum HSTS lapses between visits: what nginxgen's linter warns about
        # (NGX703), so the generator does not write it. No HSTS at all is `hsts: null`.
        least = web.hsts().min_max_age
        if self.max_age < least:
            raise ValueError(
                f"hsts.max_age {self.max_age} is under six months ({least} s): a returning "
                f"browser could be stripped to HTTP between visits; use at least {least} "
                "(two years, 63072000, is usual), or hsts: null to send no HSTS"
            )
        # The preload list only takes sites with includeSubDomains and at least a year.
        preload = web.hsts().preload_min_max_age
        if self.preload and (not self.include_subdomains or self.max_age < preload):
            raise ValueError(f"hsts.preload needs include_subdomains and max_age >= {preload}")
        return self


class Certificate(Strict):
    cert: SafePath
    key: SafePath


def _socket(text: str) -> str:
    normalize_socket(text)
    return text.strip()


Socket = Annotated[str, AfterValidator(_socket)]


def _url_host(host: str) -> str:
    """A backend's host as a URL writes it: a host name, an IPv4 address or [IPv6]."""
    if host.startswith("["):
        if not re.fullmatch(r"\[[0-9A-Fa-f:.]+\]", host):
            raise ValueError(f"{host!r} is not an IPv6 address in brackets")
        return host
    return check_server_name(host)


def split_backend(address: str) -> tuple[str, int | None]:
    """`host:port` (or `[v6]:port`, `host`) -> (host, port)."""
    if address.startswith("["):
        host, _, rest = address.partition("]")
        host += "]"
        port = rest.removeprefix(":") if rest else None
    else:
        host, sep, port_text = address.partition(":")
        port = port_text if sep else None
    if port is not None and not (port.isdigit() and 0 < int(port) < 65536):
        raise ValueError(f"{address!r}: {port!r} is not a port")
    return _url_host(host), int(port) if port is not None else None


def is_address(host: str) -> bool:
    """An IP address literal: nginx sends no SNI for one (RFC 6066), and no certificate
    name is checked against it."""
    try:
        ipaddress.ip_address(host.removeprefix("[").removesuffix("]"))
    except ValueError:
        return False
    return True


class BackendTls(Strict):
    """How nginx, as a TLS client, checks and greets a backend: always verified."""

    trusted_certificate: Literal["system"] | SafePath = Field(
        "system",
        description="CA file the backend's certificate must chain to; system: the OS bundle",
    )
    name: ServerName | None = Field(
        None, description="the name verified and sent as SNI; default: the backend's host"
    )
    verify_depth: int = Field(1, ge=0, le=32, description="CA certificates above the backend's")
    post_quantum: Switch = Field(
        "auto", description="offer X25519MLKEM768 to the backend (OpenSSL >= 3.5)"
    )
    session_reuse: bool = True


_URL = re.compile(r"^(?P<scheme>https|grpcs)://(?P<hostport>[^/?#]+)(?P<path>/[^?#]*)?$")


class Upstream(BackendTls):
    """A site that passes every request to a TLS backend."""

    url: str = Field(description="https://host[:port][/path] or grpcs://host[:port]")
    keepalive: int = Field(
        16, ge=0, le=1024, description="idle backend connections kept per worker; 0: none"
    )

    @field_validator("url")
    @classmethod
    def _url(cls, value: str) -> str:
        found = _URL.match(value)
        if not found:
            raise ValueError(
                f"{value!r} is not an https:// or grpcs:// URL (e.g. https://api.example.com:8443/)"
            )
        split_backend(found["hostport"])
        if found["path"]:
            check_path(found["path"])
            if found["scheme"] == "grpcs" and found["path"] != "/":
                raise ValueError(f"{value!r}: a grpcs:// URL takes no path")
        return value

    @property
    def scheme(self) -> str:
        return self.url.split("://", 1)[0]

    @property
    def backend(self) -> tuple[str, int | None]:
        match = _URL.match(self.url)
        assert match is not None  # checked by the validator
        return split_backend(match["hostport"])

    @property
    def path(self) -> str:
        match = _URL.match(self.url)
        assert match is not None
        return match["path"] or ""

    @model_validator(mode="after")
    def _named(self) -> Upstream:
        host, _ = self.backend
        if self.name is None and is_address(host):
            raise ValueError(
                f"upstream.url names the address {host}: give upstream.name, the name on the "
                "backend's certificate (nginx sends no SNI for an address)"
            )
        return self


class ClientCertificates(Strict):
    """Ask clients for a certificate issued by `ca` (ssl_verify_client)."""

    ca: SafePath = Field(description="CA certificates client certificates must chain to")
    verify: Literal["required", "optional"] = Field(
        "required",
        description="required: 400 without a valid one; optional: a 403 check is written",
    )
    depth: int = Field(1, ge=0, le=32, description="CA certificates above the client's")
    crl: SafePath | None = Field(None, description="revocation list (PEM)")
    ocsp: Annotated[
        Literal["off", "on", "leaf"],
        BeforeValidator(_yaml_switch, json_schema_input_type=Literal["off", "on", "leaf"] | bool),
    ] = Field(
        "off", description="check revocation by OCSP (nginx >= 1.19.0, needs policy.resolver)"
    )


class Site(Strict):
    domains: list[ServerName] = Field(min_length=1)
    listen: list[Socket] = ["443", "[::]:443"]
    http_listen: list[Socket] = ["80", "[::]:80"]
    certificates: list[Certificate] = Field(min_length=1, max_length=2)
    http2: bool = True
    http3: bool = False
    hsts: Hsts | None = Hsts()
    redirect: bool = True
    root: SafePath = "/var/www/html"
    upstream: Upstream | None = None  # pass every request to a TLS backend instead of `root`
    client_certificates: ClientCertificates | None = None

    @property
    def primary(self) -> str:
        return self.domains[0].removeprefix("*.")

    @model_validator(mode="after")
    def _unique(self) -> Site:
        for field in ("listen", "http_listen"):
            sockets = [normalize_socket(s) for s in getattr(self, field)]
            if len(set(sockets)) != len(sockets):
                raise ValueError(f"{field} lists the same address twice")
        if set(map(normalize_socket, self.listen)) & set(map(normalize_socket, self.http_listen)):
            raise ValueError("an address is both in listen (HTTPS) and http_listen")
        return self


class DefaultServer(Strict):
    # Refuse TLS handshakes for names no site serves; also the one explicit home of the
    # settings that only the default server of an address:port decides.
    reject_unknown_names: bool = True


class StreamSite(Strict):
    """TLS terminated for TCP in stream{}: the connection goes on to `backend`, over TLS with
    `backend_tls`, else in the clear. One stream site per address:port."""

    name: ServerName = Field(description="names the site's file (<name>.stream.conf)")
    listen: list[Socket] = Field(min_length=1)
    certificates: list[Certificate] = Field(min_length=1, max_length=2)
    backend: str = Field(description="host:port or unix:/path the connection is passed to")
    backend_tls: BackendTls | None = None

    @field_validator("backend")
    @classmethod
    def _backend(cls, value: str) -> str:
        if value.startswith("unix:"):
            check_path(value)
            return value
        if split_backend(value)[1] is None:
            raise ValueError(f"backend {value!r} needs a port (host:port)")
        return value

    @model_validator(mode="after")
    def _named(self) -> StreamSite:
        sockets = [normalize_socket(s) for s in self.listen]
        if len(set(sockets)) != len(sockets):
            raise ValueError("listen lists the same address twice")
        if self.backend_tls and self.backend_tls.name is None:
            host = self.backend_host
            if host is None or is_address(host):
                raise ValueError(
                    "backend_tls.name is needed: the backend is an address or socket, not the "
                    "name on its certificate"
                )
        return self

    @property
    def backend_host(self) -> str | None:
        if self.backend.startswith("unix:"):
            return None
        return split_backend(self.backend)[0]


def _sockets(listen: list[str]) -> set[str]:
    return {normalize_socket(s) for s in listen}


class GeneratorConfig(Strict):
    policy: TLSPolicy
    sites: list[Site] = []
    streams: list[StreamSite] = []
    default_server: DefaultServer = DefaultServer()
    comments: bool = True
    # the TLS access log's path, "off", or None: the distribution's log folder
    access_log: LogPath | None = None
    # the preset the config starts from, then those it extends (none without a preset), and
    # which of them set each policy key the user did not set: a refusal names the preset
    presets: list[str] = []
    policy_from: dict[str, str] = {}

    @model_validator(mode="after")
    def _distinct(self) -> GeneratorConfig:
        if not self.sites and not self.streams:
            raise ValueError("nothing to generate: give a site under sites:, or streams:")
        primaries = [s.primary for s in self.sites]
        if len(set(primaries)) != len(primaries):
            raise ValueError("two sites have the same first domain (it names the site's file)")
        https = {normalize_socket(s) for site in self.sites for s in site.listen}
        plain = {
            normalize_socket(s) for site in self.sites if site.redirect for s in site.http_listen
        }
        self._names_apart()
        both = sorted(https & plain)
        if both:
            # One address:port is one socket for nginx: it cannot be HTTPS for one site and
            # plain HTTP for another (nginx refuses the two default servers).
            users = [s.primary for s in self.sites if both[0] in _sockets(s.listen)]
            users += [
                s.primary for s in self.sites if s.redirect and both[0] in _sockets(s.http_listen)
            ]
            raise ValueError(
                f"{both[0]} is HTTPS for {users[0]} (listen) and HTTP for {users[-1]} "
                "(http_listen): one address:port is one or the other"
            )
        self._streams_apart()
        return self

    def _names_apart(self) -> None:
        """A name is one server's on an address:port: nginx answers it from the first server
        that names it there and warns `conflicting server name` for any other (the same name
        twice in one site too)."""
        named: dict[tuple[str, str], str] = {}  # (socket, name) -> the site that names it
        for site in self.sites:
            for sock in _sockets(site.listen):
                here: set[str] = set()
                for domain in site.domains:
                    other = named.setdefault((sock, domain.lower()), site.primary)
                    if other != site.primary or domain.lower() in here:
                        where = "twice in" if other == site.primary else f"in site {other} and in"
                        raise ValueError(
                            f"{domain} is named {where} site {site.primary} on {sock}: nginx "
                            "answers it from one server and warns `conflicting server name`"
                        )
                    here.add(domain.lower())

    def _streams_apart(self) -> None:
        """A stream site's address:port is its own: another stream site or an http{} site
        there would be a second listener on the same socket."""
        taken: dict[str, str] = {}  # socket -> what listens there
        for site in self.sites:
            for sock in _sockets([*site.listen, *(site.http_listen if site.redirect else [])]):
                taken.setdefault(sock, f"site {site.primary}")
        for stream in self.streams:
            for sock in _sockets(stream.listen):
                if sock in taken:
                    raise ValueError(
                        f"{sock} is taken twice, by {taken[sock]} and stream site "
                        f"{stream.name}: a stream site needs an address:port of its own"
                    )
                taken[sock] = f"stream site {stream.name}"
        names = [s.name for s in self.streams]
        if len(set(names)) != len(names):
            raise ValueError("two stream sites have the same name (it names the site's file)")


# --- the site file (generate --config, and the presets) ------------------------------------------


def _overrides(model: type[BaseModel], names: Iterable[str], name: str, doc: str) -> type[Strict]:
    """`model`'s fields `names`, each optional and without a default: what a file may set over
    the preset it extends (a key left out keeps the preset's value). The types and constraints
    are `model`'s own, so the file, its schema and the final model cannot drift apart."""
    fields: dict[str, Any] = {}
    for field in names:
        info = model.model_fields[field]
        kind: Any = info.annotation
        if info.metadata:
            kind = Annotated[(kind, *info.metadata)]  # keeps ge=, min_length=, validators
        fields[field] = (kind | None, Field(None, description=info.description))
    made: type[Strict] = create_model(name, __base__=Strict, __doc__=doc, **fields)
    return made


# What `site:` may set for every site of the file (the rest is each site's own).
SITE_DEFAULT_KEYS = (
    "http2",
    "http3",
    "hsts",
    "redirect",
    "root",
    "listen",
    "http_listen",
    "client_certificates",
)
PolicyOverrides = _overrides(
    TLSPolicy, TLSPolicy.model_fields, "PolicyOverrides", "The TLS policy: merged key by key."
)
SiteDefaults = _overrides(Site, SITE_DEFAULT_KEYS, "SiteDefaults", "Defaults for every site.")


class SiteFile(Strict):
    """A site file for `nginxgen generate --config` (the presets are site files too): every
    key merges over the preset named by `extends`; lists are replaced, not merged."""

    summary: str | None = Field(None, description="one line for `nginxgen presets`")
    description: str | None = None
    source: str | None = Field(None, description="where the policy comes from")
    extends: str | None = Field(None, description="the preset this file builds on")
    policy: PolicyOverrides | None = None  # type: ignore[valid-type]
    site: SiteDefaults | None = None  # type: ignore[valid-type]
    sites: list[Site] | None = None
    streams: list[StreamSite] | None = None
    default_server: DefaultServer | None = None
    comments: bool | None = None
    access_log: LogPath | None = Field(None, description="TLS access log path, or off")


# A preset holds a policy and site defaults, never sites of its own.
PRESET_KEYS = frozenset({"summary", "description", "source", "extends", "policy", "site"})


def site_file_schema() -> dict[str, Any]:
    """The JSON Schema editors check a site file with (`nginxgen schema`)."""
    schema = SiteFile.model_json_schema()
    return {"$schema": "https://json-schema.org/draft/2020-12/schema", **schema}


def _loc(loc: tuple[int | str, ...]) -> str:
    return ".".join(str(part) for part in loc) or "config"


def pydantic_problems(err: ValidationError) -> str:
    """A model's refusal as lines of `key.path: message (got value)`, one per problem: the
    site file's loader and the composer say it the same way."""
    lines = []
    for item in err.errors():
        message = str(item["msg"]).removeprefix("Value error, ")
        value = item.get("input")
        said = item["type"] == "missing" or isinstance(value, dict) or repr(value) in message
        shown = "" if said else f" (got {value!r})"  # once: a message may quote it already
        lines.append(f"{_loc(item['loc'])}: {message}{shown}")
    return "\n".join(lines)
