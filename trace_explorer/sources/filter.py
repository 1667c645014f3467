"""What the session list shows and in what order: the filters and the sort of the list page and
of ``trace-explorer list``."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from .search import capped_note, search_terms

# The keys the list sorts on, with their default direction (True: descending, as a header's
# first click sorts). "time": the Question's prov:startedAtTime; "duration": LLM + tool time in
# ms and "tokens": tokens in + out, both with the session's sub-sessions (docs/reading-traces.md, "Totals");
# "parent": the parent session's IRI.
SORT_KEYS = {"time": True, "id": False, "type": False, "pattern": False, "question": False,
             "steps": True, "status": False, "duration": True, "tokens": True, "tool_errors": True,
             "parent": False}


@dataclass(frozen=True)
class ReviewFilter:
    """Which sessions the list keeps by their reviews: ``rows`` is the review store's SQLite file
    of rows (``ReviewStore.filter_rows_path``); ``label`` keeps the sessions with a review of
    that label, ``author`` those with a review by that reviewer (both: one review with both);
    ``not_reviewed`` keeps the sessions without any review instead (label and author then say
    which reviews count: "not reviewed by me"); ``reviewed`` keeps those with any review (of
    the label and author, if given)."""

    rows: Path
    label: str | None = None
    author: str | None = None
    not_reviewed: bool = False
    reviewed: bool = False

    @property
    def active(self) -> bool:
        """Whether this filter leaves any session out."""
        return bool(self.label or self.author or self.not_reviewed or self.reviewed)


@dataclass
class SessionFilter:
    """What the session list shows. ``mechanism``: one of "Agent", "GraphRAG", "DocRAG", or a
    tuple of them (any of); ``pattern``: "react", "plan-then-execute", "supervisor", or a tuple;
    ``status``: "answered" | "unfinished"; ``text``: words, each found in the session's texts
    (``model.words``), in any order, ignoring case and accents, a word with a field name before
    it (``answer:elbrus``) only in that field (``search.search_terms``);
    ``include_sub``: sub-sessions too; ``tool``: sessions that called this tool; ``failed_tool``:
    sessions where a call of this tool failed (``tg:toolError``); ``model``: that
    called this LLM; ``termination``: that stopped for this reason ("none": that record none);
    tool, model and termination names match whatever their case (``--model gpt-4o`` finds
    "GPT-4o", as the search's ``tool:`` finds a tool); ``health``: "errors", "warnings",
    "infos" (the worst severity found), "clean", "unchecked", or a rule id
    (``analysis.health.rules``; on a source with a session index only); ``reviews``: by the
    sessions' reviews (``index_reviews.ReviewFilter``: a label, a reviewer, "not reviewed"; on a
    source with a session index only). Empty values filter nothing."""

    mechanism: str | tuple[str, ...] | None = None
    pattern: str | tuple[str, ...] | None = None
    status: str | None = None
    text: str | None = None
    include_sub: bool = False
    tool: str | None = None
    model: str | None = None
    failed_tool: str | None = None
    termination: str | None = None
    health: str | None = None
    reviews: ReviewFilter | None = None

    @property
    def unfiltered(self) -> bool:
        """True when nothing but ``include_sub`` is set: every (top-level) session is chosen."""
        return not (self.mechanisms or self.patterns or self.status or self.needle or self.tool or self.model
                    or self.failed_tool or self.termination or self.health or (self.reviews and self.reviews.active))

    @property
    def mechanisms(self) -> tuple[str, ...]:
        """``mechanism`` as a tuple (empty: any)."""
        return _choices(self.mechanism)

    @property
    def patterns(self) -> tuple[str, ...]:
        """``pattern`` as a tuple (empty: any)."""
        return _choices(self.pattern)

    @property
    def needle(self) -> str | None:
        """The search text, stripped, or None when there is none or it has no word to look for
        (``!!!``, a field name alone: the list is then not searched, ``wordless_note``)."""
        return self.text.strip() if self.text and self.text.strip() and self.terms else None

    @property
    def wordless_note(self) -> str | None:
        """The one line the list shows when a search was typed that has no word to look for
        (letters or digits), so nothing was searched; None otherwise."""
        if self.needle or not (self.text and self.text.strip()):
            return None
        return f"the search {self.text.strip()!r} has no word to look for (letters or digits), so the list is not searched"

    @property
    def capped_note(self) -> str | None:
        """The one line the list shows when the search was cut to what is read of it
        (``search.capped_note``: its first ``MAX_SEARCH_CHARS`` characters and ``MAX_WORDS``
        different words); None otherwise."""
        return capped_note(self.text) if self.needle else None

    @property
    def terms(self) -> list[tuple[str | None, str]]:
        """The search's words with the field each must be in (None: any), ``search.search_terms``."""
        return search_terms(self.text)


@dataclass(frozen=True)
class SessionOrder:
    """The order of the list: ``key`` (one of ``SORT_KEYS``) and ``descending``. Sessions
    without a value for the key come last either way; ties go newest first, then by session
    IRI. The default is newest first."""

    key: str = "time"
    descending: bool = True

    @classmethod
    def parse(cls, text: str | None) -> SessionOrder:
        """``"time"`` (ascending) or ``"-time"`` (descending), as in a URL, whatever its case;
        anything else (an unknown key, ``--time``, empty) gives the default order
        (``SessionOrder.readable`` tells them apart)."""
        if not cls.readable(text):
            return cls()
        text = (text or "").strip().lower()
        return cls(text.removeprefix("-"), text.startswith("-"))

    @staticmethod
    def readable(text: str | None) -> bool:
        """Whether ``text`` names an order ``parse`` reads: a ``SORT_KEYS`` key, whatever its
        case, with at most one ``-`` before it."""
        return (text or "").strip().lower().removeprefix("-") in SORT_KEYS

    def __str__(self) -> str:
        return ("-" if self.descending else "") + self.key

    def toggled(self, key: str) -> SessionOrder:
        """The order after a click on the header of ``key``: the other direction when the list is
        sorted on it already, else that key in its default direction."""
        if key == self.key:
            return SessionOrder(key, not self.descending)
        return SessionOrder(key, SORT_KEYS.get(key, False))


DEFAULT_ORDER = SessionOrder()


def _choices(value: str | tuple[str, ...] | None) -> tuple[str, ...]:
    if not value:
        return ()
    return (value,) if isinstance(value, str) else tuple(value)
