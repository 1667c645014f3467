"""The collection the services read: knowledge triples (default graph), three documents with
their pages and chunks in the librarian, and the extraction provenance TrustGraph's librarian,
PDF decoder, chunker and relationship extractor write for them into ``urn:graph:source``,
made with the same trustgraph-base builders those services call, with the same component
names and versions.
"""

from __future__ import annotations

from fakes import iri, literal
from trustgraph.provenance import (
    GRAPH_SOURCE,
    chunk_uri,
    derived_entity_triples,
    document_triples,
    page_uri,
    set_graph,
    subgraph_provenance_triples,
    subgraph_uri,
)
from trustgraph.schema import Triple

E = "http://trustgraph.ai/e/"
LABEL = "http://www.w3.org/2000/01/rdf-schema#label"
EXTRACTED_AT = "2026-11-28T08:15:00Z"
MODEL = "claude-sonnet-4"

LABELS = {
    "baikal": "Lake Baikal", "siberia": "Siberia", "omul": "omul", "fuji": "Mount Fuji",
    "honshu": "Honshu", "maximumDepth": "maximum depth", "locatedIn": "located in",
    "holdsShareOf": "holds share of", "russianName": "russian name", "endemicTo": "endemic to",
    "height": "height", "japaneseName": "japanese name", "lastEruption": "last eruption",
    "age": "age",
}

# Each document: id, title, mime type, pages; each page a list of chunks; each chunk its
# text and the facts extracted from it ((subject, predicate, object): object an entity key
# when it names one, else a literal).
DOCUMENTS = [
    {
        "id": "https://trustgraph.ai/doc/baikal-field-notes",
        "title": "Байкал: полевые заметки", "mime": "application/pdf",
        "pages": [
            [
                (("Озеро Байкал — самое глубокое озеро на Земле: максимальная глубина 1642 "
                  "метра. Lake Baikal in Siberia reaches a maximum depth of 1642 metres."),
                 [("baikal", "maximumDepth", "1642 metres"), ("baikal", "locatedIn", "siberia"),
                  ("baikal", "russianName", "озеро Байкал")]),
                (("Baikal holds about 23 percent of the world's unfrozen fresh surface water; "
                  "its age is estimated at 25 million years, the oldest lake on Earth."),
                 [("baikal", "holdsShareOf",
                   "about 23 percent of the world's unfrozen fresh water"),
                  ("baikal", "age", "about 25 million years")]),
            ],
            [
                (("Омуль — эндемичная рыба Байкала. The omul is a whitefish endemic to Lake "
                  "Baikal and a staple of the local fishery."),
                 [("omul", "endemicTo", "baikal")]),
            ],
        ],
    },
    {
        "id": "https://trustgraph.ai/doc/fuji-climbing-guide",
        "title": "富士登山ガイド", "mime": "application/pdf",
        "pages": [
            [
                (("富士山の標高は3776メートルで、本州にある日本最高峰の山です。Mount Fuji, on "
                  "Honshu, has a height of 3776 metres."),
                 [("fuji", "height", "3776 metres"), ("fuji", "locatedIn", "honshu"),
                  ("fuji", "japaneseName", "富士山")]),
                (("最後の噴火は1707年の宝永噴火です。The last eruption of Mount Fuji was the Hoei "
                  "eruption of 1707; the present cone is about 10,000 years old."),
                 [("fuji", "lastEruption", "1707"), ("fuji", "age", "about 10,000 years")]),
            ],
        ],
    },
    {
        "id": "https://trustgraph.ai/doc/solar-array-manual",
        "title": "Solar array maintenance manual", "mime": "application/pdf",
        "pages": [
            [
                (("Clean the solar panels every six months, or monthly in dusty regions; use "
                  "soft brushes and deionised water, never pressure washers."), []),
                (("Inspect the panel mounting bolts and cabling once a year; loose cabling is "
                  "the most common cause of output loss."), []),
            ],
            [
                (("The inverter warranty covers parts and labour for ten years from "
                  "installation; it does not cover damage from lightning or flooding."), []),
                (("Panel output warranty: at least 80 percent of rated power after 25 years. "
                  "Cleaning records may be requested when a warranty claim is made."), []),
            ],
        ],
    },
]


def entity(key: str) -> str:
    return E + key


def fact_terms(subject, predicate, obj, labels=LABELS):
    o = iri(entity(obj)) if obj in labels else literal(obj)
    return Triple(s=iri(entity(subject)), p=iri(entity(predicate)), o=o)


def load(deployment, documents=DOCUMENTS, labels=LABELS) -> dict:
    """Put a collection into the deployment's triple store and librarian: ``labels`` (entity
    key -> rdfs:label) and ``documents`` (shaped as ``DOCUMENTS``; the corpus's own by
    default). Returns ``{"chunks": {chunk IRI: text}, "documents": [{id, title, pages: [{page,
    chunks}]}]}`` (pages and chunks by IRI, in order), for the document vector store and the
    manifest."""
    store, librarian = deployment.store, deployment.librarian
    for key, label in labels.items():
        store.add(Triple(s=iri(entity(key)), p=iri(LABEL), o=literal(label)))
    chunks, layout = {}, []
    for doc in documents:
        text = "\n\n".join(c for page in doc["pages"] for c, _ in page)
        librarian.put(doc["id"], text)
        source = list(document_triples(doc["id"], title=doc["title"], mime_type=doc["mime"],
                                       page_count=len(doc["pages"])))
        entry = {"document": doc["id"], "title": doc["title"], "pages": []}
        for number, page in enumerate(doc["pages"], start=1):
            p_uri = page_uri()
            source += derived_entity_triples(p_uri, doc["id"], "pdf-decoder", "1.0.0",
                                             label=f"Page {number}", page_number=number,
                                             timestamp=EXTRACTED_AT)
            page_entry = {"page": p_uri, "chunks": []}
            page_offset = 0
            for index, (chunk_text, facts) in enumerate(page):
                c_uri = chunk_uri()
                librarian.put(c_uri, chunk_text)
                chunks[c_uri] = chunk_text
                source += derived_entity_triples(
                    c_uri, p_uri, "chunker", "1.0.0", label=f"Chunk {index}",
                    chunk_index=index, char_offset=page_offset, char_length=len(chunk_text),
                    chunk_size=1000, chunk_overlap=50, timestamp=EXTRACTED_AT)
                page_offset += len(chunk_text) + 2
                extracted = [fact_terms(*f, labels=labels) for f in facts]
                for triple in extracted:
                    store.add(triple)
                sg = None
                if extracted:
                    sg = subgraph_uri()
                    source += subgraph_provenance_triples(
                        sg, extracted, c_uri, "kg-extract-relationships", "1.0.0",
                        llm_model=MODEL, timestamp=EXTRACTED_AT)
                page_entry["chunks"].append({"chunk": c_uri, "subgraph": sg,
                                             "facts": [list(f) for f in facts]})
            entry["pages"].append(page_entry)
        for triple in set_graph(source, GRAPH_SOURCE):
            store.add(triple)
        layout.append(entry)
    return {"chunks": chunks, "documents": layout}
