"""Probe one server for each name: protocol versions, the TLS 1.3 group and whether ML-KEM is
enforced, each group alone, the TLS 1.3 and TLS 1.2 suites taken (each offered alone), and whose
TLS 1.2 suite order wins.

How each answer is read (nginxgen/probe/hello.py makes X25519 key shares and a well-formed
ML-KEM-768 one):
- a version is accepted when the server answers a ClientHello offering only it;
- a group is accepted when, offered alone with no key share, the server sends a
  HelloRetryRequest naming it; a server without TLS 1.3 is asked with TLS 1.2, ECDHE suites
  and the group offered first, and its ServerKeyExchange names the group taken (elliptic-curve
  groups only; `groups_via` says which version answered);
- ALPN, the certificate (the chain as sent, decrypted from a TLS 1.3 handshake by
  nginxgen/probe/tls13_flight.py, else read from TLS 1.2's clear first flight), resumption, the
  0-RTT offer and HSTS on `/` and on a 404 come from full handshakes with this Python's TLS
  library (nginxgen/probe/session.py);
- `pq` is `enforced` when a client offering the three ML-KEM hybrids (X25519MLKEM768,
  SecP256r1MLKEM768, SecP384r1MLKEM1024) and X25519, P-256 and P-384, but sending only an X25519
  key share, is asked for an ML-KEM group; `preferred` when a browser-like client (X25519MLKEM768
  first, key shares for it and X25519) gets X25519MLKEM768 but an X25519-first one does not;
  `supported` when one of the hybrids offered alone is taken; `none` otherwise. The ML-KEM key
  share is well-formed but not from a key pair (see hello._mlkem_encapsulation_key).
"""

from __future__ import annotations

from typing import Any

from nginxgen.probe.hello import (
    GROUPS,
    TLS12_SUITES,
    TLS13_SUITES,
    VERSIONS,
    Answer,
    ask,
    connections_made,
)

CLASSICAL = ["X25519", "secp256r1", "secp384r1"]
CONCURRENT = 16  # names probed at once
PQ_HYBRIDS = ["X25519MLKEM768", "SecP256r1MLKEM768", "SecP384r1MLKEM1024"]
TLS12_GROUPS = ["X25519", "secp256r1", "secp384r1", "secp521r1", "X448"]  # ECDHE can use these
CERTIFICATE_CURVES = ["secp256r1", "secp384r1", "secp521r1"]
ECDHE_SUITES = [code for code, name in TLS12_SUITES.items() if name.startswith("ECDHE-")]


