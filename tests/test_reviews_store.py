"""The review store (issue 42): reviews of every target kind kept as W3C Web Annotations, the
labels the operator sets, authors changing only their own reviews, every change kept, the
session list's filter rows, and reviewers at once losing nothing."""

from __future__ import annotations

import multiprocessing
from datetime import datetime, timezone

import pyoxigraph as ox
import pytest

from tests.review_workers import at_once, reviewers
from tests.review_targets import AGENT, ANSWER, GRAPHRAG, TARGETS
from trace_explorer.reviews import (DEFAULT_LABELS, NoSuchReview, NotYourReview, ReviewError, ReviewStore, Selector,
                                    review_settings, session_of)
from trace_explorer.reviews.rdf import OA
from trace_explorer.reviews.settings import REVIEWS_DIR, parse_labels
from trace_explorer.reviews.store import CURRENT, STORE_DIR

STEP = TARGETS[1]


def test_a_review_of_each_target_kind_reads_back_as_it_was_saved(tmp_path):
    store = ReviewStore(tmp_path / "reviews")
    made = {t.kind: store.add(t.iri, "correct", "alice", session=t.session, score=1.0, comment=f"{t.kind} ok")
            for t in TARGETS}
    span = store.add(TARGETS[2].iri, "unsupported", "bob", selector=Selector(ANSWER[:5], 0, 5),
                     session=GRAPHRAG["session"], comment="made <up>")
    assert [r.id for r in store.reviews_of(session=AGENT["session"])] == [made["session"].id, made["step"].id]
    assert store.reviews_of(target=TARGETS[2].iri) == [made["answer"], span]
    assert store.reviews_of(target=TARGETS[2].iri)[1].selector == Selector("Paris", 0, 5)
    assert store.get(made["chunk"].id).comment == "chunk ok"
    assert store.get(made["chunk"].id).session == "urn:trustgraph:docrag:4a23d596-2217-4ead-9bc4-96cb8e81973e"
    assert len(store.reviews_of()) == 6
    # a new store object (another process, a reload) reads the same
    assert ReviewStore(tmp_path / "reviews").reviews_of(target=TARGETS[3].iri) == [made["edge"]]


def test_the_store_holds_the_web_annotation_shape(tmp_path):
    store = ReviewStore(tmp_path)
    review = store.add(TARGETS[2].iri, "incorrect", "alice", selector=Selector("Paris", 0, 5),
                       session=GRAPHRAG["session"], comment="wrong city", score=0.0)
    db = ox.Store.read_only(str(tmp_path / STORE_DIR))
    rows = {(str(r["p"].value), str(r["o"].value)) for r in db.query(
        f"SELECT ?p ?o WHERE {{ GRAPH <{CURRENT.value}> {{ <{review.id}> ?p ?o }} }}")}
    assert (f"{OA}motivatedBy", f"{OA}assessing") in rows
    assert ("http://www.w3.org/1999/02/22-rdf-syntax-ns#type", f"{OA}Annotation") in rows
    ask = f"""PREFIX oa: <{OA}> PREFIX rdf: <http://www.w3.org/1999/02/22-rdf-syntax-ns#>
        ASK {{ GRAPH <{CURRENT.value}> {{
            <{review.id}> oa:hasTarget ?t ; oa:hasBody ?label, ?comment .
            ?t a oa:SpecificResource ; oa:hasSource <{TARGETS[2].iri}> ; oa:hasSelector ?q, ?p .
            ?q a oa:TextQuoteSelector ; oa:exact "Paris" .
            ?p a oa:TextPositionSelector ; oa:start 0 ; oa:end 5 .
            ?label a oa:TextualBody ; rdf:value "incorrect" ; oa:hasPurpose oa:tagging .
            ?comment a oa:TextualBody ; rdf:value "wrong city" ; oa:hasPurpose oa:commenting .
            <{review.id}> <http://purl.org/dc/terms/creator> ?who ; <http://purl.org/dc/terms/created> ?c ;
                <http://purl.org/dc/terms/modified> ?m .
            ?who <http://xmlns.com/foaf/0.1/name> "alice" }} }}"""
    assert db.query(ask)
    # never in the default graph, where a source's triples would be
    assert not list(db.quads_for_pattern(None, None, None, ox.DefaultGraph()))


