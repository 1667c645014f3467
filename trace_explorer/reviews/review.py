"""A review: what one person wrote down about one part of a trace (issue 42).

A review targets an IRI of the trace (a session, a step, a GraphRAG edge selection or quoted-triple
edge, a DocRAG chunk), or a span of that IRI's text (``Selector``: the quoted text and its
character offsets). It carries one label of the configured set (``labels``), an optional score
and comment, its author and its times. It is stored as a W3C Web Annotation (``rdf``).
"""

from __future__ import annotations

import math
import re
import uuid
from dataclasses import dataclass, field, replace
from datetime import datetime, timezone


ID_PREFIX = "urn:uuid:"  # a review's IRI: urn:uuid:<uuid4> (RFC 9562), made when it is added
MAX_LABEL = 64  # characters
MAX_COMMENT = 20_000  # characters of a comment
MAX_QUOTE = 20_000  # characters of a quoted span
MAX_AUTHOR = 200  # characters of an author's name
_IRI_FORBIDDEN = re.compile(r'[\x00-\x20<>"{}|\\^`]')  # RFC 3987 excludes these from an IRI


class ReviewError(ValueError):
    """A review that cannot be made as given: an empty or unknown label, a target that is no
    IRI, a selector whose offsets do not fit its quote, a score that is no finite number."""


@dataclass(frozen=True)
class Selector:
    """A span of the target's text: ``quote`` is the exact text, ``start``/``end`` its character
    offsets in the target's text (``end`` exclusive, so ``end - start == len(quote)``), as the
    Web Annotation model's TextQuoteSelector and TextPositionSelector (W3C Web Annotation Data
    Model, 4.2.4 and 4.2.5)."""

    quote: str
    start: int
    end: int

    def __post_init__(self) -> None:
        if not self.quote or len(self.quote) > MAX_QUOTE:
            raise ReviewError(f"a quoted span needs 1 to {MAX_QUOTE} characters")
        if not (isinstance(self.start, int) and isinstance(self.end, int)) or not 0 <= self.start <= self.end:
            raise ReviewError("a span needs 0 <= start <= end")
        if self.end - self.start != len(self.quote):
            raise ReviewError(f"the span {self.start}-{self.end} is {self.end - self.start} characters long, "
                              f"its quote {len(self.quote)}")


@dataclass(frozen=True)
class Review:
    """One review.

    - ``id``: its IRI (``urn:uuid:...``), the Web Annotation's;
    - ``target``: the reviewed IRI (session, step, edge selection, chunk);
    - ``selector``: the reviewed span of the target's text, or None for the whole target;
    - ``label``: one of the configured labels (``labels.DEFAULT_LABELS`` unless set);
    - ``score``: an optional finite number (the reviewer's own scale; none is imposed);
    - ``comment``: optional free text (untrusted: escape it wherever it is shown);
    - ``author``: who wrote it (the signed-in user, else the configured name, else "local");
    - ``created``/``modified``: aware UTC datetimes (``modified`` == ``created`` until an edit);
    - ``session``: the IRI of the session the target belongs to (the target itself for a
      session), or None when it could not be told.
    """

    id: str
    target: str
    label: str
    author: str
    created: datetime
    modified: datetime
    session: str | None = None
    selector: Selector | None = None
    score: float | None = None
    comment: str | None = None

    def __post_init__(self) -> None:
        for name in ("id", "target") + (("session",) if self.session is not None else ()):
            check_iri(getattr(self, name), name)
        if not self.label or len(self.label) > MAX_LABEL or self.label != self.label.strip():
            raise ReviewError(f"a label needs 1 to {MAX_LABEL} characters without surrounding spaces")
        if not self.author or len(self.author) > MAX_AUTHOR:
            raise ReviewError(f"an author needs 1 to {MAX_AUTHOR} characters")
        if self.score is not None and (isinstance(self.score, bool) or not math.isfinite(float(self.score))):
            raise ReviewError(f"a score must be a finite number, not {self.score!r}")
        if self.comment is not None and len(self.comment) > MAX_COMMENT:
            raise ReviewError(f"a comment has at most {MAX_COMMENT} characters")
        for name in ("created", "modified"):
            if getattr(self, name).tzinfo is None:
                raise ReviewError(f"{name} needs a time zone")

    def edited(self, **changes) -> Review:
        """This review with ``changes`` (label, score, comment, selector) and ``modified`` now."""
        return replace(self, modified=now(), **changes)


@dataclass(frozen=True)
class Version:
    """One change of a review, kept for ever: ``number`` counts from 1 (the add), ``change`` is
    "add", "edit" or "delete", ``by`` who made it, ``at`` when (aware UTC), ``review`` the review
    as the change left it (as it was just before, for a delete)."""

    review_id: str
    number: int
    change: str
    by: str
    at: datetime
    review: Review = field(repr=False)


def now() -> datetime:
    """The current time, UTC, to the millisecond (what xsd:dateTime round trips keep)."""
    t = datetime.now(timezone.utc)
    return t.replace(microsecond=t.microsecond // 1000 * 1000)


def new_id() -> str:
    """A fresh review IRI, ``urn:uuid:`` and a random UUID (RFC 9562, version 4)."""
    return ID_PREFIX + str(uuid.uuid4())


def check_iri(value: object, what: str = "target") -> str:
    """``value`` when it is an absolute IRI (a scheme, then no space, angle bracket, quote or
    other character RFC 3987 leaves out); raises ReviewError otherwise."""
    if not isinstance(value, str) or not re.match(r"^[A-Za-z][A-Za-z0-9+.-]*:", value) or _IRI_FORBIDDEN.search(value):
        raise ReviewError(f"the {what} must be an absolute IRI, not {str(value)[:80]!r}")
    return value


def session_of(target: str) -> str | None:
    """The session IRI a target names by its form alone (TRACE-MODEL.md, "Sessions" and "Agent
    patterns"): a session root is its own session, an agent or DocRAG step
    (``urn:trustgraph:agent:{id}/...``) belongs to its root; None for any other IRI (a GraphRAG
    step, an edge selection, a chunk), whose session the caller must give."""
    from ..model.roots import ROOT_PREFIXES, step_owner  # here: model.roots brings networkx, 0.5 s to import

    owner = step_owner(target)
    if owner:
        return owner
    for prefix, _ in ROOT_PREFIXES:
        if target.startswith(prefix) and "/" not in target[len(prefix):]:
            return target
    return None
