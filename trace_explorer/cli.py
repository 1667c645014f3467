"""The ``trace-explorer`` command: ingest, list, show and export sessions; reindex a store.

``PATH...`` is any mix of trace files (Turtle, TriG, N-Quads, N-Triples, JSON-LD, RDF/XML,
TrustGraph wire JSON, ``.gz`` too), ``*.documents.json`` content files and folders of them.
Instead of trace files, ``--store DIR`` reads the local store and ``--endpoint URL`` a SPARQL
endpoint (content files may still be given beside either). A file that fails to load is
reported on stderr and skipped; the rest are still read, and the exit status is then 1.
Exit status 2: bad usage (an unknown output suffix too), nothing could be loaded, the source
failed, no such session, or an export that could not be written.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Sequence
from pathlib import Path

from .catalog import SessionFilter, fetch_sessions, list_sessions
from .cli_sources import add_source_arguments, open_source, report
from .errors import TraceLoadError
from .export_data import DATA_SUFFIXES, write_session_data
from .export_images import IMAGE_FORMATS, ImageExportError, dag_image, image_format, timeline_image
from .export_markdown import session_markdown
from .export_page import session_page
from .export_prov import PROV_SUFFIXES, export_session_prov, nquad_line
from .export_table import sessions_csv
from .local_store import ingest_file, open_local_store, reindex
from .model import AGENT, DOCRAG, GRAPHRAG, Session
from .session_report import session_detail, session_text
from .sources import SourceError, StoreSource, TraceSource
from .sparql_text import PREFIXES, literal
from .store import TraceStore, expand_paths
from .visible_text import visible_controls

TYPE_CHOICES = {"agent": AGENT, "graphrag": GRAPHRAG, "docrag": DOCRAG}
TABLE_COLUMNS = ("Session ID", "Type", "Pattern", "Question", "Time", "Steps", "Status")
UNMAPPED_SHOWN = 20  # unmapped PROV triples printed on stderr; PROV-N lists them all


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit status (see the module docstring)."""
    args = _parser().parse_args(argv)
    if args.command == "ingest":
        return _ingest(args)
    if args.command == "reindex":
        return _reindex(args)
    source, errors = open_source(args)
    report(errors)
    if source is None:
        return 2
    try:
        status = args.run(args, source)
    except SourceError as error:
        report([str(error)])
        return 2
    return status or (1 if errors else 0)


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="trace-explorer", description="Explore TrustGraph provenance traces.")
    commands = parser.add_subparsers(dest="command", required=True)

    listing = commands.add_parser("list", help="list sessions, newest first")
    add_source_arguments(listing)
    listing.add_argument("--limit", type=int, default=50, metavar="N", help="sessions per page (0: all; default 50)")
    listing.add_argument("--offset", type=int, default=0, metavar="M", help="skip the first M sessions")
    listing.add_argument("--type", choices=sorted(TYPE_CHOICES), help="only sessions of this mechanism")
    listing.add_argument("--all", action="store_true", help="include sub-sessions")
    listing.add_argument("--format", choices=("table", "json", "csv"), default="table")
    listing.set_defaults(run=_list)

    show = commands.add_parser("show", help="show one whole session")
    add_source_arguments(show)
    show.add_argument("--session", required=True, metavar="IRI", help="the session's IRI (or a unique part of it, such as its UUID)")
    show.add_argument("--format", choices=("text", "json"), default="text")
    show.set_defaults(run=_show)

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
    export.set_defaults(run=_export)

    ingest = commands.add_parser("ingest", help="add trace and content files to a local store",
                                 description="Add files to the local store in DIR, each all or nothing; "
                                             "a file given twice adds nothing new.")
    ingest.add_argument("paths", nargs="+", metavar="FILE", help="trace files, content files or folders")
    ingest.add_argument("--store", required=True, metavar="DIR", help="the local store (created when missing)")
    ingest.add_argument("--quiet", action="store_true", help="no progress bar")

    rebuild = commands.add_parser("reindex", help="rebuild a local store's session index",
                                  description="Read every session of the local store in DIR again and "
                                              "rewrite its session index (the rows the session list shows).")
    rebuild.add_argument("--store", required=True, metavar="DIR", help="the local store")
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


def find_session_ids(source: TraceSource, key: str) -> list[str]:
    """The IRIs of the sessions ``key`` may name: itself when it is a session root, else the
    roots whose IRI contains ``key`` (its UUID, or the UUID's first characters); at most six.
    ``<IRI>`` is taken as the IRI."""
    key = key.strip()
    if key.startswith("<") and key.endswith(">"):
        key = key[1:-1]
    rows = source.select(PREFIXES + f"""SELECT DISTINCT ?root WHERE {{
  {{ ?root a tg:Question }} UNION {{ ?root tg:query ?q }}
  FILTER(STR(?root) = {literal(key)} || CONTAINS(STR(?root), {literal(key)})) }} ORDER BY ?root LIMIT 6""")
    roots = [r["root"].value for r in rows if "root" in r]
    return [key] if key in roots else roots


