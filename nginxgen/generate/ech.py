"""Encrypted Client Hello for a generated config: the key files nginx reads, where the directive
goes, the DNS HTTPS records to publish and what a key rotation needs.

Only the default server of an address:port decrypts ECH, with its own `ssl_ech_file` lines, and
only its first file's configs are sent as retry configs (knowledge: ech.toml, nginx.toml
default_server_only.ssl_ech_file). So the lines go to tls.conf at http{} level, where the
generated default server inherits them, the current key first and the previous ones after it.
A client whose key is stale retries only after a handshake for the public name with a
certificate that covers it: the public name must be one of the sites' names.
"""

from __future__ import annotations

from pathlib import Path

from nginxgen.base import ech_configs as ech
from nginxgen.base.records import record
from nginxgen.base.sockets import normalize_socket
from nginxgen.generate.models import EchPolicy, GeneratorConfig, Site
from nginxgen.generate.plan_common import Problems
from nginxgen.knowledge.directives import directive_first_release
from nginxgen.knowledge.ech import directive as ech_directive
from nginxgen.knowledge.ech import ech_refusal
from nginxgen.knowledge.target import Target

NEW_KEY_FILE = "ech.pem"  # written into --out when policy.ech.keys is empty
DNS_FILE = "ech-dns.txt"  # the records to publish and the rotation plan


@record
class EchPlan:
    public_name: str
    files: list[str]  # ssl_ech_file arguments, the current key first
    new_key: str | None  # the text of NEW_KEY_FILE when the key is made (or kept) in --out
    records: list[str]  # one HTTPS record per name
    dns_text: str  # DNS_FILE: the records and the rotation plan


def _covers(domain: str, name: str) -> bool:
    """Whether a server_name entry (a host, or `*.` wildcard) matches a host name."""
    domain = domain.lower().rstrip(".")
    if domain.startswith("*."):
        head, _, rest = name.partition(".")
        return bool(head) and rest == domain[2:]
    return domain == name


def _read_key(path: str, where: str, problems: Problems) -> ech.EchKeyFile | None:
    try:
        text = Path(path).read_text(encoding="utf-8")
    except UnicodeDecodeError:
        problems.add(
            where,
            path,
            "is not an ECH key file: not text (a PEM file is)",
            "make one with `openssl ech -public_name NAME -out FILE`",
        )
        return None
    except OSError as exc:
        problems.add(
            where,
            path,
            f"cannot be read here ({exc.strerror})",
            "generate where the key files are, or leave policy.ech.keys empty",
        )
        return None
    try:
        return ech.read_key_file(text)
    except ech.EchError as exc:
        line = f" (line {exc.line})" if exc.line else ""
        problems.add(
            where,
            path,
            f"is not an ECH key file{line}: {exc}",
            "make one with `openssl ech -public_name NAME -out FILE`",
        )
        return None


def _alpn(site: Site) -> tuple[str, ...]:
    """The protocols beyond HTTP/1.1 (which every HTTPS record implies, RFC 9460 7.1.2)."""
    return (*(["h3"] if site.http3 else []), *(["h2"] if site.http2 else []))


def _owner(name: str, site: Site) -> tuple[str, str]:
    """The record's owner and target: the name itself on port 443, else `_PORT._https.name`
    pointing at the name (RFC 9460 section 9.1)."""
    port = normalize_socket(site.listen[0]).rsplit(":", 1)[1]
    return (name, ".") if port == "443" else (f"_{port}._https.{name}", f"{name}.")


def _as_needed() -> str:
    """What serves ECH, with the public sources that say so."""
    directive = ech_directive()
    first = directive_first_release(directive.name)
    return (
        f"use nginx {first} or newer built against OpenSSL 4.0 ({directive.docs}; nginx "
        f"CHANGES {first}; OpenSSL 4.0's ECH API), or drop policy.ech"
    )


def plan_ech(
    config: GeneratorConfig, target: Target, problems: Problems, kept_key: str | None
) -> EchPlan | None:
    """The ECH part of the plan, or None without `policy.ech`; `kept_key` is the text of
    NEW_KEY_FILE already in --out, kept rather than replaced by a new key."""
    wanted = config.policy.ech
    if wanted is None:
        return None
    _check_serves(config, wanted, target, problems)
    keys = [_read_key(p, f"policy.ech.keys[{i}]", problems) for i, p in enumerate(wanted.keys)]
    new_key = None
    if wanted.keys:
        current, files = keys[0], list(wanted.keys)
    else:
        current, new_key = _key_in_out(wanted.public_name, kept_key, problems)
        files = [NEW_KEY_FILE]
    if current is None:
        return None
    _check_current(wanted, current, files[0], problems)
    records = _records(config.sites, current, wanted.dns_ttl)
    return EchPlan(wanted.public_name, files, new_key, records, _dns_text(wanted, files, records))


