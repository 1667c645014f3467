"""Evidence lineage against the corpus manifest (``evidence.trig``: each edge's document, title,
page, chunk and subgraph; each session's ``documents_used``), and against traces built from it
to differ in one known way (``tests/evidence_traces.py``): a damaged whole-collection dump, the
``tg:reifies`` spelling, DocRAG sessions over its chunks."""

from __future__ import annotations

import json

import pytest

from tests.conftest import CORPUS, MANIFEST
from tests.evidence_traces import (AGENT, BRONZE, CHUNK_B1, CHUNK_T1, CHUNK_T2, CHUNK_T3, DOCRAG_PLAIN,
                                   DOCRAG_RERANKED, EVIDENCE, EVIDENCE_TEXTS, GRAPHRAG_BRONZE, GRAPHRAG_TRAPPIST,
                                   SUB_GRAPHRAG, TIN, TRAPPIST, damaged_dump, docrag_trig, reified_trig)
from trace_explorer.analysis.evidence.evidence import session_evidence
from trace_explorer.analysis.evidence.report import CHUNK_KEYS, EDGE_KEYS, evidence_record, evidence_text
from trace_explorer.analysis.evidence.used_by import describe_document, used_by, used_by_documents
from trace_explorer.read.collection import load_collection
from trace_explorer.index.catalog import fetch_session
from trace_explorer.index.build import build_index
from trace_explorer.sources.store_source import StoreSource

EXPECTED = {s["session"]: s for s in MANIFEST["evidence.trig"]["sessions"]}
TEXTS = json.loads(EVIDENCE_TEXTS.read_text(encoding="utf-8"))
WITH_EVIDENCE = [s for s in EXPECTED.values() if "evidence" in s]


def files_source(*paths) -> StoreSource:
    collection, errors = load_collection(list(paths))
    assert errors == []
    return StoreSource(collection.store, label="files", documents=collection.documents,
                       index=build_index(collection.store))


@pytest.fixture(scope="module")
def evidence_source() -> StoreSource:
    return files_source(EVIDENCE, EVIDENCE_TEXTS)


def record_of(source, session_id: str) -> dict:
    session = fetch_session(source, session_id)
    assert session is not None, session_id
    return evidence_record(session_evidence(source, session))


def expected_edges(expected: dict) -> list[dict]:
    """The manifest's evidence as the JSON contract's edge records."""
    out = []
    for item in expected["evidence"]:
        s, p, o = item["edge"]
        if item["document"] is None:
            out.append(dict(s=s, p=p, o=o, subgraph=None, chunk=None, page=None, document=None, title=None,
                            chunk_text=None))
        else:
            out.append(dict(s=s, p=p, o=o, subgraph=item["subgraph"], chunk=item["chunk"], page=item["page"],
                            document=item["document"], title=item["title"], chunk_text=TEXTS[item["chunk"]]))
    return out


@pytest.mark.parametrize("expected", WITH_EVIDENCE, ids=lambda s: s["session"][-12:])
def test_each_edge_leads_to_the_manifests_subgraph_chunk_page_and_document(evidence_source, expected):
    record = record_of(evidence_source, expected["session"])
    assert list(record) == ["session", "edges", "chunks", "documents"]
    assert record["session"] == expected["session"]
    assert all(list(edge) == list(EDGE_KEYS) for edge in record["edges"])
    assert record["edges"] == expected_edges(expected)
    assert record["chunks"] == []
    assert record["documents"] == expected["documents_used"]


def test_an_edge_no_document_holds_has_every_link_null_and_says_so(evidence_source):
    session = fetch_session(evidence_source, GRAPHRAG_BRONZE)
    evidence = session_evidence(evidence_source, session)
    tin = next(e for e in evidence.edges if (e.s, e.p, e.o) == TIN)
    assert tin.sources == []
    assert "no loaded extraction holds this edge" in evidence_text(evidence)
    held = [e for e in evidence.edges if e.sources]
    assert len(held) == 2 and all(len(e.sources) == 1 for e in held)


