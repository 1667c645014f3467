"""``trace-explorer diff``: two sessions compared, what changed between two answers to a
question (``analysis.compare.compare``), as text, JSON (the contract: ``comparison_record``) or
Markdown, and as a self-contained HTML page or a Markdown file."""

from __future__ import annotations

import argparse
import json
import sys

from ..sources.source import TraceSource
from ..views.visible_text import visible_controls
from .export import _suffix_checker, _write
from .sessions import session_family
from .sources import add_source_arguments


class _Intermixed(argparse.ArgumentParser):
    """A parser whose options may stand between its positional arguments (``PATH... --store DIR
    A B``, ``PATH... --format json A B``): argparse otherwise gives a positional run to PATH...
    and leaves A and B unmatched after an option."""

    _inside = False

    def parse_known_args(self, args=None, namespace=None):
        if self._inside:  # parse_known_intermixed_args calls back here
            return super().parse_known_args(args, namespace)
        self._inside = True
        try:
            return self.parse_known_intermixed_args(args, namespace)
        finally:
            self._inside = False


def add_parser(commands) -> None:
    """Add ``diff`` to the subcommands ``commands``."""
    diff = commands.add_parser(
        "diff", help="compare two sessions: what changed between two answers",
        description="Compare session A with session B: their steps aligned side by side (same, changed, "
                    "only in A, only in B) with the fields that changed, the chosen edges and chunks, "
                    "the answers and the totals. A and B may come from different files loaded together.")
    add_source_arguments(diff)
    diff.add_argument("a", metavar="A", help="session A: its IRI or a unique part of it (such as its UUID)")
    diff.add_argument("b", metavar="B", help="session B: its IRI or a unique part of it")
    diff.add_argument("--format", choices=("text", "json", "markdown"), default=None,
                      help="what to print (default text; nothing when only --html/--markdown is given)")
    diff.add_argument("--html", action="append", default=[], metavar="FILE",
                      type=_suffix_checker({".html": "", ".htm": ""}, "page"),
                      help="write the comparison as a self-contained page: .html")
    diff.add_argument("--markdown", action="append", default=[], metavar="FILE",
                      type=_suffix_checker({".md": "", ".markdown": ""}, "Markdown"),
                      help="write the comparison as Markdown: .md")
    diff.set_defaults(run=_diff)
    diff.__class__ = _Intermixed


def _diff(args, source: TraceSource) -> int:
    # the comparison and its outputs (DeepDiff, pandas) load when a diff runs, not with every command
    from ..analysis.compare.compare import compare_sessions, comparison_record
    from ..export.comparison_markdown import comparison_markdown
    from ..export.comparison_page import comparison_page
    from ..export.comparison_text import comparison_text

    session_a, family_a = session_family(source, args.a)
    if session_a is None:
        return 2
    session_b, family_b = session_family(source, args.b)
    if session_b is None:
        return 2
    comparison = compare_sessions(session_a, session_b, {**family_a, **family_b})
    failed = 0
    for path in args.html:
        failed += _save(path, lambda: comparison_page(comparison), "comparison page")
    for path in args.markdown:
        failed += _save(path, lambda: comparison_markdown(comparison), "comparison, Markdown")
    shown = args.format or ("text" if not (args.html or args.markdown) else None)
    if shown == "json":
        print(json.dumps(comparison_record(comparison), ensure_ascii=False, indent=2))
    elif shown == "markdown":
        print(comparison_markdown(comparison), end="")
    elif shown == "text":
        print(visible_controls(comparison_text(comparison)), end="")
    return 2 if failed else 0


def _save(path: str, build, what: str) -> int:
    """Write what ``build()`` returns to ``path``; 1 when it could not be written."""
    try:
        _write(path, build().encode("utf-8"), what)
    except OSError as error:
        print(f"trace-explorer: {path}: {error}", file=sys.stderr)
        return 1
    return 0
