"""``trace-explorer support``: which step backs each sentence of a session's answer, and which
sentences nothing in the trace backs (``analysis.support.support``; the JSON contract is in
its docstring). With ``--judge``, the judge the operator configured
(``analysis.support.judge_config``) is asked about the sentences the matcher cannot decide, and
its prompt and verdict are shown after the matcher's (JSON: an extra key ``judge``,
``judge_run.judgement_record``)."""

from __future__ import annotations

import functools
import sys

from ..analysis.support.evidence import unread_chunks
from ..sources.source import TraceSource
from ..views.visible_text import visible_controls
from .sessions import add_session_report, session_report


def add_parser(commands) -> None:
    """Add ``support`` to the subcommands ``commands``."""
    parser = add_session_report(
        commands, "support", "which step backs each sentence of a session's answer",
        description="Cut a session's answer into sentences and, for each, list the Observations, DocRAG chunks, "
                    "GraphRAG selected edges, Findings and plan step results whose words back it, with a score "
                    "(0-1) and the matching spans of their text; or say that nothing in the trace supports it.",
        read=_read, record=_record, text=_text)
    parser.add_argument("--judge", action="store_true",
                        help="also ask the judge configured by TRACE_EXPLORER_JUDGE* or .streamlit/secrets.toml's "
                             "[judge] about the sentences the matcher cannot decide")
    parser.set_defaults(run=_run)


def _run(args, source: TraceSource) -> int:
    if not args.judge:
        return session_report(_read, _record, _text, args, source)
    from ..analysis.support.judge_client import JudgeError
    from ..analysis.support.judge_config import JudgeConfigError
    from ..analysis.support.judge_run import configured_judge

    try:
        judge = configured_judge()
    except (JudgeConfigError, JudgeError) as error:
        print(f"trace-explorer: {error}", file=sys.stderr)
        return 2
    if judge is None:
        print("trace-explorer: --judge: no judge is configured (set TRACE_EXPLORER_JUDGE and "
              "TRACE_EXPLORER_JUDGE_URL, or a [judge] table in .streamlit/secrets.toml)", file=sys.stderr)
        return 2
    return session_report(functools.partial(_read_judged, judge), _record_judged, _text_judged, args, source)


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


def _read_judged(judge, source: TraceSource, session, family):
    support = _read(source, session, family)
    return support, judge.judge(support)


def _record_judged(report) -> dict:
    from ..analysis.support.judge_run import judgement_record

    support, judgement = report
    return _record(support) | {"judge": judgement_record(judgement, support)}


def _text_judged(report) -> str:
    from ..analysis.support.judge_run import judgement_text

    support, judgement = report
    return _text(support) + visible_controls(judgement_text(judgement, support))


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
