"""The answers of the pages the checks read (HSTS, client certificates): GETs sent one after
the other on one connection (HTTP/1.1 pipelining), and the answers cut apart again."""

from __future__ import annotations

import ssl

from nginxgen.base.records import record
from nginxgen.probe.resumption import connect_tls, request_host, shared_context

PAGE_READ = 65536  # what is kept of one answer, head and body


@record(frozen=True)
class Page:
    """The server's answer to a GET: its status, its headers (names in lower case), and the
    answer as sent (head and body), PAGE_READ bytes at most; for a GET that got none, why
    (`unanswered`), and the checks that read the page say it was not checked, not that the
    handshake failed."""

    status: int | None
    headers: dict[str, str]
    raw: bytes
    unanswered: str | None = None


def unanswered(path: str, timed_out: bool, timeout: float) -> Page:
    """The page of a GET of `path` that got no answer on a connection whose handshake
    completed: none within `timeout` (a slow backend: the TLS checks are not slowed by it), or
    the server closed first (nginx's stream{} closes a client it refuses, after the
    handshake)."""
    if timed_out:
        why = f"GET {path} got no answer in {timeout:g} s"
    else:
        why = f"the server closed the connection without answering GET {path}"
    return Page(None, {}, b"", f"{why} (the handshake completed)")


def requests(host: str, paths: list[str]) -> bytes:
    """GETs of `paths` one after the other on one connection (HTTP/1.1 pipelining, RFC 9112
    9.3.2), the last one closing it."""
    out = []
    for n, path in enumerate(paths):
        close = "Connection: close\r\n" if n == len(paths) - 1 else ""
        out.append(f"GET {path} HTTP/1.1\r\nHost: {host}\r\n{close}\r\n")
    return "".join(out).encode()


def pages_in(data: bytes) -> list[Page]:
    """The whole answers in `data`, in order. Each one's body ends where its Content-Length or
    its last chunk says (RFC 9112 6.3); one with neither runs to the close and is the last. An
    answer cut short is kept as far as it came, and is the last."""
    out: list[Page] = []
    while data:
        head, found, rest = data.partition(b"\r\n\r\n")
        if not found:
            break
        lines = head.decode("latin-1").split("\r\n")
        parts = lines[0].split()
        if not parts or not parts[0].startswith("HTTP/"):
            # no status line: not an answer to the GET, nor one to read as a page (trial 23: a
            # stream port's backend echoed the request, said "served (status None)")
            why = f"the answer is not HTTP (it opens with {lines[0][:40]!r})"
            out.append(Page(None, {}, data[:PAGE_READ], why))
            break
        status = int(parts[1]) if len(parts) > 1 and parts[1].isdigit() else None
        headers = {}
        for line in lines[1:]:
            key, _, value = line.partition(":")
            headers[key.strip().lower()] = value.strip()
        end = _body_end(rest, headers, status)
        page_end = len(head) + 4 + (len(rest) if end is None else end)
        out.append(Page(status, headers, data[: min(page_end, PAGE_READ)]))
        if end is None:
            break
        data = rest[end:]
    return out


def _body_end(rest: bytes, headers: dict[str, str], status: int | None) -> int | None:
    """Where the body that opens `rest` ends; None: at the close, or not within `rest`."""
    if status is not None and (status < 200 or status in (204, 304)):
        return 0
    if "chunked" in headers.get("transfer-encoding", "").lower():
        at = 0
        while True:
            line, found, _ = rest[at:].partition(b"\r\n")
            size_text = line.split(b";")[0].strip()
            if not found or not size_text:
                return None
            try:
                size = int(size_text, 16)
            except ValueError:
                return None
            at += len(line) + 2
            if size == 0:  # the last chunk, then any trailer lines up to an empty line
                if rest[at : at + 2] == b"\r\n":
                    return at + 2
                end = rest.find(b"\r\n\r\n", at)
                return None if end < 0 else end + 4
            at += size + 2
            if at > len(rest):
                return None
    length = headers.get("content-length", "")
    if length.isdigit():
        end = int(length)
        return end if end <= len(rest) else None
    return None


def get_pages(
    address: tuple[str, int], sni: str | None, paths: list[str], timeout: float
) -> tuple[list[Page], bool]:
    """GETs of `paths` on one connection (this Python's TLS library), a client without a
    certificate: (the answers that came before the server closed, or before `timeout` passed
    without more: whether it did). A handshake that fails raises."""
    timed_out = False
    with connect_tls(address, sni, shared_context(), timeout) as tls:
        tls.sendall(requests(request_host(address, sni), paths))
        data = bytearray()
        while len(data) < PAGE_READ * len(paths):
            try:
                chunk = tls.recv(65536)
            except (ssl.SSLZeroReturnError, ssl.SSLEOFError):
                break
            except TimeoutError:
                timed_out = True
                break
            if not chunk:
                break
            data += chunk
    return pages_in(bytes(data)), timed_out
