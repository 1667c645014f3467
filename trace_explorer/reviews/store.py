"""The review store: reviews as W3C Web Annotations in a pyoxigraph store of their own, never in
a source's triples (issue 42), every change kept.

A folder (``settings.ReviewSettings.folder_for``) holds:

- ``oa/``: the pyoxigraph store. The named graph ``CURRENT`` has every review as it stands
  (``rdf``'s shape); each change is also kept whole in a named graph of its own,
  ``<review IRI>#v1``, ``#v2``..., described in the graph ``HISTORY`` (``history``);
- ``reviewed.sqlite``: one row a review (session, target, label, author) for the session list's
  filters (``filter_rows``), rewritten by every change;
- ``journal.jsonl``: the new reviews saved since the store was last written (``journal``),
  which readers add to what the store holds and the next change opening the store writes into it;
- ``reviews.lock``: the lock every user takes first (``lock``).

A new review is one line appended to the journal and its filter row (a few milliseconds); an
edit, a delete or an import opens the store, folds the journal in, and writes there (about a
hundred milliseconds, most of it RocksDB's opening and closing). Authors edit and delete only
their own reviews (``NotYourReview``). A delete takes the review out of ``CURRENT`` and keeps its
last state as a version.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import TypeVar

import pyoxigraph as ox

from . import filter_rows, history, journal
from .lock import WAIT_S, locked, with_store
from .rdf import ABOUT, HAS_SOURCE, HAS_TARGET, own_nodes, quads, reviews_from
from .review import Review, ReviewError, Selector, Version, check_iri, new_id, now, session_of
from .settings import DEFAULT_LABELS

STORE_DIR = "oa"
CURRENT = ox.NamedNode("urn:trace-explorer:reviews")
_KEEP = object()  # an edit's "leave this as it is"
T = TypeVar("T")


class NotYourReview(PermissionError):
    """Someone tried to edit or delete a review by somebody else."""


class NoSuchReview(KeyError):
    """No review of that IRI is in the store (never was, or was deleted)."""


class ReviewStore:
    """The reviews kept in the folder ``path`` (made when the first review is saved), labelled
    from ``labels`` (the operator's, ``settings.DEFAULT_LABELS`` by default). Safe to use from
    many threads and processes at once (``lock``); each call takes the lock and lets it go, so
    nothing is held between calls. Raises ``lock.ReviewStoreBusy`` when another user holds
    the store for longer than ``wait_s``, OSError when the folder cannot be used."""

    def __init__(self, path: Path | str, labels: Sequence[str] = DEFAULT_LABELS, wait_s: float = WAIT_S):
        self.path = Path(path)
        self._labels = tuple(labels)
        self.wait_s = wait_s

    def __repr__(self) -> str:
        return f"ReviewStore({str(self.path)!r})"

    def labels(self) -> tuple[str, ...]:
        """The labels a new review or an edit may carry, in the order offered."""
        return self._labels

    # -- writing ------------------------------------------------------------------------------

    def add(self, target: str, label: str, author: str, *, selector: Selector | None = None,
            score: float | None = None, comment: str | None = None, session: str | None = None) -> Review:
        """Save a new review of ``target`` (an IRI) by ``author`` and return it (with its new IRI
        and times). ``session`` is the IRI of the session the target belongs to; None: told
        from the target's form (``review.session_of``), else left unknown. Raises ReviewError
        for a label not in ``labels()`` or a review that cannot be made (``Review``)."""
        self._check_label(label)
        moment = now()
        review = Review(id=new_id(), target=target, label=label, author=author, created=moment, modified=moment,
                        session=session or session_of(target), selector=selector, score=score,
                        comment=comment or None)
        if not _journaled(self.path, review, self.wait_s):
            self._writing(lambda store: self._write(store, None, review, "add", author))
        return review

    def edit(self, review_id: str, author: str, *, label: str | object = _KEEP, score: float | None | object = _KEEP,
             comment: str | None | object = _KEEP, selector: Selector | None | object = _KEEP) -> Review:
        """Change the review ``review_id`` as ``author`` (who must have written it) and return it
        as it now stands; what is not given stays (None clears a score, comment or selector).
        The state before is kept (``history``). Raises NoSuchReview, NotYourReview, ReviewError."""
        if label is not _KEEP:
            self._check_label(label)
        changes = {k: v for k, v in (("label", label), ("score", score), ("selector", selector)) if v is not _KEEP}
        if comment is not _KEEP:
            changes["comment"] = comment or None

        def change(store: ox.Store) -> Review:
            old = self._own(store, review_id, author)
            review = old.edited(**changes)
            self._write(store, old, review, "edit", author)
            return review
        return self._writing(change)

    def delete(self, review_id: str, author: str) -> None:
        """Take the review ``review_id`` out, as ``author`` (who must have written it); its last
        state stays in its history. Raises NoSuchReview, NotYourReview."""
        self._writing(lambda store: self._write(store, self._own(store, review_id, author), None, "delete", author))

    def put(self, reviews: Iterable[Review]) -> tuple[int, int, int]:
        """Save ``reviews`` as they are, IRIs and authors included (an import): a review not in
        the store is added, one older there (``modified``) is replaced by it (an edit in the
        history), one the same or newer is left, and so is one deleted here. Returns ``(added,
        changed, unchanged)``: the same reviews twice change nothing the second time. Raises
        ReviewError for a label not in ``labels()``, before anything is written."""
        # another tool's annotation names no session: told from its target's form, as ``add`` does
        reviews = [r if r.session else dataclasses.replace(r, session=session_of(r.target)) for r in reviews]
        for review in reviews:
            self._check_label(review.label)

        def put_all(store: ox.Store) -> tuple[int, int, int]:
            counts = [0, 0, 0]
            for review in reviews:
                old = _get(store, review.id)
                if old is None and not history.versions(store, review.id):
                    self._write(store, None, review, "add", review.author)
                    counts[0] += 1
                elif old is not None and old != review and review.modified > old.modified:
                    self._write(store, old, review, "edit", review.author)
                    counts[1] += 1
                else:
                    counts[2] += 1
            return counts[0], counts[1], counts[2]
        return self._writing(put_all)

    def fold(self) -> None:
        """Write the reviews saved to the journal into the annotation store now (``journal``):
        what readers and exports see does not change, only where it is kept; for a tool that
        reads the store's directory itself. Raises ReviewStoreBusy, OSError."""
        self._writing(lambda store: None)

    # -- reading ------------------------------------------------------------------------------

    def get(self, review_id: str) -> Review | None:
        """The review ``review_id`` as it stands, or None (never was, or deleted, or no IRI)."""
        if not _is_iri(review_id):
            return None
        return self._reading(lambda store, pending: _get(store, review_id)
                             or next((r for r in pending if r.id == review_id), None), None)

    def reviews_of(self, session: str | None = None, target: str | None = None) -> list[Review]:
        """The reviews as they stand of the session IRI ``session`` (whatever their target within
        it) and/or of the IRI ``target`` (itself or a span of its text); every review when both
        are None. Oldest first. An argument that is no IRI matches nothing."""
        if not all(_is_iri(x) for x in (session, target) if x is not None):
            return []
        def both(store: ox.Store, pending: list[Review]) -> list[Review]:
            found = _reviews_of(store, session, target) + [r for r in pending if _about(r, session, target)]
            return sorted(found, key=lambda r: (r.created, r.id))
        return self._reading(both, [])

    def history(self, review_id: str) -> list[Version]:
        """Every change of the review ``review_id``, the first (its add) first; empty for an IRI
        never saved here."""
        if not _is_iri(review_id):
            return []
        return self._reading(lambda store, pending: history.read(store, review_id) or [
            Version(r.id, 1, "add", r.author, r.modified, r) for r in pending if r.id == review_id], [])

    def sessions_with(self, label: str | None = None, author: str | None = None) -> set[str]:
        """The IRIs of the sessions that have a review (as it stands) with ``label`` and/or by
        ``author`` (any when None), from the filter rows (``filter_rows``)."""
        return filter_rows.sessions(self.path, label=label, author=author)

    def reviewed_sessions(self) -> set[str]:
        """The IRIs of the sessions that have any review as it stands."""
        return filter_rows.sessions(self.path)

    def labels_of(self, sessions: Sequence[str]) -> dict[str, list[tuple[str, str]]]:
        """``{session IRI: [(label, author), ...]}`` for the reviewed ones among ``sessions``,
        oldest first, from the filter rows: the session list's review column of a page."""
        return filter_rows.labels_of(self.path, sessions)

    def rows(self) -> list[dict]:
        """One dict a review as it stands (review, session, target, label, author, created as
        ISO 8601 UTC), oldest first, from the filter rows: for counts of labels over time."""
        return filter_rows.rows(self.path)

    @property
    def filter_rows_path(self) -> Path:
        """The SQLite file of one row a review (``filter_rows``), for the session index's filter."""
        return filter_rows.rows_path(self.path)

    # -- inside -------------------------------------------------------------------------------

    def _check_label(self, label: object) -> None:
        if label not in self._labels:
            raise ReviewError(f"unknown label {str(label)[:80]!r} (expected one of {', '.join(self._labels)})")

    def _writing(self, work: Callable[[ox.Store], T]) -> T:
        """``work(store)`` with the store open for writing, the journal folded in and the filter
        rows caught up first, the journal begun again after."""
        def caught_up(store: ox.Store) -> T:
            kept = journal.read(self.path)
            for review in kept.after(history.generation(store)) if kept else []:
                self._write(store, None, review, "add", review.author, rows=False)  # its row is there
            filter_rows.catch_up(self.path, history.generation(store),
                                 lambda: reviews_from(store.quads_for_pattern(None, None, None, CURRENT)))
            try:
                return work(store)
            finally:
                journal.begin(self.path, history.generation(store))
        return with_store(self.path, STORE_DIR, caught_up, write=True, wait_s=self.wait_s)

    def _reading(self, work: Callable[[ox.Store, list[Review]], T], empty: T) -> T:
        """``work(store, pending)``, ``pending`` the journal's reviews not in the store yet."""
        def with_pending(store: ox.Store) -> T:
            kept = journal.read(self.path)
            return work(store, kept.after(history.generation(store)) if kept else [])
        return with_store(self.path, STORE_DIR, with_pending, write=False, wait_s=self.wait_s, empty=empty)

    def _own(self, store: ox.Store, review_id: str, author: str) -> Review:
        old = _get(store, review_id) if _is_iri(review_id) else None
        if old is None:
            raise NoSuchReview(review_id)
        if old.author != author:
            raise NotYourReview(f"{review_id} is by {old.author}, not {author}")
        return old

    def _write(self, store: ox.Store, old: Review | None, new: Review | None, change: str, by: str,
               rows: bool = True) -> None:
        """One change, in one SPARQL update (all or nothing): the old state out of ``CURRENT``,
        the new one in, the version kept; then the filter rows (unless not ``rows``)."""
        kept = new if new is not None else old
        generation = history.generation(store) + 1
        removed = _own_only(quads(old, CURRENT), old.id) if old is not None else []
        added = quads(new, CURRENT) if new is not None else []
        version = history.version_quads(store, kept, change, by)
        store.update(history.update_text(removed, added + version, generation))
        if rows:
            filter_rows.apply(self.path, old.id if old else None, new, generation)


def _journaled(folder: Path, review: Review, wait_s: float) -> bool:
    """Save the new ``review`` as a line of the journal in ``folder`` and its filter row, holding
    the lock (``journal``), and return True; False, with nothing written, when there is no
    journal yet, it has ``journal.FOLD_AT`` lines, or the filter rows are not at its generation (a
    writer killed between the two): then the store is to be opened (``ReviewStore._writing``)."""
    with locked(folder, exclusive=True, wait_s=wait_s):
        kept = journal.read(folder, reviews=False)
        if kept is None or kept.lines >= journal.FOLD_AT:
            return False
        return filter_rows.add_after(folder, kept.generation, review, lambda: journal.append(folder, kept, review))


def _get(store: ox.Store, review_id: str) -> Review | None:
    found = reviews_from(q for node in own_nodes(review_id) + _creators(store, ox.NamedNode(review_id))
                         for q in store.quads_for_pattern(node, None, None, CURRENT))
    return found[0] if found else None


def _reviews_of(store: ox.Store, session: str | None, target: str | None) -> list[Review]:
    ids: set | None = None
    if session is not None:
        ids = {q.subject for q in store.quads_for_pattern(None, ABOUT, ox.NamedNode(session), CURRENT)}
    if target is not None:
        node = ox.NamedNode(target)
        on = {q.subject for q in store.quads_for_pattern(None, HAS_TARGET, node, CURRENT)}
        on |= {t.subject for s in store.quads_for_pattern(None, HAS_SOURCE, node, CURRENT)
               for t in store.quads_for_pattern(None, HAS_TARGET, s.subject, CURRENT)}
        ids = on if ids is None else ids & on
    if ids is None:
        return reviews_from(store.quads_for_pattern(None, None, None, CURRENT))
    return reviews_from(q for i in ids for node in own_nodes(i.value) + _creators(store, i)
                        for q in store.quads_for_pattern(node, None, None, CURRENT))


def _about(review: Review, session: str | None, target: str | None) -> bool:
    """Whether ``review`` is of ``session`` and/or ``target`` as ``_reviews_of`` reads them."""
    return (session is None or review.session == session) and (target is None or review.target == target)


def _is_iri(value: str) -> bool:
    try:
        check_iri(value)
    except ReviewError:
        return False
    return True


def _creators(store: ox.Store, review: ox.NamedNode) -> list:
    """The reviewer nodes of ``review`` (their name triples are shared, not the review's own)."""
    return [q.object for q in store.quads_for_pattern(review, None, None, CURRENT)
            if q.predicate.value.endswith("/creator")]


def _own_only(statements: list[ox.Quad], review_id: str) -> list[ox.Quad]:
    """``statements`` without the reviewer's triples (its type and name), which the reviewer's
    other reviews share: they are added with each review and never removed."""
    own = set(own_nodes(review_id))
    return [q for q in statements if q.subject in own]
