"""What one file held, once read."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

import pyoxigraph as ox

from .diagnosis import clip
from .errors import TraceLoadError


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

    def refuse_other_texts(self, known: Callable[[list[str]], Mapping[str, str]]) -> None:
        """Raise TraceLoadError when this file gives a document IRI another text than the one
        ``known(iris)`` (IRI -> text, of those it has) already holds: one text for each document
        IRI, across files as within one (``json_files``); the same text again is no conflict.
        ``known``: what was loaded before (a dict's lookup) or a store's documents graph."""
        if not self.documents:
            return
        held = known(list(self.documents))
        for iri, text in self.documents.items():
            before = held.get(iri)
            if before is not None and before != text:
                raise TraceLoadError(self.name, "one text for each document IRI",
                                     found=f"{clip(json.dumps(iri, ensure_ascii=False), 100)} has another text "
                                           f"already (\"{clip(before, 60)}\"); a document's text is never replaced")