def probe_name(address: tuple[str, int], sni: str | None, timeout: float) -> dict[str, Any]:
    def hello(version: str, groups: list[str], shares: list[str] = [], **kw: Any) -> Answer:  # noqa: B006
        return ask(address, sni, version, groups, shares, timeout=timeout, **kw)

    connections_made()  # count this name's connections from here
    inconclusive: list[str] = []
    problems: list[str] = []  # what breaks clients, whatever the config says

    def verdict(check: str, answer: Answer, ok: bool) -> bool | None:
        """A timeout or a reset is neither yes nor no: None, and listed."""
        if answer.inconclusive:
            inconclusive.append(f"{check}: {answer.alert}")
            return None
        return ok

    protocols = {}
    for version in VERSIONS:
        shares = ["X25519"] if version == "TLSv1.3" else []
        answer = hello(version, CLASSICAL, shares)
        protocols[version] = verdict(version, answer, answer.accepted and answer.version == version)
    out: dict[str, Any] = {"sni": sni, "protocols": protocols}
    if protocols["TLSv1.3"]:
        # every group, a key share for X25519 only: retried where the server enforces ML-KEM
        offered = [*PQ_HYBRIDS, *CLASSICAL]
        plain = hello("TLSv1.3", offered, ["X25519"], follow_retry=True)
        out["groups"] = {}
        for group in GROUPS:
            answer = hello("TLSv1.3", [group])
            out["groups"][group] = verdict(group, answer, answer.accepted and answer.group == group)
        # a browser-like client: ML-KEM first, key shares for it and for X25519
        both = hello("TLSv1.3", ["X25519MLKEM768", *CLASSICAL], ["X25519MLKEM768", "X25519"])
        only = hello("TLSv1.3", ["X25519MLKEM768"], ["X25519MLKEM768"])
        enforced = plain.hrr and plain.group in PQ_HYBRIDS
        preferred = both.accepted and both.group in PQ_HYBRIDS
        supported = any(out["groups"][group] for group in PQ_HYBRIDS)
        accepted = []
        retried = [("X25519 share, every suite", plain)]
        for code, name in TLS13_SUITES.items():  # each offered alone, otherwise as `plain`
            answer = hello("TLSv1.3", offered, ["X25519"], suites=[code], follow_retry=True)
            if verdict(name, answer, answer.accepted and answer.cipher == name):
                accepted.append(name)
                retried.append((f"{name} alone", answer))
        out["tls13"] = {
            "cipher": plain.cipher,
            "group": plain.group,
            "hrr": plain.hrr,
            "group_both_shares": both.group if both.accepted else None,
            "group_mlkem_only": only.group if only.accepted else None,
            "accepted": accepted,
            "retry_failures": _retry_failures(retried, problems, inconclusive),
        }
        out["pq"] = (
            "enforced"
            if enforced
            else "preferred"
            if preferred
            else "supported"
            if supported
            else "none"
        )
        if plain.inconclusive:
            inconclusive.append(f"TLS 1.3 with an X25519 key share: {plain.alert}")
            out["pq"] = "inconclusive"
        out["groups_via"] = "TLSv1.3"
    elif protocols["TLSv1.2"]:
        # No TLS 1.3: each elliptic-curve group offered first, with ECDHE suites only; the
        # ServerKeyExchange names the group the server took. The NIST curves follow it because
        # in TLS 1.2 the client's groups also bound the curve of an ECDSA certificate: a client
        # offering X25519 alone cannot reach a P-256 certificate at all (OpenSSL 3.0, seen).
        out["tls13"] = None
        out["pq"] = "none"
        out["groups"] = {}
        for group in TLS12_GROUPS:
            offered = [group, *(c for c in CERTIFICATE_CURVES if c != group)]
            answer = hello("TLSv1.2", offered, suites=ECDHE_SUITES, key_exchange=True)
            taken = answer.accepted and answer.group == group
            out["groups"][group] = verdict(f"{group} (TLS 1.2)", answer, taken)
        out["groups_via"] = "TLSv1.2"
    else:
        out["tls13"] = None
        out["pq"] = "none"
        out["groups"] = None
        out["groups_via"] = None
    if protocols["TLSv1.2"]:
        suites = list(TLS12_SUITES)
        forward = hello("TLSv1.2", CLASSICAL, suites=suites)
        backward = hello("TLSv1.2", CLASSICAL, suites=suites[::-1])
        accepted = []
        for code, name in TLS12_SUITES.items():  # each offered alone
            answer = hello("TLSv1.2", CLASSICAL, suites=[code])
            if verdict(name, answer, answer.accepted and answer.cipher == name):
                accepted.append(name)
        out["tls12"] = {
            "cipher": forward.cipher,
            "server_order": forward.cipher == backward.cipher,
            "accepted": accepted,
        }
    else:
        out["tls12"] = None
    out.update(
        alpn=None, certificate=None, resumption=None, resumption_by=None, early_data=None, hsts=None
    )
    if protocols["TLSv1.2"] or protocols["TLSv1.3"]:
        import ssl

        from nginxgen.probe.session import session_facts

        try:
            out.update(session_facts(address, sni, timeout, protocols))
        except (OSError, ssl.SSLError) as exc:
            out["error"] = f"full handshake failed: {exc}"
    out["inconclusive"] = inconclusive
    out["problems"] = problems
    out["connections"] = connections_made()
    return out


def _retry_failures(
    retried: list[tuple[str, Answer]], problems: list[str], inconclusive: list[str]
) -> list[str]:
    """Hellos with only an X25519 key share that the server answered with a HelloRetryRequest,
    followed by the second hello: a server must then keep its suite and group (RFC 8446 4.1.4),
    else the client aborts. nginx before 1.29.2 breaks that for a name whose server sets its
    own TLS 1.3 suites: the first hello is answered from the default server's suites, the
    second from the name's. Returns what failed, each as "hello: what happened"."""
    failures = []
    for label, first in retried:
        retry = first.retry
        if retry is None:
            continue
        if retry.inconclusive:
            inconclusive.append(f"{label}, second hello after a HelloRetryRequest: {retry.alert}")
        elif not retry.accepted:
            failures.append(f"{label}: refused ({retry.alert})")
        elif (retry.cipher, retry.group) != (first.cipher, first.group):
            failures.append(
                f"{label}: {first.cipher} and {first.group} in the HelloRetryRequest, "
                f"{retry.cipher} and {retry.group} in the ServerHello"
            )
    if failures:
        problems.append(
            "clients that offer ML-KEM but send only an X25519 key share fail after the "
            f"server's HelloRetryRequest (RFC 8446 4.1.4): {'; '.join(failures)}"
        )
    return failures


