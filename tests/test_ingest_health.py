"""Health after an ingest into an empty store reads each session's triples from what was just
written (``store.written_triples``) instead of asking the store: the findings must be exactly
those read from the store, and ``ingest`` must leave the same index and health rows either way."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import pyoxigraph as ox
import pytest

from tests.conftest import CORPUS, MANIFEST, SERVICES_FILES, index_tables
from tests.health_traces import BROKEN, HEALTHY, documents, healthy
from trace_explorer.analysis.health.checks import all_roots, check_sessions, entities_under
from trace_explorer.analysis.health.index import refresh_health
from trace_explorer.cli.main import main
from trace_explorer.cli.store import texts_first
from trace_explorer.read.collection import expand_paths
from trace_explorer.sources.fetch import session_triples
from trace_explorer.store.ingest import ingest_file
from trace_explorer.store.local_store import open_local_store
from trace_explorer.store.written_triples import WrittenTriples

BENCHMARKS = CORPUS.parents[1] / "benchmarks"


def _synthetic(tmp_path):
    spec = importlib.util.spec_from_file_location("ingest_health_synthetic", BENCHMARKS / "synthetic.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    made = module.generate(tmp_path / "made", 120, long_steps=(7, 3))
    return [made.nquads, made.documents]


def _broken(tmp_path, rule):
    """The healthy session beside the one built to break ``rule``, with their texts."""
    trace, texts, _ = BROKEN[rule]
    folder = tmp_path / "broken"
    folder.mkdir()
    (folder / "healthy.trig").write_text(healthy(HEALTHY), encoding="utf-8")
    (folder / "broken.trig").write_text(trace, encoding="utf-8")
    (folder / "broken.documents.json").write_text(json.dumps({**documents(HEALTHY), **texts}), encoding="utf-8")
    return sorted(folder.iterdir())


def _files(which, tmp_path):
    if which in BROKEN:
        return _broken(tmp_path, which)
    if which == "demo":
        return expand_paths([CORPUS])
    if which == "services":
        return SERVICES_FILES
    return _synthetic(tmp_path)


@pytest.mark.parametrize("which", ["demo", "services", "synthetic", *sorted(BROKEN)])
def test_sessions_read_from_memory_are_the_stores_and_so_are_their_findings(tmp_path, which):
    files = _files(which, tmp_path)
    with open_local_store(tmp_path / "store") as local:
        written = WrittenTriples.for_store(local.store, local.index)
        assert written is not None
        for path in files:
            ingest_file(local, str(path), written=written)
        assert WrittenTriples.for_store(local.store, local.index) is None  # no longer empty
        source = local.writer_source()
        roots = all_roots(source)
        assert len(roots) >= 3
        extending = entities_under(source, roots, scan=True)
        in_memory = entities_under(source, roots, typed=written.typed_iris())  # in another order: used as sets
        assert {r: sorted(e) for r, e in in_memory.items()} == {r: sorted(e) for r, e in extending.items()}
        for start in range(0, len(roots), 40):
            chunk = roots[start:start + 40]
            assert {q.triple for q in written.session_quads(chunk)} == set(session_triples(source, chunk))
            from_store = check_sessions(source, chunk, extending)
            assert check_sessions(source, chunk, extending, written.session_quads) == from_store
        findings = [f for start in range(0, len(roots), 40)
                    for f in check_sessions(source, roots[start:start + 40], extending)]
        assert which not in BROKEN or which in {f.rule for f in findings}  # the broken rule is among them


def test_ingest_leaves_the_same_rows_as_checking_from_the_store(tmp_path, capsys):
    files = [str(p) for p in _synthetic(tmp_path)]
    assert main(["ingest", *files, "--store", str(tmp_path / "fast"), "--quiet"]) == 0
    with open_local_store(tmp_path / "slow") as local:  # the store asked for every session's triples
        for path in map(str, texts_first([Path(f) for f in files])):  # in the order ``ingest`` takes them
            ingest_file(local, path)
        checked = refresh_health(local.writer_source(), after_ingest=True)
    fast, slow = index_tables(tmp_path / "fast"), index_tables(tmp_path / "slow")
    assert checked == len(fast["sessions"]) == 120
    assert len(fast["health"]) == 120 and any(row[1] or row[2] or row[3] for row in fast["health"])
    assert fast == slow


def test_past_its_limit_nothing_is_kept_and_health_asks_the_store(tmp_path):
    files = [CORPUS / "orchestrated.nq", CORPUS / "orchestrated.documents.json"]
    quads = MANIFEST["orchestrated.nq"]["quads"]
    small, large = WrittenTriples(limit=quads - 1), WrittenTriples(limit=quads + 1_000)
    rows = []
    for name, written in (("small", small), ("large", large), ("none", None)):
        with open_local_store(tmp_path / name) as local:
            for path in files:
                ingest_file(local, str(path), written=written)
            checked = refresh_health(local.writer_source(), after_ingest=True, written=written)
        assert checked == len(MANIFEST["orchestrated.nq"]["sessions"])
        rows.append(index_tables(tmp_path / name)["health"])
    assert not small.kept and small.session_quads([HEALTHY]) == [] and small.triples == 0
    texts = len(json.loads(files[1].read_text(encoding="utf-8")))
    assert large.kept and large.triples == quads + texts == 666  # counted as written: a triple in two graphs twice
    distinct = {q.triple for q in ox.parse(path=str(files[0]), format=ox.RdfFormat.N_QUADS)}  # graphs folded
    roots = [s["session"] for s in MANIFEST["orchestrated.nq"]["sessions"]]
    with open_local_store(tmp_path / "none") as local:  # the same triples as the store gives
        assert {q.triple for q in large.session_quads(roots)} == set(session_triples(local.writer_source(), roots)) <= distinct
    assert rows[0] == rows[1] == rows[2] and len(rows[0]) == len(MANIFEST["orchestrated.nq"]["sessions"])


@pytest.mark.parametrize("trace, content", [("orchestrated.nq", "orchestrated.documents.json"),
                                            ("collection.trig", "collection.documents.json")])
def test_a_content_file_ingested_after_its_traces_mends_what_its_texts_lacked(tmp_path, capsys, trace, content):
    """A content file alone, after its trace file, leaves the health rows that ingesting both at
    once leaves: the sessions whose texts it brought are checked again (their wants found in the
    file's own IRIs, ``mending.mended``'s ``only_texts_of``), the others keep their rows."""
    assert main(["ingest", str(CORPUS / trace), str(CORPUS / content), "--store", str(tmp_path / "both"),
                 "--quiet"]) == 0
    assert main(["ingest", str(CORPUS / trace), "--store", str(tmp_path / "after"), "--quiet"]) == 0
    lacking = index_tables(tmp_path / "after")["health"]
    assert any("missing-text" in row[4].split() for row in lacking)  # the trace alone lacks its texts
    assert main(["ingest", str(CORPUS / content), "--store", str(tmp_path / "after"), "--quiet"]) == 0
    both, after = index_tables(tmp_path / "both")["health"], index_tables(tmp_path / "after")["health"]
    assert after == both and after != lacking


@pytest.mark.parametrize("streamed", [False, True])
def test_texts_a_trace_file_brings_mend_with_a_trace_file_beside_it(tmp_path, monkeypatch, streamed):
    """The texts that mend a finding may come in a trace file (a store's dump: ``tg:content``
    in the documents graph) ingested with another trace file: the IRIs it gives a text to are
    the ingest's (``LoadedSource.text_iris``, read whole or a batch at a time), and the health
    rows are those of the trace and its content file ingested at once."""
    from trace_explorer.model.vocabulary import CONTENT
    from trace_explorer.sources.source import DOCUMENTS_GRAPH
    from trace_explorer.read import rdf_stream

    if streamed:
        monkeypatch.setattr(rdf_stream, "STREAM_BYTES", 0)
    trace, content = CORPUS / "collection.trig", CORPUS / "collection.documents.json"
    texts = json.loads(content.read_text(encoding="utf-8"))
    dump = tmp_path / "texts.nq"
    ox.serialize([ox.Quad(ox.NamedNode(iri), ox.NamedNode(CONTENT), ox.Literal(text), ox.NamedNode(DOCUMENTS_GRAPH))
                  for iri, text in texts.items()], str(dump), ox.RdfFormat.N_QUADS)
    assert main(["ingest", str(trace), str(content), str(CORPUS / "orchestrated.nq"), "--store",
                 str(tmp_path / "both"), "--quiet"]) == 0
    store = tmp_path / "later"
    assert main(["ingest", str(trace), "--store", str(store), "--quiet"]) == 0
    lacking = index_tables(store)["health"]
    assert any("missing-text" in row[4].split() for row in lacking)
    with open_local_store(store) as local:
        done = ingest_file(local, str(dump))
    assert sorted(done.text_iris) == sorted(texts)
    store = tmp_path / "mixed"
    assert main(["ingest", str(trace), "--store", str(store), "--quiet"]) == 0
    assert main(["ingest", str(dump), str(CORPUS / "orchestrated.nq"), "--store", str(store), "--quiet"]) == 0
    assert index_tables(store)["health"] == index_tables(tmp_path / "both")["health"] != lacking


def test_a_check_that_did_not_follow_its_ingest_is_made_by_the_next_one(tmp_path, capsys):
    """A content file that went in without its health check (``--no-health`` here; a Ctrl-C or
    a kill after the write is the same) leaves the findings its texts mend; the next ingest,
    even of a file already in the store, looks them all up and mends them."""
    trace, content = CORPUS / "collection.trig", CORPUS / "collection.documents.json"
    assert main(["ingest", str(trace), str(content), "--store", str(tmp_path / "both"), "--quiet"]) == 0
    store = str(tmp_path / "later")
    assert main(["ingest", str(trace), "--store", store, "--quiet"]) == 0
    lacking = index_tables(tmp_path / "later")["health"]
    assert main(["ingest", str(content), "--store", store, "--quiet", "--no-health"]) == 0
    assert index_tables(tmp_path / "later")["health"] == lacking  # not looked at yet
    assert main(["ingest", str(content), "--store", store]) == 0
    assert "already in the store, nothing added" in capsys.readouterr().err
    assert index_tables(tmp_path / "later")["health"] == index_tables(tmp_path / "both")["health"] != lacking
    with open_local_store(tmp_path / "later") as local:
        from trace_explorer.index.insights import mending_due

        assert not mending_due(local.index)