def _check_serves(
    config: GeneratorConfig, wanted: EchPolicy, target: Target, problems: Problems
) -> None:
    """ECH needs a target that serves it, TLS 1.3, and a site for the public name (the name a
    client with a stale key gets its retry configs from)."""
    refusal = ech_refusal(target)
    if refusal:
        problems.refuse(
            "policy.ech",
            f"Encrypted Client Hello cannot work on {target.describe()}: {refusal}; {_as_needed()}",
        )
    if "TLSv1.3" not in config.policy.protocols:
        problems.refuse(
            "policy.ech",
            "Encrypted Client Hello is TLS 1.3 only: an ECH client's handshake fails "
            "without it; add TLSv1.3 to policy.protocols",
        )
    if not any(_covers(d, wanted.public_name) for s in config.sites for d in s.domains):
        problems.add(
            "policy.ech.public_name",
            wanted.public_name,
            "no site serves it, so a client with a stale key gets no retry configs (the "
            "handshake for the public name is refused or fails verification)",
            "add it to the domains of a site whose certificate covers it",
        )


def _key_in_out(
    public_name: str, kept_key: str | None, problems: Problems
) -> tuple[ech.EchKeyFile, str]:
    """NEW_KEY_FILE's key and text: the one an earlier run left in --out, else a new one (a
    kept file that is no key file is a problem)."""
    if kept_key is not None:
        try:
            return ech.read_key_file(kept_key), kept_key
        except ech.EchError as exc:
            problems.add(
                NEW_KEY_FILE,
                "in --out",
                f"is not an ECH key file: {exc}",
                "remove it to have a new key made",
            )
    new_key = ech.new_key_file(public_name)
    return ech.read_key_file(new_key), new_key


def _check_current(
    wanted: EchPolicy, current: ech.EchKeyFile, file: str, problems: Problems
) -> None:
    """The current key (in `file`) must be for the public name, and its private key the one
    its configs publish."""
    names = {c.public_name for c in current.config_list.configs}
    if names != {wanted.public_name}:
        problems.add(
            "policy.ech.keys[0]" if wanted.keys else NEW_KEY_FILE,
            ", ".join(sorted(names)),
            f"the current key's public name is not policy.ech.public_name ({wanted.public_name})",
            "make a key for it, or change public_name",
        )
    if not current.matches():
        problems.add(
            "policy.ech.keys[0]",
            file,
            "its private key is not the one its ECHCONFIG publishes",
            "make the file again with `openssl ech`",
        )


def _records(sites: list[Site], current: ech.EchKeyFile, ttl: int) -> list[str]:
    """One HTTPS record per site name, with the current key's configs."""
    records = []
    for site in sites:
        for domain in site.domains:
            owner, target_name = _owner(domain, site)
            records.append(
                ech.https_record(owner, current.config_list, _alpn(site), ttl, target=target_name)
            )
    return records


def _dns_text(wanted: EchPolicy, files: list[str], records: list[str]) -> str:
    lines = [
        "; DNS HTTPS records for Encrypted Client Hello (RFC 9460, ech= RFC 9848): publish",
        "; them in each name's zone; a client that finds one encrypts its ClientHello to the",
        f"; key of {files[0]} and shows {wanted.public_name} as the outer name.",
        *records,
        "",
        "; Rotating the key (every ssl_ech_file decrypts; only the first one's configs are",
        "; sent to a client as retry configs):",
        f";   1. make the new key: openssl ech -public_name {wanted.public_name} -out new.pem",
        f";   2. policy.ech.keys: [new.pem, {files[0]}], generate, reload nginx: both keys",
        ";      decrypt, and a client with the old record is sent the new one on retry",
        ";   3. publish the records the new generate writes here, in place of these",
        f";   4. after the old records' TTL ({wanted.dns_ttl} s) and your resolvers' caching,",
        f";      drop {files[0]} from policy.ech.keys and generate again",
    ]
    if len(files) > 1:
        kept = ", ".join(files[1:])
        lines.append(f"; Kept for clients with an older record (decrypt only): {kept}")
    return "\n".join(lines) + "\n"
