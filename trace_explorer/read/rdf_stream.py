"""A large N-Quads or N-Triples file read a batch of quads at a time, so that what is held at
once is one batch (``BATCH`` quads), whatever the file's size.

The file is read twice. First its bytes alone (``open_streamed``: no parsing): their SHA-256,
the digest a store skips a file it has by, whether the text is blank or names a blank node, and
the pre-scan's refusals (``prescan``), all in that one pass. Then ``BATCH`` lines at a time (``StreamedFile.batches``), each
batch parsed by pyoxigraph, its quoted triples brought to one spelling (``quoted_triples``),
and handed out with its text (``Batch``), which the writer's store loads itself while the next
batch is parsed (``store.local_store``). A parse error part way raises TraceLoadError,
naming the file's line, after the batches before it were handed out: the writer undoes what it
wrote of them.

Only line formats without blank nodes are read this way: in them a quad never depends on
another (a blank node's name comes from the whole file's digest and its first appearance, and a
reifier folds only when the whole file says nothing else of it: ``rdf``), so batch by batch
gives the very quads the whole file gives. Every other file is read whole (``rdf.read_rdf``).
"""

from __future__ import annotations

import contextlib
import io
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import NamedTuple, Protocol

import pyoxigraph as ox

from .collector import collector_paused
from .diagnosis import token_too_long
from .quoted_triples import may_normalise, normalise_quoted_triples
from .rdf import parse_error
from .streams import CHUNK, Opener, Progress, TextStream

BATCH = 50_000  # lines (quads) parsed, then written, at a time (about 20 MB of Python objects)
LINE_BYTES = 16 << 20  # a longer line is refused, as pyoxigraph's parser refuses a longer token in a stream
STREAM_BYTES = 8 << 20  # a line-format file of at least this many bytes is read in batches
LINE_FORMATS = (ox.RdfFormat.N_QUADS, ox.RdfFormat.N_TRIPLES)


@dataclass
class StreamedFile:
    """A file to read in batches: ``name``, ``format`` (a human name, as ``LoadedFile``'s),
    ``size`` (bytes of text), ``digest`` (SHA-256 hex of the text) and, once ``batches()`` has
    run to its end, ``quads`` (how many it gave) and ``recovered`` (damaged quoted-triple
    literals turned back into triple terms). ``wording`` turns the stream's own errors (over
    the limit, bad gzip data, a read that fails) into TraceLoadErrors (``files``)."""

    name: str
    format: str
    size: int
    digest: str
    fmt: ox.RdfFormat = field(repr=False)
    open_bytes: Opener = field(repr=False)
    progress: Progress | None = field(default=None, repr=False)
    max_bytes: int | None = None
    wording: Callable[[], contextlib.AbstractContextManager] = field(default=contextlib.nullcontext, repr=False)
    quads: int = 0
    recovered: int = 0

    def batches(self) -> Iterator[Batch]:
        """The file's quads, ``BATCH`` lines at a time, in the file's order, each with its text
        (``Batch``); ``progress(n)`` as each further ``n`` bytes are read. Raises
        TraceLoadError where the parser stops (naming the line), after handing out the batches
        before it; for a line longer than ``LINE_BYTES`` (as the parser reading a stream does)."""
        self.quads = self.recovered = 0
        # no digest this time: ``open_streamed`` took it
        with self.wording(), TextStream(self.open_bytes, self.max_bytes, self.progress, hashed=False) as stream:
            raw, line = stream.buffered(), 1
            while True:
                try:
                    text, lines = _lines(raw, stream)
                except OSError:
                    if stream.failure is not None:
                        raise stream.failure from None
                    raise
                except _LongLine as long:
                    raise token_too_long(self.name, self.fmt.name, self.open_bytes, long.at + LINE_BYTES,
                                         LINE_BYTES) from None
                if not text:
                    return
                try:
                    with collector_paused():
                        batch = list(ox.parse(text, format=self.fmt))
                except (SyntaxError, ValueError, MemoryError) as error:
                    if isinstance(error, SyntaxError) and error.lineno is not None:
                        error.lineno += line - 1  # the parser counts from the batch's first line
                    raise parse_error(self.name, self.fmt, error, stream, self.open_bytes) from None
                line += lines
                # (the stream has read this batch's bytes, so it has seen any blank node they name)
                if may_normalise(text, blank_nodes=stream.blank_node_label):
                    batch, recovered = normalise_quoted_triples(batch)
                else:
                    recovered = 0
                self.quads += len(batch)
                self.recovered += recovered
                yield Batch(batch, None if recovered else text)


