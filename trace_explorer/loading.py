"""Read one trace or content file into quads or document texts, all or nothing.

Formats come from the file name (TRACE-MODEL.md; issue "Foundation"): ``.ttl`` Turtle, ``.trig``
TriG, ``.nq`` N-Quads, ``.nt`` N-Triples, ``.n3`` N3, ``.jsonld`` JSON-LD, ``.rdf``/``.xml``/``.owl``
RDF/XML, ``.json`` TrustGraph gateway JSON (a list of wire triples, or ``{"triples": [...]}``),
and ``*.documents.json`` content (``{document IRI: text}``). Any of them may end in ``.gz``.
A ``.json`` file that turns out to hold JSON-LD or a content mapping is read as such.

Limits (a deployment sets them in the environment; both default to 512 MiB):
``TRACE_EXPLORER_MAX_FILE_MB`` caps a file as given (an upload, a file on disk; a ``.gz`` by its
compressed size) and ``TRACE_EXPLORER_MAX_EXPANDED_MB`` caps the text parsed (what a ``.gz``
expands to; a plain file counts its own size). A file over either is refused with a message
naming the limit and the variable, before it is parsed.

Every refusal is a TraceLoadError reading ``file:line:column: expected ...; ...``: empty files,
binary data, text that is not UTF-8 and cut-short files each get words of their own.
"""

from __future__ import annotations

import gzip
import hashlib
import io
import json
import os
import re
import zlib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import pyoxigraph as ox

from .collector import collector_paused
from .errors import TraceLoadError
from .quoted_triples import normalise_quoted_triples
from .wire import WireFormatError, decode_quad

RDF_SUFFIXES: dict[str, ox.RdfFormat] = {
    ".ttl": ox.RdfFormat.TURTLE,
    ".turtle": ox.RdfFormat.TURTLE,
    ".trig": ox.RdfFormat.TRIG,
    ".nq": ox.RdfFormat.N_QUADS,
    ".nquads": ox.RdfFormat.N_QUADS,
    ".nt": ox.RdfFormat.N_TRIPLES,
    ".ntriples": ox.RdfFormat.N_TRIPLES,
    ".n3": ox.RdfFormat.N3,
    ".jsonld": ox.RdfFormat.JSON_LD,
    ".json-ld": ox.RdfFormat.JSON_LD,
    ".rdf": ox.RdfFormat.RDF_XML,
    ".xml": ox.RdfFormat.RDF_XML,
    ".owl": ox.RdfFormat.RDF_XML,
}
WIRE_JSON = "TrustGraph wire JSON"
DOCUMENTS_JSON = "document content JSON"
SUPPORTED_SUFFIXES = tuple(RDF_SUFFIXES) + (".json",)

MIB = 1024 * 1024
MAX_FILE_VARIABLE = "TRACE_EXPLORER_MAX_FILE_MB"
MAX_EXPANDED_VARIABLE = "TRACE_EXPLORER_MAX_EXPANDED_MB"
DEFAULT_LIMIT_MB = 512


def limit_from_environment(variable: str, environ: dict[str, str] | None = None) -> int:
    """The limit in bytes that ``variable`` sets (a number of MiB, fractions allowed), or
    DEFAULT_LIMIT_MB when it is unset, empty or not a positive number."""
    raw = (environ if environ is not None else os.environ).get(variable, "").strip()
    try:
        value = float(raw) if raw else DEFAULT_LIMIT_MB
    except ValueError:
        value = DEFAULT_LIMIT_MB
    if not value > 0 or value == float("inf"):
        value = DEFAULT_LIMIT_MB
    return int(value * MIB)


def max_file_bytes() -> int:
    """The largest file read, as given (``TRACE_EXPLORER_MAX_FILE_MB``, default 512 MiB)."""
    return limit_from_environment(MAX_FILE_VARIABLE)


def max_expanded_bytes() -> int:
    """The most text parsed from one file, after decompression (``TRACE_EXPLORER_MAX_EXPANDED_MB``)."""
    return limit_from_environment(MAX_EXPANDED_VARIABLE)


def format_size(count: int) -> str:
    """Bytes for people: "900 bytes", "1.5 KiB", "512 MiB", "1.2 GiB"."""
    if count < 1024:
        return f"{count:,} byte{'s' if count != 1 else ''}"
    for unit, scale in (("GiB", 1024 * MIB), ("MiB", MIB), ("KiB", 1024)):
        if count >= scale:
            return f"{count / scale:,.1f}".removesuffix(".0") + f" {unit}"
    return f"{count:,} bytes"  # not reached


