"""Read one trace or content file into quads or document texts, all or nothing.

Formats come from the file name (TRACE-MODEL.md; issue "Foundation"): ``.ttl`` Turtle, ``.trig``
TriG, ``.nq`` N-Quads, ``.nt`` N-Triples, ``.n3`` N3, ``.jsonld`` JSON-LD, ``.rdf``/``.xml``/``.owl``
RDF/XML, ``.json`` TrustGraph gateway JSON (a list of wire triples, or ``{"triples": [...]}``),
and ``*.documents.json`` content (``{document IRI: text}``). Any of them may end in ``.gz``.
A ``.json`` file that turns out to hold JSON-LD or a content mapping is read as such.
"""

from __future__ import annotations

import gzip
import hashlib
import io
import json
import re
import zlib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import pyoxigraph as ox

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

DEFAULT_MAX_BYTES = 512 * 1024 * 1024  # 512 MiB after decompression

_PARSER_POSITION = re.compile(r"^Parser error at line \d+ (?:column \d+|between columns \d+ and \d+): ")


@dataclass
class LoadedFile:
    """What one file held.

    ``quads``: pyoxigraph Quads, quoted triples already normalised; ``documents``: document IRI ->
    text; ``format``: a human name ("TriG", "TrustGraph wire JSON", ...); ``size``: bytes read after
    decompression; ``recovered``: damaged quoted-triple literals turned back into triple terms.
    """

    name: str
    format: str
    size: int
    quads: list[ox.Quad] = field(default_factory=list)
    documents: dict[str, str] = field(default_factory=dict)
    recovered: int = 0


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
        name, f"a file name ending in one of {', '.join(SUPPORTED_SUFFIXES)} (optionally .gz)"
    )


Progress = Callable[[int], None]


def read_trace_file(
    name: str, data: bytes | None = None, *, max_bytes: int = DEFAULT_MAX_BYTES,
    progress: Progress | None = None,
) -> LoadedFile:
    """Read the file ``name`` (or its bytes ``data``, e.g. an upload) into a LoadedFile.

    ``max_bytes`` caps the size after decompression. ``progress(n)`` is called as the parser
    consumes each further ``n`` bytes (of the decompressed text), for progress bars. Blank nodes
    get names derived from the file's bytes, so reading the same file twice gives the same quads.
    Raises TraceLoadError (with line and column where the parser gives them) when the file
    cannot be read in full; nothing is returned then.
    """
    fmt = format_for_name(name)
    if data is None:
        try:
            with open(name, "rb") as handle:
                data = handle.read(max_bytes + 1)
        except OSError as error:
            raise TraceLoadError(name, f"a readable file ({error.strerror or error})") from None
    if name.lower().endswith(".gz"):
        data = _gunzip(name, data, max_bytes)
    if len(data) > max_bytes:
        raise TraceLoadError(name, f"at most {max_bytes} bytes")
    if fmt == DOCUMENTS_JSON:
        loaded = LoadedFile(name, DOCUMENTS_JSON, len(data), documents=_read_documents(name, _json(name, data)))
    elif fmt == WIRE_JSON:
        loaded = _read_json(name, data)
    else:
        loaded = _read_rdf(name, data, fmt, progress)
        progress = None
    if progress is not None:
        progress(len(data))
    loaded.quads = stable_blank_nodes(loaded.quads, hashlib.sha256(data).hexdigest()[:16])
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

    if not any(isinstance(t, (ox.BlankNode, ox.Triple)) for q in quads for t in (q.subject, q.object, q.graph_name)):
        return quads
    return [ox.Quad(rename(q.subject), q.predicate, rename(q.object), rename(q.graph_name)) for q in quads]


def _gunzip(name: str, data: bytes, max_bytes: int) -> bytes:
    try:
        with gzip.GzipFile(fileobj=io.BytesIO(data)) as handle:
            out = handle.read(max_bytes + 1)
    except (OSError, EOFError, zlib.error) as error:
        raise TraceLoadError(name, f"gzip data ({error})") from None
    if len(out) > max_bytes:
        raise TraceLoadError(name, f"gzip content of at most {max_bytes} bytes when expanded")
    return out


def _read_rdf(name: str, data: bytes, fmt: ox.RdfFormat, progress: Progress | None = None) -> LoadedFile:
    source = io.BufferedReader(_CountingReader(data, progress)) if progress else data
    try:
        quads = list(ox.parse(input=source, format=fmt))
    except SyntaxError as error:
        message = _PARSER_POSITION.sub("", str(error.msg))
        raise TraceLoadError(name, message, error.lineno, error.offset) from None
    except (ValueError, OSError) as error:
        raise TraceLoadError(name, f"valid {fmt.name} ({error})") from None
    quads, recovered = normalise_quoted_triples(quads)
    return LoadedFile(name, fmt.name, len(data), quads=quads, recovered=recovered)


def _json(name: str, data: bytes):
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        line = data[: error.start].count(b"\n") + 1
        column = error.start - (data.rfind(b"\n", 0, error.start) + 1) + 1
        raise TraceLoadError(name, "UTF-8 text", line, column) from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as error:
        raise TraceLoadError(name, f"JSON ({error.msg})", error.lineno, error.colno) from None
    except RecursionError:
        raise TraceLoadError(name, "JSON nested less deeply") from None


def _read_documents(name: str, value) -> dict[str, str]:
    if not isinstance(value, dict) or not all(isinstance(v, str) for v in value.values()):
        raise TraceLoadError(name, "a JSON object mapping document IRIs to their text")
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
                                   "or an object mapping document IRIs to texts (content files are best named *.documents.json)")
    quads = []
    for index, item in enumerate(value):
        try:
            quads.append(decode_quad(item))
        except (WireFormatError, AttributeError) as error:
            raise TraceLoadError(name, f"item {index}: expected {error}") from None
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
