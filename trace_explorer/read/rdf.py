"""RDF files read by pyoxigraph's RDF 1.2 parsers, their quoted triples brought to one
spelling, and their blank nodes named from the file's bytes.

The parser reads the file as a stream (``streams.TextStream``), never the whole text at once, so
memory follows the quads, not the file: a ``.gz`` is decompressed as the parser goes. A token
longer than the parser's buffer (pyoxigraph holds at most 16 MiB of one token, such as a
400 MiB comment line) is an error naming the line, not an exhausted memory.
"""

from __future__ import annotations

import re

import pyoxigraph as ox

from .collector import collector_paused
from .diagnosis import (PARSER_POSITION, TRUNCATED, check_binary, check_text_stream, clip, empty_file,
                        token_too_long)
from .errors import TraceLoadError
from .format_hint import format_hint
from .loaded import LoadedFile
from .quoted_triples import normalise_quoted_triples
from .streams import Opener, Progress, TextStream

# pyoxigraph's words when one token outgrows its buffer ("Reached the buffer maximal size of 16777216")
_BUFFER_FULL = re.compile(r"buffer maximal size of (\d+)")


def stable_blank_nodes(quads: list[ox.Quad], salt: str) -> list[ox.Quad]:
    """Rename blank nodes to ``{salt}b{n}`` in order of first appearance (n from 0), so the
    same file always gives the same quads (a store then holds them once). Triple terms are
    walked with a stack, not recursion, however deep they nest."""
    names: dict[ox.BlankNode, ox.BlankNode] = {}

    def rename(term):
        if isinstance(term, ox.BlankNode):
            if term not in names:
                names[term] = ox.BlankNode(f"{salt}b{len(names)}")
            return names[term]
        if isinstance(term, ox.Triple):
            return _renamed_triple(term, rename)
        return term

    if not any(_has_blank_node(t) for q in quads for t in (q.subject, q.object, q.graph_name)):
        return quads
    return [ox.Quad(rename(q.subject), q.predicate, rename(q.object), rename(q.graph_name)) for q in quads]


def _renamed_triple(triple: ox.Triple, rename) -> ox.Triple:
    """``triple`` rebuilt with ``rename`` applied to every subject and object that is not a
    triple, at any depth, in the order a recursive walk meets them (subject before object)."""
    built: list = []
    stack: list[tuple[object, bool]] = [(triple, False)]
    while stack:
        term, ready = stack.pop()
        if not isinstance(term, ox.Triple):
            built.append(rename(term))
        elif ready:
            obj = built.pop()
            built.append(ox.Triple(built.pop(), term.predicate, obj))
        else:
            stack += [(term, True), (term.object, False), (term.subject, False)]
    return built[0]


def _has_blank_node(term) -> bool:
    """Whether ``term`` is a blank node or a triple term holding one at any depth (a stack, no
    recursion)."""
    stack = [term]
    while stack:
        term = stack.pop()
        if isinstance(term, ox.BlankNode):
            return True
        if isinstance(term, ox.Triple):
            stack.append(term.object)
            stack.append(term.subject)
    return False


def read_rdf(name: str, open_bytes: Opener, fmt: ox.RdfFormat, progress: Progress | None = None, *,
             max_bytes: int | None = None, decompressed: bool = False) -> LoadedFile:
    """The quads of the file ``open_bytes()`` (its text, decompressed) in ``fmt``, quoted
    triples normalised, blank nodes named from its digest (``LoadedFile.digest``: SHA-256 of
    the text). ``progress(n)`` is called as each further ``n`` bytes are read.

    Raises TraceLoadError saying where and why the parser stopped (an empty file, binary data,
    a byte that is not UTF-8, a token too long to hold, a syntax error); ``streams.OverLimit``
    past ``max_bytes`` and ``streams.DecompressionError`` for bad ``.gz`` data, for the caller
    to word (``decompressed``: the text came out of a ``.gz``, for the empty file's message)."""
    with TextStream(open_bytes, max_bytes, progress) as stream:
        try:
            with collector_paused():
                quads = list(ox.parse(input=stream.buffered(), format=fmt))
        except (SyntaxError, ValueError, OSError, MemoryError) as error:
            if stream.failure is not None:
                raise stream.failure from None
            if stream.blank and stream.ended:
                raise empty_file(name, fmt.name, decompressed) from None
            raise parse_error(name, fmt, error, stream, open_bytes) from None
        if stream.blank:
            raise empty_file(name, fmt.name, decompressed)
    quads, recovered = normalise_quoted_triples(quads)
    digest = stream.digest()
    if stream.blank_node_label or fmt not in (ox.RdfFormat.N_QUADS, ox.RdfFormat.N_TRIPLES):
        # (a line format without "_:" has no blank node: the scan is skipped)
        quads = stable_blank_nodes(quads, digest[:16])
    return LoadedFile(name, fmt.name, stream.size, quads=quads, recovered=recovered, digest=digest)


def parse_error(name: str, fmt: ox.RdfFormat, error: Exception, stream: TextStream,
                open_bytes: Opener) -> TraceLoadError:
    """The TraceLoadError for a parser that stopped with ``error``, the stream having read what it
    did (``file:line:column`` from the parser's SyntaxError; a token too long for its buffer, binary
    data and bad UTF-8 get words of their own). Re-raises a MemoryError that is not the buffer's."""
    if isinstance(error, MemoryError):
        full = _BUFFER_FULL.search(str(error))
        if full is None:
            raise error
        return token_too_long(name, fmt.name, open_bytes, stream.size, int(full.group(1)))
    check_binary(name, stream.head, fmt.name)
    if not isinstance(error, SyntaxError):
        return TraceLoadError(name, f"valid {fmt.name}", found=clip(f"the parser says: {error}"))
    message = PARSER_POSITION.sub("", str(error.msg))
    if "UTF-8" in message or "utf-8" in message:
        check_text_stream(name, open_bytes, fmt.name)
    if not TRUNCATED.search(message):
        hint = format_hint(name, fmt, stream.head)
    elif stream.ended or fmt not in (ox.RdfFormat.N_QUADS, ox.RdfFormat.N_TRIPLES):
        hint = " (the file may be cut short)"
    else:  # a batch of lines ended inside a statement, the file goes on: one line opened what it did not close
        hint = " (a string or IRI opened on this line is not closed on it)"
    return TraceLoadError(name, f"valid {fmt.name}", error.lineno, error.offset,
                          found=clip(f"the parser says: {message}") + hint)