def file_too_big(name: str, size: int, limit: int, setting: str = MAX_FILE_VARIABLE) -> TraceLoadError:
    """The error for a file of ``size`` bytes over ``limit`` (``setting`` names how to raise it)."""
    return TraceLoadError(name, f"a file of at most {format_size(limit)} (the limit set by {setting})",
                          found=f"this one is {format_size(size)}")


_PARSER_POSITION = re.compile(r"^Parser error at line \d+ (?:column \d+|between columns \d+ and \d+): ")


@dataclass
class LoadedFile:
    """What one file held.

    ``quads``: pyoxigraph Quads, quoted triples already normalised; ``documents``: document IRI ->
    text; ``format``: a human name ("TriG", "TrustGraph wire JSON", ...); ``size``: bytes read after
    decompression; ``recovered``: damaged quoted-triple literals turned back into triple terms;
    ``digest``: SHA-256 (hex) of the bytes read after decompression.
    """

    name: str
    format: str
    size: int
    quads: list[ox.Quad] = field(default_factory=list)
    documents: dict[str, str] = field(default_factory=dict)
    recovered: int = 0
    digest: str = ""


def format_for_name(name: str) -> str | ox.RdfFormat:
    """Return the format a file name says: an ``ox.RdfFormat``, ``WIRE_JSON`` or ``DOCUMENTS_JSON``.

    Raises TraceLoadError when the suffix (after an optional ``.gz``) is not one we read.
    """
    lower = name.lower()
    if lower.endswith(".gz"):
        lower = lower[:-3]
    if lower.endswith(".documents.json"):
        return DOCUMENTS_JSON
    suffix = Path(lower).suffix
    if suffix == ".json":
        return WIRE_JSON
    if suffix in RDF_SUFFIXES:
        return RDF_SUFFIXES[suffix]
    raise TraceLoadError(
        name, f"a file name ending in one of {', '.join(SUPPORTED_SUFFIXES)} (optionally .gz)",
        found=f"the format of {Path(lower).suffix or 'a name without a suffix'} is not one this reader knows",
    )


Progress = Callable[[int], None]


def read_trace_file(
    name: str, data: bytes | None = None, *, max_bytes: int | None = None,
    progress: Progress | None = None, file_limit: int | None = None,
) -> LoadedFile:
    """Read the file ``name`` (or its bytes ``data``, e.g. an upload) into a LoadedFile.

    ``max_bytes`` caps the text parsed, after decompression (default: ``max_expanded_bytes()``,
    from the environment); ``file_limit`` the file as given (default: ``max_file_bytes()``).
    ``progress(n)`` is called as the parser consumes each further ``n`` bytes (of the
    decompressed text), for progress bars. Blank nodes get names derived from the file's bytes,
    so reading the same file twice gives the same quads. Raises TraceLoadError (with line and
    column where the parser gives them) when the file cannot be read in full; nothing is
    returned then.
    """
    fmt = format_for_name(name)
    if max_bytes is None:
        max_bytes = max_expanded_bytes()
    if file_limit is None:
        file_limit = max_file_bytes()
    if data is None:
        try:
            size = os.path.getsize(name)
            if size > file_limit:
                raise file_too_big(name, size, file_limit)
            with open(name, "rb") as handle:
                data = handle.read(file_limit + 1)
        except OSError as error:
            raise TraceLoadError(name, "a readable file", found=f"the system says: {error.strerror or error}") from None
    if len(data) > file_limit:
        raise file_too_big(name, len(data), file_limit)
    given = len(data)
    if name.lower().endswith(".gz"):
        data = _gunzip(name, data, max_bytes)
    elif len(data) > max_bytes:
        raise TraceLoadError(name, f"at most {format_size(max_bytes)} of text "
                                   f"(the limit set by {MAX_EXPANDED_VARIABLE})",
                             found=f"this file is {format_size(len(data))}")
    if _BLANK.fullmatch(data):
        raise TraceLoadError(name, f"{_label(fmt)} data", found="the file is empty"
                             + (" once decompressed" if given and name.lower().endswith(".gz") else ""))
    if fmt == DOCUMENTS_JSON:
        loaded = LoadedFile(name, DOCUMENTS_JSON, len(data), documents=_read_documents(name, _json(name, data)))
    elif fmt == WIRE_JSON:
        loaded = _read_json(name, data)
    else:
        loaded = _read_rdf(name, data, fmt, progress)
        progress = None
    if progress is not None:
        progress(len(data))
    loaded.digest = hashlib.sha256(data).hexdigest()
    if not (fmt in (ox.RdfFormat.N_QUADS, ox.RdfFormat.N_TRIPLES) and b"_:" not in data):
        # (a line format without "_:" has no blank node: the scan is skipped)
        loaded.quads = stable_blank_nodes(loaded.quads, loaded.digest[:16])
    return loaded


