"""The session list's filters and sort as command-line options, with the meaning they have in the
app's list (``sources.filter``): ``list`` and ``stats`` choose their sessions with them."""

from __future__ import annotations

import argparse
import sys

from ..analysis.health.rules import RULES
from ..model.session import AGENT, DOCRAG, GRAPHRAG, PATTERNS
from ..sources.filter import SORT_KEYS, SessionFilter, SessionOrder
from ..index.insights import HEALTH_CHOICES
from ..sources.source import TraceSource
from ..sources.store_source import StoreSource

TYPE_CHOICES = {"agent": AGENT, "graphrag": GRAPHRAG, "docrag": DOCRAG}
STATUS_CHOICES = ("answered", "unfinished")


def add_filter_arguments(parser: argparse.ArgumentParser) -> None:
    """Add the list's filters to ``parser``, in a group of their own: ``--type``, ``--pattern``,
    ``--status``, ``--search``, ``--tool``, ``--failed-tool``, ``--model``, ``--termination``,
    ``--health``."""
    chosen = parser.add_argument_group("filters (as the app's session list)")
    chosen.add_argument("--type", type=str.lower, choices=sorted(TYPE_CHOICES), help="only sessions of this mechanism")
    chosen.add_argument("--pattern", type=str.lower, choices=PATTERNS, help="only agents of this pattern")
    chosen.add_argument("--status", type=str.lower, choices=STATUS_CHOICES)
    chosen.add_argument("--search", metavar="TEXT",
                        help="words found anywhere in a session (question, answer, thoughts, tools and arguments, "
                             "observations, errors, findings, step results, IRI), in any order, ignoring case "
                             "and accents; answer:WORD, tool:WORD, error:WORD, question:WORD search one field")
    chosen.add_argument("--tool", help="only sessions that called this tool")
    chosen.add_argument("--failed-tool", metavar="TOOL", help="only sessions where a call of this tool failed")
    chosen.add_argument("--model", help="only sessions that called this LLM")
    chosen.add_argument("--termination", metavar="REASON", help='only sessions that stopped for this reason ("none": no reason)')
    chosen.add_argument("--health", metavar="WHICH", type=_health,
                        help=f"{', '.join(HEALTH_CHOICES)} or a rule id (a store or files only)")


def add_sort_argument(parser: argparse.ArgumentParser) -> None:
    """Add ``--sort COLUMN[:desc]`` (a ``filter.SORT_KEYS`` key, ascending unless ``:desc``)."""
    parser.add_argument("--sort", metavar="COLUMN[:desc]", type=sort_order, default=SessionOrder(),
                        help=f"sort on {', '.join(SORT_KEYS)}; ascending, or descending with :desc "
                             "(default time:desc, newest first)")


def sort_order(text: str) -> SessionOrder:
    """``"steps:desc"`` -> ``SessionOrder("steps", True)``; ``"question"`` (or ``":asc"``)
    ascending. Raises argparse.ArgumentTypeError for an unknown column or direction."""
    key, _, direction = text.strip().lower().partition(":")
    if key not in SORT_KEYS:
        raise argparse.ArgumentTypeError(f"unknown column {key!r}: one of {', '.join(SORT_KEYS)}")
    if direction not in ("", "asc", "desc"):
        raise argparse.ArgumentTypeError(f"unknown direction {direction!r}: asc or desc")
    return SessionOrder(key, direction == "desc")


def _health(text: str) -> str:
    value = text.strip()
    if value.lower() in HEALTH_CHOICES:
        return value.lower()
    if value in RULES:
        return value
    raise argparse.ArgumentTypeError(f"unknown health {value!r}: one of {', '.join(HEALTH_CHOICES)} or a rule id "
                                     f"({', '.join(sorted(RULES))})")


def filters_of(args: argparse.Namespace) -> SessionFilter:
    """The SessionFilter the arguments name (``--all``: sub-sessions too). A ``--search`` with no
    word to look for (``!!!``) searches nothing, as in the app, and says so in a line on stderr; a
    search cut to its first characters and words (``search.capped_note``) says so there too."""
    filters = SessionFilter(mechanism=TYPE_CHOICES.get(args.type), pattern=args.pattern, status=args.status,
                            text=args.search, include_sub=args.all, tool=args.tool, failed_tool=args.failed_tool,
                            model=args.model, termination=args.termination, health=args.health)
    for note in (filters.wordless_note, filters.capped_note):
        if note:
            print(f"trace-explorer: {note}", file=sys.stderr)
    return filters


def check_health(args: argparse.Namespace, source: TraceSource) -> None:
    """Under ``--health``, check the sessions of files read into memory now (a store's health rows
    are kept by ingest), as the app does when it loads them."""
    if args.health and isinstance(source, StoreSource):
        from ..analysis.health.index import refresh_health  # the checks load only for a health filter

        refresh_health(source)
