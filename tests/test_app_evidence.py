"""The evidence panel and the documents page, run headless with AppTest on the demo (the corpus,
with ``evidence.trig`` and its texts, and the service corpus with its extraction provenance)."""

from __future__ import annotations

import json
import urllib.parse
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from tests.workspace_support import step_of, titled
from tests.workspace_support import table as step_table
from trace_explorer.views.step_sections import CELL_LIMIT, PLAIN_TEXT

from tests.conftest import SERVICES, demo_sessions, service_sessions
from tests.evidence_traces import AGENT, BRONZE, GRAPHRAG_BRONZE, SUB_GRAPHRAG, TRAPPIST
from tests.test_app import open_session, unescape
from tests.test_evidence import TEXTS
from trace_explorer.model.docrag import PLAIN_CHUNK_ID
from trace_explorer.model.reader import read_sessions
from trace_explorer.read.collection import load_collection
from trace_explorer.sources.demo import demo_paths
from trace_explorer.views.marked_text import find_marks, marked_html

REPO = Path(__file__).resolve().parents[1]
REACT_12 = "urn:trustgraph:agent:62c33a4f-b774-4b52-88db-40af72158370"


def open_documents(document: str | None = None) -> AppTest:
    at = AppTest.from_file(str(REPO / "app.py"), default_timeout=90)
    at.switch_page("app_pages/documents.py")
    at.query_params.clear()
    if document is not None:
        at.query_params["document"] = document
    at.run()
    assert not at.exception, at.exception
    return at


def document_links(at: AppTest) -> list[tuple[str, str]]:
    return [(unescape(p.proto.label), urllib.parse.parse_qs(p.proto.query_string)["document"][0])
            for p in at.get("page_link") if p.proto.page == "documents"]


def documents_table(at: AppTest):
    [table] = [d for d in at.dataframe if (d.key or "").startswith("documents_table")]
    return table


def texts(elements) -> list[str]:
    return [unescape(e.value) for e in elements]


def test_graphrag_panel_shows_each_edge_its_document_and_its_marked_chunk():
    at = open_session(GRAPHRAG_BRONZE)
    markdown = texts(at.markdown)
    assert [m for m in markdown if m.startswith("Edge ")] == [
        "Edge 1: sea-peoples → raided → ugarit", "Edge 2: drought → struck → eastern-mediterranean",
        "Edge 3: tin → traded-via → cyprus"]
    captions = texts(at.caption)
    assert "3 edges chosen (2 held by a loaded extraction) · 0 chunks · 1 document" in captions
    assert ":material/link_off: No loaded extraction holds this edge." in captions
    assert "page 1 · Chunk 0 · extracted by kg-extract-relationships 2.11.1, gpt-4o-mini, 2026-03-10T08:23:10Z" in captions
    assert document_links(at) == [("The Late Bronze Age collapse (application/pdf)", BRONZE)] * 2
    chunk = "urn:chunk:c26e7a42-87f5-4ddd-8e14-d571a0f096da"
    words = ["http://trustgraph.ai/e/sea-peoples", "sea-peoples", "sea peoples", "http://trustgraph.ai/e/raided",
             "raided", "http://trustgraph.ai/e/ugarit", "ugarit"]
    bodies = [h.proto.body for h in at.get("html")]
    assert any(marked_html(TEXTS[chunk], find_marks(TEXTS[chunk], words)) in body for body in bodies)


def test_agent_panel_rolls_up_and_holds_the_sub_session_under_its_step():
    at = open_session(AGENT)
    assert "For the whole answer" in " ".join(texts(at.markdown))
    assert document_links(at)[0] == ("Trappist breweries of Belgium (application/pdf) — 2 edges, 0 chunks", TRAPPIST)
    [expander] = [e for e in at.expander if "sub-session" in unescape(e.label)]
    assert unescape(expander.label) == ("GraphRAG sub-session from step i1: Which Belgian beers are brewed by "
                                        "Trappist monks? (2 chosen)")
    assert [unescape(m.value) for m in expander.markdown] == [
        "Edge 1: westmalle-abbey → order → Trappists", "Edge 2: orval-abbey → located-in → Florenville"]
    links = [p for p in at.get("page_link") if p.proto.page == "session"]
    assert any(urllib.parse.parse_qs(p.proto.query_string)["session"] == [SUB_GRAPHRAG] for p in links)


def test_a_session_that_chose_nothing_has_no_panel():
    at = open_session(REACT_12)
    assert not any("Evidence" in m.value for m in at.markdown)


# The reference corpus's documents (evidence.trig): title -> the sessions that used it.
REFERENCE_DOCUMENTS = {"Belgian beer guide": 0, "Bronze Age Collapse notes": 0, "The Late Bronze Age collapse": 1,
                       "Trappist breweries of Belgium": 3}