class _CountingReader(io.RawIOBase):
    """A bytes reader that reports how much the parser has consumed."""

    def __init__(self, data: bytes, progress: Progress):
        self._buffer = io.BytesIO(data)
        self._progress = progress

    def readable(self) -> bool:
        return True

    def readinto(self, target) -> int:
        count = self._buffer.readinto(target)
        if count:
            self._progress(count)
        return count


def stable_blank_nodes(quads: list[ox.Quad], salt: str) -> list[ox.Quad]:
    """Rename blank nodes to ``{salt}b{n}`` in order of first appearance (n from 0), so the
    same file always gives the same quads (a store then holds them once)."""
    names: dict[ox.BlankNode, ox.BlankNode] = {}

    def rename(term):
        if isinstance(term, ox.BlankNode):
            if term not in names:
                names[term] = ox.BlankNode(f"{salt}b{len(names)}")
            return names[term]
        if isinstance(term, ox.Triple):
            return ox.Triple(rename(term.subject), term.predicate, rename(term.object))
        return term

    if not any(_has_blank_node(t) for q in quads for t in (q.subject, q.object, q.graph_name)):
        return quads
    return [ox.Quad(rename(q.subject), q.predicate, rename(q.object), rename(q.graph_name)) for q in quads]


def _has_blank_node(term) -> bool:
    if isinstance(term, ox.BlankNode):
        return True
    return isinstance(term, ox.Triple) and (_has_blank_node(term.subject) or _has_blank_node(term.object))


def _gunzip(name: str, data: bytes, max_bytes: int) -> bytes:
    try:
        with gzip.GzipFile(fileobj=io.BytesIO(data)) as handle:
            out = handle.read(max_bytes + 1)
    except (OSError, EOFError, zlib.error) as error:
        raise TraceLoadError(name, "gzip data (the name ends in .gz)",
                             found=_clip(f"the decompressor says: {error}")) from None
    if len(out) > max_bytes:
        raise TraceLoadError(name, f"gzip content of at most {format_size(max_bytes)} when expanded "
                                   f"(the limit set by {MAX_EXPANDED_VARIABLE})",
                             found=f"this file ({format_size(len(data))} compressed) expands to more")
    return out


def _read_rdf(name: str, data: bytes, fmt: ox.RdfFormat, progress: Progress | None = None) -> LoadedFile:
    source = io.BufferedReader(_CountingReader(data, progress)) if progress else data
    try:
        with collector_paused():
            quads = list(ox.parse(input=source, format=fmt))
    except SyntaxError as error:
        message = _PARSER_POSITION.sub("", str(error.msg))
        if "UTF-8" in message or "utf-8" in message:
            _check_text(name, data, fmt.name)
        _check_binary(name, data, fmt.name)
        hint = " (the file may be cut short)" if _TRUNCATED.search(message) else ""
        raise TraceLoadError(name, f"valid {fmt.name}", error.lineno, error.offset,
                             found=_clip(f"the parser says: {message}") + hint) from None
    except (ValueError, OSError) as error:
        _check_binary(name, data, fmt.name)
        raise TraceLoadError(name, f"valid {fmt.name}", found=_clip(f"the parser says: {error}")) from None
    quads, recovered = normalise_quoted_triples(quads)
    return LoadedFile(name, fmt.name, len(data), quads=quads, recovered=recovered)


def _json(name: str, data: bytes):
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        _check_text(name, data, "JSON")  # raises, saying where
        raise TraceLoadError(name, "JSON text in UTF-8") from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as error:
        _check_binary(name, data, "JSON")
        raise TraceLoadError(name, "JSON", error.lineno, error.colno,
                             found=f"the parser says: {error.msg}"
                             + (" (the file may be cut short)" if error.pos >= len(text.rstrip()) else "")) from None
    except RecursionError:
        raise TraceLoadError(name, "JSON nested less deeply", found="it nests too deep to read") from None


