"""What the evidence looks like: the edge's words marked in the chunk's text (and nothing else
marked, nothing of the text turned into markup), the DAG's evidence branch, the exported page's
Evidence section and the DAG image with the branch."""

from __future__ import annotations

from html.parser import HTMLParser

import pytest

from tests.evidence_traces import (AGENT, CHUNK_B1, CHUNK_T1, CHUNK_T2, CHUNK_T3, DOCRAG_RERANKED, EVIDENCE,
                                   EVIDENCE_TEXTS, GRAPHRAG_BRONZE, GRAPHRAG_TRAPPIST, HOSTILE_LABEL, HOSTILE_TEXT,
                                   SUB_GRAPHRAG, TRAPPIST, docrag_trig, hostile_labels, hostile_texts)
from tests.test_evidence import TEXTS, files_source
from trace_explorer.analysis.evidence.evidence import session_evidence
from trace_explorer.analysis.evidence.graph import evidence_branch
from trace_explorer.export.evidence_section import evidence_section
from trace_explorer.export.images import dag_dot
from trace_explorer.index.catalog import fetch_session
from trace_explorer.views.marked_text import find_marks, marked_html, marked_plain, pieces
from trace_explorer.views.visible_text import visible_controls

PAGE_1, PAGE_2 = CHUNK_T1[1], CHUNK_T2[1]


@pytest.fixture(scope="module")
def source():
    return files_source(EVIDENCE, EVIDENCE_TEXTS)


def evidence_of(source, session_id):
    return session_evidence(source, fetch_session(source, session_id))


def marked(text: str, words) -> list[str]:
    return [piece for piece, is_marked in pieces(text, find_marks(text, words)) if is_marked]


def test_the_edges_words_are_marked_where_they_occur(source):
    sea_peoples = evidence_of(source, GRAPHRAG_BRONZE).edges[0]
    text = sea_peoples.sources[0].chunk_text
    assert marked(text, sea_peoples.words) == ["sea-peoples", "raided", "http://trustgraph.ai/e/ugarit", "ugarit"]
    orval = evidence_of(source, SUB_GRAPHRAG).edges[1]  # orval-abbey located-in "Florenville"
    assert marked(orval.sources[0].chunk_text, orval.words) == [
        "http://trustgraph.ai/e/orval-abbey", "orval-abbey", "located-in", "Florenville"]


def test_marks_keep_to_whole_words_and_ignore_case():
    assert marked("Latin tin and TIN-ore, tinned", ["tin"]) == ["tin", "TIN"]
    assert marked("westmalle-abbey", ["westmalle", "westmalle-abbey"]) == ["westmalle-abbey"]
    assert marked("a <b> c", ["<b>"]) == ["<b>"]
    assert find_marks("anything", ["", "x"]) == [] and find_marks("", ["word"]) == []
    assert marked_plain("a tin b", find_marks("a tin b", ["tin"])) == "a «tin» b"


class Tags(HTMLParser):
    def __init__(self):
        super().__init__()
        self.tags, self.attrs, self.text, self.in_mark, self.marked = [], [], [], 0, []

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)
        self.attrs += attrs
        self.in_mark += tag == "mark"

    def handle_endtag(self, tag):
        self.in_mark -= tag == "mark"

    def handle_data(self, data):
        self.text.append(data)
        if self.in_mark:
            self.marked.append(data)


def parsed(markup: str) -> Tags:
    tags = Tags()
    tags.feed(markup)
    tags.close()
    return tags


def test_marking_hostile_text_opens_no_html_hole():
    words = ["westmalle", "brewed-by", HOSTILE_LABEL, '"quoted"', "</mark>"]
    markup = marked_html(HOSTILE_TEXT, find_marks(HOSTILE_TEXT, words))
    tags = parsed(markup)
    assert set(tags.tags) == {"mark"} and tags.attrs == []
    assert "".join(tags.text) == HOSTILE_TEXT  # the text, all of it, as text
    assert tags.marked == ["westmalle", "brewed-by", "</mark>", '"quoted"', HOSTILE_LABEL]
    controls = "a \x1btin\x1b[0m \u202etin"
    assert parsed(marked_html(controls, find_marks(controls, ["tin"]))).marked == ["tin", "tin"]
    assert "\x1b" not in marked_html(controls, []) and marked_html(controls, []) == "a ␛tin␛[0m ⟨U+202E⟩tin"


