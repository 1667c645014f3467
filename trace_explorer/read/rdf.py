"""RDF files read by pyoxigraph's RDF 1.2 parsers, their quoted triples brought to one
spelling, and their blank nodes named from the file's bytes."""

from __future__ import annotations

import io
from collections.abc import Callable

import pyoxigraph as ox

from .collector import collector_paused
from .diagnosis import PARSER_POSITION, TRUNCATED, check_binary, check_text, clip
from .errors import TraceLoadError
from .loaded import LoadedFile
from .quoted_triples import normalise_quoted_triples

Progress = Callable[[int], None]


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


def read_rdf(name: str, data: bytes, fmt: ox.RdfFormat, progress: Progress | None = None) -> LoadedFile:
    """The quads of ``data`` in ``fmt``, quoted triples normalised; raises TraceLoadError saying
    where and why the parser stopped (``progress(n)`` as each further ``n`` bytes are read)."""
    source = io.BufferedReader(_CountingReader(data, progress)) if progress else data
    try:
        with collector_paused():
            quads = list(ox.parse(input=source, format=fmt))
    except SyntaxError as error:
        message = PARSER_POSITION.sub("", str(error.msg))
        if "UTF-8" in message or "utf-8" in message:
            check_text(name, data, fmt.name)
        check_binary(name, data, fmt.name)
        hint = " (the file may be cut short)" if TRUNCATED.search(message) else ""
        raise TraceLoadError(name, f"valid {fmt.name}", error.lineno, error.offset,
                             found=clip(f"the parser says: {message}") + hint) from None
    except (ValueError, OSError) as error:
        check_binary(name, data, fmt.name)
        raise TraceLoadError(name, f"valid {fmt.name}", found=clip(f"the parser says: {error}")) from None
    quads, recovered = normalise_quoted_triples(quads)
    return LoadedFile(name, fmt.name, len(data), quads=quads, recovered=recovered)


