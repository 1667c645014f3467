"""What following a source reports: one ``LiveEvent`` per new session, new step and answer, in
the order the poller saw them (``seq``), as ``trace-explorer follow`` prints them."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any

SESSION, STEP, ANSWER = "session", "step", "answer"
EVENTS = (SESSION, STEP, ANSWER)


@dataclass(frozen=True)
class LiveEvent:
    """One thing that landed in a followed source.

    ``event``: ``"session"`` (a new session root), ``"step"`` (a new step of a session) or
    ``"answer"`` (a session's Conclusion or Synthesis, with its words); ``session``: the session
    root IRI; ``step``: the step IRI (None for a session event); ``kind``: the TrustGraph class
    name (``AgentQuestion``, ``Analysis``, ``Conclusion`` ...; None when unknown); ``text``: the
    question (session), the step's words (step) or the answer (answer), None when the source has
    none; ``at``: when the poller saw it (UTC); ``seq``: its place in the poller's log, from 1
    (a follower keeps the last ``seq`` it read and asks for those after it); ``parent``: for a
    session event, the step of another session it derives from (a sub-session), else None;
    ``started``: for a session event, its ``prov:startedAtTime`` as written (None when it has
    none)."""

    event: str
    session: str
    step: str | None
    kind: str | None
    text: str | None
    at: datetime
    seq: int = 0
    parent: str | None = None
    started: str | None = None

    def record(self) -> dict[str, Any]:
        """The JSON line of ``trace-explorer follow --format jsonl`` (issue 41): ``event``,
        ``session``, ``step``, ``kind``, ``text`` and ``at`` (ISO-8601, UTC)."""
        return {"event": self.event, "session": self.session, "step": self.step, "kind": self.kind,
                "text": self.text, "at": self.at.astimezone(timezone.utc).isoformat().replace("+00:00", "Z")}


def now() -> datetime:
    """The current time in UTC (when an event is seen)."""
    return datetime.now(timezone.utc)
