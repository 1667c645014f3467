"""The review store's journal (``trace_explorer.reviews.journal``): a new review saved as a line
beside the annotation store, read back as if the store held it, folded into the store by the next
change that opens it, and nothing lost or doubled by a process killed at any point."""

from __future__ import annotations

from dataclasses import replace

import pyoxigraph as ox
import pytest

from tests.review_workers import at_once
from tests.review_targets import AGENT, GRAPHRAG, TARGETS
from trace_explorer.reviews import NotYourReview, ReviewStore, reviews_from
from trace_explorer.reviews import journal
from trace_explorer.reviews.review import new_id
from trace_explorer.reviews.store import CURRENT, STORE_DIR

STEP = TARGETS[1]


def _in_store(folder) -> set[str]:
    """The IRIs of the reviews the annotation store's own directory holds."""
    kept = ox.Store.read_only(str(folder / STORE_DIR))
    return {r.id for r in reviews_from(kept.quads_for_pattern(None, None, None, CURRENT))}


def test_a_save_is_a_journal_line_read_back_as_if_stored_until_folded(tmp_path):
    store = ReviewStore(tmp_path)
    first = store.add(STEP.iri, "harmful", "alice")  # the first save makes the store and begins the journal
    second = store.add(TARGETS[3].iri, "correct", "bob", session=GRAPHRAG["session"], score=0.5, comment="edge <ok>")
    assert _in_store(tmp_path) == {first.id}  # the store was not opened for the second
    assert [r for _, r in journal.read(tmp_path).reviews] == [second]
    assert store.get(second.id) == second
    assert store.reviews_of(target=TARGETS[3].iri) == [second]
    assert store.reviews_of() == [first, second]
    assert [(v.number, v.change, v.by, v.review) for v in store.history(second.id)] == [(1, "add", "bob", second)]
    assert store.sessions_with(author="bob") == {GRAPHRAG["session"]}
    store.fold()
    assert _in_store(tmp_path) == {first.id, second.id}
    assert journal.read(tmp_path).reviews == []
    assert store.reviews_of() == [first, second]
    assert [(v.number, v.change) for v in store.history(second.id)] == [(1, "add")]


def test_an_edit_of_a_journaled_review_keeps_both_versions(tmp_path):
    store = ReviewStore(tmp_path)
    store.add(AGENT["session"], "correct", "alice")
    pending = store.add(STEP.iri, "wrong-tool", "alice")
    with pytest.raises(NotYourReview):
        store.delete(pending.id, "bob")
    edited = store.edit(pending.id, "alice", label="correct", comment="fine after all")
    assert [(v.number, v.change, v.review.label) for v in store.history(pending.id)] == [
        (1, "add", "wrong-tool"), (2, "edit", "correct")]
    assert store.get(pending.id) == edited
    assert store.sessions_with(label="wrong-tool") == set()


def test_a_line_cut_short_is_ignored_then_cut_off(tmp_path):
    store = ReviewStore(tmp_path)
    store.add(STEP.iri, "harmful", "alice")
    kept = store.add(STEP.iri, "correct", "bob")
    with open(journal.journal_path(tmp_path), "ab") as handle:
        handle.write(b'{"generation": 3, "review": "<urn:uuid:')  # a writer killed mid-line
    assert [r.author for r in store.reviews_of(target=STEP.iri)] == ["alice", "bob"]
    later = store.add(STEP.iri, "unsupported", "carol")
    assert [r for _, r in journal.read(tmp_path).reviews] == [kept, later]
    assert [r.author for r in store.reviews_of(target=STEP.iri)] == ["alice", "bob", "carol"]


def test_a_fold_whose_journal_was_not_begun_again_doubles_nothing(tmp_path):
    store = ReviewStore(tmp_path)
    store.add(STEP.iri, "harmful", "alice")
    pending = store.add(STEP.iri, "correct", "bob")
    before = journal.journal_path(tmp_path).read_bytes()
    store.fold()
    journal.journal_path(tmp_path).write_bytes(before)  # as if killed between the fold and the new journal
    assert [r.author for r in store.reviews_of(target=STEP.iri)] == ["alice", "bob"]
    store.add(STEP.iri, "unsupported", "carol")  # a line after those the store holds already
    store.fold()
    assert [r.author for r in store.reviews_of(target=STEP.iri)] == ["alice", "bob", "carol"]
    assert [v.change for v in store.history(pending.id)] == ["add"]
    assert store.sessions_with(author="carol") == {AGENT["session"]}


def test_filter_rows_behind_the_journal_are_rebuilt(tmp_path):
    store = ReviewStore(tmp_path)
    store.add(STEP.iri, "harmful", "alice")
    alice = store.add(STEP.iri, "correct", "alice")
    bob = replace(alice, id=new_id(), author="bob")
    journal.append(tmp_path, journal.read(tmp_path), bob)  # as if killed before writing its row
    store.add(TARGETS[3].iri, "correct", "carol", session=GRAPHRAG["session"])
    assert {r["author"] for r in store.rows()} == {"alice", "bob", "carol"}


def test_ten_reviewers_at_once_folding_on_the_way_lose_nothing(tmp_path, monkeypatch):
    monkeypatch.setattr(journal, "FOLD_AT", 3)
    store = ReviewStore(tmp_path)
    store.add(AGENT["session"], "correct", "lead")

    def review(number: int) -> None:
        for round_ in range(3):
            ReviewStore(tmp_path).add(STEP.iri, "needs-review", f"reviewer {number}", comment=f"{round_}")

    errors = at_once(10, review)
    assert errors == []
    assert sorted((r.author, r.comment) for r in store.reviews_of(target=STEP.iri)) == sorted(
        (f"reviewer {n}", f"{k}") for n in range(10) for k in range(3))
    assert journal.read(tmp_path).lines <= 3
    assert len(store.rows()) == 31
