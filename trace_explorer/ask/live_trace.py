"""A run's trace as it builds: the quads of every ``explain`` event so far and the words that were
streamed, read as a session by the same reader as any store's (``model.reader.SessionReader``).

The streamed words stand in for the librarian's texts until the run ends: TrustGraph keys a
thought's, an observation's and an agent answer's chunks by the entity they belong to
(``message_id``: the Thought's and Observation's own IRI, which is their ``tg:document``; the
Conclusion's IRI, whose ``tg:document`` is ``…/answer``); a RAG service's answer chunks carry no
id and belong to its Synthesis.
"""

from __future__ import annotations

from collections.abc import Iterable

import pyoxigraph as ox

from ..model.reader import SessionReader
from ..model.session import Session
from ..model.triple_index import TripleIndex
from ..model.vocabulary import TG
from .events import ANSWER, CANCELLED, DONE, ENDINGS, FAILED, STEP, AskEvent

DOCUMENT = TG + "document"


class LiveTrace:
    """The trace of one run. ``steps``: the IRIs explain events named, in arrival order;
    ``ending``: the DONE, FAILED or CANCELLED event once the run ended (else None);
    ``answer``: the answer's words streamed so far; ``thinking``: the words of the thought or
    observation streamed last (what the agent is on now)."""

    def __init__(self) -> None:
        self.quads: list[ox.Quad] = []
        self.steps: list[str] = []
        self.texts: dict[str, str] = {}  # message id (an entity's IRI) -> streamed words
        self.answer = ""
        self.thinking = ""
        self._thinking_of: str | None = None
        self.ending: AskEvent | None = None
        self._session: Session | None = None

    def add(self, event: AskEvent) -> None:
        """Take one event of the run (any kind)."""
        self._session = None
        if event.kind == STEP:
            self.quads.extend(event.quads)
            if event.step and event.step not in self.steps:
                self.steps.append(event.step)
        elif event.kind in ENDINGS:
            self.ending = event
        elif event.text:
            if event.step:
                self.texts[event.step] = self.texts.get(event.step, "") + event.text
            if event.kind == ANSWER:
                self.answer += event.text
            else:
                same = event.step is not None and event.step == self._thinking_of
                self.thinking = self.thinking + event.text if same else event.text
                self._thinking_of = event.step

    def extend(self, events: Iterable[AskEvent]) -> None:
        for event in events:
            self.add(event)

    @property
    def status(self) -> str:
        """"running", or the ending's kind ("done", "failed", "cancelled")."""
        return self.ending.kind if self.ending is not None else "running"

    @property
    def failed(self) -> bool:
        return self.status in (FAILED, CANCELLED)

    @property
    def done(self) -> bool:
        return self.status == DONE

    def documents(self, index: TripleIndex) -> dict[str, str]:
        """The streamed words by ``tg:document`` IRI (see the module docstring)."""
        documents = dict(self.texts)
        for iri, text in self.texts.items():
            for document in index.properties.get(iri, {}).get(DOCUMENT, ()):
                documents[document.value] = text
        if self.answer:
            answering = [s for s in self.steps if s.rsplit("/", 1)[-1] == "synthesis" or ":synthesis:" in s]
            for step in answering[-1:]:
                for document in index.properties.get(step, {}).get(DOCUMENT, ()):
                    documents.setdefault(document.value, self.answer)
        return documents

    @property
    def step_count(self) -> int:
        """How many steps of the session came, as the workspace lists them: its Question (the
        first explain event, the session's root) is not one."""
        session = self.session()
        return len(session.steps) if session is not None else 0

    def session(self) -> Session | None:
        """The session read from what came so far (the first Question's), or None before a
        Question came."""
        if self._session is None:
            index = TripleIndex(self.quads)
            reader = SessionReader(index, self.documents(index))
            roots = [s for s in self.steps if s in reader.roots] or reader.roots
            self._session = reader.read(roots[0]) if roots else None
        return self._session


__all__ = ["LiveTrace"]
