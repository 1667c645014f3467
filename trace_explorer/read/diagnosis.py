"""Why bytes are not the trace file they claim to be, in words a person can act on: binary
data, gzip under a plain name, UTF-16, a byte that is not UTF-8, a token too long for the
parser, an empty file, a JSON value of the wrong shape. Every message names the file, and the
line and column where there is one. Streamed files (``streams``) are read again from the start
to find the place, a chunk at a time."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pyoxigraph as ox

from .errors import TraceLoadError
from .formats import DOCUMENTS_JSON, WIRE_JSON
from .limits import format_size
from .lines import LineCounter, last_line_start, line_breaks
from .streams import Opener, scan

PARSER_POSITION = re.compile(r"^Parser error (?:at line \d+ (?:column \d+|between columns \d+ and \d+)"
                             r"|between line \d+ column \d+ and line \d+ column \d+): ")


BLANK = re.compile(rb"(?:\xef\xbb\xbf)?\s*")
TRUNCATED = re.compile(r"(?i)unexpected end|end of (?:file|input)")
_LABELS = {WIRE_JSON: "TrustGraph wire JSON", DOCUMENTS_JSON: "document content JSON"}
_MESSAGE_LIMIT = 300  # characters of a parser's own words in a message (they may quote the file)


def format_label(fmt: str | ox.RdfFormat) -> str:
    """A format's name for people ("TriG", "TrustGraph wire JSON", ...)."""
    return fmt.name if isinstance(fmt, ox.RdfFormat) else _LABELS.get(fmt, str(fmt))


def clip(text: str, width: int = _MESSAGE_LIMIT) -> str:
    """``text`` on one line (runs of white space made one space), cut to ``width`` characters
    with "…" (by default the length a message may quote)."""
    text = " ".join(text.split())
    return text if len(text) <= width else text[: width - 1] + "…"


def _position(data: bytes, offset: int) -> tuple[int, int]:
    """1-based line and column (in bytes) of ``offset`` in ``data`` (lines end at LF, CR or
    CR LF: ``lines``)."""
    return line_breaks(data, 0, offset) + 1, offset - last_line_start(data, offset) + 1


def check_binary(name: str, data: bytes, label: str) -> None:
    """Raise a TraceLoadError saying what the bytes are when they are plainly not text: gzip
    data under a name without .gz, UTF-16, or binary (a NUL byte near the start). Called only
    once a parser has refused the file, so a text file that merely holds a NUL still loads."""
    if data[:2] == b"\x1f\x8b":
        raise TraceLoadError(name, f"{label} text", 1, 1,
                             found=f"found gzip-compressed data (name the file {Path(name).name}.gz to read it)")
    if data[:2] in (b"\xff\xfe", b"\xfe\xff"):
        raise TraceLoadError(name, f"{label} text in UTF-8", 1, 1, found="found UTF-16 text (save it as UTF-8)")
    nul = data.find(b"\x00", 0, 8192)
    if nul >= 0:
        line, column = _position(data, nul)
        raise TraceLoadError(name, f"{label} text", line, column,
                             found="found binary data (a NUL byte): is this really a trace file?")


def check_text(name: str, data: bytes, label: str) -> None:
    """Raise a TraceLoadError at the first byte that is not UTF-8 (or for binary data)."""
    check_binary(name, data, label)
    try:
        data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        line, column = _position(data, error.start)
        byte = data[error.start]
        raise TraceLoadError(name, f"{label} text in UTF-8", line, column,
                             found=f"the byte 0x{byte:02X} is not UTF-8 "
                                   "(is the file in another encoding, such as Latin-1?)") from None


def empty_file(name: str, label: str, decompressed: bool = False) -> TraceLoadError:
    """The error for a file that holds nothing but whitespace (``decompressed``: once gunzipped)."""
    found = "the file is empty" + (" once decompressed" if decompressed else "")
    return TraceLoadError(name, f"{label} data", found=found)


