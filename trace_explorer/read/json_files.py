"""JSON files: TrustGraph's gateway wire triples (a list, ``{"triples": [...]}`` or a gateway
response), document content (``{document IRI: text}``), and JSON-LD under a ``.json`` name."""

from __future__ import annotations

import io
import json

import pyoxigraph as ox

from .diagnosis import check_binary, check_text, clip, describe
from .errors import TraceLoadError
from .formats import DOCUMENTS_JSON, WIRE_JSON
from .loaded import LoadedFile
from .quoted_triples import normalise_quoted_triples
from .rdf import read_rdf
from .wire import WireFormatError, decode_quad


def parse_json_file(name: str, data: bytes):
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        check_text(name, data, "JSON")  # raises, saying where
        raise TraceLoadError(name, "JSON text in UTF-8") from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as error:
        check_binary(name, data, "JSON")
        raise TraceLoadError(name, "JSON", error.lineno, error.colno,
                             found=f"the parser says: {error.msg}"
                             + (" (the file may be cut short)" if error.pos >= len(text.rstrip()) else "")) from None
    except RecursionError:
        raise TraceLoadError(name, "JSON nested less deeply", found="it nests too deep to read") from None


def read_documents(name: str, value) -> dict[str, str]:
    if not isinstance(value, dict) or not all(isinstance(v, str) for v in value.values()):
        raise TraceLoadError(name, "a JSON object mapping document IRIs to their text", found=describe(value))
    return dict(value)


def read_json(name: str, data: bytes) -> LoadedFile:
    value = parse_json_file(name, data)
    if isinstance(value, dict) and "triples" in value:
        value = value["triples"]
    elif isinstance(value, dict) and "response" in value and isinstance(value["response"], dict):
        value = value["response"].get("triples", value["response"])
    if _looks_like_json_ld(value):
        return read_rdf(name, lambda: io.BytesIO(data), ox.RdfFormat.JSON_LD)
    if isinstance(value, dict) and value and all(isinstance(v, str) for v in value.values()) \
            and all(_is_iri(k) for k in value):
        return LoadedFile(name, DOCUMENTS_JSON, len(data), documents=dict(value))
    if not isinstance(value, list):
        raise TraceLoadError(name, "a JSON array of TrustGraph wire triples ({\"s\", \"p\", \"o\", \"g\"?}), "
                                   "or an object mapping document IRIs to texts (content files are best named *.documents.json)",
                             found=describe(value))
    quads = []
    for index, item in enumerate(value):
        try:
            quads.append(decode_quad(item))
        except (WireFormatError, AttributeError) as error:
            raise TraceLoadError(name, f"a TrustGraph wire triple ({{\"s\", \"p\", \"o\", \"g\"?}}) as item {index} "
                                       f"of the array", found=clip(f"it needs {error}")) from None
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


