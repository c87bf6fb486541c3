"""HSTS: the Strict-Transport-Security header of a response to `/` and to a page the site most
likely lacks, with their statuses; a page that got no answer (none within the timeout, or the
server closed first) is not checked, with why, and inconclusive. The model: the add_header
lines in effect for a response to that URI (conf/effective: levels replace, merge or drop them
by add_header_inherit), judged for the status the server gave (without `always`, add_header
serves only some statuses)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from nginxgen.conf.per_name import NameModel
from nginxgen.conf.responses import HSTS
from nginxgen.probe.check import (
    MISSING_PAGE,
    Found,
    NameProbe,
    Prediction,
    expect,
    offers_tls,
)

KEYS: Mapping[str, Any] = {"hsts": None}

PAGES = (  # (the page's label, its URI, its status key, its header key)
    ("/", "/", "root_status", "root"),
    ("a 404", MISSING_PAGE, "not_found_status", "not_found"),
)


def runs(found: Found) -> bool:
    return offers_tls(found)


def observe(probe: NameProbe) -> dict[str, Any]:
    hsts: dict[str, Any] = {}
    for _label, uri, status_key, header_key in PAGES:
        page = probe.page(uri)
        hsts[header_key] = page.headers.get(HSTS)
        hsts[status_key] = page.status
        hsts[f"{header_key}_not_checked"] = page.unanswered  # no answer: neither yes nor no
        if page.unanswered is not None:
            probe.inconclusive.append(f"HSTS on {uri}: {page.unanswered}")
    return {"hsts": hsts}


def predict(model: NameModel, found: Found) -> list[Prediction]:
    hsts = found.get("hsts")
    out: list[Prediction] = []
    if hsts is None:
        return out
    for label, uri, status_key, header_key in PAGES:
        status = hsts.get(status_key)
        if status is None:  # no response: nothing to compare
            continue
        text = hsts.get(header_key)
        page = f"{label} (status {status})"
        out.append(
            expect(model.hsts(uri, status), text is not None, f"hsts.{header_key}", page=page)
        )
        if text is not None:
            # and the text the line sends: an edited max-age or preload not reloaded (trial 23)
            answer = model.hsts_text(uri, status)
            out.append(expect(answer, text, f"hsts.{header_key}", page=f"{page}, value"))
    return out


def text(found: Found) -> list[str]:
    hsts = found.get("hsts")
    if not hsts:
        return []
    said = []
    for _label, uri, status_key, header_key in PAGES:
        why = hsts.get(f"{header_key}_not_checked")
        if why is not None:
            said.append(f"on {uri}: not checked ({why})")
        elif uri == "/":
            said.append(f"on / ({hsts[status_key]}): {hsts[header_key] or 'none'}")
        else:  # the missing page, named by its status
            said.append(f"on a {hsts[status_key]}: {hsts[header_key] or 'none'}")
    return [f"  HSTS {', '.join(said)}"]
