"""DocRAG sessions (TRACE-MODEL.md, "DocRAG steps"): a reranker Focus's chunk selections."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from .session import Step

# An IRI starts with its scheme and a colon (RFC 3987, section 2.2).
_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.\-]*:")
PLAIN_CHUNK_ID = "a plain chunk id as seed-shape traces write it, not an IRI: no source keeps a text under it"


def is_plain_chunk_id(chunk: str) -> bool:
    """True when a DocRAG chunk reference is a plain id, not an IRI: seed-shape traces write an
    Exploration's ``tg:selectedChunk`` as a literal such as ``"chunk-id-1"`` (TRACE-MODEL.md,
    "DocRAG steps"), a vector store's key that no documents file or librarian holds a text
    under. Current traces point at the chunk's IRI (``urn:chunk:{uuid}``)."""
    return not _SCHEME.match(chunk)


def chunk_record(selection: Step, documents: Mapping[str, str]) -> dict[str, Any]:
    """A ChunkSelection as data: ``id``, ``chunk`` (its ``tg:document``, the chunk's IRI),
    ``score`` and ``text`` (from ``documents``, IRI -> text; None when not loaded)."""
    chunk = selection.fields.get("document")
    return {"id": selection.id, "chunk": chunk, "score": selection.fields.get("score"),
            "text": documents.get(chunk) if chunk else None}
