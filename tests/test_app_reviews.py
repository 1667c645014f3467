"""Reviews in the app without a browser: the session list's Review column and review filters
(AppTest on the demo), the Review cell's words, the filters' parameters, and the review queue's
walk (``components.reviews.queue.next_session``) over a list of constructed sessions."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest
from streamlit.testing.v1 import AppTest

from components.reviews import access, list_filter, queue
from components.reviews.list_filter import (NOT_REVIEWED, review_cell, review_filter_of, review_params,
                                            review_words)
from components.reviews.queue import next_session
from tests.list_support import list_rows
from tests.workspace_support import sent
from trace_explorer.reviews import DEFAULT_LABELS, ReviewStore
from trace_explorer.sources.filter import SessionFilter, SessionOrder

REPO = Path(__file__).resolve().parents[1]
GRAPHRAG = "urn:trustgraph:question:1fb17c23-90c1-42cf-93ac-94af0f21ddb6"
DOCRAG = "urn:trustgraph:docrag:4a23d596-2217-4ead-9bc4-96cb8e81973e"


@pytest.fixture
def reviews_dir(tmp_path, monkeypatch):
    """A review store of the test's own, as the operator sets one (``TRACE_EXPLORER_REVIEWS``)."""
    folder = tmp_path / "reviews"
    monkeypatch.setenv("TRACE_EXPLORER_REVIEWS", str(folder))
    monkeypatch.delenv("TRACE_EXPLORER_REVIEWER", raising=False)
    return folder


def test_the_list_shows_each_sessions_review_labels(reviews_dir):
    store = ReviewStore(reviews_dir)
    store.add(GRAPHRAG, "incorrect", "ana")
    store.add(GRAPHRAG, "correct", "ben")
    store.add(GRAPHRAG, "incorrect", "carl", comment="<b>no</b>")
    store.add(DOCRAG, "correct", "ana")
    at = AppTest.from_file(str(REPO / "app.py"), default_timeout=60).run()
    assert not at.exception, at.exception
    rows = {r["id"]: r for r in list_rows(at)}
    assert rows[GRAPHRAG]["review"] == "⚠ incorrect 2 · correct 1"
    assert rows[GRAPHRAG]["review_title"] == "incorrect: ana, carl\ncorrect: ben"
    assert rows[DOCRAG]["review"] == "correct 1"
    assert sum(1 for r in rows.values() if r["review"] == "—") == len(rows) - 2
    # the filters offer the person reviewing ("local": no sign-in, no name set) and every author
    assert at.selectbox(key="reviewer").options == ["local", "ana", "ben", "carl"]
    assert at.selectbox(key="review").options == list(access.labels()) + [NOT_REVIEWED]
    at.selectbox(key="review").select("incorrect").run()
    assert [r["id"] for r in list_rows(at)] == [GRAPHRAG]
    at.selectbox(key="review").select("correct").run()
    at.selectbox(key="reviewer").select("ana").run()
    assert [r["id"] for r in list_rows(at)] == [DOCRAG]  # ana's correct: DocRAG's (ben's was GraphRAG's)
    at.selectbox(key="review").select(NOT_REVIEWED).run()
    assert set(r["id"] for r in list_rows(at)) == set(rows) - {GRAPHRAG, DOCRAG}
    at.selectbox(key="reviewer").select("carl").run()
    queue = [r["id"] for r in list_rows(at)]
    assert set(queue) == set(rows) - {GRAPHRAG}  # carl reviewed GraphRAG only
    # the queue walks this list in its order: its first session, then (from that session's page,
    # passed over) the next
    at.button(key="te_review_next").click().run()
    assert at.query_params["session"] == queue[0]
    at.button(key="te_review_next").click().run()
    assert at.query_params["session"] == queue[1]


def test_review_cells_filters_and_their_words(tmp_path):
    assert review_cell(None) == ("—", "not reviewed")
    assert review_cell([("correct", "ben"), ("correct", "ana"), ("correct", "ben")]) == ("correct 3", "correct: ana, ben")
    collection = SimpleNamespace(key=("store", str(tmp_path)))
    chosen = review_filter_of(collection, NOT_REVIEWED, "ana")
    assert (chosen.not_reviewed, chosen.author, chosen.label) == (True, "ana", None)
    assert chosen.rows == tmp_path / "trace-explorer-reviews" / "reviewed.sqlite"  # beside the store's index
    assert review_params(chosen) == {"review": NOT_REVIEWED, "reviewer": "ana"}
    assert review_words(chosen) == "not reviewed by ana"
    labelled = review_filter_of(collection, "wrong-tool", None)
    assert review_params(labelled) == {"review": "wrong-tool"} and review_words(labelled) == "reviewed wrong-tool"
    assert review_filter_of(collection, None, None) is None


