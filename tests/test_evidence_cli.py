"""``trace-explorer evidence`` and ``used-by`` on files, a local store and a real Virtuoso.

The shared Virtuoso (``virtuoso_url``) holds the corpus without its quoted triples, as such a
server must: there a chosen edge is not stored, so nothing can lead from it. A second Virtuoso
holds a damaged whole-collection dump of ``evidence.trig`` (every quoted triple a string
literal), the DocRAG sessions of ``tests/evidence_traces.py`` and the chunks' texts in the
documents graph: there the lineage is recovered from the literals, both ways."""

from __future__ import annotations

import json

import pyoxigraph as ox
import pytest

from tests.conftest import file_graph
from tests.evidence_traces import (AGENT, BRONZE, CHUNK_B1, CHUNK_T1, DOCRAG_PLAIN, DOCRAG_RERANKED, EVIDENCE, EVIDENCE_TEXTS,
                                   GRAPHRAG_BRONZE, GRAPHRAG_TRAPPIST, SUB_GRAPHRAG, TIN, TRAPPIST, damaged_dump,
                                   docrag_trig)
from tests.test_evidence import EXPECTED, TEXTS, expected_edges
from trace_explorer.cli.main import main
from trace_explorer.sources.source import CONTENT, DOCUMENTS_GRAPH

FILES = [str(EVIDENCE), str(EVIDENCE_TEXTS)]
USED_TRAPPIST = [
    {"id": SUB_GRAPHRAG, "via": "urn:trustgraph:prov:focus:b153d69c-3e01-4aa6-9949-8ac4482cc78e", "edges": 2, "chunks": 0},
    {"id": AGENT, "via": SUB_GRAPHRAG, "edges": 2, "chunks": 0},
    {"id": GRAPHRAG_TRAPPIST, "via": "urn:trustgraph:prov:focus:83a4e629-3080-4889-ba61-97748d118e37", "edges": 3,
     "chunks": 0},
]


def run(capsys, *argv) -> tuple[int, str, str]:
    status = main([str(a) for a in argv])
    out = capsys.readouterr()
    return status, out.out, out.err


def run_json(capsys, *argv):
    status, out, err = run(capsys, *argv)
    assert status == 0, err
    return json.loads(out)


@pytest.fixture(scope="module")
def damaged_virtuoso(tmp_path_factory):
    """A Virtuoso holding ``damaged_dump()`` and the DocRAG sessions, and the texts."""
    from tests.virtuoso_support import virtuoso_endpoint

    work = tmp_path_factory.mktemp("evidence-virtuoso")
    dump = work / "dump.ttl"
    dump.write_text(damaged_dump(), encoding="utf-8")
    docrag = work / "docrag.trig"
    docrag.write_text(docrag_trig(), encoding="utf-8")
    quads = []
    for path in (dump, docrag):
        loaded = ox.parse(path.read_bytes(), format=ox.RdfFormat.TRIG)  # as written: the literals stay
        graph = ox.NamedNode(f"urn:evidence:{path.name}")
        quads += [ox.Quad(q.subject, q.predicate, q.object, graph) for q in loaded]
    assert not any(isinstance(q.object, ox.Triple) for q in quads)
    quads += [ox.Quad(ox.NamedNode(d), ox.NamedNode(CONTENT), ox.Literal(t), ox.NamedNode(DOCUMENTS_GRAPH))
              for d, t in TEXTS.items()]
    with virtuoso_endpoint(work / "server", ox.serialize(quads, format=ox.RdfFormat.N_QUADS)) as url:
        yield url


@pytest.fixture(params=("files", "store"))
def local_args(request):
    """Files, or the local store the evidence file and its texts were ingested into."""
    if request.param == "files":
        return FILES
    return ["--store", str(request.getfixturevalue("corpus_stores")["evidence.trig"])]


@pytest.mark.parametrize("session", [GRAPHRAG_TRAPPIST, GRAPHRAG_BRONZE, SUB_GRAPHRAG])
def test_evidence_json_matches_the_manifest(capsys, local_args, session):
    record = run_json(capsys, "evidence", *local_args, "--session", session, "--format", "json")
    assert record == {"session": session, "edges": expected_edges(EXPECTED[session]), "chunks": [],
                      "documents": EXPECTED[session]["documents_used"]}


def test_evidence_of_an_agent_by_a_part_of_its_iri(capsys, local_args):
    record = run_json(capsys, "evidence", *local_args, "--session", "4ecadea2", "--format", "json")
    assert record["session"] == AGENT
    assert record["edges"] == expected_edges(EXPECTED[SUB_GRAPHRAG])
    assert record["documents"] == [TRAPPIST]


def test_used_by_json(capsys, local_args):
    assert run_json(capsys, "used-by", *local_args, "--document", TRAPPIST, "--format", "json") == USED_TRAPPIST
    assert run_json(capsys, "used-by", *local_args, "--document", f"<{BRONZE}>", "--format", "json") == [
        {"id": GRAPHRAG_BRONZE, "via": "urn:trustgraph:prov:focus:6ea330a1-a66d-48b5-91a4-c01ea887ae22",
         "edges": 2, "chunks": 0}]


