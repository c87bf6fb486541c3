"""Byte offsets of nginxgen's edits and line numbers of its findings as LSP positions: a line
and a column counted in UTF-16 code units, the encoding LSP 3.17 clients assume by default."""

from __future__ import annotations

ENCODING = ("utf-8", "surrogateescape")


class Lines:
    """One document's text, able to turn byte offsets into (line, UTF-16 column)."""

    def __init__(self, text: str) -> None:
        self.data = text.encode(*ENCODING)
        self.starts = [0]
        for index, byte in enumerate(self.data):
            if byte == 0x0A:
                self.starts.append(index + 1)

    def position(self, offset: int) -> tuple[int, int]:
        from bisect import bisect_right

        line = bisect_right(self.starts, offset) - 1
        prefix = self.data[self.starts[line] : offset].decode(*ENCODING)
        return line, _utf16(prefix)

    def line_range(self, number: int) -> tuple[tuple[int, int], tuple[int, int]]:
        """The whole of a 1-based line, without its line break."""
        line = min(max(number - 1, 0), len(self.starts) - 1)
        end = self.starts[line + 1] - 1 if line + 1 < len(self.starts) else len(self.data)
        text = self.data[self.starts[line] : end].decode(*ENCODING).rstrip("\r")
        return (line, 0), (line, _utf16(text))

    def end(self) -> tuple[int, int]:
        return self.position(len(self.data))

    def offset(self, line: int, character: int) -> int:
        """The byte offset of an LSP position (a column past the line's end: its end)."""
        line = min(line, len(self.starts) - 1)
        start = self.starts[line]
        end = self.starts[line + 1] if line + 1 < len(self.starts) else len(self.data)
        text = self.data[start:end].decode(*ENCODING)
        units = 0
        for index, char in enumerate(text):
            if units >= character:
                return start + len(text[:index].encode(*ENCODING))
            units += 2 if ord(char) > 0xFFFF else 1
        return end


def _utf16(text: str) -> int:
    return sum(2 if ord(c) > 0xFFFF else 1 for c in text)