def test_the_extraction_its_page_number_and_mime_type(evidence_source):
    evidence = session_evidence(evidence_source, fetch_session(evidence_source, GRAPHRAG_TRAPPIST))
    westmalle, chimay, orval = (e.sources[0] for e in evidence.edges)
    assert (westmalle.page_number, chimay.page_number, orval.page_number) == (1, 2, 1)
    assert (westmalle.chunk_label, westmalle.chunk_index, chimay.chunk_index) == ("Chunk 0", 0, 1)
    assert {s.mime_type for s in (westmalle, chimay, orval)} == {"application/pdf"}
    assert westmalle.held_by == "contains"
    made = westmalle.extraction
    assert (made.activity, made.component, made.version, made.model, made.time) == (
        "https://trustgraph.ai/activity/ef55781d-43fb-4ccb-a6bd-11337ab81913", "kg-extract-relationships",
        "2.11.1", "gpt-4o-mini", "2026-03-10T05:19:52Z")
    assert chimay.extraction.time == "2026-03-10T06:20:21Z"


def test_an_agent_shows_its_sub_sessions_evidence_under_the_step_and_rolls_it_up(evidence_source):
    evidence = session_evidence(evidence_source, fetch_session(evidence_source, AGENT))
    assert evidence.edges == [] and evidence.chunks == []
    [(step, child)] = evidence.children
    assert step == EXPECTED[SUB_GRAPHRAG]["parent"] == f"{AGENT}/i1"
    assert child.session.id == SUB_GRAPHRAG
    record = evidence_record(evidence)
    assert record["session"] == AGENT
    assert record["edges"] == expected_edges(EXPECTED[SUB_GRAPHRAG])
    assert record["documents"] == EXPECTED[SUB_GRAPHRAG]["documents_used"] == [TRAPPIST]
    text = evidence_text(evidence)
    assert f"Sub-session {SUB_GRAPHRAG} (GraphRAG), from step {AGENT}/i1" in text


def test_used_by_lists_direct_sessions_and_the_agent_above_its_sub_session(evidence_source):
    rows = [u.record() for u in used_by(evidence_source, TRAPPIST)]
    assert rows == [  # newest first
        {"id": SUB_GRAPHRAG, "via": "urn:trustgraph:prov:focus:b153d69c-3e01-4aa6-9949-8ac4482cc78e", "edges": 2, "chunks": 0},
        {"id": AGENT, "via": SUB_GRAPHRAG, "edges": 2, "chunks": 0},
        {"id": GRAPHRAG_TRAPPIST, "via": "urn:trustgraph:prov:focus:83a4e629-3080-4889-ba61-97748d118e37", "edges": 3,
         "chunks": 0},
    ]
    assert [u.record() for u in used_by(evidence_source, BRONZE)] == [
        {"id": GRAPHRAG_BRONZE, "via": "urn:trustgraph:prov:focus:6ea330a1-a66d-48b5-91a4-c01ea887ae22", "edges": 2,
         "chunks": 0}]
    # the manifest's documents_used, the other way round
    for document in (TRAPPIST, BRONZE):
        direct = {u.id for u in used_by(evidence_source, document) if u.direct}
        assert direct == {s["session"] for s in WITH_EVIDENCE if document in s["documents_used"]}
    assert used_by(evidence_source, "https://trustgraph.ai/doc/none") == []
    assert describe_document(evidence_source, "https://trustgraph.ai/doc/none") is None
    assert describe_document(evidence_source, TRAPPIST) == {"id": TRAPPIST, "title": "Trappist breweries of Belgium",
                                                            "mime_type": "application/pdf", "page_count": "2"}


def test_documents_are_listed_by_title(evidence_source):
    assert [(d["id"], d["title"], d["page_count"]) for d in evidence_source.lineage().list_documents()] == [
        (BRONZE, "The Late Bronze Age collapse", "1"), (TRAPPIST, "Trappist breweries of Belgium", "2")]
    assert used_by_documents(evidence_source, []) == {}