def test_the_review_column_and_reviewers_follow_edits_and_deletes(tmp_path):
    collection = SimpleNamespace(key=("store", str(tmp_path)))
    store = access.review_store(collection)
    assert list_filter.reviewers(collection) == []
    kept = store.add(GRAPHRAG + "/a", "wrong-tool", "ana", session=GRAPHRAG)
    store.add(GRAPHRAG, "wrong-tool", "ana")
    gone = store.add(DOCRAG, "harmful", "ben")
    store.delete(gone.id, "ben")
    store.edit(kept.id, "ana", label="correct")
    rows = list_filter.with_reviews(collection, [{"id": GRAPHRAG}, {"id": DOCRAG}])
    assert [(r["review"], r["review_title"]) for r in rows] == [
        ("⚠ correct 1 · wrong-tool 1", "correct: ana\nwrong-tool: ana"), ("—", "not reviewed")]
    assert list_filter.reviewers(collection) == ["ana"]


class ListOf:
    """A collection whose list is ``ids`` in this order, served a page at a time."""

    def __init__(self, ids: list[str], folder: Path):
        self.ids, self.key, self.asked, self.source = ids, ("store", str(folder)), 0, None

    def page(self, filters, limit, offset, order):
        self.asked += 1
        return SimpleNamespace(rows=[{"id": i} for i in self.ids[offset:offset + limit]], total=len(self.ids))


def test_the_queue_walks_the_list_to_the_next_session_not_reviewed(tmp_path, monkeypatch):
    monkeypatch.delenv("TRACE_EXPLORER_REVIEWS", raising=False)
    monkeypatch.setattr(queue, "PAGE", 2)
    ids = [f"urn:trustgraph:agent:{n:04d}" for n in range(6)]  # three pages of the walk
    collection = ListOf(ids, tmp_path)
    store = access.review_store(collection)
    assert store.path == tmp_path / "trace-explorer-reviews"
    walk = lambda skip=frozenset(): next_session(collection, SessionFilter(), SessionOrder(), "ana", skip)  # noqa: E731
    assert walk() == ids[0]
    store.add(ids[0], "correct", "ana")
    store.add(ids[1], "incorrect", "ben")  # another reviewer's: still ana's to review
    assert walk() == ids[1]
    assert walk({ids[1], ids[2]}) == ids[3]  # passed over in this walk
    for iri in ids[1:4]:
        store.add(iri, "correct", "ana")
    collection.asked = 0
    assert walk() == ids[4] and collection.asked == 3  # past two pages of reviewed sessions
    for iri in ids[4:]:
        store.add(iri, "correct", "ana")
    assert walk() is None


def test_insights_count_review_labels_per_day_and_by_tool():
    from trace_explorer.views.review_charts import NO_TOOL, labels_by_tool, labels_per_day

    def review(session: str, label: str, day: int) -> dict:
        return {"session": session, "label": label, "created": f"2026-12-{day:02d}T09:00:00.000Z"}

    found = [review(GRAPHRAG, "incorrect", 5), review(GRAPHRAG, "correct", 6), review(DOCRAG, "incorrect", 6),
             review(DOCRAG, "wrong-tool", 6), review("urn:trustgraph:agent:gone", "harmful", 6)]
    per_day = labels_per_day(found, DEFAULT_LABELS)
    assert per_day.data.to_dict("records") == [
        {"day": "2026-12-05", "label": "incorrect", "reviews": 1}, {"day": "2026-12-06", "label": "correct", "reviews": 1},
        {"day": "2026-12-06", "label": "harmful", "reviews": 1}, {"day": "2026-12-06", "label": "incorrect", "reviews": 1},
        {"day": "2026-12-06", "label": "wrong-tool", "reviews": 1}]
    tools = {GRAPHRAG: ["knowledge-query", "calculator", "knowledge-query"], DOCRAG: []}
    by_tool = labels_by_tool(found, tools, DEFAULT_LABELS)
    assert by_tool.data.to_dict("records") == [
        {"tool": NO_TOOL, "label": "incorrect", "reviews": 1}, {"tool": NO_TOOL, "label": "wrong-tool", "reviews": 1},
        {"tool": "calculator", "label": "correct", "reviews": 1}, {"tool": "calculator", "label": "incorrect", "reviews": 1},
        {"tool": "knowledge-query", "label": "correct", "reviews": 1},
        {"tool": "knowledge-query", "label": "incorrect", "reviews": 1}]


