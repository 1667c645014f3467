"""One person's question to a TrustGraph deployment, running in a thread of the server while
their page shows it (``app_pages/ask.py``): the events of ``trace_explorer.ask.client.ask`` go
into a ``LiveTrace``, which the page reads as it pleases (``view``), under a lock."""

from __future__ import annotations

import threading
from dataclasses import dataclass

from trace_explorer.ask.client import AskError, Question, ask
from trace_explorer.ask.events import FAILED, AskEvent
from trace_explorer.ask.live_trace import LiveTrace
from trace_explorer.model.session import Session
from trace_explorer.network.endpoint_policy import EndpointPolicy


@dataclass(frozen=True)
class RunView:
    """What a run shows now: ``status`` ("running", "done", "failed", "cancelled"), the session
    built so far (None before its Question came), ``steps`` (explain events so far),
    ``thinking`` and ``answer`` (streamed words), ``reason`` (why it failed)."""

    status: str
    session: Session | None
    steps: int
    thinking: str
    answer: str
    reason: str | None


class AskRun:
    """``question`` asked in a daemon thread from construction on, its gateway checked by
    ``policy`` first (``ask``'s; a refused gateway ends the run failed, its reason said);
    ``stop()`` cancels it. ``stored``: once the run ended, the session as the deployment holds
    it (False when it could not be read back; None until then)."""

    def __init__(self, question: Question, policy: EndpointPolicy | None = None):
        self.question = question
        self.policy = policy
        self.stored: Session | bool | None = None
        self._trace = LiveTrace()
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True, name="trustgraph-ask-run")
        self._thread.start()

    def _run(self) -> None:
        try:
            for event in ask(self.question, self._stop, self.policy):
                with self._lock:
                    self._trace.add(event)
        except AskError as error:
            with self._lock:
                self._trace.add(AskEvent(FAILED, text=str(error)))

    def stop(self) -> None:
        self._stop.set()

    def view(self) -> RunView:
        with self._lock:
            trace = self._trace
            return RunView(trace.status, trace.session(), trace.step_count, trace.thinking, trace.answer,
                           trace.ending.text if trace.ending is not None else None)