def test_a_damaged_dump_still_resolves_where_the_triple_can_be_recovered(tmp_path):
    """Graphs merged and every quoted triple a string literal (wire-dict repr and <<s p o>>):
    the same lineage as the original, both ways; a literal that does not parse stays one."""
    dump = tmp_path / "evidence-dump.ttl"
    dump.write_text(damaged_dump(unrecoverable_edge=TIN), encoding="utf-8")
    text = dump.read_text(encoding="utf-8")
    for predicate in ("edge", "contains"):  # both spellings of damage, on both predicates
        assert f"ns/{predicate}> \"{{'t': 't', 'tr'" in text and f"ns/{predicate}> \"<<http" in text
    source = files_source(dump, EVIDENCE_TEXTS)
    assert record_of(source, GRAPHRAG_TRAPPIST)["edges"] == expected_edges(EXPECTED[GRAPHRAG_TRAPPIST])
    assert record_of(source, AGENT)["documents"] == [TRAPPIST]
    bronze = record_of(source, GRAPHRAG_BRONZE)
    assert bronze["edges"][:2] == expected_edges(EXPECTED[GRAPHRAG_BRONZE])[:2]
    assert bronze["edges"][2] == dict.fromkeys(EDGE_KEYS)  # the cut literal: no triple, no links
    evidence = session_evidence(source, fetch_session(source, GRAPHRAG_BRONZE))
    assert evidence.edges[2].raw == "<<this edge was cut short"
    assert {u.id for u in used_by(source, TRAPPIST)} == {GRAPHRAG_TRAPPIST, SUB_GRAPHRAG, AGENT}


def test_the_corpus_graph_dump_recovers_its_edges_and_its_extraction(tmp_path):
    """``graph-dump.ttl`` (the corpus's damaged dump): its GraphRAG edges come back as triples
    that no extraction holds; its Subgraph's damaged ``tg:contains`` comes back too, so an edge
    choosing that fact leads to the dump's document."""
    source = files_source(CORPUS / "graph-dump.ttl", CORPUS / "graph-dump.documents.json")
    expected = next(s for s in MANIFEST["graph-dump.ttl"]["sessions"] if s["mechanism"] == "graphrag")
    record = record_of(source, expected["session"])
    assert [[e["s"], e["p"], e["o"]] for e in record["edges"]] == expected["selected_edges"]
    assert all(e["document"] is None for e in record["edges"]) and record["documents"] == []
    chooser = tmp_path / "chooser.trig"
    chooser.write_text("""@prefix tg: <https://trustgraph.ai/ns/> . @prefix prov: <http://www.w3.org/ns/prov#> .
<urn:trustgraph:question:dump-reader> a tg:Question, tg:GraphRagQuestion ; tg:query "What is the guide called?" .
<urn:trustgraph:prov:focus:dump-reader> a tg:Focus ; prov:wasDerivedFrom <urn:trustgraph:question:dump-reader> ;
    tg:selectedEdge <urn:trustgraph:prov:edge:dump-reader:0> .
<urn:trustgraph:prov:edge:dump-reader:0> a tg:EdgeSelection ;
    tg:edge << <http://trustgraph.ai/e/belgian> <http://www.w3.org/2000/01/rdf-schema#label> "Belgian beer guide" >> .
""", encoding="utf-8")
    source = files_source(CORPUS / "graph-dump.ttl", chooser)
    [edge] = record_of(source, "urn:trustgraph:question:dump-reader")["edges"]
    assert edge == {"s": "http://trustgraph.ai/e/belgian", "p": "http://www.w3.org/2000/01/rdf-schema#label",
                    "o": "Belgian beer guide",
                    "subgraph": "https://trustgraph.ai/subgraph/f5f554ed-8323-4ef5-8ba2-e1619fb9af50",
                    "chunk": "urn:chunk:54dd0ba5-6264-47ba-84a1-0547b401ba85",
                    "page": "urn:page:756b7289-8dd6-4cb9-9685-d62404fcd555",
                    "document": "https://trustgraph.ai/doc/5daf106d-b8de-4081-979a-071e518ae452",
                    "title": "Belgian beer guide", "chunk_text": None}