def test_text_formats(capsys):
    status, out, _ = run(capsys, "evidence", *FILES, "--session", GRAPHRAG_BRONZE)
    assert status == 0
    assert "3 edges chosen (2 held by a loaded extraction), 0 chunks, 1 document" in out
    assert "document   The Late Bronze Age collapse (application/pdf)  <" + BRONZE + ">" in out
    assert "«sea-peoples» «raided» «http://trustgraph.ai/e/ugarit». «ugarit» destroyed-in 1185 BC." in out
    assert "extracted  kg-extract-relationships 2.11.1, gpt-4o-mini, 2026-03-10T08:23:10Z" in out
    assert out.count("no loaded extraction holds this edge") == 1
    status, out, _ = run(capsys, "used-by", *FILES, "--document", TRAPPIST)
    assert status == 0
    assert out.startswith(f"Sessions that used Trappist breweries of Belgium  <{TRAPPIST}>: 3\n")
    assert f"2 edges, 0 chunks, through {SUB_GRAPHRAG}" in out
    # a unique part of the IRI (its UUID's first block), as --session takes
    assert run(capsys, "used-by", *FILES, "--document", TRAPPIST.rsplit("/", 1)[1][:8])[1] == out


def test_bad_input(capsys):
    status, _, err = run(capsys, "used-by", *FILES, "--document", "not an iri")
    assert status == 2 and "--document 'not an iri': not an IRI, nor a part of exactly one document's IRI" in err
    status, _, err = run(capsys, "used-by", *FILES, "--document", "trustgraph.ai/doc/")  # part of both documents
    assert status == 2 and "it is part of 2:" in err and TRAPPIST in err
    status, out, err = run(capsys, "used-by", *FILES, "--document", "https://trustgraph.ai/doc/none", "--format", "json")
    assert status == 0 and json.loads(out) == [] and "holds nothing about https://trustgraph.ai/doc/none" in err
    status, _, err = run(capsys, "evidence", *FILES, "--session", "no-such-session")
    assert status == 2 and "no session 'no-such-session'" in err


def test_export_draws_the_evidence_branch(capsys, tmp_path):
    image, page = tmp_path / "dag.svg", tmp_path / "page.html"
    status, _, err = run(capsys, "export", *FILES, "--session", GRAPHRAG_TRAPPIST, "--evidence",
                         "--image", image, "--html", page)
    assert status == 0, err
    svg = image.read_text(encoding="utf-8")
    for label in ("Chunk 0", "Chunk 1", "Chunk 2", "Page 1", "Page 2", "Trappist breweries of Belgium", "extractedFrom"):
        assert f">{label}<" in svg, label
    html = page.read_text(encoding="utf-8")
    assert '<section id="evidence">' in html and "<mark>westmalle</mark>" in html
    status, _, _ = run(capsys, "export", *FILES, "--session", GRAPHRAG_TRAPPIST, "--image", tmp_path / "plain.svg")
    assert status == 0 and ">Chunk 0<" not in (tmp_path / "plain.svg").read_text(encoding="utf-8")


def test_shared_virtuoso_without_quoted_triples_has_nothing_to_follow(capsys, virtuoso_url):
    """The corpus on a server that cannot hold quoted triples: each chosen edge is there as a
    selection without its edge, so every link is null (and said so), never a wrong document."""
    args = ["--endpoint", virtuoso_url, "--graph", file_graph("evidence.trig"), "--no-quoted-triples",
            str(EVIDENCE_TEXTS)]
    record = run_json(capsys, "evidence", *args, "--session", GRAPHRAG_TRAPPIST, "--format", "json")
    assert record == {"session": GRAPHRAG_TRAPPIST, "edges": [dict.fromkeys(
        ("s", "p", "o", "subgraph", "chunk", "page", "document", "title", "chunk_text"))] * 3,
        "chunks": [], "documents": []}
    assert run_json(capsys, "used-by", *args, "--document", TRAPPIST, "--format", "json") == []


def test_virtuoso_holding_a_damaged_dump_resolves_both_ways(capsys, damaged_virtuoso):
    args = ["--endpoint", damaged_virtuoso, "--no-quoted-triples"]
    for session in (GRAPHRAG_TRAPPIST, GRAPHRAG_BRONZE):
        record = run_json(capsys, "evidence", *args, "--session", session, "--format", "json")
        assert record["edges"] == expected_edges(EXPECTED[session])
        assert record["documents"] == EXPECTED[session]["documents_used"]
    assert run_json(capsys, "evidence", *args, "--session", AGENT, "--format", "json")["documents"] == [TRAPPIST]
    docrag = run_json(capsys, "evidence", *args, "--session", DOCRAG_RERANKED, "--format", "json")
    assert [c["chunk"] for c in docrag["chunks"]] == [CHUNK_T1[0], CHUNK_B1[0]]
    assert docrag["chunks"][1]["title"] == "The Late Bronze Age collapse"
    assert docrag["chunks"][0]["chunk_text"] == TEXTS[CHUNK_T1[0]]
    used = run_json(capsys, "used-by", *args, "--document", TRAPPIST, "--format", "json")
    assert [u for u in used if u["id"] != DOCRAG_PLAIN
            and u["id"] != DOCRAG_RERANKED] == USED_TRAPPIST
    assert {u["id"]: u["chunks"] for u in used if u["chunks"]} == {
        DOCRAG_RERANKED: 1, DOCRAG_PLAIN: 2}
    # the edge no document holds is recovered from its literal, with no links
    bronze = run_json(capsys, "evidence", *args, "--session", GRAPHRAG_BRONZE, "--format", "json")
    assert [bronze["edges"][2][k] for k in ("s", "p", "o", "document")] == [*TIN, None]

