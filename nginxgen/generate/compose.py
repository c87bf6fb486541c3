"""From a preset, a --config file and command-line flags to one validated GeneratorConfig."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

import pydantic

from nginxgen.base.errors import NginxgenError, ValidationError
from nginxgen.files.certs import NOT_CHECKED, ca_file_here, check_pair, unreadable_here
from nginxgen.generate.models import SITE_DEFAULT_KEYS, GeneratorConfig, pydantic_problems
from nginxgen.generate.plan_common import locate
from nginxgen.generate.presets import (
    KeyLines,
    SiteSource,
    load_config,
    load_preset,
    merge,
    policy_origins,
    preset_chain,
    read_yaml,
)
from nginxgen.knowledge import pki

CpuMode = Literal["auto", "aes-ni", "no-aes-ni"]


def cpu_has_aes(cpuinfo: Path = Path("/proc/cpuinfo")) -> bool | None:
    try:
        text = cpuinfo.read_text()
    except OSError:
        return None
    for line in text.splitlines():
        if line.startswith(("flags", "Features")):
            return "aes" in line.split(":", 1)[1].split()
    return None


def _chacha_first(names: list[str], chacha: bool) -> list[str]:
    return sorted(names, key=lambda n: ("CHACHA" in n) != chacha)  # stable: keeps the rest's order


def apply_cpu(policy: dict[str, Any], mode: CpuMode | None) -> dict[str, Any]:
    """Put AES-GCM first on CPUs with AES instructions, ChaCha20 first on those without."""
    if mode is None:
        return policy
    if mode == "auto":
        aes = cpu_has_aes()
        if aes is None:
            raise NginxgenError(
                "cannot read the CPU flags; use --cpu aes-ni or no-aes-ni", where="--cpu"
            )
    else:
        aes = mode == "aes-ni"
    out = dict(policy)
    for key in ("ciphers", "ciphersuites"):
        if key in out:
            out[key] = _chacha_first(list(out[key]), chacha=not aes)
    return out


def _load(preset: str | None, config_file: SiteSource | None) -> dict[str, Any]:
    """The preset's data with the site file's merged over it."""
    if preset is None and config_file is None:
        raise NginxgenError(
            "give --preset NAME or --config FILE.yaml (see `nginxgen presets`)", where="generate"
        )
    data: dict[str, Any] = load_preset(preset) if preset else {}
    if config_file is not None:
        data = merge(data, load_config(config_file))
        _check_policy(data, config_file)
    return data


def _check_policy(data: dict[str, Any], config_file: SiteSource) -> None:
    """A site file that starts from no preset (no --preset, no `extends:`) and sets no complete
    policy: one line that says how to start from one, not a line per missing key."""
    from nginxgen.generate.models import TLSPolicy

    policy = data.get("policy") or {}
    required = [n for n, f in TLSPolicy.model_fields.items() if f.is_required()]
    missing = [n for n in required if n not in policy]
    if missing:
        raise NginxgenError(
            f"policy: {' and '.join(missing)} not set and no preset to take them from: add "
            "`extends: intermediate` (or another preset, see `nginxgen presets`) to the file, "
            "or give --preset NAME",
            where=str(config_file),
        )


def _command_line_site(
    domains: list[str],
    certs: list[str],
    keys: list[str],
    listen: list[str] | None,
    http_listen: list[str] | None,
) -> dict[str, Any] | None:
    """The site `--domain/--cert/--key` describe, if any."""
    if len(certs) != len(keys):
        raise NginxgenError(
            f"{len(certs)} --cert but {len(keys)} --key: give one key per certificate",
            where="--key",
        )
    if not domains:
        if certs:
            raise NginxgenError("--cert given without --domain", where="--domain")
        return None
    if not certs:
        raise NginxgenError(
            "each site needs a certificate: add --cert PATH --key PATH", where="--cert"
        )
    site: dict[str, Any] = {
        "domains": domains,
        "certificates": [{"cert": c, "key": k} for c, k in zip(certs, keys, strict=True)],
    }
    if listen:
        site["listen"] = listen
    if http_listen is not None:
        site["http_listen"] = [] if http_listen == ["none"] else http_listen
        site["redirect"] = http_listen != ["none"]
    return site


def _finish_sites(
    sites: list[dict[str, Any]], defaults: dict[str, Any], hsts_subdomains: bool | None
) -> list[dict[str, Any]]:
    """Each site over the file's `site:` defaults, the command line's HSTS choice, and its
    files' paths made absolute."""
    sites = [merge(defaults, s) for s in sites]
    for site in sites:
        if hsts_subdomains is not None and site.get("hsts", {}) is not None:
            # the command line wins over the files; `hsts: null` sends none: nothing to include
            site["hsts"] = {**site.get("hsts", {}), "include_subdomains": hsts_subdomains}
        _absolute(site)
    return sites


def _absolute(site: dict[str, Any]) -> dict[str, Any]:
    """A site's certificate paths made absolute (nginx reads relative ones from its prefix)."""
    for pair in site.get("certificates", []):
        for field in ("cert", "key"):
            if isinstance(pair.get(field), str):
                pair[field] = str(Path(pair[field]).expanduser().absolute())
    return site