def test_labels_are_the_operators(tmp_path):
    assert ReviewStore(tmp_path).labels() == DEFAULT_LABELS == (
        "correct", "incorrect", "unsupported", "wrong-tool", "harmful", "needs-review")
    settings = review_settings({"labels": ["good", "bad"]}, environ={})
    store = ReviewStore(tmp_path, settings.labels)
    assert store.labels() == ("good", "bad")
    with pytest.raises(ReviewError, match="unknown label 'correct'"):
        store.add(STEP.iri, "correct", "alice")
    assert store.reviews_of() == []
    assert review_settings({"labels": "x"}, {"TRACE_EXPLORER_REVIEW_LABELS": " a, b ,a,"}).labels == ("a", "b")
    with pytest.raises(ReviewError):
        parse_labels(" , ")


def test_the_author_is_the_signed_in_user_else_the_configured_name_else_local(tmp_path):
    configured = review_settings({"author": "night shift"}, environ={})
    assert configured.author_for(signed_in="Ada Lovelace", given="x") == "Ada Lovelace"
    assert configured.author_for(given="bob") == "bob"
    assert configured.author_for() == "night shift"
    assert review_settings({}, environ={"TRACE_EXPLORER_REVIEWER": "env"}).author_for() == "env"
    assert review_settings({}, environ={}).author_for(signed_in="  ") == "local"


def test_the_folder_is_beside_the_session_index_unless_set(tmp_path):
    settings = review_settings({}, environ={})
    assert settings.folder_for(store_dir=tmp_path / "store") == tmp_path / "store" / REVIEWS_DIR
    assert settings.folder_for(environ={"XDG_DATA_HOME": str(tmp_path)}) == tmp_path / "trace-explorer" / "reviews"
    assert settings.folder_for(store_dir=tmp_path, explicit=tmp_path / "x") == tmp_path / "x"
    chosen = review_settings({"folder": str(tmp_path / "cfg")}, environ={})
    assert chosen.folder_for(store_dir=tmp_path / "store") == tmp_path / "cfg"
    by_env = review_settings({"folder": "cfg"}, environ={"TRACE_EXPLORER_REVIEWS": str(tmp_path / "env")})
    assert by_env.folder == tmp_path / "env"
    with pytest.raises(ReviewError, match="unknown setting 'colour'"):
        review_settings({"colour": "red"}, environ={})


def test_authors_edit_and_delete_only_their_own_and_every_change_is_kept(tmp_path):
    store = ReviewStore(tmp_path)
    review = store.add(STEP.iri, "wrong-tool", "alice", score=0.2, comment="should have searched")
    with pytest.raises(NotYourReview):
        store.edit(review.id, "bob", label="correct")
    with pytest.raises(NotYourReview):
        store.delete(review.id, "bob")
    edited = store.edit(review.id, "alice", label="incorrect", score=None)
    assert (edited.label, edited.score, edited.comment, edited.created) == (
        "incorrect", None, "should have searched", review.created)
    assert edited.modified >= review.modified
    store.delete(review.id, "alice")
    assert store.get(review.id) is None and store.reviews_of(target=STEP.iri) == []
    with pytest.raises(NoSuchReview):
        store.edit(review.id, "alice", label="correct")
    history = store.history(review.id)
    assert [(v.number, v.change, v.by) for v in history] == [(1, "add", "alice"), (2, "edit", "alice"),
                                                             (3, "delete", "alice")]
    assert [(v.review.label, v.review.score) for v in history] == [("wrong-tool", 0.2), ("incorrect", None),
                                                                   ("incorrect", None)]
    assert history[0].review == review and history[1].review == edited


def test_a_deleted_review_leaves_the_reviewers_other_reviews_whole(tmp_path):
    store = ReviewStore(tmp_path)
    first = store.add(STEP.iri, "correct", "alice")
    second = store.add(TARGETS[0].iri, "harmful", "alice")
    store.delete(first.id, "alice")
    assert store.reviews_of() == [second]
    assert store.get(second.id).author == "alice"


def test_reviews_that_cannot_be_made_are_refused(tmp_path):
    store = ReviewStore(tmp_path)
    with pytest.raises(ReviewError, match="absolute IRI"):
        store.add("not an iri", "correct", "alice")
    with pytest.raises(ReviewError, match="5 characters long, its quote 4"):
        Selector("Pari", 0, 5)
    with pytest.raises(ReviewError, match="finite"):
        store.add(STEP.iri, "correct", "alice", score=float("nan"))
    assert store.reviews_of(session="not an iri") == [] and store.get("nope") is None