def _session_family(source: TraceSource, key: str) -> tuple[Session | None, dict[str, Session]]:
    """The session ``key`` names and every session below it, by IRI."""
    found = find_session_ids(source, key)
    if len(found) != 1:
        if found:
            more = ", …" if len(found) > 5 else ""
            print(f"trace-explorer: {key!r} matches several sessions: {', '.join(found[:5])}{more}; "
                  f"give more of the IRI", file=sys.stderr)
        else:
            print(f"trace-explorer: no session {key!r} in {source.label}", file=sys.stderr)
        return None, {}
    session_id = found[0]
    family = fetch_sessions(source, [session_id])
    wanted = list(family[session_id].children) if session_id in family else []
    while wanted:
        found_children = fetch_sessions(source, [w for w in wanted if w not in family])
        family.update(found_children)
        wanted = [c for s in found_children.values() for c in s.children if c not in family]
    return family.get(session_id), family


def _list(args, source: TraceSource) -> int:
    filters = SessionFilter(mechanism=TYPE_CHOICES.get(args.type), include_sub=args.all)
    page = list_sessions(source, filters, limit=max(args.limit, 0), offset=max(args.offset, 0))
    rows = page.rows
    if args.format == "csv":
        print(sessions_csv(rows), end="")
        return 0
    if args.format == "json":
        keys = ("id", "type", "pattern", "question", "time", "parent", "has_answer", "actions", "tool_errors")
        print(json.dumps([{k: r[k] for k in keys} for r in rows], ensure_ascii=False, indent=2))
        return 0
    table = [(r["id"], r["type"], r["pattern"] or "", _clip(r["question"] or "", 60), r["time"] or "",
              str(r["step_count"]), r["status"]) for r in rows]
    print(visible_controls(format_table(TABLE_COLUMNS, table)))
    shown = f"{page.offset + 1}-{page.offset + len(rows)} of {page.total}" if rows else f"none of {page.total}"
    more = " (--offset or --limit 0 for more)" if page.offset + len(rows) < page.total else ""
    print(f"\nsessions {shown}{more}")
    return 0


def _show(args, source: TraceSource) -> int:
    session, _ = _session_family(source, args.session)
    if session is None:
        return 2
    if args.format == "json":
        print(json.dumps(session_detail(session), ensure_ascii=False, indent=2))
    else:
        print(visible_controls(session_text(session)), end="")
    return 0


def _reindex(args) -> int:
    if not os.path.isdir(args.store):
        report([f"no store at {args.store}"])
        return 2
    try:
        count = reindex(open_local_store(args.store))
    except SourceError as error:
        report([str(error)])
        return 2
    print(f"{args.store}: {count:,} sessions indexed", file=sys.stderr)
    return 0


def _ingest(args) -> int:
    """Add each file to the store, all or nothing, with a progress bar by bytes read."""
    from tqdm import tqdm

    try:
        store = open_local_store(args.store)
    except SourceError as error:
        report([str(error)])
        return 2
    files = expand_paths(args.paths)
    failed = 0
    total = sum(p.stat().st_size for p in files if p.is_file())
    with tqdm(total=total, unit="B", unit_scale=True, desc="ingest", disable=args.quiet, file=sys.stderr) as bar:
        for path in files:
            bar.set_postfix_str(path.name, refresh=False)
            try:
                done = ingest_file(store, str(path), progress=lambda n: bar.update(n) if not str(path).endswith(".gz") else None)
            except TraceLoadError as error:
                bar.write(f"trace-explorer: {visible_controls(str(error))}", file=sys.stderr)  # on a line of its own
                failed += 1
                continue
            if str(path).endswith(".gz") and path.is_file():
                bar.update(path.stat().st_size)
            if done.skipped:
                bar.write(f"{path}: already in the store, nothing added", file=sys.stderr)
            else:
                bar.write(f"{path}: {done.quads:,} quads, {done.documents:,} texts ({done.format})", file=sys.stderr)
    return 1 if failed else 0


def _export(args, source: TraceSource) -> int:
    session, by_id = _session_family(source, args.session)
    if session is None:
        return 2
    # the triples are exported from a local copy; an endpoint has none (the rest still works)
    args.collection = TraceStore(store=source.store, documents=dict(source.documents)) \
        if isinstance(source, StoreSource) else None
    if not (args.image or args.timeline or args.html or args.data or args.markdown):
        print("trace-explorer: nothing to export: give --image, --timeline, --html, --data or --markdown",
              file=sys.stderr)
        return 2
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
    if collection is None:
        raise ValueError("the triples are exported from a local copy (trace files or --store); a SPARQL "
                         "endpoint has none (--image, --timeline, --html and --markdown still work)")
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
