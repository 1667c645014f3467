"""A session's data exported from a local store is the export of the files that filled it: the
same quads, and the same ``.documents.json`` sidecar of the texts they point at (the store keeps
those texts as quads of its documents graph, which are never exported as the session's own)."""

from __future__ import annotations

import json

import pytest

from tests.conftest import demo_sessions
from trace_explorer.cli.main import main
from trace_explorer.export.data import export_session_data
from trace_explorer.model.reader import read_sessions
from trace_explorer.read.collection import load_collection
from trace_explorer.sources.demo import demo_paths
from trace_explorer.store.ingest import ingest_file
from trace_explorer.store.local_store import local_source, open_local_store
from trace_explorer.sources.source import DOCUMENTS_GRAPH
from trace_explorer.sources.source_texts import SourceTexts
from trace_explorer.read.collection import TraceStore

TOP = [s["session"] for s in demo_sessions() if s["parent"] is None]


@pytest.fixture(scope="module")
def both(tmp_path_factory):
    """The demo read from its files, and from a local store made of them."""
    files, errors = load_collection(demo_paths())
    assert not errors
    path = tmp_path_factory.mktemp("export") / "store"
    with open_local_store(path) as local:
        for name in demo_paths():
            ingest_file(local, str(name))
    source = local_source(path)
    stored = TraceStore(store=source.store, documents=SourceTexts(source))
    return files, stored, {s.id: s for s in read_sessions(files)}, path


def test_every_session_exports_the_same_quads_and_texts_from_the_store(both):
    files, stored, sessions, _ = both
    with_texts = 0
    for root in TOP:
        want = export_session_data(files, sessions[root], sessions, ".nq")
        got = export_session_data(stored, sessions[root], sessions, ".nq")
        assert DOCUMENTS_GRAPH.encode() not in got.data, root
        assert (got.data, got.quads, got.documents) == (want.data, want.quads, want.documents), root
        with_texts += bool(want.documents)
    assert with_texts >= len(TOP) // 2  # most sessions point at texts: the sidecar is not empty by chance


def test_the_command_line_writes_the_sidecar_from_a_store(both, tmp_path, capsys):
    files, _, sessions, store = both
    root = next(r for r in TOP if export_session_data(files, sessions[r], sessions, ".nq").documents)
    want = export_session_data(files, sessions[root], sessions, ".trig")
    assert main(["export", "--store", str(store), "--session", root, "--data", str(tmp_path / "s.trig")]) == 0
    assert f"and {tmp_path / 's.documents.json'} ({len(want.documents)} texts)" in capsys.readouterr().err
    assert (tmp_path / "s.trig").read_bytes() == want.data
    assert json.loads((tmp_path / "s.documents.json").read_text(encoding="utf-8")) == want.documents
