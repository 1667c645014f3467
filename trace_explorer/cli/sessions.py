"""``trace-explorer list`` and ``show``: the session list, a page at a time, and one whole
session; and how ``--session`` finds the session it names."""

from __future__ import annotations

import argparse
import functools
import json
import sys
from collections.abc import Callable, Sequence
from typing import Any

from wcwidth import wcswidth

from ..export.table import session_rows, sessions_csv
from ..model.session import Session
from ..model.totals import TOTAL_PREFIX
from ..read.diagnosis import clip
from ..index.catalog import find_session_ids, list_sessions, unreached_sessions
from ..index.family import fetch_family
from ..index.words import snippet_parts
from ..sources.source import TraceSource
from ..views.report import session_detail, session_text
from ..views.visible_text import visible_controls
from .list_filters import add_filter_arguments, add_sort_argument, check_health, filters_of
from .sources import add_source_arguments
TABLE_COLUMNS = ("Session ID", "Type", "Pattern", "Question", "Time", "Steps", "Status", "Tokens")


_MOST = 2 ** 63 - 1  # the largest whole number SQLite's LIMIT and OFFSET take


def _count(text: str) -> int:
    """``--limit`` and ``--offset``: a whole number from 0 to ``_MOST`` (a negative one was taken
    as 0, or as "all" for ``--limit``, without a word; a larger one failed inside SQLite).
    Raises argparse.ArgumentTypeError."""
    try:
        value = int(text)
    except ValueError:
        value = -1
    if not 0 <= value <= _MOST:
        raise argparse.ArgumentTypeError(f"expected a whole number from 0 to {_MOST:,}, got {text[:40]!r}")
    return value


def add_parser(commands) -> None:
    """Add ``list`` and ``show`` to the subcommands ``commands``."""
    listing = commands.add_parser("list", help="list sessions, newest first",
                                  description="List sessions a page at a time, filtered and sorted as the app's "
                                              "session list (top-level sessions unless --all).")
    add_source_arguments(listing)
    listing.add_argument("--limit", type=_count, default=50, metavar="N", help="sessions per page (0: all; default 50)")
    listing.add_argument("--offset", type=_count, default=0, metavar="M", help="skip the first M sessions")
    listing.add_argument("--all", action="store_true", help="include sub-sessions")
    add_sort_argument(listing)
    add_filter_arguments(listing)
    listing.add_argument("--format", choices=("table", "json", "csv"), default="table")
    listing.set_defaults(run=_list)

    add_session_report(commands, "show", "show one whole session", read=lambda source, session, family: (session, family),
                       record=lambda found: session_detail(*found),
                       text=lambda found: visible_controls(session_text(found[0], sessions=found[1])))


def add_session_report(commands, name: str, help: str, *, read: Callable[[TraceSource, Session, dict[str, Session]], Any],
                       record: Callable[[Any], Any], text: Callable[[Any], str],
                       description: str | None = None) -> argparse.ArgumentParser:
    """Add the subcommand ``name``, a report on the one session ``--session`` names (its IRI or a
    unique part of it), from any source, printed as text or (``--format json``) JSON:
    ``read(source, session, family)`` makes the report (``family``: the session and every
    session below it, by IRI), ``record(report)`` its JSON value, ``text(report)`` its text. The
    command exits with 2 when ``--session`` names no session or several (``session_family``).
    Returns the subcommand's parser (a command adds its own options there)."""
    parser = commands.add_parser(name, help=help, description=description)
    add_source_arguments(parser)
    parser.add_argument("--session", required=True, metavar="IRI",
                        help="the session's IRI (or a unique part of it, such as its UUID)")
    parser.add_argument("--format", choices=("text", "json"), default="text")
    parser.set_defaults(run=functools.partial(session_report, read, record, text))
    return parser


def session_report(read, record, text, args, source: TraceSource) -> int:
    """Print the report ``read``, ``record`` and ``text`` make (``add_session_report``) on the
    session ``args.session`` names, as ``args.format`` says; 0, or 2 when no one session is
    named."""
    session, family = session_family(source, args.session)
    if session is None:
        return 2
    report = read(source, session, family)
    if args.format == "json":
        print(json.dumps(record(report), ensure_ascii=False, indent=2))
    else:
        print(text(report), end="")
    return 0


def not_one_session(key: str, found: list[str], label: str) -> str:
    """What to say when ``key`` (a session's IRI or a part of it) names no session of the source
    ``label``, or several (``found``: their IRIs, the first five named). The key is quoted and
    cut to 200 characters: it may be anything a person pasted."""
    if not found:
        return f"no session {clip(key, 200)!r} in {label}"
    more = ", …" if len(found) > 5 else ""
    return f"{clip(key, 200)!r} matches several sessions: {', '.join(found[:5])}{more}; give more of the IRI"