def test_tg_reifies_is_read_like_tg_contains(tmp_path):
    reified = tmp_path / "reified.trig"
    reified.write_text(reified_trig(), encoding="utf-8")
    source = files_source(reified, EVIDENCE_TEXTS)
    assert record_of(source, GRAPHRAG_TRAPPIST)["edges"] == expected_edges(EXPECTED[GRAPHRAG_TRAPPIST])
    evidence = session_evidence(source, fetch_session(source, GRAPHRAG_TRAPPIST))
    assert {s.held_by for e in evidence.edges for s in e.sources} == {"reifies"}
    assert {u.id for u in used_by(source, TRAPPIST)} == {GRAPHRAG_TRAPPIST, SUB_GRAPHRAG, AGENT}
    # and a damaged tg:reifies literal is recovered as well
    dump = tmp_path / "reified-dump.ttl"
    dump.write_text(damaged_dump().replace("<https://trustgraph.ai/ns/contains>", "<https://trustgraph.ai/ns/reifies>"),
                    encoding="utf-8")
    source = files_source(dump, EVIDENCE_TEXTS)
    assert record_of(source, GRAPHRAG_TRAPPIST)["edges"] == expected_edges(EXPECTED[GRAPHRAG_TRAPPIST])


def chunk_expected(chunk: tuple) -> dict:
    iri, page, _, document = chunk
    titles = {TRAPPIST: "Trappist breweries of Belgium", BRONZE: "The Late Bronze Age collapse"}
    return {"chunk": iri, "page": page, "document": document, "title": titles[document], "chunk_text": TEXTS[iri]}


def test_docrag_chunks_lead_to_page_and_document(tmp_path):
    docrag = tmp_path / "docrag.trig"
    docrag.write_text(docrag_trig(), encoding="utf-8")
    source = files_source(EVIDENCE, EVIDENCE_TEXTS, docrag)
    reranked = record_of(source, DOCRAG_RERANKED)
    assert all(list(c) == list(CHUNK_KEYS) for c in reranked["chunks"])
    # the reranker's two choices, not the three retrieved
    assert reranked["chunks"] == [chunk_expected(CHUNK_T1), chunk_expected(CHUNK_B1)]
    assert reranked["edges"] == [] and reranked["documents"] == [TRAPPIST, BRONZE]
    evidence = session_evidence(source, fetch_session(source, DOCRAG_RERANKED))
    assert [(c.score, c.lineage.page_number, c.lineage.extraction.component) for c in evidence.chunks] == [
        (0.9, 1, "chunker"), (0.7, 1, "chunker")]
    plain = record_of(source, DOCRAG_PLAIN)
    assert plain["chunks"] == [chunk_expected(CHUNK_T2), chunk_expected(CHUNK_T3)]
    assert plain["documents"] == [TRAPPIST]
    uses = {u.id: u.record() for u in used_by(source, TRAPPIST)}
    assert uses[DOCRAG_RERANKED] == {"id": DOCRAG_RERANKED, "via": f"{DOCRAG_RERANKED}/focus", "edges": 0, "chunks": 1}
    assert uses[DOCRAG_PLAIN] == {"id": DOCRAG_PLAIN, "via": f"{DOCRAG_PLAIN}/exploration", "edges": 0, "chunks": 2}
    assert uses[GRAPHRAG_TRAPPIST]["edges"] == 3
    assert {u.id: u.chunks for u in used_by(source, BRONZE)} == {DOCRAG_RERANKED: 1, GRAPHRAG_BRONZE: 0}


def test_holders_of_an_unknown_fact_are_none(evidence_source):
    import pyoxigraph as ox
    fact = ox.Triple(ox.NamedNode("http://trustgraph.ai/e/nothing"), ox.NamedNode("http://trustgraph.ai/e/p"),
                     ox.Literal("x"))
    assert evidence_source.lineage().holders([fact]) == {}


def test_extraction_entities_without_types_are_read_by_iri_shape_and_place(tmp_path):
    """With the tg:Document / tg:Page / tg:Chunk / tg:Subgraph types gone, chunks and pages are
    known by their IRIs (``urn:chunk:``, ``urn:page:``) and the document as the top of the chain."""
    import pyoxigraph as ox

    from tests.evidence_traces import evidence_quads
    gone = {f"https://trustgraph.ai/ns/{k}" for k in ("Document", "Page", "Chunk", "Subgraph")}
    quads = [q for q in evidence_quads() if not (q.predicate.value.endswith("#type") and q.object.value in gone)]
    untyped = tmp_path / "untyped.nq"
    untyped.write_bytes(ox.serialize(quads, format=ox.RdfFormat.N_QUADS))
    source = files_source(untyped, EVIDENCE_TEXTS)
    assert record_of(source, GRAPHRAG_TRAPPIST)["edges"] == expected_edges(EXPECTED[GRAPHRAG_TRAPPIST])