class Batch(NamedTuple):
    """A batch of a streamed file: its ``quads``, and ``text``, the lines they were parsed
    from, when those give exactly these quads (None when a damaged quoted triple was recovered
    in them: ``quoted_triples``), for a store to load again itself (``Store.bulk_load``)."""

    quads: list[ox.Quad]
    text: bytes | None


class _LongLine(Exception):
    def __init__(self, at: int):
        super().__init__(at)
        self.at = at  # bytes before the line


def _lines(raw: io.BufferedReader, stream: TextStream) -> tuple[bytes, int]:
    """The next ``BATCH`` lines of ``raw`` (fewer at its end), as one text, and how many line
    feeds it holds; taken a buffer at a time (``peek``), so no line is a Python object. Raises
    _LongLine for a line over ``LINE_BYTES``."""
    pieces: list[bytes] = []
    lines = 0
    current = 0  # bytes of the line not yet ended, before the piece in hand
    while lines < BATCH:
        piece = raw.peek(1)[:CHUNK]
        if not piece:
            break
        feeds = piece.count(b"\n")
        if feeds >= BATCH - lines:  # cut after the last line the batch takes
            cut = -1
            for _ in range(BATCH - lines):
                cut = piece.index(b"\n", cut + 1)
            piece, feeds = piece[:cut + 1], BATCH - lines
        if current + len(piece) > LINE_BYTES:  # a line here may run past the limit
            long = _long_line(piece, current)
            if long is not None:
                raise _LongLine(stream.size - len(raw.peek(0)) + long)
        last = piece.rfind(b"\n")
        current = len(piece) - last - 1 if last >= 0 else current + len(piece)
        pieces.append(raw.read(len(piece)))
        lines += feeds
    return b"".join(pieces), lines


def _long_line(piece: bytes, current: int) -> int | None:
    """Where the first line longer than ``LINE_BYTES`` starts, relative to ``piece`` (negative:
    before it), the first line having ``current`` bytes before ``piece``; None when none is."""
    start = -current
    while True:
        end = piece.find(b"\n", max(start, 0))
        if (end + 1 if end >= 0 else len(piece)) - start > LINE_BYTES:
            return start
        if end < 0:
            return None
        start = end + 1


def open_streamed(name: str, open_bytes: Opener, fmt: ox.RdfFormat, progress: Progress | None = None, *,
                  max_bytes: int | None = None, scanner: Scanner | None = None,
                  checked: Progress | None = None) -> StreamedFile | None:
    """The file ``open_bytes()`` (its text, decompressed) in ``fmt`` ready to be read in batches,
    once its bytes were read through for their digest, each chunk also fed to ``scanner`` (the
    pre-scan's refusals, ``prescan.scanner_for``: one pass over the file for both) and
    ``checked(n)`` called as each further ``n`` bytes of text are read; None when it is to be
    read whole (``rdf.read_rdf``, which words why a file fails): not a line format, blank, or
    naming a blank node. ``progress``: the batches' (``StreamedFile``). Raises TraceLoadError
    for what ``scanner`` refuses, ``streams.OverLimit`` past ``max_bytes`` and
    ``streams.DecompressionError`` for bad ``.gz`` data, for the caller to word."""
    if fmt not in LINE_FORMATS:
        return None
    with TextStream(open_bytes, max_bytes, checked) as stream:
        raw = stream.buffered()
        scanning = scanner is not None
        while True:
            # a long piece the scan carries grows the next read, so each byte is matched a few times at most
            chunk = raw.read(max(CHUNK, len(scanner.carry)) if scanning else CHUNK)
            if scanning:
                scanning = not scanner.feed(chunk, not chunk)
            if not chunk:
                break
    if stream.blank or stream.blank_node_label:
        return None
    return StreamedFile(name, fmt.name, stream.size, stream.digest(), fmt, open_bytes, progress, max_bytes)


class Scanner(Protocol):
    """What ``open_streamed`` feeds the text to (``prescan.scanner_for``)."""

    carry: bytes

    def feed(self, chunk: bytes, final: bool) -> bool: ...