def test_the_session_page_lists_reviews_and_lets_authors_delete_only_their_own(reviews_dir, monkeypatch):
    monkeypatch.setenv("TRACE_EXPLORER_REVIEWER", "ana")
    at = AppTest.from_file(str(REPO / "app.py"), default_timeout=60)
    at.switch_page("app_pages/session.py")
    at.query_params["session"] = GRAPHRAG
    at.run()
    assert next(e for e in at.main.expander if e.label.startswith("Reviews")).label == "Reviews: none yet"
    step = sent(at)["shape"]["steps"][1]["id"]
    store = ReviewStore(reviews_dir)
    mine = store.add(GRAPHRAG, "incorrect", "ana", comment="**not** <i>this</i>")
    theirs = store.add(GRAPHRAG, "correct", "ben")
    on_step = store.add(step, "wrong-tool", "ben", session=GRAPHRAG, score=0.25)
    at.run()
    assert not at.exception, at.exception
    panel = next(e for e in at.main.expander if e.label.startswith("Reviews"))
    assert panel.label == "Reviews: 3 reviews, reviewers disagree on 1 target"
    lines = [m.value for m in panel.markdown]
    assert lines[0].startswith("**The session**") and "reviewers disagree" in lines[0]
    assert lines[1].startswith("**incorrect** · ana · ") and lines[1].endswith(
        " — \\*\\*not\\*\\* \\<i\\>this\\<\\/i\\>")  # the comment escaped: shown as typed
    assert [b.key for b in at.button if b.key and b.key.startswith("te_panel_")] == [
        f"te_panel_edit_{mine.id}", f"te_panel_delete_{mine.id}"]  # ben's have none
    assert at.button(key="te_review_session").label == "Review session (2)"
    assert sent(at)["reviews"] == {step: [{"label": "wrong-tool", "score": 0.25, "comment": None, "by": "ben",
                                           "at": f"{on_step.created:%Y-%m-%d %H:%M} UTC", "quote": None}]}
    at.button(key=f"te_panel_delete_{mine.id}").click().run()
    assert [r.id for r in store.reviews_of(session=GRAPHRAG)] == [theirs.id, on_step.id]
    assert next(e for e in at.main.expander if e.label.startswith("Reviews")).label == "Reviews: 2 reviews"


def test_a_narrow_table_shows_the_labels_with_the_figures():
    rows = [{"figures": "1.2 s · 30 tokens", "review": "⚠ incorrect 2 · correct 1"}, {"figures": "", "review": "correct 1"},
            {"figures": "2 s", "review": "—"}]
    assert [r["figures"] for r in list_filter.with_review_figures(rows)] == [
        "1.2 s · 30 tokens · review ⚠ incorrect 2 · correct 1", "review correct 1", "2 s"]


def test_a_save_the_store_refuses_is_said_in_the_dialog_not_raised(reviews_dir):
    import streamlit as st

    from components.reviews import dialog
    from components.reviews.targets import Target

    keys = {"label": "te_t_label", "score": "te_t_score", "comment": "te_t_comment"}
    st.session_state.update({"te_t_label": "correct", "te_t_score": None, "te_t_comment": " "})
    plain_chunk = Target("chunk 3", "chunk", "Chunk 1: chunk 3", DOCRAG)  # a chunk id that is no IRI
    dialog._submitted(plain_chunk, None, keys)
    assert st.session_state["te_review_problem"] == "Not saved: the target must be an absolute IRI, not 'chunk 3'"
    assert ReviewStore(reviews_dir).reviews_of() == []


