"""TLS 1.2 suites: every suite the knowledge base knows (OpenSSL's table and what other libraries
have besides, knowledge/cipher_suites.every_suite) offered at once, in the order OpenSSL's client
offers them; the server's pick is taken and the rest offered again, until the server refuses:
one hello per suite taken and one more, not one per suite known. The same list reversed says
whose order wins (the same pick both ways: the server's). Each hello offers every group TLS
1.2's ECDHE can use and every signature scheme, so that no suite is out of reach for want of a
group or of a scheme its certificate needs.

Where the list may lack suites the target's library has (knowledge: suites_not_known), or a
hello went unanswered, `partial` says why (null: the list is complete). The model: the suites
`ssl_ciphers` selects that the name's certificates can serve."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from nginxgen.conf.per_name import NameModel
from nginxgen.probe.check import Found, NameProbe, Prediction, expect_suites
from nginxgen.probe.hello import SUITE_CODES, TLS12_GROUPS, TLS12_SUITES, HelloReply

KEYS: Mapping[str, Any] = {"tls12": None}


def runs(found: Found) -> bool:
    return bool(found["protocols"].get("TLSv1.2"))


def enumerate_suites(probe: NameProbe, suites: list[int]) -> tuple[list[str], str | None]:
    """The suites of `suites` the server takes, in the order it picked them (each time among
    those left), and why the list may be short (None: it is not)."""
    left = list(suites)
    taken: list[str] = []
    while left:
        answer: HelloReply = probe.hello("TLSv1.2", TLS12_GROUPS, suites=left)
        if answer.inconclusive:
            probe.inconclusive.append(f"TLS 1.2 suites: {answer.alert}")
            return taken, f"a hello was not answered ({answer.alert}): the suites after it"
        code = SUITE_CODES.get(answer.cipher or "")
        if not answer.accepted or answer.version != "TLSv1.2" or code not in left:
            break
        taken.append(TLS12_SUITES[code])
        left.remove(code)
    return taken, None


def observe(probe: NameProbe) -> dict[str, Any]:
    suites = list(TLS12_SUITES)
    accepted, partial = enumerate_suites(probe, suites)
    unknown = probe.suites_not_known
    if partial is None and unknown is not None:
        partial = unknown
    backward = probe.hello("TLSv1.2", TLS12_GROUPS, suites=suites[::-1])
    first = accepted[0] if accepted else None
    return {
        "tls12": {
            "cipher": first,
            "server_order": first is not None and first == backward.cipher,
            "accepted": accepted,
            "partial": partial,
        }
    }


def predict(model: NameModel, found: Found) -> list[Prediction]:
    seen = found.get("tls12")
    if seen and seen.get("partial"):
        return []  # a suite not seen may still be taken
    return expect_suites(model.tls12_suites, seen, TLS12_SUITES.values(), "tls12.accepted")


def text(found: Found) -> list[str]:
    t = found["tls12"]
    if not t:
        return []
    order = "server's" if t["server_order"] else "client's"
    partial = f" (partial: {t['partial']})" if t.get("partial") else ""
    return [
        f"  TLS 1.2: {t['cipher']} ({order} suite order wins)",
        f"  TLS 1.2 suites{partial}: {' '.join(t['accepted']) or 'none'}",
    ]
