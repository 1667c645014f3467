"""Traces built from the corpus's ``evidence.trig`` to differ from it in one known way, for the
evidence tests: a whole-collection dump whose quoted triples were damaged into literals, the
older ``tg:reifies`` spelling of extraction, DocRAG sessions that chose its chunks, and hostile
chunk texts and labels."""

from __future__ import annotations

import json

import pyoxigraph as ox

from tests.conftest import CORPUS
from trace_explorer.model.vocabulary import CONTAINS, EDGE, REIFIES, TG
from trace_explorer.read.collection import load_collection
from trace_explorer.read.wire import encode_term

EVIDENCE = CORPUS / "evidence.trig"
EVIDENCE_TEXTS = CORPUS / "evidence.documents.json"
TRAPPIST = "https://trustgraph.ai/doc/53b97377-b34e-4ece-be9e-e51d9212824c"
BRONZE = "https://trustgraph.ai/doc/430b91ed-2954-4a5c-b81e-54dd1c0502c6"
GRAPHRAG_TRAPPIST = "urn:trustgraph:question:83a4e629-3080-4889-ba61-97748d118e37"
GRAPHRAG_BRONZE = "urn:trustgraph:question:6ea330a1-a66d-48b5-91a4-c01ea887ae22"
AGENT = "urn:trustgraph:agent:4ecadea2-81b6-4bb5-b866-64ae64a149f5"
SUB_GRAPHRAG = "urn:trustgraph:question:b153d69c-3e01-4aa6-9949-8ac4482cc78e"
# the edge of GRAPHRAG_BRONZE that no document holds
TIN = ("http://trustgraph.ai/e/tin", "http://trustgraph.ai/e/traded-via", "http://trustgraph.ai/e/cyprus")
# chunks of the two documents: (chunk, page, page number, document)
CHUNK_T1 = ("urn:chunk:16ac4191-a26a-40ae-844f-1574f037afc6", "urn:page:ccb1c51d-0eba-4ea8-8770-a08716e6fec3", 1, TRAPPIST)
CHUNK_T2 = ("urn:chunk:1f2642aa-dcde-4204-83b3-0f66110e2cb6", "urn:page:e5316960-6ce1-43c2-aeef-a279b02e3d8d", 2, TRAPPIST)
CHUNK_T3 = ("urn:chunk:9f27f52c-4492-44d2-aa59-679aed3a32a8", "urn:page:ccb1c51d-0eba-4ea8-8770-a08716e6fec3", 1, TRAPPIST)
CHUNK_B1 = ("urn:chunk:c26e7a42-87f5-4ddd-8e14-d571a0f096da", "urn:page:eea7bb64-33a7-4568-ae5f-950c0ce5af69", 1, BRONZE)
DOCRAG_RERANKED = "urn:trustgraph:docrag:0e5d2f10-7c1a-4d55-9d0b-3a0c2a9f1b01"
DOCRAG_PLAIN = "urn:trustgraph:docrag:0e5d2f10-7c1a-4d55-9d0b-3a0c2a9f1b02"


def evidence_quads() -> list[ox.Quad]:
    """``evidence.trig`` as read (quoted triples as triple terms)."""
    collection, errors = load_collection([EVIDENCE])
    assert errors == []
    return list(collection.store)


def damaged_dump(unrecoverable_edge: tuple[str, str, str] | None = None) -> str:
    """``evidence.trig`` as a whole-collection Turtle dump: graphs merged, and every quoted
    triple (``tg:edge``, ``tg:contains``) written as a string literal, alternately the Python
    repr of its wire dict and the ``<<s p o>>`` form. The ``unrecoverable_edge``'s selection
    gets a literal that does not parse."""
    triples = []
    for number, quad in enumerate(evidence_quads()):
        obj = quad.object
        if isinstance(obj, ox.Triple):
            assert quad.predicate.value in (EDGE, CONTAINS)
            if unrecoverable_edge and tuple(_value(t) for t in (obj.subject, obj.predicate, obj.object)) == unrecoverable_edge:
                obj = ox.Literal("<<this edge was cut short")
            elif number % 2:
                obj = ox.Literal(repr(encode_term(obj)))
            else:
                obj = ox.Literal(f"<<{obj.subject.value} {obj.predicate.value} {_angle(obj.object)}>>")
        triples.append(ox.Triple(quad.subject, quad.predicate, obj))
    return ox.serialize(triples, format=ox.RdfFormat.TURTLE).decode("utf-8")


def _value(term) -> str:
    return term.value