def probe(
    host: str, port: int, names: list[str | None], connect: str | None, timeout: float
) -> list[dict[str, Any]]:
    """Each name probed in a thread of its own, at most CONCURRENT at a time, in the given
    order. Threads, not asyncio: every check is a short blocking exchange, and the full
    handshakes use the ssl module's blocking sockets."""
    from concurrent.futures import ThreadPoolExecutor

    address = (connect or host, port)
    with ThreadPoolExecutor(max_workers=max(1, min(CONCURRENT, len(names)))) as pool:
        return list(pool.map(lambda name: probe_name(address, name, timeout), names))


def text_report(results: list[dict[str, Any]]) -> str:
    lines = []
    for result in results:
        lines.append(f"{result['sni'] or '(no SNI)'}:")
        on = [v for v, ok in result["protocols"].items() if ok]
        lines.append(f"  protocols: {' '.join(on) or 'none'}")
        if result["tls13"]:
            t = result["tls13"]
            hrr = " after a HelloRetryRequest" if t["hrr"] else ""
            lines.append(
                f"  TLS 1.3: {t['cipher']}, {t['group']}{hrr}; post-quantum {result['pq']}"
            )
            lines.append(f"  TLS 1.3 suites: {' '.join(t['accepted']) or 'none'}")
        if result["groups"] is not None:
            accepted = [g for g, ok in result["groups"].items() if ok]
            lines.append(f"  groups ({result['groups_via']}): {' '.join(accepted)}")
        if result["tls12"]:
            order = "server's" if result["tls12"]["server_order"] else "client's"
            lines.append(f"  TLS 1.2: {result['tls12']['cipher']} ({order} suite order wins)")
            lines.append(f"  TLS 1.2 suites: {' '.join(result['tls12']['accepted']) or 'none'}")
        cert = result.get("certificate")
        if cert:
            chain = (
                f"{cert['chain_length']} sent, leaf first: {cert['leaf_first']}, "
                f"OCSP stapled: {cert['ocsp_stapled']}"
                if cert["chain_length"] is not None
                else "chain not seen"
            )
            lines.append(
                f"  certificate: {cert['key']} {cert['bits']}, {cert['days_left']} days left, "
                f"names {' '.join(cert['names'])}, covers the name: {cert['covers_sni']}; {chain}"
            )
        early = result.get("early_data")
        if early is not None:
            offered = (
                f"offered, up to {early['max_early_data']} bytes"
                if early["offered"]
                else "not offered"
            )
            lines.append(f"  0-RTT: {offered} (the server's TLS 1.3 session tickets)")
        if result.get("hsts"):
            hsts = result["hsts"]
            resumption = ", ".join(
                f"{kind} {'yes' if ok else 'no'}"
                for kind, ok in (result.get("resumption_by") or {}).items()
                if ok is not None
            )
            lines.append(
                f"  ALPN {result['alpn']}; resumption {resumption}; "
                f"HSTS on / ({hsts['root_status']}): {hsts['root'] or 'none'}, "
                f"on a {hsts['not_found_status']}: {hsts['not_found'] or 'none'}"
            )
        if result.get("error"):
            lines.append(f"  {result['error']}")
        for check in result["inconclusive"]:
            lines.append(f"  INCONCLUSIVE {check}")
        for problem in result.get("problems", []):
            lines.append(f"  PROBLEM {problem}")
        for m in result.get("mismatches", []):
            where = f"{m['file']}:{m['line']} sets {m['setting']}" if m["file"] else m["setting"]
            lines.append(
                f"  MISMATCH {where} {m['expected']}, but the server showed {m['observed']}: "
                f"{m['why']}"
            )
    return "\n".join(lines) + "\n"
