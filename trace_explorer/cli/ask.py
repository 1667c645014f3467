"""``trace-explorer ask``: send a question to a TrustGraph deployment through its gateway's
websocket with TrustGraph's own client, and print each step of its trace as the ``explain`` event
that wrote it arrives, then the answer (``ask.client``, ``ask.live_trace``).

Text lines: ``+SECONDS  KIND  TAG  WORDS`` a step, ``answer: …`` at the end, or ``failed: …`` /
``cancelled`` with how many steps came. ``--format jsonl``: one JSON object a line, as
``follow`` writes them (``live.events.LiveEvent.record``): ``{"event": "session" | "step" |
"answer" | "failed" | "cancelled",
"session": IRI, "step": IRI or null, "kind": TrustGraph class name or null, "text": the step's
words, the answer or the reason, or null, "at": ISO-8601 when it was seen}``.

Exit status: 0 when the run ended with its answer, 1 when it failed (what came was printed),
2 for bad usage, 130 on Ctrl-C (the run is stopped: the socket is closed).
"""

from __future__ import annotations

import json
import os
import threading
from datetime import UTC, datetime

from ..live.events import LiveEvent, now
from ..live.tracker import session_kind
from ..views.step_labels import clip, step_tag
from ..views.visible_text import visible_controls
from .sources import TOKEN_VARIABLE, add_trustgraph_arguments, report, seconds

WORD_FIELDS = ("thought", "observation", "answer", "result", "finding", "error")


def add_parser(commands) -> None:
    """Add ``ask`` to the subcommands ``commands``."""
    parser = commands.add_parser(
        "ask", help="ask a TrustGraph deployment a question and watch its trace build",
        description="Send QUESTION through the gateway's websocket (/api/v1/socket) with TrustGraph's own client and "
                    "print each step of the trace as it is written, then the answer. The token is read from "
                    f"{TOKEN_VARIABLE}.")
    add_trustgraph_arguments(parser, required=True)
    parser.add_argument("--mechanism", choices=("agent", "graph-rag", "document-rag"), default="agent",
                        help="which service answers (default: agent)")
    parser.add_argument("--timeout", type=seconds, default=300.0, metavar="S",
                        help="seconds the run may send nothing before it is given up (default 300)")
    parser.add_argument("--format", choices=("text", "jsonl"), default="text")
    parser.add_argument("question", help="the question")
    parser.set_defaults(act=_ask)


def _ask(args) -> int:
    from ..ask.client import AskError, Question, ask
    from ..ask.events import STEP
    from ..ask.live_trace import LiveTrace

    if not args.question.strip():
        report(["the question is empty: give the words to ask"])
        return 2
    question = Question(args.trustgraph, args.question, token=os.environ.get(TOKEN_VARIABLE), flow=args.flow,
                        collection=args.collection, workspace=args.workspace, mechanism=args.mechanism,
                        idle_s=args.timeout)
    stop, trace, printer = threading.Event(), LiveTrace(), _Printer(args.format)
    try:
        for event in ask(question, stop):
            trace.add(event)
            if event.kind == STEP:
                printer.step(trace, event)
    except AskError as error:
        report([str(error)])
        return 2
    except KeyboardInterrupt:
        stop.set()
        printer.ending(trace, "cancelled", "cancelled")
        return 130
    if trace.done:
        printer.answer(trace)
        return 0
    printer.ending(trace, trace.status, trace.ending.text if trace.ending else None)
    return 1


class _Printer:
    """Writes a run's lines as text or jsonl (see the module docstring)."""

    def __init__(self, form: str):
        self.form = form
        self.started = datetime.now(UTC)
        self.session: str | None = None

    def _line(self, event: str, step: str | None, kind: str | None, text: str | None, text_line: str) -> None:
        if self.form == "jsonl":
            line = LiveEvent(event, self.session, step, kind, text, now()).record()
            print(json.dumps(line, ensure_ascii=False), flush=True)
        else:
            print(text_line, flush=True)

    def step(self, trace, event) -> None:
        session = trace.session()
        if session is None:
            return
        if self.session is None:
            self.session = session.id
            root = session.nodes.get(session.id)
            self._line("session", None, session_kind(root.types) if root else None, session.question,
                       f"session {session.id}: {clip(session.question or '', 100)}")
        node = session.nodes.get(event.step)
        if node is None or event.step == session.id:
            return
        words = next((node.fields[f] for f in WORD_FIELDS if node.fields.get(f)), None)
        words = str(words) if words is not None else None
        seconds_in = (datetime.now(UTC) - self.started).total_seconds()
        tag = step_tag(node.id)
        self._line("step", node.id, node.kind, words,
                   f"+{seconds_in:.2f}s  {node.kind:<12} {tag:<4} {clip(words or '', 100)}".rstrip())

    def answer(self, trace) -> None:
        session = trace.session()
        answer = (session.answer if session is not None else None) or trace.answer
        step = session.answer_id if session is not None else None
        node = session.nodes.get(step) if session is not None and step else None
        self._line("answer", step, node.kind if node else None, answer, f"answer: {visible_controls(answer or '')}")

    def ending(self, trace, status: str, reason: str | None) -> None:
        came = trace.step_count
        text = f"{status}: {visible_controls(reason or status)} ({came} step{'s' if came != 1 else ''} came)"
        self._line(status, None, None, reason, text)
