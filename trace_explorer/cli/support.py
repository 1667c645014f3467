"""``trace-explorer support``: which step backs each sentence of a session's answer, and which
sentences nothing in the trace backs (``analysis.support.support``; the JSON contract is in
its docstring)."""

from __future__ import annotations

from ..analysis.support.evidence import unread_chunks
from ..sources.source import TraceSource
from ..views.visible_text import visible_controls
from .sessions import add_session_report


def add_parser(commands) -> None:
    """Add ``support`` to the subcommands ``commands``."""
    add_session_report(
        commands, "support", "which step backs each sentence of a session's answer",
        description="Cut a session's answer into sentences and, for each, list the Observations, DocRAG chunks, "
                    "GraphRAG selected edges, Findings and plan step results whose words back it, with a score "
                    "(0-1) and the matching spans of their text; or say that nothing in the trace supports it.",
        read=_read, record=_record, text=_text)


# The support models (sentence splitting, BM25, word vectors) are loaded when a report is asked
# for, not with the command line: a third of a second that the other commands need not pay.
def _read(source: TraceSource, session, family):
    from ..analysis.support.support import session_support

    return session_support(session, chunk_texts(source, session, family), family=family)


def _record(report) -> dict:
    from ..analysis.support.support import support_record

    return support_record(report)


def _text(report) -> str:
    from ..analysis.support.support import support_text

    return visible_controls(support_text(report))


def chunk_texts(source: TraceSource, session, family=None) -> dict[str, str]:
    """The texts of the chunks ``session`` (and its sub-sessions, from ``family``) chose without
    carrying them, from ``source`` (its loaded content files first, then its documents graph)."""
    wanted = unread_chunks(session, family)
    known = getattr(source, "documents", None) or {}
    texts = {c: known[c] for c in wanted if c in known}
    rest = [c for c in wanted if c not in texts]
    if rest:
        texts.update(source.document_texts(rest))
    return texts
