"""The ``trace-explorer`` command: list, show and export the sessions in trace files.

``PATH...`` is any mix of trace files (Turtle, TriG, N-Quads, N-Triples, JSON-LD, RDF/XML,
TrustGraph wire JSON, ``.gz`` too), ``*.documents.json`` content files and folders of them.
A file that fails to load is reported on stderr and skipped; the rest are still read, and the
exit status is then 1. Exit status 2: bad usage (an unknown output suffix too), nothing could be
loaded, no such session, or an export that could not be written.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path

from .export_data import DATA_SUFFIXES, write_session_data
from .export_images import IMAGE_FORMATS, ImageExportError, dag_image, image_format, timeline_image
from .export_markdown import session_markdown
from .export_page import session_page
from .export_prov import PROV_SUFFIXES, export_session_prov, nquad_line
from .export_table import sessions_csv
from .model import AGENT, DOCRAG, GRAPHRAG, Session
from .session_report import session_detail, session_summary, session_text
from .sessions import read_sessions
from .store import load_collection

TYPE_CHOICES = {"agent": AGENT, "graphrag": GRAPHRAG, "docrag": DOCRAG}
TABLE_COLUMNS = ("Session ID", "Type", "Pattern", "Question", "Time", "Steps", "Status")
UNMAPPED_SHOWN = 20  # unmapped PROV triples printed on stderr; PROV-N lists them all


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit status (see the module docstring)."""
    args = _parser().parse_args(argv)
    collection, errors = load_collection(args.paths)
    args.collection = collection  # the export command writes the session's own quads
    for error in errors:
        print(f"trace-explorer: {error}", file=sys.stderr)
    if errors and len(errors) == len(collection.sources) + len(errors) and not collection.sources:
        return 2
    sessions = read_sessions(collection)
    status = args.run(args, sessions)
    return status or (1 if errors else 0)


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="trace-explorer", description="Explore TrustGraph provenance traces.")
    commands = parser.add_subparsers(dest="command", required=True)

    listing = commands.add_parser("list", help="list sessions, newest first")
    listing.add_argument("paths", nargs="+", metavar="PATH", help="trace files, content files or folders")
    listing.add_argument("--type", choices=sorted(TYPE_CHOICES), help="only sessions of this mechanism")
    listing.add_argument("--all", action="store_true", help="include sub-sessions")
    listing.add_argument("--format", choices=("table", "json", "csv"), default="table")
    listing.set_defaults(run=_list)

    show = commands.add_parser("show", help="show one whole session")
    show.add_argument("paths", nargs="+", metavar="PATH", help="trace files, content files or folders")
    show.add_argument("--session", required=True, metavar="IRI", help="the session's IRI (or a unique ending of it)")
    show.add_argument("--format", choices=("text", "json"), default="text")
    show.set_defaults(run=_show)

    export = commands.add_parser(
        "export", help="write one session as images, a page, data or Markdown",
        description="Write one session in the forms given (each option may be repeated; the "
                    "format comes from the file suffix).")
    export.add_argument("paths", nargs="+", metavar="PATH", help="trace files, content files or folders")
    export.add_argument("--session", required=True, metavar="IRI", help="the session's IRI (or a unique ending of it)")
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
    export.set_defaults(run=_export)
    return parser


def _suffix_checker(known, what: str):
    """An argparse ``type`` that accepts a file name whose suffix is in ``known``."""
    def check(value: str) -> str:
        suffix = "-" if value == "-" else Path(value).suffix.lower()
        if suffix not in known:
            names = ", ".join(k for k in known if k != "-")
            raise argparse.ArgumentTypeError(f"unknown {what} format {suffix or '(no suffix)'!r} in {value!r}: use {names}")
        return value
    return check


def select_sessions(sessions: list[Session], mechanism: str | None = None, include_sub: bool = False) -> list[Session]:
    """Filter ``sessions``: top level only unless ``include_sub``; one mechanism when given."""
    return [s for s in sessions
            if (include_sub or s.parent is None) and (mechanism is None or s.mechanism == mechanism)]


