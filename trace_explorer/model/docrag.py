"""DocRAG sessions (TRACE-MODEL.md, "DocRAG steps"): a reranker Focus's chunk selections."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .session import Step


def chunk_record(selection: Step, documents: Mapping[str, str]) -> dict[str, Any]:
    """A ChunkSelection as data: ``id``, ``chunk`` (its ``tg:document``, the chunk's IRI),
    ``score`` and ``text`` (from ``documents``, IRI -> text; None when not loaded)."""
    chunk = selection.fields.get("document")
    return {"id": selection.id, "chunk": chunk, "score": selection.fields.get("score"),
            "text": documents.get(chunk) if chunk else None}
