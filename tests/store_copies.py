"""Corpus sessions copied under fresh IRIs, to fill a store with many files of distinct sessions
(the same shapes, every UUID's first eight digits replaced by the copy's number)."""

from __future__ import annotations

import re

from tests.conftest import CORPUS, manifest_sessions

UUID = re.compile(rb"[0-9a-f]{8}(-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})")
SOURCE = "orchestrated.nq"
SESSIONS_PER_COPY = len(manifest_sessions(SOURCE))
TOP_PER_COPY = sum(1 for s in manifest_sessions(SOURCE) if s["parent"] is None)


def copies(first: int, count: int) -> bytes:
    """N-Quads of ``count`` copies of the corpus file ``SOURCE``, numbered from ``first``: each
    copy holds ``SESSIONS_PER_COPY`` sessions (``TOP_PER_COPY`` top-level) no other copy has."""
    text = (CORPUS / SOURCE).read_bytes()
    return b"".join(UUID.sub(lambda m, n=n: b"%08x" % n + m.group(1), text) for n in range(first, first + count))


def copy_iri(iri: str, n: int) -> str:
    """The IRI that ``iri`` (of a corpus session) has in copy ``n``."""
    return UUID.sub(lambda m: b"%08x" % n + m.group(1), iri.encode()).decode()
