"""JSON files: TrustGraph's gateway wire triples (a list, ``{"triples": [...]}`` or a gateway
response), document content (``{document IRI: text}``), and JSON-LD under a ``.json`` name.
They are read as a stream, within caps on depth and values (``json_stream``)."""

from __future__ import annotations

import json
import re
from collections.abc import Sequence

import pyoxigraph as ox

from .diagnosis import check_binary, check_text, clip, describe, empty_file, format_label
from .errors import TraceLoadError
from .formats import DOCUMENTS_JSON, WIRE_JSON
from .json_stream import MAX_JSON_VALUES, JsonSyntax, LooksLikeJsonLd, build_value, json_events
from .json_syntax import syntax_error
from .limits import format_size
from .loaded import LoadedFile
from .prescan import check_before_parsing
from .quoted_triples import normalise_quoted_triples
from .rdf import read_rdf, stable_blank_nodes
from .streams import Opener, Progress, TextStream

_PLACED_BYTES = 16 << 20  # JSON read again by Python's parser to place a syntax error, at most


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
        raise syntax_error(name, text, error) from None
    except RecursionError:
        raise TraceLoadError(name, "JSON nested less deeply", found="it nests too deep to read") from None


def read_documents(name: str, value, read: Opener | None = None, size: int = 0,
                   repeated: Sequence[tuple[str, object, object]] = ()) -> dict[str, str]:
    """The texts ``{document IRI: text}`` of the content file ``name`` whose JSON value is
    ``value`` (docs/reading-traces.md, "Formats and sessions"). Raises TraceLoadError when ``value`` is no object,
    for its first member whose value is no string: naming the key (clipped to
    ``_KEY_CHARACTERS``) and what the value is instead, and for a key given again with another
    text (``repeated``: ``(key, text before, text again)`` in the order read,
    ``json_stream.build_value``; the same text again is taken): at the place of the key given
    again, with the line of its first, so that no text is dropped unseen. Places are given when
    the file's ``size`` bytes of text (``read()``) are few enough to read again
    (``_PLACED_BYTES``)."""
    if not isinstance(value, dict):
        raise TraceLoadError(name, "a JSON object mapping document IRIs to their text", found=describe(value))
    for key, text in value.items():
        if not isinstance(text, str):
            places = _member_places(read, size, key) if read is not None else []
            line, column = places[-1][1] if places else (None, None)
            raise TraceLoadError(name, f"a JSON string (the document's text) as the value of {_quoted(key)}", line,
                                 column, found=describe(text))
    _refuse_other_texts(name, repeated, read, size)
    return dict(value)


def _refuse_other_texts(name: str, repeated: Sequence[tuple[str, object, object]], read: Opener | None,
                        size: int) -> None:
    """Raise TraceLoadError for the first key in ``repeated`` given again with another text."""
    again: dict[str, int] = {}
    for key, before, text in repeated:
        again[key] = again.get(key, 0) + 1
        if text == before:
            continue
        places = _member_places(read, size, key) if read is not None else []
        (line, column), first = (places[again[key]][0], f" (first at line {places[0][0][0]})") \
            if len(places) > again[key] else ((None, None), "")
        raise TraceLoadError(name, "one text for each document IRI", line, column,
                             found=f"the key {_quoted(key)} is given again, with another text{first}")


def _quoted(key: str) -> str:
    return clip(json.dumps(key, ensure_ascii=False), _KEY_CHARACTERS)


_KEY_CHARACTERS = 100  # of a document IRI quoted in a message
_SPACE = re.compile(r"[ \t\n\r]*")
Place = tuple[int, int]  # line and column, 1-based


def _member_places(read: Opener, size: int, key: str) -> list[tuple[Place, Place]]:
    """The places of each member ``key`` of the top-level object of the JSON text ``read()``
    gives, in order: its key's and its value's line and column (1-based, of characters, as
    Python's JSON parser counts them); none when the text is over ``_PLACED_BYTES`` or cannot
    be walked."""
    if size > _PLACED_BYTES:
        return []
    with read() as source:
        text = source.read(size).decode("utf-8-sig", errors="replace")
    decoder, places = json.JSONDecoder(), []
    try:
        at = _SPACE.match(text).end() + 1  # past "{"
        while text[_SPACE.match(text, at).end()] != "}":
            begins = _SPACE.match(text, at).end()
            member, at = json.decoder.scanstring(text, begins + 1)
            at = _SPACE.match(text, _SPACE.match(text, at).end() + 1).end()  # past ":"
            if member == key:
                places.append((begins, at))
            at = _SPACE.match(text, decoder.raw_decode(text, at)[1]).end()
            at += text[at] == ","
    except (ValueError, IndexError):
        return []
    return [tuple((text.count("\n", 0, p) + 1, p - text.rfind("\n", 0, p)) for p in pair) for pair in places]


