"""``trace-explorer support``: which step backs each sentence of a session's answer, and which
sentences nothing in the trace backs (``analysis.support.support``; the JSON contract is in
its docstring)."""

from __future__ import annotations

import json

from ..analysis.support.evidence import unread_chunks
from ..analysis.support.support import session_support, support_record, support_text
from ..sources.source import TraceSource
from ..views.visible_text import visible_controls
from .sessions import session_family
from .sources import add_source_arguments


def add_parser(commands) -> None:
    """Add ``support`` to the subcommands ``commands``."""
    support = commands.add_parser(
        "support", help="which step backs each sentence of a session's answer",
        description="Cut a session's answer into sentences and, for each, list the Observations, DocRAG chunks, "
                    "GraphRAG selected edges, Findings and plan step results whose words back it, with a score "
                    "(0-1) and the matching spans of their text; or say that nothing in the trace supports it.")
    add_source_arguments(support)
    support.add_argument("--session", required=True, metavar="IRI",
                         help="the session's IRI (or a unique part of it, such as its UUID)")
    support.add_argument("--format", choices=("text", "json"), default="text")
    support.set_defaults(run=_support)


def _support(args, source: TraceSource) -> int:
    session, _family = session_family(source, args.session)
    if session is None:
        return 2
    report = session_support(session, chunk_texts(source, session))
    if args.format == "json":
        print(json.dumps(support_record(report), ensure_ascii=False, indent=2))
    else:
        print(visible_controls(support_text(report)), end="")
    return 0


def chunk_texts(source: TraceSource, session) -> dict[str, str]:
    """The texts of the chunks ``session`` chose without carrying them, from ``source`` (its
    loaded content files first, then its documents graph)."""
    wanted = unread_chunks(session)
    known = getattr(source, "documents", None) or {}
    texts = {c: known[c] for c in wanted if c in known}
    rest = [c for c in wanted if c not in texts]
    if rest:
        texts.update(source.document_texts(rest))
    return texts
