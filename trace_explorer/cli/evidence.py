"""``trace-explorer evidence`` and ``used-by``: from an answer to the documents behind it, and
from a document to every session whose answer used it (``analysis.evidence.evidence``,
``analysis.evidence.used_by``; JSON keys in ``analysis.evidence.report``)."""

from __future__ import annotations

import json
import sys

from ..analysis.evidence.evidence import session_evidence
from ..analysis.evidence.report import evidence_record, evidence_text, used_by_records, used_by_text
from ..analysis.evidence.used_by import describe_document, used_by
from ..sources.source import TraceSource
from ..sources.sparql_text import iri
from .sessions import add_session_report
from .sources import add_source_arguments


def add_parser(commands) -> None:
    """Add ``evidence`` and ``used-by`` to the subcommands ``commands``."""
    add_session_report(
        commands, "evidence", "the documents, pages and chunks behind one session's answer",
        description="For each edge a session chose (and each chunk, for DocRAG), the extraction that holds it: "
                    "subgraph, chunk, page and document, with the chunk's text. An agent's sub-sessions are "
                    "rolled up into its answer's evidence.",
        read=session_evidence, record=evidence_record, text=evidence_text)

    used = commands.add_parser(
        "used-by", help="every session whose answer used a document",
        description="The sessions that chose an edge the document's extraction holds, or one of its chunks, "
                    "and the sessions above them (an agent whose tool call ran one of them).")
    add_source_arguments(used)
    used.add_argument("--document", required=True, metavar="IRI",
                      help="the document's IRI (or a unique part of it, such as its UUID)")
    used.add_argument("--format", choices=("text", "json"), default="text")
    used.set_defaults(run=_used_by)


def _used_by(args, source: TraceSource) -> int:
    document = args.document.strip()
    if document.startswith("<") and document.endswith(">"):
        document = document[1:-1]
    try:
        iri(document)
    except ValueError:  # not an IRI: a unique part of one, as --session takes
        found = [d["id"] for d in source.lineage().list_documents() if document and document in d["id"]]
        if len(found) != 1:
            why = f"not an IRI, nor a part of exactly one document's IRI in {source.label}"
            listed = "".join(f"\n  {d}" for d in found[:20])
            print(f"trace-explorer: --document {document!r}: {why}" +
                  (f"; it is part of {len(found):,}:{listed}" if found else ""), file=sys.stderr)
            return 2
        document = found[0]
    uses = used_by(source, document)
    described = describe_document(source, document)
    if described is None and not uses:
        print(f"trace-explorer: {source.label} holds nothing about {document}", file=sys.stderr)
    if args.format == "json":
        print(json.dumps(used_by_records(uses), ensure_ascii=False, indent=2))
    else:
        print(used_by_text(document, uses, described["title"] if described else None), end="")
    return 0