def check_text_stream(name: str, open_bytes: Opener, label: str) -> None:
    """``check_text`` for a streamed file: raise a TraceLoadError at its first byte that is not
    UTF-8, reading it again a chunk at a time; return when every byte is UTF-8."""
    state = {"carry": b"", "carry_start": 0, "line": 1, "line_start": 0, "lines": LineCounter()}
    found: list[TraceLoadError] = []

    def visit(offset: int, chunk: bytes) -> bool:
        buffer, start = state["carry"] + chunk, offset - len(state["carry"])
        try:
            buffer.decode("utf-8")
            good = len(buffer)
        except UnicodeDecodeError as error:
            if error.reason != "unexpected end of data" or error.end != len(buffer):
                found.append(_not_utf8(name, label, buffer, start, error.start, state))
                return True
            good = error.start  # a character cut by the chunk's end: finished by the next chunk
        _advance(state, buffer[:good], start)
        state["carry"], state["carry_start"] = buffer[good:], start + good
        return False

    scan(open_bytes, visit)
    if found:
        raise found[0]
    if state["carry"]:  # the file ends inside a character
        raise _not_utf8(name, label, state["carry"], state["carry_start"], 0, state)


def _advance(state: dict, text: bytes, start: int) -> None:
    counter = state["lines"]
    counter.add(text)
    if counter.lines + 1 != state["line"]:
        state["line"] = counter.lines + 1
        state["line_start"] = start + last_line_start(text)


def _not_utf8(name: str, label: str, buffer: bytes, start: int, bad: int, state: dict) -> TraceLoadError:
    _advance(state, buffer[:bad], start)
    column = start + bad - state["line_start"] + 1
    return TraceLoadError(name, f"{label} text in UTF-8", state["line"], column,
                          found=f"the byte 0x{buffer[bad]:02X} is not UTF-8 "
                                "(is the file in another encoding, such as Latin-1?)")


def line_at(open_bytes: Opener, offset: int) -> int:
    """The 1-based line of byte ``offset`` in the file, counted by reading it again."""
    counter = LineCounter()

    def visit(start: int, chunk: bytes) -> bool:
        counter.add(chunk[:max(0, offset - start)])
        return start + len(chunk) >= offset

    scan(open_bytes, visit)
    return counter.lines + 1


def token_too_long(name: str, label: str, open_bytes: Opener, read: int, buffer_bytes: int) -> TraceLoadError:
    """The error for a token (a comment, an IRI, a literal) longer than the parser's buffer of
    ``buffer_bytes``, the parser having read ``read`` bytes when it gave up: the byte
    ``buffer_bytes`` before that lies inside the token, so its line is one the token runs through."""
    line = line_at(open_bytes, max(0, read - buffer_bytes))
    return TraceLoadError(name, f"valid {label}, each token (an IRI, a literal, a comment) under "
                                f"{format_size(buffer_bytes)}", line,
                          found=f"a single token runs on for more than {format_size(buffer_bytes)} through this "
                                "line, more than the parser holds at once: is this really a trace file?")


def describe(value) -> str:
    """What a JSON value is, in a few words: "found a JSON object with keys "a", "b"", ..."""
    kinds = {dict: "an object", list: "an array", str: "a string", bool: "a boolean", int: "a number",
             float: "a number", type(None): "null"}
    kind = kinds.get(type(value), type(value).__name__)
    if isinstance(value, dict):
        keys = ", ".join(json.dumps(k, ensure_ascii=False) for k in list(value)[:5])
        more = ", …" if len(value) > 5 else ""
        return clip(f"found {kind} with keys {keys}{more}" if value else "found an empty object")
    if isinstance(value, list):
        return f"found an array of {len(value)} item{'s' if len(value) != 1 else ''}"
    if value is None:
        return "found null"
    return clip(f"found {kind}: {json.dumps(value, ensure_ascii=False)[:80]}")
