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

import functools
from collections.abc import Callable, Sequence
from typing import Any

from nginxgen.conf.config import Config
from nginxgen.conf.effective import Effective
from nginxgen.conf.load import Stmt
from nginxgen.conf.per_name import (
    NameModel,
    Passthrough,
    mail_listen_for_port,
    passthrough_for_port,
    tls_socket_for_port,
)
from nginxgen.knowledge.target import Target
from nginxgen.probe import checks
from nginxgen.probe.check import Check, Prediction, expect

NOT_RUNNING = "the server does not do what this config says (not reloaded?)"


def model_for(
    config: Config, target: Target, port: int, sni: str | None, host: str | None = None
) -> NameModel | None:
    return models_for(config, target, port, host)(sni)


def models_for(
    config: Config, target: Target, port: int, host: str | None = None
) -> Callable[[str | None], NameModel | None]:
    """The model of each name on the port's TLS socket, all of them reading one Effective (what
    it derives, it derives once for them all); None for every name without such a socket.
    `host`: the address connected to, which picks the socket where several share the port."""
    socket = tls_socket_for_port(config, port, host)
    if socket is None:
        through = passthrough_for_port(config, port, host)
        if through is None or through.backend is None:
            return lambda sni: None
        # stream{} passes the hello on (ssl_preread): the TLS server behind it answers
        behind, _, backend_port = through.backend.rpartition(":")
        if not backend_port.isdigit():
            return lambda sni: None
        return models_for(config, target, int(backend_port), behind.strip("[]"))
    effective = Effective(config, target)
    default = config.default_server(socket)
    return lambda sni: NameModel(effective, socket, sni, default=default)


def predictions(
    model: NameModel, found: dict[str, Any], run: Sequence[Check] | None = None
) -> list[Prediction]:
    """The model's answer for every setting the probe observed for this name: whether the
    handshake is refused, then each check's of `run` (nginxgen/probe/checks/) where it is not."""
    refused = model.refused()
    out = [expect(refused, not any(found["protocols"].values()), "refused")]
    if refused.value:
        return out
    for check in checks.CHECKS if run is None else run:
        out.extend(check.predict(model, found))
    return out


def compare(
    config: Config, target: Target, port: int, observed: dict[str, Any], host: str | None = None
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """(the mismatches, the model's value of every observed setting) for one probed name."""
    model = model_for(config, target, port, observed["sni"], host)
    through = passthrough_for_port(config, port, host) if model is None else None
    return _compare_one(model, port, observed, through, config)


def compare_all(
    config: Config,
    target: Target,
    port: int,
    results: list[dict[str, Any]],
    host: str | None = None,
) -> int:
    """Each result of one port given its `mismatches` and `config` (compare); the number of
    mismatches. A name that took its context values from another name's probe (`context`, not
    refuted: nginxgen/probe/plan.py) takes that name's answers for them too: the same server and
    default server give the same answers, beside the same observations. Only its own checks'
    are worked out again (for thousands of names, the model's answers cost more than the
    probe's handshakes)."""
    model = models_for(config, target, port, host)
    by_name = {r["sni"]: r for r in results}
    own = [c for c in checks.CHECKS if c not in checks.SHARED]
    # the port's stream{} passthrough: the same for every name (built once, not once a name)
    through = functools.cache(lambda: passthrough_for_port(config, port, host))
    found = 0
    for result in results:
        context = result.get("context") or {}
        first = by_name.get(context.get("name")) if not context.get("refuted") else None
        if first is None or "config" not in first:
            mine = model(result["sni"])
            result["mismatches"], result["config"] = _compare_one(
                mine, port, result, through() if mine is None else None, config
            )
        else:
            mine = model(result["sni"])
            mismatches, said = compare_model(mine, result, own) if mine else ([], [])
            result["mismatches"] = [*_shared(first["mismatches"]), *_own(mismatches)]
            result["config"] = [*_shared(first["config"]), *_own(said)]
        found += len(result["mismatches"])
    return found


SHARED_KEYS = frozenset(key for check in checks.SHARED for key in check.KEYS) | {"refused"}


def _shared(entries: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The entries about what the context checks observed (and whether the handshake is
    refused)."""
    return [e for e in entries if e["key"].split(".")[0] in SHARED_KEYS]


def _own(entries: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [e for e in entries if e["key"].split(".")[0] not in SHARED_KEYS]


def _compare_one(
    model: NameModel | None,
    port: int,
    observed: dict[str, Any],
    through: Passthrough | None,
    config: Config | None = None,
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    if model is None and through is not None:
        # passed on to an address the model cannot follow (a variable, another host): the
        # server behind it is not this config's to judge; said, not counted as a mismatch
        note = {
            "key": "protocols",
            "setting": "ssl_preread",
            "file": through.listen.file,
            "line": through.listen.line,
            "value": f"passed on by stream{{}} to {through.backend or 'a variable'}: not compared",
            "predicted": False,
            "observed": None,
            "ignored": [],
            "compared": False,  # said in the text too (trial 13: it was in the JSON only)
        }
        return [], [note]
    mail = mail_listen_for_port(config, port) if model is None and config is not None else None
    if mail is not None:
        note = {
            "key": "protocols",
            "setting": "listen",
            "file": mail.file,
            "line": mail.line,
            "value": "a mail{} listener (nginx's mail proxy): not compared",
            "predicted": False,
            "observed": None,
            "ignored": [],
            "compared": False,  # said in the text too (trial 13: it was in the JSON only)
        }
        return [], [note]
    if model is None:
        listen = {
            "key": "protocols",
            "setting": "listen",
            "file": None,
            "line": None,
            "expected": f"no TLS on port {port}",
            "observed": "a TLS handshake",
            "why": "the config has no TLS listen on this port",
        }
        return [listen], []
    return compare_model(model, observed)


def compare_model(
    model: NameModel, observed: dict[str, Any], run: Sequence[Check] | None = None
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """(the mismatches, the model's value of every observed setting) for one probed name whose
    model is `model` (an http{} socket's, or a stream{} one's: probe/stream.py)."""
    found, said = [], []
    for p in predictions(model, observed, run):
        line = p.answer.line
        said.append(
            {
                "key": p.key,
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
        "key": p.key,
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
