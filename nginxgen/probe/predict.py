"""Where the live server disagrees with what a config says each probed name gets
(`nginxgen probe --config`).

What applies to each name comes from the config model (nginxgen/conf/per_name.py): the value in
effect of each setting, the line that decides it, and the lines written for the name that do
not apply. This module only puts each answer next to what the probe observed, in the probe's
terms. A line that does not apply and says something other than what the server did is
reported with the reason it does not apply; a value in effect that the server did not show
means the server is not running this config (not reloaded, another file, another port).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from nginxgen import knowledge
from nginxgen.conf.config import Config
from nginxgen.conf.effective import Effective
from nginxgen.conf.load import Stmt
from nginxgen.conf.per_name import Answer, Ignored, NameModel, tls_socket_for_port
from nginxgen.records import record
from nginxgen.target import Target

NOT_RUNNING = "the server does not do what this config says (not reloaded?)"


def model_for(config: Config, target: Target, port: int, sni: str | None) -> NameModel | None:
    socket = tls_socket_for_port(config, port)
    return None if socket is None else NameModel(Effective(config, target), socket, sni)


@record(frozen=True)
class Prediction:
    """One setting of one name: the model's answer, put in the probe's terms, beside what the
    probe observed. `value` is None where the model predicts nothing."""

    setting: str
    answer: Answer
    value: Any
    ignored: tuple[tuple[Ignored, Any], ...]  # each ignored line with what it meant, in terms
    seen: Any
    page: str | None = None  # for HSTS: the response it is about


def predictions(model: NameModel, observed: dict[str, Any]) -> list[Prediction]:
    """The model's answer for every setting the probe observed for this name."""
    from nginxgen.probe.hello import TLS12_SUITES, TLS13_SUITES
    from nginxgen.probe.session import MISSING_PAGE

    out: list[Prediction] = []

    def add(
        answer: Answer,
        seen: Any,
        terms: Callable[[Any], Any] = lambda v: v,
        page: str | None = None,
    ) -> None:
        def put(value: Any) -> Any:
            return None if value is None else terms(value)

        ignored = tuple((i, put(i.meant)) for i in answer.ignored)
        out.append(Prediction(answer.key, answer, put(answer.value), ignored, seen, page))

    refused = model.refused()
    add(refused, not any(observed["protocols"].values()))
    if refused.value:
        return out
    # TLS 1.2 groups are probed each offered first: with the server's order winning, the
    # server's first group is what every probe sees, so they say nothing about the rest
    server_order_tls12 = observed.get("groups_via") == "TLSv1.2" and bool(
        (observed.get("tls12") or {}).get("server_order")
    )
    if observed.get("groups") is not None and not server_order_tls12:
        probed = list(observed["groups"])
        add(
            model.groups(),
            {g for g, ok in observed["groups"].items() if ok},
            lambda ids: {p for p in probed if (g := knowledge.find_group(p)) and g.id in ids},
        )
    add(model.protocols(), {v for v, ok in observed["protocols"].items() if ok}, set)
    resumed = observed.get("resumption_by") or {}
    if resumed.get("TLSv1.2 session id") is not None:
        add(model.session_id_resumption(), resumed["TLSv1.2 session id"])
    if resumed.get("TLSv1.3") is not None:
        add(model.tls13_resumption(), resumed["TLSv1.3"])
    if observed.get("early_data") is not None:
        add(model.early_data(), observed["early_data"]["offered"])
    if observed.get("tls13") and "accepted" in observed["tls13"]:
        probed13 = set(TLS13_SUITES.values())
        add(model.tls13_suites(), set(observed["tls13"]["accepted"]), lambda v: v & probed13)
    if observed.get("tls12") and "accepted" in observed["tls12"]:
        probed12 = set(TLS12_SUITES.values())
        add(model.tls12_suites(), set(observed["tls12"]["accepted"]), lambda v: v & probed12)
    certificate = observed.get("certificate") or {}
    if certificate.get("sha256"):
        sent = f"{certificate.get('subject')} (sha256 {certificate['sha256']})"
        # equal when the leaf sent is one of the files', else the files it should have been
        sha = certificate["sha256"]
        add(model.certificates(), sent, lambda v: sent if sha in v else sorted(v.values()))
    if certificate.get("ocsp_stapled") is not None:
        add(model.stapling(), certificate["ocsp_stapled"])
    if observed.get("alpn") is not None:
        add(model.alpn(), observed["alpn"])
    hsts = observed.get("hsts")
    if hsts is not None:
        for page, uri, status_key, header_key in (
            ("/", "/", "root_status", "root"),
            ("a 404", MISSING_PAGE, "not_found_status", "not_found"),
        ):
            status = hsts.get(status_key)
            if status is not None:  # no response: nothing to compare
                seen = hsts.get(header_key) is not None
                add(model.hsts(uri, status), seen, page=f"{page} (status {status})")
    return out


def compare(
    config: Config, target: Target, port: int, observed: dict[str, Any]
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """(the mismatches, the model's value of every observed setting) for one probed name."""
    model = model_for(config, target, port, observed["sni"])
    if model is None:
        listen = {
            "setting": "listen",
            "file": None,
            "line": None,
            "expected": f"a TLS server on port {port}",
            "observed": "the server answered TLS",
            "why": "the config has no TLS listen on this port",
        }
        return [listen], []
    found, said = [], []
    for p in predictions(model, observed):
        line = p.answer.line
        said.append(
            {
                "setting": p.setting,
                **({"page": p.page} if p.page else {}),
                "value": _shown(p.value),
                "predicted": p.value is not None,
                "file": line.file if line else None,
                "line": line.line if line else None,
                "observed": _shown(p.seen),
                "ignored": [
                    {
                        "file": i.line.file,
                        "line": i.line.line,
                        "meant": _shown(m),
                        "why": i.why,
                        "because": {"file": i.cause.file, "line": i.cause.line},
                    }
                    for i, m in p.ignored
                ],
            }
        )
        if p.value is not None and p.value != p.seen:
            found.append(_record(p, line or model.decider(p.setting).stmt, p.value, NOT_RUNNING))
            continue
        for ignored, meant in p.ignored:
            if meant is not None and meant != p.seen:
                found.append(_record(p, ignored.line, meant, ignored.why, ignored.cause))
    return found, said


def _shown(value: Any) -> Any:
    return sorted(value) if isinstance(value, (set, frozenset)) else value


def _record(
    p: Prediction, line: Stmt, expected: Any, why: str, cause: Stmt | None = None
) -> dict[str, Any]:
    record = {
        "setting": p.setting,
        "file": line.file,
        "line": line.line,
        "expected": _shown(expected),
        "observed": _shown(p.seen),
        "why": why,
    }
    if p.page is not None:
        record["page"] = p.page
    if cause is not None:  # the line that makes this one not apply
        record["because"] = {"file": cause.file, "line": cause.line}
    return record
