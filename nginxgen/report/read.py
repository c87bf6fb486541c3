"""Log files as streams of lines: plain, gzip (by its magic bytes, not its name) or `-`."""

from __future__ import annotations

import gzip
import sys
import zlib
from collections.abc import Iterator
from typing import BinaryIO

from nginxgen.base.errors import NginxgenError

GZIP_MAGIC = b"\x1f\x8b"


class TruncatedLog(NginxgenError):
    """A log that ends in the middle (a gzip stream cut short): the lines before it count."""


def _open(name: str) -> tuple[BinaryIO, BinaryIO | None]:
    """The stream of lines, and the file to close after it (None for stdin)."""
    if name == "-":
        raw: BinaryIO = sys.stdin.buffer
        return (gzip.GzipFile(fileobj=raw) if raw.peek(2)[:2] == GZIP_MAGIC else raw), None  # type: ignore[attr-defined, return-value]
    try:
        raw = open(name, "rb")  # noqa: SIM115 - closed by lines()
        magic = raw.peek(2)[:2]
    except OSError as exc:
        raise NginxgenError(exc.strerror or str(exc), where=name) from None
    if magic == GZIP_MAGIC:
        return gzip.GzipFile(fileobj=raw, mode="rb"), raw  # type: ignore[return-value]
    return raw, raw


def lines(name: str) -> Iterator[bytes]:
    """The lines of one log, in order; a cut-short gzip or a read error raises after the lines
    that could be read (the caller has counted them)."""
    handle, closing = _open(name)
    count = 0
    try:
        for count, line in enumerate(handle, 1):  # noqa: B007 - count is read after the loop
            yield line
    except EOFError:
        raise TruncatedLog(
            f"compressed data ends early after line {count}: the rest of the file is lost",
            where=name,
        ) from None
    except (OSError, zlib.error) as exc:
        raise NginxgenError(f"unreadable after line {count}: {exc}", where=name) from None
    finally:
        if closing is not None:
            handle.close()
            closing.close()
