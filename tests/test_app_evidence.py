"""The evidence panel and the documents page, run headless with AppTest on the demo (the corpus,
with ``evidence.trig`` and its texts)."""

from __future__ import annotations

import urllib.parse
from pathlib import Path

from streamlit.testing.v1 import AppTest

from tests.evidence_traces import AGENT, BRONZE, GRAPHRAG_BRONZE, SUB_GRAPHRAG, TRAPPIST
from tests.test_app import open_session, unescape
from tests.test_evidence import TEXTS
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


def test_documents_page_lists_documents_with_their_sessions():
    at = open_documents()
    frame = documents_table(at).value
    assert list(frame["Title"]) == ["Belgian beer guide", "Bronze Age Collapse notes", "The Late Bronze Age collapse",
                                    "Trappist breweries of Belgium"]
    assert list(frame["Sessions"]) == [0, 0, 1, 3]
    assert list(frame["MIME type"]) == ["application/pdf"] * 4


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
    assert len(documents_table(at).value) == 4  # the list is still there