def session_family(source: TraceSource, key: str) -> tuple[Session | None, dict[str, Session]]:
    """The session ``key`` names and every session below it, by IRI."""
    found = find_session_ids(source, key)
    if len(found) != 1:
        print(f"trace-explorer: {not_one_session(key, found, source.label)}", file=sys.stderr)
        return None, {}
    family = fetch_family(source, found[0])
    return family.get(found[0]), family


def _list(args, source: TraceSource) -> int:
    check_health(args, source)
    filters = filters_of(args)
    page = list_sessions(source, filters, limit=max(args.limit, 0), offset=max(args.offset, 0), order=args.sort)
    rows = page.rows
    if args.format == "csv":
        print(sessions_csv(rows), end="")
        return 0
    if args.format == "json":  # the columns of the app's JSON download, and of the table (step_count, status)
        print(json.dumps([row | _json_match(r.get("match")) for row, r in zip(session_rows(rows), rows)],
                         ensure_ascii=False, indent=2))
        return 0
    unreached = 0 if args.all else unreached_sessions(source)
    if not rows:
        print(f"No session at --offset {page.offset:,}: {page.total:,} match." if page.total
              else "No session matches these filters." if not filters.unfiltered
              else "No top-level session in this source." if unreached
              else "No session in this source.")
        _unreached_note(unreached)
        return 0
    searched = bool(filters.needle)
    table = [(r["id"], r["type"], r["pattern"] or "", clip(r["question"] or "", 60), r["time"] or "",
              str(r["step_count"]), r["status"], _tokens(r)) + ((r["parent"] or "",) if args.all else ())
             + ((_text_match(r.get("match")),) if searched else ()) for r in rows]
    # with --all, sub-sessions are listed too: the parent session tells them from top-level ones
    header = TABLE_COLUMNS + (("Parent",) if args.all else ()) + (("Found in",) if searched else ())
    print(visible_controls(format_table(header, table)))
    shown = f"{page.offset + 1}-{page.offset + len(rows)} of {page.total}"
    more = " (--offset or --limit 0 for more)" if page.offset + len(rows) < page.total else ""
    print(f"\nsessions {shown}{more}")
    _unreached_note(unreached)
    return 0


def _unreached_note(unreached: int) -> None:
    """Say, under the top-level sessions, how many sub-sessions they leave out because no
    top-level session of the source reaches them (``catalog.unreached_sessions``)."""
    if unreached:
        print(f"{unreached:,} sub-session{'s' if unreached != 1 else ''} below a session not in this source "
              f"{'are' if unreached != 1 else 'is'} not listed: --all lists {'them' if unreached != 1 else 'it'}")


def _tokens(row: dict) -> str:
    """The tokens of a list row with its sub-sessions ("13,333"; "" when none are recorded), the
    session's own in brackets when they differ ("13,333 (780 own)"; "— own" when its own steps
    record none, as the app writes it)."""
    own, total = row.get("tokens"), row.get(TOTAL_PREFIX + "tokens")
    if total is None:
        return ""
    return f"{total:,}" + ("" if total == own else " (— own)" if own is None else f" ({own:,} own)")


def _text_match(found: dict | None) -> str:
    """Where the search found its words, for a terminal: ``answer: Mount [Elbrus] (5,642 m)…``
    (the words found between brackets, the text on one line, at most 80 columns of it)."""
    if not found:
        return ""
    text = "".join(f"[{t}]" if hit else t for t, hit in snippet_parts(" ".join(found["snippet"].split())))
    return f"{found['field']}: {clip(text, 80)}"


def _json_match(found: dict | None) -> dict:
    """A JSON row's ``match``: ``{"field", "snippet" (the text), "found" (the words found)}``."""
    if not found:
        return {}
    parts = snippet_parts(found["snippet"])
    return {"match": {"field": found["field"], "snippet": "".join(t for t, _ in parts),
                      "found": list(dict.fromkeys(t for t, hit in parts if hit))}}


def format_table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    """A plain text table: columns padded to their widest cell, a rule under the header. Widths
    are terminal columns (``wcwidth``): a CJK character takes two, a combining mark none, so the
    columns stay in line whatever the script."""
    widths = [max([_width(h)] + [_width(r[i]) for r in rows]) for i, h in enumerate(header)]
    lines = ["  ".join(_pad(h, w) for h, w in zip(header, widths)).rstrip(),
             "  ".join("-" * w for w in widths)]
    lines += ["  ".join(_pad(c, w) for c, w in zip(r, widths)).rstrip() for r in rows]
    return "\n".join(lines)


def _width(text: str) -> int:
    width = wcswidth(text)
    return width if width >= 0 else len(text)  # a control character: shown escaped later, counted as one


def _pad(text: str, width: int) -> str:
    return text + " " * max(0, width - _width(text))
