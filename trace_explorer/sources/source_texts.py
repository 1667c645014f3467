"""A source's document texts as a mapping, for the data exports (``export.data``): the texts a
session's quads point at are found one IRI at a time as the export asks for them, from the
content files the source was given and then from its own store (a local store keeps them in its
documents graph: ``source.DOCUMENTS_GRAPH``), so an export from a store carries the same
``.documents.json`` sidecar as one from the files that filled it."""

from __future__ import annotations

from collections.abc import Iterator, Mapping

from .source import TraceSource


class SourceTexts(Mapping):
    """IRI -> text of ``source`` (``TraceSource.document_texts``), each IRI asked for once and
    remembered, found or not. Iterating gives only the IRIs asked for so far and found: the
    source is never listed whole (a store may hold a hundred thousand texts)."""

    def __init__(self, source: TraceSource):
        self._source = source
        self._found: dict[str, str | None] = {}

    def _lookup(self, iri: str) -> str | None:
        if iri not in self._found:
            self._found[iri] = self._source.document_texts([iri]).get(iri)
        return self._found[iri]

    def __getitem__(self, iri: str) -> str:
        text = self._lookup(iri)
        if text is None:
            raise KeyError(iri)
        return text

    def __contains__(self, iri: object) -> bool:
        return isinstance(iri, str) and self._lookup(iri) is not None

    def __iter__(self) -> Iterator[str]:
        return iter([k for k, v in self._found.items() if v is not None])

    def __len__(self) -> int:
        return sum(v is not None for v in self._found.values())