def certificate_notes(config: GeneratorConfig) -> list[str]:
    """The note that the certificates and keys were not read, when they cannot be here (compose
    then leaves them unchecked): nginx -t reads them on the server."""
    why = unreadable_here()
    pairs = [s.certificates for s in config.sites] + [s.certificates for s in config.streams]
    if why is None or not any(pairs):
        return []
    return [f"note: {NOT_CHECKED} ({why}): nginx -t reads them on the server"]


def _check_certificate_types(config: GeneratorConfig) -> None:
    """Every pair readable and matching its key; a second pair of the other key type."""
    if unreadable_here():
        return  # certificate_notes says so
    named = [("sites", s.certificates) for s in config.sites]
    named += [("streams", s.certificates) for s in config.streams]
    counts: dict[str, int] = {}
    for kind, certificates in named:
        index = counts[kind] = counts.get(kind, -1) + 1
        kinds = [check_pair(c.cert, c.key).key_type for c in certificates]
        if len(set(kinds)) != len(kinds):
            raise ValidationError(
                f"{kind}.{index}.certificates: two {kinds[0]} certificates; a second one must be "
                "of the other key type (one RSA and one ECDSA)"
            )


def _ca_files(config: GeneratorConfig) -> list[tuple[str, str, str]]:
    """(field, path, whose certificates it checks) of every CA file the config has nginx
    trust."""
    found = []
    for i, site in enumerate(config.sites):
        if site.client_certificates is not None:
            found.append((f"sites[{i}].client_certificates.ca", site.client_certificates.ca,
                          "the clients'"))  # fmt: skip
        if site.upstream is not None:
            found.append((f"sites[{i}].upstream.trusted_certificate",
                          site.upstream.trusted_certificate, "the backend's"))  # fmt: skip
    for i, stream in enumerate(config.streams):
        if stream.backend_tls is not None:
            found.append((f"streams[{i}].backend_tls.trusted_certificate",
                          stream.backend_tls.trusted_certificate, "the backend's"))  # fmt: skip
    return found


def check_ca_files(config: GeneratorConfig, lines: KeyLines | None = None) -> list[str]:
    """Refuse a CA file that is here but holds no certificate; a warning line for each one not
    on this machine, naming where it comes from: nginx -t fails without it on the server. Each
    names its field, after its file:line where the --config file (`lines`) has it."""
    warnings = []
    system = pki.system_ca_bundle().path
    cloudflare = pki.cloudflare_origin_pull()
    for field, value, whose in _ca_files(config):
        place = locate(lines, field)
        where = f"{place}: {field}" if place else field
        path = system if value == "system" else value
        if ca_file_here(path, where):
            continue
        if path == system:
            source = "the OS's CA bundle (Debian and Ubuntu: the ca-certificates package)"
        elif path == cloudflare.path:
            source = f"{cloudflare.display} ({cloudflare.download})"
        else:
            source = f"the CA that issues {whose} certificates"
        warnings.append(
            f"warning: {where}: {path} is not on this machine; put {source} there on the "
            "server before reloading nginx (nginx -t fails without it)"
        )
    return warnings


def compose(
    preset: str | None,
    config_file: SiteSource | None,
    *,
    domains: list[str],
    certs: list[str],
    keys: list[str],
    listen: list[str] | None,
    http_listen: list[str] | None,
    cpu: CpuMode | None,
    comments: bool,
    check_certificates: bool = True,
    access_log: str | None = None,
    hsts_subdomains: bool | None = None,
) -> GeneratorConfig:
    """One validated model; `check_certificates=False` only for examples with placeholder paths."""
    data = _load(preset, config_file)
    sites: list[dict[str, Any]] = list(data.get("sites", []))
    extra = _command_line_site(domains, certs, keys, listen, http_listen)
    if extra is not None:
        sites.append(extra)
    if not sites and not data.get("streams"):
        raise NginxgenError(
            "no site: give --domain D --cert PATH --key PATH (or sites: or streams: in --config)",
            where="--domain",
        )
    site_defaults = {k: v for k, v in data.get("site", {}).items() if k in SITE_DEFAULT_KEYS}
    own = read_yaml(config_file) if config_file is not None else {}
    chosen = str(own["extends"]) if own.get("extends") is not None else preset
    model_data = {
        "policy": apply_cpu(dict(data.get("policy", {})), cpu),
        "sites": _finish_sites(sites, site_defaults, hsts_subdomains),
        "streams": [_absolute(dict(s)) for s in data.get("streams", [])],
        "default_server": data.get("default_server", {}),
        "comments": comments and data.get("comments", True),
        "access_log": access_log or data.get("access_log"),
        "presets": [name for name, _ in preset_chain(chosen)] if chosen else [],
        "policy_from": policy_origins(chosen, own.get("policy") or {}) if chosen else {},
    }
    try:
        config = GeneratorConfig.model_validate(model_data)
    except pydantic.ValidationError as err:
        raise ValidationError(pydantic_problems(err)) from None
    if check_certificates:
        _check_certificate_types(config)
    return config
