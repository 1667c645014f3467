"""The ``trace-explorer`` command: list and show the sessions in trace files.

``PATH...`` is any mix of trace files (Turtle, TriG, N-Quads, N-Triples, JSON-LD, RDF/XML,
TrustGraph wire JSON, ``.gz`` too), ``*.documents.json`` content files and folders of them.
A file that fails to load is reported on stderr and skipped; the rest are still read, and the
exit status is then 1. Exit status 2: bad usage, nothing could be loaded, or no such session.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence

from .model import AGENT, DOCRAG, GRAPHRAG, Session
from .session_report import session_detail, session_summary, session_text
from .sessions import read_sessions
from .store import load_collection

TYPE_CHOICES = {"agent": AGENT, "graphrag": GRAPHRAG, "docrag": DOCRAG}
TABLE_COLUMNS = ("Session ID", "Type", "Pattern", "Question", "Time", "Steps", "Status")


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit status (see the module docstring)."""
    args = _parser().parse_args(argv)
    collection, errors = load_collection(args.paths)
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
    listing.add_argument("--format", choices=("table", "json"), default="table")
    listing.set_defaults(run=_list)

    show = commands.add_parser("show", help="show one whole session")
    show.add_argument("paths", nargs="+", metavar="PATH", help="trace files, content files or folders")
    show.add_argument("--session", required=True, metavar="IRI", help="the session's IRI (or a unique ending of it)")
    show.add_argument("--format", choices=("text", "json"), default="text")
    show.set_defaults(run=_show)
    return parser


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