def test_hostile_chunk_text_and_label_in_the_exported_section(tmp_path):
    texts, labels = tmp_path / "hostile.documents.json", tmp_path / "labels.ttl"
    texts.write_text(hostile_texts(), encoding="utf-8")
    labels.write_text(hostile_labels(), encoding="utf-8")
    hostile = files_source(EVIDENCE, texts, labels)
    evidence = evidence_of(hostile, GRAPHRAG_TRAPPIST)
    westmalle = evidence.edges[0]
    assert westmalle.labels["o"] == HOSTILE_LABEL and westmalle.sources[0].chunk_text == HOSTILE_TEXT
    section = parsed(evidence_section(evidence))
    assert set(section.tags) <= {"section", "h2", "h3", "p", "table", "tr", "th", "td", "br", "code", "div", "span",
                                 "mark"}
    assert "img" not in section.tags and "script" not in section.tags and "b" not in section.tags
    assert {"westmalle", "brewed-by", HOSTILE_LABEL} <= set(section.marked)  # with the other edges' words
    assert visible_controls(HOSTILE_TEXT) in "".join(section.text)
    assert f"westmalle → brewed-by → {HOSTILE_LABEL}" in "".join(section.text)


def test_the_evidence_branch_of_a_graphrag_session(source):
    evidence = evidence_of(source, GRAPHRAG_TRAPPIST)
    branch = evidence_branch(evidence)
    assert [(n.id, n.kind, n.label) for n in branch.nodes] == [
        (CHUNK_T1[0], "Chunk", "Chunk 0"), (PAGE_1, "Page", "Page 1"),
        (TRAPPIST, "Document", "Trappist breweries of Belgium"),
        (CHUNK_T2[0], "Chunk", "Chunk 1"), (PAGE_2, "Page", "Page 2"), (CHUNK_T3[0], "Chunk", "Chunk 2")]
    first, second, third = (e.selection for e in evidence.edges)
    assert branch.edges == [
        (first, CHUNK_T1[0], "extractedFrom"), (CHUNK_T1[0], PAGE_1, "wasDerivedFrom"), (PAGE_1, TRAPPIST, "wasDerivedFrom"),
        (second, CHUNK_T2[0], "extractedFrom"), (CHUNK_T2[0], PAGE_2, "wasDerivedFrom"), (PAGE_2, TRAPPIST, "wasDerivedFrom"),
        (third, CHUNK_T3[0], "extractedFrom"), (CHUNK_T3[0], PAGE_1, "wasDerivedFrom")]
    assert branch.anchors[first] == [CHUNK_T1[0], PAGE_1, TRAPPIST]
    chunk = next(n for n in branch.nodes if n.id == CHUNK_T1[0])
    assert "extracted by kg-extract-relationships 2.11.1, gpt-4o-mini, 2026-03-10T05:19:52Z" in chunk.tooltip
    assert "text: " + TEXTS[CHUNK_T1[0]] in chunk.tooltip
    # the edge no document holds hangs nothing
    bronze = evidence_of(source, GRAPHRAG_BRONZE)
    assert bronze.edges[2].selection not in evidence_branch(bronze).anchors


