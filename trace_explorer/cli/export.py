"""``trace-explorer export``: one session as images, a page, data or Markdown."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ..export.data import DATA_SUFFIXES, documents_path, reviews_path, write_session_data
from ..export.suffixes import IMAGE_FORMATS, PROV_SUFFIXES
from ..model.session import Session
from ..read.collection import TraceStore
from ..sources.source import TraceSource
from ..sources.source_texts import SourceTexts
from .review import session_reviews
from .sessions import session_family
from .sources import add_source_arguments
from .support import chunk_texts

UNMAPPED_SHOWN = 20  # unmapped PROV triples printed on stderr; PROV-N lists them all


def add_parser(commands) -> None:
    """Add ``export`` to the subcommands ``commands``."""
    export = commands.add_parser(
        "export", help="write one session as images, a page, data or Markdown",
        description="Write one session in the forms given (each option may be repeated; the "
                    "format comes from the file suffix).")
    add_source_arguments(export)
    export.add_argument("--session", required=True, metavar="IRI", help="the session's IRI (or a unique part of it, such as its UUID)")
    export.add_argument("--image", action="append", default=[], type=_suffix_checker(IMAGE_FORMATS, "image"),
                        metavar="FILE", help="the DAG: .svg, .png or .pdf")
    export.add_argument("--timeline", action="append", default=[], type=_suffix_checker(IMAGE_FORMATS, "timeline"),
                        metavar="FILE", help="the timeline: .svg, .png or .pdf")
    export.add_argument("--html", action="append", default=[], type=_suffix_checker({".html": "", ".htm": ""}, "page"),
                        metavar="FILE", help="a self-contained page: .html")
    export.add_argument("--data", action="append", default=[], metavar="FILE",
                        type=_suffix_checker(dict.fromkeys(DATA_SUFFIXES + tuple(PROV_SUFFIXES)), "data"),
                        help="the session's triples: " + ", ".join(DATA_SUFFIXES + tuple(PROV_SUFFIXES))
                             + " (.json is TrustGraph wire JSON); texts go to NAME.documents.json")
    export.add_argument("--markdown", action="append", default=[], metavar="FILE",
                        type=_suffix_checker({".md": "", ".markdown": "", "-": ""}, "Markdown"),
                        help="the session as Markdown: .md (- prints it)")
    export.add_argument("--no-sub-sessions", action="store_true",
                        help="leave the sub-sessions out of --data, --html and --markdown")
    export.add_argument("--evidence", action="store_true",
                        help="add the documents behind the chosen edges and chunks: an evidence branch "
                             "(edge -> chunk -> page -> document) in --image, an Evidence section in --html")
    export.add_argument("--reviews", metavar="DIR",
                        help="the review store whose reviews of the session --html, --markdown and --data carry "
                             "(default: beside --store's session index, else the configured one)")
    export.set_defaults(run=_export)



def _suffix_checker(known, what: str):
    """An argparse ``type`` that accepts a file name whose suffix is in ``known``."""
    def check(value: str) -> str:
        suffix = "-" if value == "-" else Path(value).suffix.lower()
        if suffix not in known:
            names = ", ".join(k for k in known if k != "-")
            raise argparse.ArgumentTypeError(f"unknown {what} format {suffix or '(no suffix)'!r} in {value!r}: use {names}")
        return value
    return check


def _export(args, source: TraceSource) -> int:
    # loaded here, not with the command line: Graphviz, the answer-support models and the
    # evidence graph cost a third of a second that ``list`` and ``show`` need not pay
    from ..analysis.evidence.evidence import session_evidence
    from ..analysis.evidence.graph import evidence_branch
    from ..analysis.support.support import session_support
    from ..export.images import ImageExportError, dag_image, image_format
    from ..export.timeline_image import timeline_image
    from ..export.page import session_page

    session, by_id = session_family(source, args.session)
    if session is None:
        return 2
    # the triples are exported from a local copy (a TrustGraph source keeps what it fetched);
    # an endpoint has none (the rest still works)
    # (its texts: the content files given, then the store's own documents graph)
    args.collection = TraceStore(store=source.store, documents=SourceTexts(source)) \
        if getattr(source, "store", None) is not None else None
    if not (args.image or args.timeline or args.html or args.data or args.markdown):
        print("trace-explorer: nothing to export: give --image, --timeline, --html, --data or --markdown",
              file=sys.stderr)
        return 2
    children = not args.no_sub_sessions
    evidence = session_evidence(source, session, by_id) if args.evidence and (args.image or args.html) else None
    branch = evidence_branch(evidence) if evidence else None
    # the answer's support, with the texts of the chunks a DocRAG Exploration chose from the source
    support = session_support(session, chunk_texts(source, session, by_id), family=by_id) \
        if args.html or args.markdown else None
    reviews = session_reviews(args, session.id) if args.html or args.markdown or args.data else []
    jobs = [(path, lambda p: _write(p, dag_image(session, image_format(p), by_id, branch), "DAG")) for path in args.image]
    jobs += [(path, lambda p: _write(p, timeline_image(session, image_format(p), by_id if children else None),
                                                          "timeline")) for path in args.timeline]
    jobs += [(path, lambda p: _write(p, session_page(session, by_id, include_children=children,
                                                      evidence=evidence, support=support,
                                                      reviews=reviews).encode("utf-8"), "page"))
             for path in args.html]
    jobs += [(path, lambda p: _export_data(p, args.collection, session, by_id, children, reviews)) for path in args.data]
    jobs += [(path, lambda p: _export_markdown(p, session, by_id, children, support, reviews)) for path in args.markdown]
    failed = 0
    for path, job in jobs:
        try:
            job(path)
        except (OSError, ValueError, ImageExportError, ImportError) as error:
            print(f"trace-explorer: {path}: {error}", file=sys.stderr)
            failed += 1
    return 2 if failed else 0


def _write(path: str, data: bytes, what: str) -> None:
    Path(path).write_bytes(data)
    print(f"trace-explorer: wrote {path} ({what}, {len(data):,} bytes)", file=sys.stderr)


def _export_data(path: str, collection, session: Session, sessions: dict[str, Session], children: bool,
                 reviews=()) -> None:
    if collection is None:
        raise ValueError("the triples are exported from a local copy (trace files or --store); a SPARQL "
                         "endpoint has none (--image, --timeline, --html and --markdown still work)")
    if Path(path).suffix.lower() in PROV_SUFFIXES:
        from ..export.prov import export_session_prov, nquad_line

        export = export_session_prov(collection, session, sessions, Path(path).suffix, children)
        _write(path, export.data, f"{export.format}, {export.records} records")
        if export.unmapped:
            print(f"trace-explorer: warning: {path}: {len(export.unmapped)} triple(s) have no PROV-DM counterpart "
                  f"and are not in it{' (they are listed in its comment)' if export.format == 'PROV-N' else ''}:",
                  file=sys.stderr)
            for quad in export.unmapped[:UNMAPPED_SHOWN]:
                print(f"    {nquad_line(quad)}", file=sys.stderr)
            if len(export.unmapped) > UNMAPPED_SHOWN:
                print(f"    ... and {len(export.unmapped) - UNMAPPED_SHOWN} more", file=sys.stderr)
        for message in export.warnings:
            print(f"trace-explorer: warning: {path}: {message}", file=sys.stderr)
        return
    written, export = write_session_data(path, collection, session, sessions, children, reviews)
    texts = f" and {documents_path(path)} ({len(export.documents)} texts)" if export.documents else ""
    texts += f" and {reviews_path(path)} ({len(export.reviews)} reviews)" if export.reviews else ""
    print(f"trace-explorer: wrote {path} ({export.format}, {export.quads} quads){texts}", file=sys.stderr)
    for message in export.warnings:
        print(f"trace-explorer: warning: {path}: {message}", file=sys.stderr)


def _export_markdown(path: str, session: Session, sessions: dict[str, Session], children: bool, support,
                     reviews=()) -> None:
    from ..export.markdown import session_markdown

    text = session_markdown(session, sessions, include_children=children, support=support, reviews=reviews)
    if path == "-":
        print(text, end="")
        return
    _write(path, text.encode("utf-8"), "Markdown")