def _angle(term) -> str:
    return f'"{term.value}"' if isinstance(term, ox.Literal) else term.value


def reified_trig() -> str:
    """``evidence.trig`` with every ``tg:contains`` written as ``tg:reifies`` (the statement
    shape of older extractors, which TrustGraph's workbench matches on)."""
    text = EVIDENCE.read_text(encoding="utf-8")
    assert f"<{CONTAINS}>" in text
    return text.replace(f"<{CONTAINS}>", f"<{REIFIES}>")


def docrag_trig() -> str:
    """Two DocRAG sessions over ``evidence.trig``'s chunks. DOCRAG_RERANKED retrieved three
    chunks (T1, T2, B1) and its reranker Focus chose two: T1 (score 0.9) and B1 (0.7).
    DOCRAG_PLAIN ran no reranker: its Exploration's chunks (T2, T3) are its choice."""
    reranked, plain = DOCRAG_RERANKED, DOCRAG_PLAIN
    t1, t2, t3, b1 = CHUNK_T1[0], CHUNK_T2[0], CHUNK_T3[0], CHUNK_B1[0]
    return f"""@prefix tg: <{TG}> .
@prefix prov: <http://www.w3.org/ns/prov#> .
<urn:graph:retrieval> {{
<{reranked}> a prov:Entity, tg:Question, tg:DocRagQuestion ; tg:query "Which abbeys brew beer, and what ended the Bronze Age?" ;
    prov:startedAtTime "2026-03-11T08:00:00Z" .
<{reranked}/grounding> a prov:Entity, tg:Grounding ; prov:wasDerivedFrom <{reranked}> ; tg:concept "abbey" .
<{reranked}/exploration> a prov:Entity, tg:Exploration ; prov:wasDerivedFrom <{reranked}/grounding> ;
    tg:chunkCount "3" ; tg:selectedChunk <{t1}>, <{t2}>, <{b1}> .
<{reranked}/focus> a prov:Entity, tg:Focus ; prov:wasDerivedFrom <{reranked}/exploration> ;
    tg:selectedChunk <urn:trustgraph:prov:chunk:0e5d2f10-01:0>, <urn:trustgraph:prov:chunk:0e5d2f10-01:1> .
<urn:trustgraph:prov:chunk:0e5d2f10-01:0> a tg:ChunkSelection ; tg:document <{t1}> ; tg:score "0.9" .
<urn:trustgraph:prov:chunk:0e5d2f10-01:1> a tg:ChunkSelection ; tg:document <{b1}> ; tg:score "0.7" .
<{reranked}/synthesis> a prov:Entity, tg:Synthesis, tg:Answer ; prov:wasDerivedFrom <{reranked}/focus> .
<{plain}> a prov:Entity, tg:Question, tg:DocRagQuestion ; tg:query "Where is Orval brewed?" ;
    prov:startedAtTime "2026-03-11T09:00:00Z" .
<{plain}/grounding> a prov:Entity, tg:Grounding ; prov:wasDerivedFrom <{plain}> ; tg:concept "Orval" .
<{plain}/exploration> a prov:Entity, tg:Exploration ; prov:wasDerivedFrom <{plain}/grounding> ;
    tg:chunkCount "2" ; tg:selectedChunk <{t2}>, <{t3}> .
<{plain}/synthesis> a prov:Entity, tg:Synthesis, tg:Answer ; prov:wasDerivedFrom <{plain}/exploration> .
}}
"""


HOSTILE_TEXT = ('<img src=x onerror=alert(1)> westmalle <script>alert(2)</script> brewed-by '
                '</mark><b onmouseover=alert(3)>bold</b> "quoted" & <img src=y onerror=alert(4)>')
HOSTILE_LABEL = "<img src=y onerror=alert(4)>"


def hostile_texts() -> str:
    """``evidence.documents.json`` with chunk T1's text replaced by HTML payloads around the
    words of the edge ``westmalle brewed-by westmalle-abbey``; a content file."""
    texts = json.loads(EVIDENCE_TEXTS.read_text(encoding="utf-8"))
    texts[CHUNK_T1[0]] = HOSTILE_TEXT
    return json.dumps(texts)


def hostile_labels() -> str:
    """Turtle giving the abbey of that edge the label ``HOSTILE_LABEL`` (an edge word that is
    HTML, and occurs in the hostile chunk text)."""
    return f'<http://trustgraph.ai/e/westmalle-abbey> <http://www.w3.org/2000/01/rdf-schema#label> {json.dumps(HOSTILE_LABEL)} .\n'