def test_the_evidence_branch_of_an_agent_and_of_docrag(tmp_path, source):
    assert evidence_branch(evidence_of(source, AGENT)).edges == [(SUB_GRAPHRAG, TRAPPIST, "evidenceFrom")]
    docrag = tmp_path / "docrag.trig"
    docrag.write_text(docrag_trig(), encoding="utf-8")
    with_docrag = files_source(EVIDENCE, EVIDENCE_TEXTS, docrag)
    branch = evidence_branch(evidence_of(with_docrag, DOCRAG_RERANKED))
    assert branch.edges[0] == ("urn:trustgraph:prov:chunk:0e5d2f10-01:0", CHUNK_T1[0], "document")
    assert ("urn:trustgraph:prov:chunk:0e5d2f10-01:1", CHUNK_B1[0], "document") in branch.edges


def test_the_dag_image_draws_the_branch_below_the_selections(source):
    session = fetch_session(source, GRAPHRAG_TRAPPIST)
    branch = evidence_branch(session_evidence(source, session))
    dot = dag_dot(session, branch=branch)
    assert dot == dag_dot(session, branch=branch)  # same session, same drawing
    first = branch.edges[0][0]
    # drawn below the selection: the edge statement is reversed with dir=back, as a step's parts
    assert f'"{CHUNK_T1[0]}" -> "{first}" [label=extractedFrom dir=back]' in dot
    assert f'"{PAGE_1}" -> "{CHUNK_T1[0]}" [label=wasDerivedFrom dir=back]' in dot
    assert "Trappist breweries of Belgium" in dot and CHUNK_T1[0] not in dag_dot(session)


def test_a_hostile_document_title_in_the_dag_image_stays_text(source):
    from xml.etree import ElementTree

    from trace_explorer.analysis.evidence.graph import BranchNode, EvidenceBranch
    from trace_explorer.export.images import render_dot

    session = fetch_session(source, GRAPHRAG_TRAPPIST)
    selection = session.steps_of("Focus")[0].fields["edges"][0]["id"]
    title = '"]; evil [label="x"]; </text><script>alert(1)</script> \\N \\G'
    branch = EvidenceBranch([BranchNode("urn:doc:evil", "Document", title, title + "\n<img src=x onerror=alert(2)>")],
                            [(selection, "urn:doc:evil", "extractedFrom")], {selection: ["urn:doc:evil"]})
    svg = render_dot(dag_dot(session, branch=branch), "svg").decode("utf-8")
    root = ElementTree.fromstring(svg)
    names = {element.tag.rsplit("}", 1)[-1] for element in root.iter()}
    assert "script" not in names and "img" not in names
    texts = ["".join(t.itertext()) for t in root.iter("{http://www.w3.org/2000/svg}text")]
    assert '"]; evil [label="x"]; </text>…' in texts  # the label, cut to its 30 characters, as text
    assert not any(t == "x" for t in texts)  # no node "evil" was made


def test_the_branch_hangs_where_it_reads_as_its_nodes(source):
    from trace_explorer.analysis.evidence.graph import with_evidence
    from trace_explorer.views.dag.layout import layout_slots
    from trace_explorer.views.dag.network import drawn_layout

    # an agent: its GraphRAG sub-session sits mid-chain, and the next level holds the agent's next
    # step; the document hangs right under the sub-session, never beside a later step
    agent = fetch_session(source, AGENT)
    layout = with_evidence(drawn_layout(agent), evidence_branch(evidence_of(source, AGENT)))
    places = layout_slots(layout)
    sub = places[SUB_GRAPHRAG]
    assert places[TRAPPIST] == (sub[0], sub[1] + 1)
    assert list(places.values()).count(places[TRAPPIST]) == 1
    # a GraphRAG session: each chosen edge's chunk, page and document run on to the right of it
    session = fetch_session(source, GRAPHRAG_TRAPPIST)
    evidence = evidence_of(source, GRAPHRAG_TRAPPIST)
    places = layout_slots(with_evidence(drawn_layout(session), evidence_branch(evidence)))
    first = evidence.edges[0].selection
    assert [places[n] for n in (first, CHUNK_T1[0], PAGE_1, TRAPPIST)] == [
        (places[first][0] + hop, places[first][1]) for hop in range(4)]
    assert len(set(places.values())) == len(places)  # no two nodes in one place