def _read_documents(name: str, value) -> dict[str, str]:
    if not isinstance(value, dict) or not all(isinstance(v, str) for v in value.values()):
        raise TraceLoadError(name, "a JSON object mapping document IRIs to their text", found=_describe(value))
    return dict(value)


def _read_json(name: str, data: bytes) -> LoadedFile:
    value = _json(name, data)
    if isinstance(value, dict) and "triples" in value:
        value = value["triples"]
    elif isinstance(value, dict) and "response" in value and isinstance(value["response"], dict):
        value = value["response"].get("triples", value["response"])
    if _looks_like_json_ld(value):
        return _read_rdf(name, data, ox.RdfFormat.JSON_LD)
    if isinstance(value, dict) and value and all(isinstance(v, str) for v in value.values()) \
            and all(_is_iri(k) for k in value):
        return LoadedFile(name, DOCUMENTS_JSON, len(data), documents=dict(value))
    if not isinstance(value, list):
        raise TraceLoadError(name, "a JSON array of TrustGraph wire triples ({\"s\", \"p\", \"o\", \"g\"?}), "
                                   "or an object mapping document IRIs to texts (content files are best named *.documents.json)",
                             found=_describe(value))
    quads = []
    for index, item in enumerate(value):
        try:
            quads.append(decode_quad(item))
        except (WireFormatError, AttributeError) as error:
            raise TraceLoadError(name, f"a TrustGraph wire triple ({{\"s\", \"p\", \"o\", \"g\"?}}) as item {index} "
                                       f"of the array", found=_clip(f"it needs {error}")) from None
    quads, recovered = normalise_quoted_triples(quads)
    return LoadedFile(name, WIRE_JSON, len(data), quads=quads, recovered=recovered)


def _is_iri(value: str) -> bool:
    try:
        ox.NamedNode(value)
    except ValueError:
        return False
    return True


def _looks_like_json_ld(value) -> bool:
    if isinstance(value, dict):
        return "@context" in value or "@graph" in value or "@id" in value
    return bool(value) and isinstance(value, list) and isinstance(value[0], dict) and "@id" in value[0]


_BLANK = re.compile(rb"(?:\xef\xbb\xbf)?\s*")
_TRUNCATED = re.compile(r"(?i)unexpected end|end of (?:file|input)")
_LABELS = {WIRE_JSON: "TrustGraph wire JSON", DOCUMENTS_JSON: "document content JSON"}
_MESSAGE_LIMIT = 300  # characters of a parser's own words in a message (they may quote the file)


def _label(fmt: str | ox.RdfFormat) -> str:
    return fmt.name if isinstance(fmt, ox.RdfFormat) else _LABELS.get(fmt, str(fmt))


def _clip(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= _MESSAGE_LIMIT else text[: _MESSAGE_LIMIT - 1] + "…"


def _position(data: bytes, offset: int) -> tuple[int, int]:
    """1-based line and column (in bytes) of ``offset`` in ``data``."""
    line = data.count(b"\n", 0, offset) + 1
    return line, offset - (data.rfind(b"\n", 0, offset) + 1) + 1


def _check_binary(name: str, data: bytes, label: str) -> None:
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


def _check_text(name: str, data: bytes, label: str) -> None:
    """Raise a TraceLoadError at the first byte that is not UTF-8 (or for binary data)."""
    _check_binary(name, data, label)
    try:
        data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        line, column = _position(data, error.start)
        byte = data[error.start]
        raise TraceLoadError(name, f"{label} text in UTF-8", line, column,
                             found=f"the byte 0x{byte:02X} is not UTF-8 "
                                   "(is the file in another encoding, such as Latin-1?)") from None


def _describe(value) -> str:
    """What a JSON value is, in a few words: "found a JSON object with keys "a", "b"", ..."""
    kinds = {dict: "an object", list: "an array", str: "a string", bool: "a boolean", int: "a number",
             float: "a number", type(None): "null"}
    kind = kinds.get(type(value), type(value).__name__)
    if isinstance(value, dict):
        keys = ", ".join(json.dumps(k, ensure_ascii=False) for k in list(value)[:5])
        more = ", …" if len(value) > 5 else ""
        return _clip(f"found {kind} with keys {keys}{more}" if value else "found an empty object")
    if isinstance(value, list):
        return f"found an array of {len(value)} item{'s' if len(value) != 1 else ''}"
    return _clip(f"found {kind}: {json.dumps(value, ensure_ascii=False)[:80]}")