def find_session(sessions: list[Session], key: str) -> Session | None:
    """The session whose IRI is ``key``, else the only one whose IRI ends with ``key``."""
    exact = [s for s in sessions if s.id == key]
    if exact:
        return exact[0]
    ending = [s for s in sessions if s.id.endswith(key)]
    return ending[0] if len(ending) == 1 else None


def _list(args, sessions: list[Session]) -> int:
    chosen = select_sessions(sessions, TYPE_CHOICES.get(args.type), args.all)
    rows = [session_summary(s) for s in chosen]
    if args.format == "csv":
        print(sessions_csv(chosen), end="")
        return 0
    if args.format == "json":
        keys = ("id", "type", "pattern", "question", "time", "parent", "has_answer", "actions", "tool_errors")
        print(json.dumps([{k: r[k] for k in keys} for r in rows], ensure_ascii=False, indent=2))
        return 0
    table = [(r["id"], r["type"], r["pattern"] or "", _clip(r["question"] or "", 60), r["time"] or "",
              str(r["step_count"]), r["status"]) for r in rows]
    print(format_table(TABLE_COLUMNS, table))
    print(f"\n{len(rows)} session{'s' if len(rows) != 1 else ''}")
    return 0


def _show(args, sessions: list[Session]) -> int:
    session = find_session(sessions, args.session)
    if session is None:
        print(f"trace-explorer: no session {args.session!r} in the files given "
              f"({len(sessions)} sessions read)", file=sys.stderr)
        return 2
    if args.format == "json":
        print(json.dumps(session_detail(session), ensure_ascii=False, indent=2))
    else:
        print(session_text(session), end="")
    return 0


def _export(args, sessions: list[Session]) -> int:
    session = find_session(sessions, args.session)
    if session is None:
        print(f"trace-explorer: no session {args.session!r} in the files given "
              f"({len(sessions)} sessions read)", file=sys.stderr)
        return 2
    if not (args.image or args.timeline or args.html or args.data or args.markdown):
        print("trace-explorer: nothing to export: give --image, --timeline, --html, --data or --markdown",
              file=sys.stderr)
        return 2
    by_id = {s.id: s for s in sessions}
    children = not args.no_sub_sessions
    jobs = [(path, lambda p: _write(p, dag_image(session, image_format(p), by_id), "DAG")) for path in args.image]
    jobs += [(path, lambda p: _write(p, timeline_image(session, image_format(p)), "timeline")) for path in args.timeline]
    jobs += [(path, lambda p: _write(p, session_page(session, by_id, include_children=children).encode("utf-8"), "page"))
             for path in args.html]
    jobs += [(path, lambda p: _export_data(p, args.collection, session, by_id, children)) for path in args.data]
    jobs += [(path, lambda p: _export_markdown(p, session, by_id, children)) for path in args.markdown]
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


def _export_data(path: str, collection, session: Session, sessions: dict[str, Session], children: bool) -> None:
    if Path(path).suffix.lower() in PROV_SUFFIXES:
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
    written, export = write_session_data(path, collection, session, sessions, children)
    texts = f" and {written[1]} ({len(export.documents)} texts)" if len(written) > 1 else ""
    print(f"trace-explorer: wrote {path} ({export.format}, {export.quads} quads){texts}", file=sys.stderr)
    for message in export.warnings:
        print(f"trace-explorer: warning: {path}: {message}", file=sys.stderr)


def _export_markdown(path: str, session: Session, sessions: dict[str, Session], children: bool) -> None:
    text = session_markdown(session, sessions, include_children=children)
    if path == "-":
        print(text, end="")
        return
    _write(path, text.encode("utf-8"), "Markdown")


def format_table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    """A plain text table: columns padded to their widest cell, a rule under the header."""
    widths = [max([len(h)] + [len(r[i]) for r in rows]) for i, h in enumerate(header)]
    lines = ["  ".join(h.ljust(w) for h, w in zip(header, widths)).rstrip(),
             "  ".join("-" * w for w in widths)]
    lines += ["  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip() for r in rows]
    return "\n".join(lines)


def _clip(text: str, width: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= width else text[: width - 1] + "…"


if __name__ == "__main__":
    sys.exit(main())
