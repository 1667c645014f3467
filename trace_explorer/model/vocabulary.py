"""IRIs of the vocabularies TrustGraph traces use (TRACE-MODEL.md, "Prefixes").

Each constant is a plain IRI string; ``node(iri)`` gives the pyoxigraph term for it.
"""

from __future__ import annotations

import pyoxigraph as ox

PROV = "http://www.w3.org/ns/prov#"
TG = "https://trustgraph.ai/ns/"
RDF = "http://www.w3.org/1999/02/22-rdf-syntax-ns#"
RDFS = "http://www.w3.org/2000/01/rdf-schema#"
DC = "http://purl.org/dc/elements/1.1/"
XSD = "http://www.w3.org/2001/XMLSchema#"

RDF_TYPE = RDF + "type"
RDF_REIFIES = RDF + "reifies"
RDFS_LABEL = RDFS + "label"

# PROV-O
PROV_ENTITY = PROV + "Entity"
PROV_ACTIVITY = PROV + "Activity"
PROV_AGENT = PROV + "Agent"
WAS_DERIVED_FROM = PROV + "wasDerivedFrom"
WAS_GENERATED_BY = PROV + "wasGeneratedBy"
WAS_ASSOCIATED_WITH = PROV + "wasAssociatedWith"
USED = PROV + "used"
STARTED_AT_TIME = PROV + "startedAtTime"
ENDED_AT_TIME = PROV + "endedAtTime"

# TrustGraph classes
QUESTION = TG + "Question"
GRAPH_RAG_QUESTION = TG + "GraphRagQuestion"
DOC_RAG_QUESTION = TG + "DocRagQuestion"
AGENT_QUESTION = TG + "AgentQuestion"

# TrustGraph properties
QUERY = TG + "query"
DOCUMENT = TG + "document"
CONTENT = TG + "content"
EDGE = TG + "edge"
CONTAINS = TG + "contains"
REIFIES = TG + "reifies"
SELECTED_EDGE = TG + "selectedEdge"
SELECTED_CHUNK = TG + "selectedChunk"
THOUGHT = TG + "thought"
OBSERVATION = TG + "observation"
ANSWER = TG + "answer"

# Extraction provenance (TRACE-MODEL.md, "Extraction provenance")
DC_TITLE = DC + "title"
MIME_TYPE = TG + "mimeType"
PAGE_NUMBER = TG + "pageNumber"
CHUNK_INDEX = TG + "chunkIndex"
LLM_MODEL = TG + "llmModel"
COMPONENT_VERSION = TG + "componentVersion"

# Predicates whose object is a quoted triple (TRACE-MODEL.md, "Quoted triples come in four
# spellings"): a damaged export writes these as string literals, which we recover. An extracted
# fact is held by its Subgraph through ``tg:contains``, or (older extractors, and what
# TrustGraph's workbench matches on) by a statement through ``tg:reifies``.
QUOTED_TRIPLE_PREDICATES = frozenset({EDGE, CONTAINS, REIFIES})

# Named graphs TrustGraph writes (TRACE-MODEL.md, "Named graphs").
RETRIEVAL_GRAPH = "urn:graph:retrieval"
SOURCE_GRAPH = "urn:graph:source"


def node(iri: str) -> ox.NamedNode:
    """Return the pyoxigraph NamedNode for ``iri``."""
    return ox.NamedNode(iri)


def local_name(iri: str) -> str:
    """Return the part of ``iri`` after the last ``#`` or ``/`` (``tg:Analysis`` -> ``Analysis``)."""
    for sep in ("#", "/"):
        if sep in iri:
            iri = iri.rsplit(sep, 1)[1]
    return iri
