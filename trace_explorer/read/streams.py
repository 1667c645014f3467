"""The bytes of one file as a parser reads them: straight from disk or from an upload's bytes,
decompressed on the fly when the name ends in ``.gz``, a chunk at a time, so that memory stays
flat whatever the file holds (a parser is handed the stream, never the whole text). While the
bytes pass, the stream counts them against the expanded-size limit, hashes them (SHA-256, the
digest a store uses to skip a file it has), reports them to a progress callback, keeps the first
few KiB for diagnosis, and notes whether any held more than whitespace or a blank node label.
A UTF-8 byte order mark at the very start of the text is counted, hashed and reported with the
rest, but not handed to the parser: pyoxigraph's Turtle-family parsers (N-Quads, N-Triples,
Turtle, TriG, N3) refuse it, and a file saved with one holds the same quads as without.
"""

from __future__ import annotations

import gzip
import hashlib
import io
import re
import zlib
from collections.abc import Callable
from typing import BinaryIO

Opener = Callable[[], BinaryIO]  # gives the file's (decompressed) bytes afresh at each call
Progress = Callable[[int], None]

CHUNK = 1 << 16  # bytes read from the file at a time
HEAD = 8192  # bytes kept for diagnosis (binary data, UTF-16, gzip under a plain name)
_NOT_BLANK = re.compile(rb"\S")
_BOM = b"\xef\xbb\xbf"


def opener(name: str, data: bytes | None, compressed: Progress | None = None) -> Opener:
    """How to read the file ``name`` (or its bytes ``data``) from the start: decompressed on the
    fly when the name ends in ``.gz``, ``compressed(n)`` then called as each further ``n`` bytes
    of the file as given are read (a bar's progress in the file's own size)."""
    def raw() -> BinaryIO:
        return io.BytesIO(data) if data is not None else open(name, "rb")  # noqa: SIM115 - closed by its reader

    if name.lower().endswith(".gz"):
        if compressed is not None:
            return lambda: gzip.GzipFile(fileobj=_Counted(raw(), compressed), mode="rb")
        return lambda: gzip.GzipFile(fileobj=raw(), mode="rb")
    return raw


class _Counted:
    """A binary file whose reads are reported to ``counted(n)`` (what a GzipFile reads from)."""

    def __init__(self, source: BinaryIO, counted: Progress):
        self._source, self._counted = source, counted

    def read(self, size: int = -1) -> bytes:
        chunk = self._source.read(size)
        if chunk:
            self._counted(len(chunk))
        return chunk

    def close(self) -> None:
        self._source.close()


class DecompressionError(OSError):
    """The ``.gz`` data could not be decompressed (``cause`` says why)."""

    def __init__(self, cause: BaseException):
        super().__init__(str(cause))
        self.cause = cause


class OverLimit(OSError):
    """The text ran past the expanded-size limit."""


class TextStream(io.RawIOBase):
    """A readable binary stream over ``open_bytes()``, up to ``max_bytes`` (then OverLimit).
    ``hashed`` False: no digest is taken (``digest()`` is then that of no bytes), for a pass
    over bytes whose digest was taken before.

    ``size`` (bytes read so far), ``digest()`` (SHA-256 hex of them), ``head`` (the first
    ``HEAD`` bytes), ``blank`` (nothing but whitespace so far, a UTF-8 byte order mark allowed),
    ``blank_node_label`` (``_:`` seen), ``ended`` (the end was reached) and ``failure`` (the
    DecompressionError or OverLimit that stopped it) describe what passed (the byte order mark
    included). Use ``buffered()`` as a parser's input: it reads the text without a byte order
    mark at its start (one later on is the parser's to judge), so lines keep their numbers."""

    def __init__(self, open_bytes: Opener, max_bytes: int | None = None, progress: Progress | None = None, *,
                 hashed: bool = True):
        self._source = open_bytes()
        self._hashed = hashed
        self._max = max_bytes
        self._progress = progress
        self._hash = hashlib.sha256()
        self._last = b""
        self.size = 0
        self.head = b""
        self.blank = True
        self.blank_node_label = False
        self.ended = False
        self.failure: OSError | None = None
        self._opening = True  # the first read looks for a byte order mark
        self._pending = b""  # the first bytes read, left once a byte order mark was taken off

    def readable(self) -> bool:
        return True

    def readinto(self, target) -> int:
        if self.failure is not None:
            raise self.failure
        want = min(len(target), CHUNK)
        if self._opening:
            self._opening = False
            self._pending = self._opening_bytes(want)
        if self._pending:
            chunk, self._pending = self._pending[:want], self._pending[want:]
        else:
            chunk = self._next(want)
        if self.blank:
            self.blank = _NOT_BLANK.search(chunk) is None
        target[:len(chunk)] = chunk
        return len(chunk)

    def _opening_bytes(self, want: int) -> bytes:
        """The first bytes of the source (at least as many as a byte order mark has, unless the
        source is shorter), without the UTF-8 byte order mark they may start with."""
        start = self._next(want)
        while start and len(start) < len(_BOM) and _BOM.startswith(start):
            more = self._next(len(_BOM) - len(start))  # a source may give fewer bytes than asked
            if not more:
                break
            start += more
        return start.removeprefix(_BOM)

    def _next(self, want: int) -> bytes:
        """Up to ``want`` further bytes of the source, noted (``_note``); b"" at its end. Raises
        DecompressionError for data the source cannot give, OverLimit past ``max_bytes``."""
        try:
            chunk = self._source.read(want)
        except (OSError, EOFError, zlib.error) as error:
            self.failure = DecompressionError(error)
            raise self.failure from None
        if not chunk:
            self.ended = True
            return b""
        if self._max is not None and self.size + len(chunk) > self._max:
            self.failure = OverLimit(f"more than {self._max} bytes")
            raise self.failure
        self._note(chunk)
        return chunk

    def _note(self, chunk: bytes) -> None:
        if len(self.head) < HEAD:
            self.head += chunk[:HEAD - len(self.head)]
        if not self.blank_node_label:
            self.blank_node_label = b"_:" in self._last + chunk[:1] or b"_:" in chunk
            self._last = chunk[-1:]
        self.size += len(chunk)
        if self._hashed:
            self._hash.update(chunk)
        if self._progress is not None:
            self._progress(len(chunk))

    def buffered(self) -> io.BufferedReader:
        """This stream behind a buffer, as a parser's input."""
        return io.BufferedReader(self, CHUNK)

    def read_all(self) -> bytes:
        """Everything left, at once (for formats read whole, such as JSON)."""
        return self.buffered().read()

    def digest(self) -> str:
        """SHA-256 (hex) of the bytes read so far."""
        return self._hash.hexdigest()

    def close(self) -> None:
        try:
            self._source.close()
        finally:
            super().close()


def scan(open_bytes: Opener, visit: Callable[[int, bytes], bool]) -> None:
    """Read ``open_bytes()`` afresh, a chunk at a time, calling ``visit(offset, chunk)`` until it
    returns True or the bytes end (for a diagnosis after a parser stopped). Decompression errors
    end the scan quietly: they were reported already."""
    offset = 0
    try:
        with open_bytes() as source:
            while chunk := source.read(CHUNK):
                if visit(offset, chunk):
                    return
                offset += len(chunk)
    except (OSError, EOFError, zlib.error):
        return