def test_the_session_is_told_from_trustgraph_iris():
    assert session_of(AGENT["session"]) == AGENT["session"]
    assert session_of(AGENT["session"] + "/i1/thought") == AGENT["session"]
    assert session_of(GRAPHRAG["session"]) == GRAPHRAG["session"]
    assert session_of(TARGETS[3].iri) is None  # an edge selection: the caller says its session


def test_the_filter_rows_follow_every_change(tmp_path):
    store = ReviewStore(tmp_path)
    a = store.add(STEP.iri, "wrong-tool", "alice")
    store.add(TARGETS[3].iri, "correct", "bob", session=GRAPHRAG["session"])
    store.add("urn:example:elsewhere", "correct", "bob")  # no session known: in no session's filter
    assert store.reviewed_sessions() == {AGENT["session"], GRAPHRAG["session"]}
    assert store.sessions_with(label="wrong-tool") == {AGENT["session"]}
    assert store.sessions_with(author="bob") == {GRAPHRAG["session"]}
    assert store.sessions_with(label="correct", author="alice") == set()
    store.edit(a.id, "alice", label="correct")
    assert store.sessions_with(label="wrong-tool") == set()
    assert store.sessions_with(label="correct", author="alice") == {AGENT["session"]}
    store.delete(a.id, "alice")
    assert store.reviewed_sessions() == {GRAPHRAG["session"]}


def test_filter_rows_lost_or_behind_are_rebuilt_by_the_next_writer(tmp_path):
    store = ReviewStore(tmp_path)
    store.add(STEP.iri, "harmful", "alice")
    store.filter_rows_path.unlink()  # as if a writer died before writing them
    for suffix in ("-wal", "-shm"):
        store.filter_rows_path.with_name(store.filter_rows_path.name + suffix).unlink(missing_ok=True)
    assert store.reviewed_sessions() == set()
    store.add(TARGETS[3].iri, "correct", "bob", session=GRAPHRAG["session"])
    assert store.sessions_with(label="harmful") == {AGENT["session"]}
    assert store.reviewed_sessions() == {AGENT["session"], GRAPHRAG["session"]}


def test_ten_reviewers_in_two_processes_at_once_lose_nothing(tmp_path):
    # five reviewers in each of two new interpreters (a fork of this process would copy the locks
    # of RocksDB's threads), all ten released by one Barrier: writers in other processes and in
    # the same one at once. Ten processes cost 40 s to start on a machine busy with the suite.
    context = multiprocessing.get_context("spawn")
    start = context.Barrier(10)
    ReviewStore(tmp_path).add(AGENT["session"], "correct", "lead")  # the store made: each save is a journal line
    workers = [context.Process(target=reviewers, args=(str(tmp_path), STEP.iri, STEP.session, numbers, start))
               for numbers in (list(range(0, 10, 2)), list(range(1, 10, 2)))]
    for w in workers:
        w.start()
    for w in workers:
        w.join(90)
    assert [w.exitcode for w in workers] == [0, 0]
    store = ReviewStore(tmp_path)
    reviews = store.reviews_of(target=STEP.iri)
    assert sorted((r.author, r.comment, r.score) for r in reviews) == sorted(
        (f"reviewer {n}", f"note {n}", float(n)) for n in range(10))
    assert all([v.change for v in store.history(r.id)] == ["add"] for r in reviews)
    assert not list((tmp_path / STORE_DIR).glob("LOG.old.*"))  # RocksDB's logs of each opening, forgotten
    assert store.sessions_with(author="reviewer 7") == {AGENT["session"]}


def test_ten_reviewers_in_one_process_at_once_lose_nothing(tmp_path):
    errors = at_once(10, lambda n: ReviewStore(tmp_path).add(STEP.iri, "needs-review", f"reviewer {n}"))
    assert errors == []
    assert sorted(r.author for r in ReviewStore(tmp_path).reviews_of(session=AGENT["session"])) == sorted(
        f"reviewer {n}" for n in range(10))


def test_times_are_utc_to_the_millisecond(tmp_path):
    review = ReviewStore(tmp_path).add(STEP.iri, "correct", "alice")
    assert review.created.tzinfo == timezone.utc and review.created.microsecond % 1000 == 0
    assert abs((datetime.now(timezone.utc) - review.created).total_seconds()) < 60