def test_the_inspectors_selection_is_reviewed_as_a_span_of_the_steps_text(reviews_dir):
    from components.reviews.on_page import STEP_WANTED_KEY, wanted_span
    from components.text import md_escape
    from trace_explorer.reviews import Selector

    grounding = GRAPHRAG.replace(":question:", ":prov:grounding:")  # its "Concepts": "France, capital city"
    span = {"step": grounding, "field": "Concepts", "quote": "capital city", "start": 8, "end": 20}
    assert wanted_span(span) == {**span, "iri": None}
    for bad in (grounding, {**span, "end": 21}, {**span, "start": True}, {**span, "quote": 3}, {**span, "start": 20}):
        assert wanted_span(bad) is None  # the browser's value is checked, not trusted
    store = ReviewStore(reviews_dir)
    theirs = store.add(grounding, "unsupported", "ben", selector=Selector("capital <b>city</b>", 8, 27),
                       session=GRAPHRAG)
    at = AppTest.from_file(str(REPO / "app.py"), default_timeout=60)
    at.switch_page("app_pages/session.py")
    at.query_params["session"] = GRAPHRAG
    at.run()
    assert "France, capital city" in [s.get("text") for s in next(
        s for s in sent(at)["shape"]["steps"] if s["id"] == grounding)["sections"]]
    assert sent(at)["reviews"][grounding] == [{"label": "unsupported", "score": None, "comment": None, "by": "ben",
                                              "at": f"{theirs.created:%Y-%m-%d %H:%M} UTC",
                                              "quote": "capital <b>city</b>"}]
    panel = next(e for e in at.main.expander if e.label.startswith("Reviews"))
    assert panel.markdown[0].value == "**" + md_escape("Step Grounding: “capital <b>city</b>”", one_line=True) + "**"
    at.session_state[STEP_WANTED_KEY] = wanted_span(span)  # as step_wanted keeps the inspector's trigger
    at.run()
    assert not at.exception, at.exception
    assert md_escape("Concepts of step Grounding: “capital city”") in [m.value for m in at.markdown]
    captions = [c.value for c in at.caption]
    assert "Span" in captions and md_escape(f"Characters 8–20 of {grounding}", one_line=True) in captions


def test_words_of_an_analysiss_thought_are_reviewed_on_the_thoughts_own_iri(reviews_dir):
    from components.reviews.on_page import STEP_WANTED_KEY, wanted_span
    from components.text import md_escape
    from tests.workspace_support import step_of, titled
    from trace_explorer.reviews import Selector

    react = "urn:trustgraph:agent:62c33a4f-b774-4b52-88db-40af72158370"  # its Analyses have Thought entities
    at = AppTest.from_file(str(REPO / "app.py"), default_timeout=60)
    at.switch_page("app_pages/session.py")
    at.query_params["session"] = react
    at.run()
    thought = titled(step_of(at, react + "/i2"), "Thought")
    assert thought["iri"] == react + "/i2/thought"
    words = thought["text"].split()[1]
    start = thought["text"].index(words)
    at.session_state[STEP_WANTED_KEY] = wanted_span({"step": react + "/i2", "iri": thought["iri"], "field": "Thought",
                                                     "quote": words, "start": start, "end": start + len(words)})
    at.run()
    assert not at.exception, at.exception
    assert md_escape(f"Characters {start}–{start + len(words)} of {react}/i2/thought", one_line=True) in [
        c.value for c in at.caption]
    ReviewStore(reviews_dir).add(thought["iri"], "unsupported", "ben", selector=Selector(words, start, start + len(words)),
                                 session=react)
    at.run()  # listed in the inspector of the Analysis that shows the Thought's words
    assert [r["quote"] for r in sent(at)["reviews"][react + "/i2"]] == [words]


def test_an_edge_review_is_titled_by_the_edge_it_chose():
    # the Reviews panel names an EdgeSelection by its edge (its terms' labels), as the evidence
    # panel does, not by the selection's IRI
    from components.reviews.panel import target_of
    from tests.conftest import corpus_paths
    from trace_explorer.model.reader import SessionReader
    from trace_explorer.model.triple_index import TripleIndex
    from trace_explorer.read.collection import load_collection
    from tests.review_targets import GRAPHRAG

    collection, _ = load_collection(corpus_paths("graph-dump.ttl"))
    session = SessionReader(TripleIndex(list(collection.store)), collection.documents).read(GRAPHRAG["session"])
    edges = next(step.fields["edges"] for step in session.steps if step.fields.get("edges"))
    first = edges[0]
    # the manifest's first chosen edge, by its terms
    assert [first["s"], first["p"], first["o"]] == GRAPHRAG["selected_edges"][0]
    review = SimpleNamespace(target=first["id"], selector=None)
    words = " → ".join(str(first[f"{p}_label"] or first[p]) for p in ("s", "p", "o"))
    assert target_of(review, session).title == f"Edge: {words}" and first["id"] not in words
