"""Counting lines as the RDF text grammars do: ``EOL ::= [#xD#xA]+`` (Turtle, TriG, N-Triples,
N-Quads), so a line ends at a line feed, a carriage return or the pair CR LF (counted once).
pyoxigraph's parsers number lines this way, and so does every message of ours that names a line,
so that a file saved with old Mac line ends (a lone CR) is placed the same by both."""

from __future__ import annotations


def line_breaks(data: bytes, start: int = 0, end: int | None = None) -> int:
    """How many line ends ``data[start:end]`` holds (LF, CR and CR LF each count one)."""
    end = len(data) if end is None else end
    return (data.count(b"\n", start, end) + data.count(b"\r", start, end)
            - data.count(b"\r\n", start, end))


def last_line_start(data: bytes, end: int | None = None) -> int:
    """The offset in ``data`` where the line holding byte ``end`` starts (0 on the first line)."""
    end = len(data) if end is None else end
    return max(data.rfind(b"\n", 0, end), data.rfind(b"\r", 0, end)) + 1


class LineCounter:
    """Line ends counted over text that arrives in pieces (a CR at the end of one piece and an
    LF at the start of the next are one line end). ``lines``: line ends seen so far."""

    def __init__(self) -> None:
        self.lines = 0
        self._cr_last = False

    def add(self, piece: bytes) -> None:
        """Count the line ends of the next ``piece`` of the text."""
        if not piece:
            return
        self.lines += line_breaks(piece) - (1 if self._cr_last and piece[:1] == b"\n" else 0)
        self._cr_last = piece[-1:] == b"\r"
