"""What one file held, once read."""

from __future__ import annotations

from dataclasses import dataclass, field

import pyoxigraph as ox


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
