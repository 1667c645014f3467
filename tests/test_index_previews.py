"""The session index keeps each answer's preview when the store has its text, whichever order
the texts come in, so a page of the list asks the store for none (``index_previews``); an index
that cannot say so has its pages' previews looked up as before."""

from __future__ import annotations

import json

import pyoxigraph as ox
import pytest

from tests.conftest import CORPUS, manifest_sessions
from trace_explorer.model.reader import read_sessions
from trace_explorer.model.summary import answer_preview
from trace_explorer.read import rdf_stream
from trace_explorer.read.collection import expand_paths, load_collection
from trace_explorer.index import previews as index_previews
from trace_explorer.sources import store_source as store_module
from trace_explorer.index.catalog import SessionFilter, list_sessions
from trace_explorer.store.ingest import ingest_file
from trace_explorer.store.local_store import open_local_store
from trace_explorer.sources.source import CONTENT, DOCUMENTS_GRAPH

ALL = SessionFilter(include_sub=True)


@pytest.fixture(scope="module")
def expected() -> dict[str, str | None]:
    """Each session's answer preview, read with every text of the corpus."""
    whole, errors = load_collection([CORPUS])
    assert not errors
    return {s.id: answer_preview(s.answer) for s in read_sessions(whole)}


def _kept(local) -> dict[str, str | None]:
    """The previews the index holds, read without the page's look-ups."""
    return {row["id"]: row["answer_preview"] for row in local.index.page(ALL, limit=0)}


def _content_as_quads(tmp_path) -> list:
    """The corpus's content files as one N-Quads file of the documents graph (how a store, an
    export or ``sync`` keeps texts), for ingest after the traces."""
    quads = []
    for path in sorted(CORPUS.glob("*.documents.json")):
        for document, text in json.loads(path.read_text(encoding="utf-8")).items():
            quads.append(ox.Quad(ox.NamedNode(document), ox.NamedNode(CONTENT), ox.Literal(text),
                                 ox.NamedNode(DOCUMENTS_GRAPH)))
    path = tmp_path / "texts.nq"
    path.write_bytes(ox.serialize(quads, format=ox.RdfFormat.N_QUADS))
    return [path]


def _traces_alone(path):
    """A store of the corpus's trace files without their content files."""
    local = open_local_store(path)
    for file in expand_paths([CORPUS]):
        if not file.name.endswith(".documents.json"):
            ingest_file(local, str(file))
    return local


def _no_look_ups(monkeypatch):
    def refuse(self, iris):
        raise AssertionError("a page asked the store for its answers' texts")
    monkeypatch.setattr(store_module.StoreSource, "entity_texts", refuse)


@pytest.mark.parametrize("texts", ["content files first", "content files after", "documents graph after"])
def test_the_index_keeps_every_preview_whichever_order_the_texts_come_in(tmp_path, texts, expected, monkeypatch):
    paths = expand_paths([CORPUS])
    traces = [p for p in paths if not p.name.endswith(".documents.json")]
    content = [p for p in paths if p.name.endswith(".documents.json")]
    order = {"content files first": content + traces, "content files after": traces + content,
             "documents graph after": traces + _content_as_quads(tmp_path)}[texts]
    local = open_local_store(tmp_path / "s")
    for path in order:
        ingest_file(local, str(path))
    assert local.index.previews_complete()
    assert set(_kept(local)) == {s["session"] for s in manifest_sessions()}
    assert _kept(local) == expected
    with_texts = [i for i, p in expected.items() if p]
    assert len(with_texts) >= 10 and any(expected[i].startswith("Routes linked Lübeck") for i in with_texts)
    _no_look_ups(monkeypatch)
    rows = list_sessions(local.source(), ALL, limit=0).rows
    assert {r["id"]: r["answer_preview"] for r in rows} == expected


def test_before_the_texts_come_the_index_has_no_preview_for_them_and_says_it_has_all(tmp_path, expected):
    local = _traces_alone(tmp_path / "s")
    kept = _kept(local)
    # the answers kept inline (the seed shape) have theirs; those in a text the store lacks none
    assert local.index.previews_complete()
    assert {i for i, p in kept.items() if p} < {i for i, p in expected.items() if p}
    assert all(kept[i] in (None, p) for i, p in expected.items())
    assert list_sessions(local.source(), ALL, limit=0).rows == local.index.page(ALL, limit=0)


def test_a_streamed_file_bringing_texts_to_a_store_that_had_traces_fills_previews_and_words(tmp_path, expected):
    local = _traces_alone(tmp_path / "s")
    before = _kept(local)
    assert {i for i, p in before.items() if p} < {i for i, p in expected.items() if p}
    found = list_sessions(local.source(), SessionFilter(text="answer:Elbrus", include_sub=True), limit=0).rows
    assert found == []  # the answers' texts are not in yet
    with pytest.MonkeyPatch.context() as streamed:
        streamed.setattr(rdf_stream, "STREAM_BYTES", 0)  # every N-Quads file read a batch at a time
        streamed.setattr(rdf_stream, "BATCH", 50)
        ingest_file(local, str(_content_as_quads(tmp_path)[0]))
    # the streamed write re-reads no session: it adds the words and previews its texts bring
    assert local.index.previews_complete() and _kept(local) == expected
    elbrus = list_sessions(local.source(), SessionFilter(text="answer:Elbrus", include_sub=True), limit=0).rows
    assert sorted(r["id"] for r in elbrus) == sorted(s["session"] for s in manifest_sessions()
                                                     if s["question"].startswith("¿Cuál es la montaña más alta"))
    whole = open_local_store(tmp_path / "whole")  # the same files read together: the same words
    for path in expand_paths([CORPUS]):
        ingest_file(whole, str(path))
    def words(index):  # each field's lines as a set: texts added later come after the row's own
        return {r["root"]: {f: set(t.split("\n")) for f, t in r["search"].items()} for r in index.rows()}
    assert words(local.index) == words(whole.index)


def test_an_index_without_the_mark_has_its_pages_previews_looked_up(tmp_path, expected):
    local = _traces_alone(tmp_path / "s")
    with local.index._db:  # as an index made before the mark existed
        index_previews.mark(local.index._db, False)
    for path in expand_paths([CORPUS]):
        if path.name.endswith(".documents.json"):
            ingest_file(local, str(path))
    assert not local.index.previews_complete()
    rows = list_sessions(local.source(), ALL, limit=0).rows
    assert {r["id"]: r["answer_preview"] for r in rows} == expected