def read_json_file(name: str, fmt: str, read: Opener, max_bytes: int | None, progress: Progress | None,
                   decompressed: bool, max_values: int | None = MAX_JSON_VALUES) -> LoadedFile:
    """The JSON file ``read()`` (its text, decompressed) in ``fmt`` (WIRE_JSON or DOCUMENTS_JSON),
    streamed through ``json_stream`` under its caps: wire triples (a list, ``{"triples": [...]}``
    or a gateway response), document texts, or JSON-LD under a ``.json`` name (then read by
    pyoxigraph, after the pre-scan); ``max_values``: the cap on values held (None: none).
    ``LoadedFile.digest``: SHA-256 of the text; blank nodes
    named from it. Raises TraceLoadError (JSON syntax errors placed by line and column where
    the text read is under ``_PLACED_BYTES``); ``streams.OverLimit`` and
    ``streams.DecompressionError`` for the caller to word."""
    with TextStream(read, max_bytes, progress) as stream:
        source = stream.buffered()  # (without a byte order mark: ``streams``)
        try:
            repeated: list = []  # top-level keys given again, for a content file
            value = build_value(name, json_events(source), wire=fmt == WIRE_JSON, max_values=max_values,
                                repeated=repeated)
            source.read()  # to the end, for the digest (only white space is left)
        except LooksLikeJsonLd:
            check_before_parsing(name, read, ox.RdfFormat.JSON_LD, max_bytes)
            return read_rdf(name, read, ox.RdfFormat.JSON_LD, max_bytes=max_bytes, decompressed=decompressed)
        except JsonSyntax as error:
            if stream.failure is not None:
                raise stream.failure from None
            if stream.blank:
                raise empty_file(name, format_label(fmt), decompressed) from None
            raise _placed(name, read, stream.size, str(error)) from None
    if fmt == DOCUMENTS_JSON:
        loaded = LoadedFile(name, DOCUMENTS_JSON, stream.size,
                            documents=read_documents(name, value, read, stream.size, repeated))
    else:
        loaded = _wire_file(name, value, stream.size)
        if loaded.documents:  # texts under a plain .json name: the same rule for a key given twice
            _refuse_other_texts(name, repeated, read, stream.size)
    loaded.digest = stream.digest()
    loaded.quads = stable_blank_nodes(loaded.quads, loaded.digest[:16])
    return loaded


def _placed(name: str, read: Opener, consumed: int, message: str) -> TraceLoadError:
    """The error for JSON that stopped the streaming parser within its first ``consumed``
    bytes: Python's own parser, run on those bytes when they are few enough, names the line and
    column; otherwise the streaming parser's words."""
    if consumed <= _PLACED_BYTES:
        with read() as source:
            head = source.read(consumed)
        try:
            parse_json_file(name, head)
        except TraceLoadError as error:
            return error
    words = message.strip().splitlines()[0] if message.strip() else "not JSON"
    return TraceLoadError(name, "JSON", found=clip(f"the parser says: {words} (within the first "
                                                   f"{format_size(consumed)})"))


def _wire_file(name: str, value, size: int) -> LoadedFile:
    """The wire triples (already Quads, ``json_stream``) or document texts that ``value`` holds."""
    if isinstance(value, dict) and "triples" in value:
        value = value["triples"]
    elif isinstance(value, dict) and "response" in value and isinstance(value["response"], dict):
        value = value["response"].get("triples", value["response"])
    if isinstance(value, dict) and value and all(isinstance(v, str) for v in value.values()) \
            and all(_is_iri(k) for k in value):
        return LoadedFile(name, DOCUMENTS_JSON, size, documents=dict(value))
    if not isinstance(value, list):
        raise TraceLoadError(name, "a JSON array of TrustGraph wire triples ({\"s\", \"p\", \"o\", \"g\"?}), "
                                   "or an object mapping document IRIs to texts (content files are best named *.documents.json)",
                             found=describe(value))
    quads, recovered = normalise_quoted_triples(value)
    return LoadedFile(name, WIRE_JSON, size, quads=quads, recovered=recovered)


def _is_iri(value: str) -> bool:
    try:
        ox.NamedNode(value)
    except ValueError:
        return False
    return True