def service_documents() -> dict[str, int]:
    """The service corpus's documents, title -> how many sessions used it: those whose chosen
    edges or chunks the manifest traces to it, and every session above them (``children``)."""
    sessions = service_sessions()
    parent_of = {c: s["session"] for s in sessions for c in s["children"]}
    used: dict[str, set[str]] = {d["document"]: set() for d in SERVICES["documents"]}
    for s in sessions:
        sources = [e["evidence"]["document"] for e in s.get("edges") or [] if e.get("evidence")]
        sources += [c["document"] for c in s.get("chunks") or []]
        for document in sources:
            session = s["session"]
            while session:
                used[document].add(session)
                session = parent_of.get(session)
    return {d["title"]: len(used[d["document"]]) for d in SERVICES["documents"]}


DOCUMENTS = dict(sorted({**REFERENCE_DOCUMENTS, **service_documents()}.items()))


def test_documents_page_lists_documents_with_their_sessions():
    at = open_documents()
    frame = documents_table(at).value
    assert list(frame["Title"]) == list(DOCUMENTS)
    assert list(frame["Sessions"]) == list(DOCUMENTS.values())
    assert list(frame["MIME type"]) == ["application/pdf"] * len(DOCUMENTS)


def test_a_documents_sessions_directly_and_through_a_sub_session():
    at = open_documents(TRAPPIST)
    assert "Trappist breweries of Belgium" in texts(at.markdown)[1]
    assert "Used by 3 sessions (directly, or through a sub-session)" in texts(at.markdown)
    captions = texts(at.caption)
    assert "2 edges, 0 chunks · directly · 2026-03-10T11:41:55Z" in captions
    assert f"2 edges, 0 chunks · through sub-session {SUB_GRAPHRAG} · 2026-03-10T11:21:25Z" in captions
    assert "3 edges, 0 chunks · directly · 2026-03-10T09:48:40Z" in captions
    sessions = [urllib.parse.parse_qs(p.proto.query_string)["session"][0] for p in at.get("page_link")
                if p.proto.page == "session"]
    assert sessions == [SUB_GRAPHRAG, AGENT, "urn:trustgraph:question:83a4e629-3080-4889-ba61-97748d118e37"]


def test_documents_page_bad_and_unknown_documents():
    at = open_documents("https://trustgraph.ai/doc/none")
    assert any("Nothing in demo traces describes this document" in unescape(w.value) for w in at.warning)
    at = open_documents("not an iri")
    assert any("Not a document IRI: not an iri" in unescape(e.value) for e in at.error)
    assert len(documents_table(at).value) == len(DOCUMENTS)  # the list is still there


# -- every demo DocRAG session shows its chunks' texts ------------------------------------------

DOCRAG = [s["session"] for s in demo_sessions() if s["mechanism"] == "docrag"]


@pytest.fixture(scope="module")
def demo_docrag():
    """The demo's DocRAG sessions by IRI, and every text its content files hold (chunk IRI -> text)."""
    collection, errors = load_collection(demo_paths())
    assert errors == []
    chunk_texts = {}
    for path in demo_paths():
        if path.name.endswith(".documents.json"):
            chunk_texts.update(json.loads(path.read_text(encoding="utf-8")))
    return {s.id: s for s in read_sessions(collection) if s.id in DOCRAG}, chunk_texts


@pytest.mark.parametrize("iri", DOCRAG)
def test_every_demo_docrag_session_shows_its_chunks_texts_or_says_why_there_is_none(iri, demo_docrag):
    sessions, chunk_texts = demo_docrag
    [exploration] = sessions[iri].steps_of("Exploration")
    chosen = exploration.fields["chunks"]
    at = open_session(iri, step=exploration.id)
    table = step_table(step_of(at, exploration.id), "Chunks")
    assert list(table["Chunk"]) == chosen
    note = titled(step_of(at, exploration.id), "Chunks")["note"] or ""
    assert "not in this source" not in note and "not loaded" not in note, note
    captions = [note]
    for chunk, shown in zip(chosen, table["Text"]):
        if chunk.startswith("urn:"):
            assert len(chunk_texts[chunk]) < CELL_LIMIT and shown == chunk_texts[chunk]
        else:  # the seed shape's plain ids ("chunk-id-1"): no text anywhere, and the page says so
            assert shown == PLAIN_TEXT
    plain = [c for c in chosen if not c.startswith("urn:")]
    assert (f"These chunks are each named by {PLAIN_CHUNK_ID}." in captions) == bool(plain) == (len(plain) == len(chosen))
