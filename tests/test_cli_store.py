"""``trace-explorer ingest`` into a local store, paging with --limit/--offset, and source errors."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pyoxigraph as ox
import pytest

from tests.conftest import CORPUS, MANIFEST, manifest_sessions
from trace_explorer.cli.main import main
from trace_explorer.read.files import read_trace_file
from trace_explorer.read.limits import NO_LIMIT
from trace_explorer.store.local_store import open_local_store

TOP = sorted((s for s in manifest_sessions() if s["parent"] is None), key=lambda s: s["started"], reverse=True)


def test_ingest_then_page_through_the_store(tmp_path, capsys):
    store = tmp_path / "store"
    assert main(["ingest", str(CORPUS), "--store", str(store)]) == 0
    err = capsys.readouterr().err
    assert "collection.trig: 670 quads, 0 texts (TriG)" in err and "collection.documents.json: 0 quads, 36 texts" in err
    assert "ingest" in err and "B/s" in err  # tqdm's bar, by bytes
    first = json.loads(_out(capsys, ["list", "--store", str(store), "--limit", "5", "--format", "json"]))
    second = json.loads(_out(capsys, ["list", "--store", str(store), "--limit", "5", "--offset", "5", "--format", "json"]))
    assert [r["id"] for r in first + second] == [s["session"] for s in TOP[:10]]
    table = _out(capsys, ["list", "--store", str(store), "--limit", "5"])
    assert f"sessions 1-5 of {len(TOP)} (--offset or --limit 0 for more)" in table
    everything = json.loads(_out(capsys, ["list", "--store", str(store), "--limit", "0", "--all", "--format", "json"]))
    assert len(everything) == len(manifest_sessions())


def test_ingest_twice_adds_nothing_and_a_bad_file_changes_nothing(tmp_path, capsys):
    store = tmp_path / "store"
    bad = tmp_path / "bad.nq"
    bad.write_bytes((CORPUS / "orchestrated.nq").read_bytes()[:3000] + b"<broken")
    assert main(["ingest", str(CORPUS / "seed-sessions.ttl"), "--store", str(store), "--quiet"]) == 0
    before = _out(capsys, ["list", "--store", str(store), "--all", "--format", "json"])
    assert main(["ingest", str(CORPUS / "seed-sessions.ttl"), str(bad), "--store", str(store), "--quiet"]) == 1
    # --quiet: the error alone, no line for the file already in
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1 and err[0].startswith("trace-explorer: ") and "bad.nq:" in err[0], err
    assert _out(capsys, ["list", "--store", str(store), "--all", "--format", "json"]) == before
    shown = json.loads(_out(capsys, ["show", "--store", str(store), "--session", "6513270e-269e-4d37-b2a7-4de452e6b438",
                                     "--format", "json"]))
    assert shown["answer"] == "Paris is the capital of France."


def test_source_errors_are_clear(tmp_path, capsys):
    assert main(["list", "--store", str(tmp_path / "missing")]) == 2
    assert "no store at" in capsys.readouterr().err
    assert main(["list", "--endpoint", "http://127.0.0.1:9/sparql", "--timeout", "2"]) == 2
    assert "endpoint http://127.0.0.1:9/sparql" in capsys.readouterr().err
    assert main(["list", "--store", str(tmp_path), "--endpoint", "http://x/"]) == 2
    assert "not both" in capsys.readouterr().err
    assert main(["list"]) == 2
    assert "give trace files, --demo, --store DIR, --endpoint URL or --trustgraph URL" in capsys.readouterr().err


def _out(capsys, argv) -> str:
    assert main(argv) == 0
    return capsys.readouterr().out


def test_ingest_of_a_local_file_has_no_size_limit(tmp_path, capsys, monkeypatch):
    """The upload limits (file as given, text expanded) do not apply to a person's own files:
    with both set far below the files, ``ingest`` takes a plain file over the file limit and a
    ``.gz`` whose text is over the expanded limit."""
    import gzip

    monkeypatch.setenv("TRACE_EXPLORER_MAX_FILE_MB", "0.001")  # 1,048 bytes
    monkeypatch.setenv("TRACE_EXPLORER_MAX_EXPANDED_MB", "0.002")  # 2,097 bytes
    seed = (CORPUS / "seed-sessions.ttl").read_bytes()
    plain, packed = tmp_path / "seed-sessions.ttl", tmp_path / "orchestrated.nq.gz"
    plain.write_bytes(seed)
    packed.write_bytes(gzip.compress((CORPUS / "orchestrated.nq").read_bytes()))
    assert len(seed) > 2_097 and packed.stat().st_size > 1_048
    store = tmp_path / "store"
    assert main(["ingest", str(plain), str(packed), "--store", str(store)]) == 0
    err = capsys.readouterr().err
    quads = {name: MANIFEST[name]["quads"] for name in ("seed-sessions.ttl", "orchestrated.nq")}
    assert f"seed-sessions.ttl: {quads['seed-sessions.ttl']:,} quads" in err
    assert f"orchestrated.nq.gz: {quads['orchestrated.nq']:,} quads" in err
    distinct = set(read_trace_file(str(plain), file_limit=NO_LIMIT, max_bytes=NO_LIMIT).quads)
    distinct |= set(ox.parse((CORPUS / "orchestrated.nq").read_bytes(), format=ox.RdfFormat.N_QUADS))
    assert len(distinct) == sum(quads.values()) - 17  # orchestrated.nq repeats 17 lines
    assert f"ingested 2 files, {len(distinct):,} quads, 0 texts, " in err
    listed = json.loads(_out(capsys, ["list", "--store", str(store), "--all", "--limit", "0", "--format", "json"]))
    expected = [s for s in manifest_sessions() if s["file"] in quads]
    assert sorted(r["id"] for r in listed) == sorted(s["session"] for s in expected)


SUFFIXES = ("*.ttl, *.turtle, *.trig, *.nq, *.nquads, *.nt, *.ntriples, *.n3, *.jsonld, *.json-ld, *.rdf, *.xml, "
            "*.owl, *.json (any of them may end in .gz)")


def test_a_folder_without_trace_files_is_said_to_hold_none(tmp_path, capsys):
    empty, store = tmp_path / "empty", tmp_path / "store"
    empty.mkdir()
    (empty / "notes.txt").write_text("not a trace")
    assert main(["ingest", str(empty), "--store", str(store)]) == 2
    assert capsys.readouterr().err == (f"trace-explorer: {empty}: expected trace or content files, named {SUFFIXES}; "
                                       "found none in this folder\n")
    assert not store.exists()  # nothing to ingest: no store made
    assert main(["ingest", str(empty), str(CORPUS / "orchestrated.nq"), "--store", str(store), "--quiet"]) == 0
    assert capsys.readouterr().err.splitlines() == [  # --quiet: the warning alone
        f"trace-explorer: warning: {empty}: expected trace or content files, named {SUFFIXES}; found none in this folder"]


def test_a_path_that_is_no_regular_file_is_refused_and_the_others_ingest(tmp_path, capsys):
    """A link to /dev/zero (bytes without end) and a named pipe no one writes to (a read that
    waits for ever) are each refused with one line, before they are opened, in a process that
    would otherwise never end."""
    zero, pipe, store = tmp_path / "zero.nq", tmp_path / "pipe.ttl", tmp_path / "store"
    zero.symlink_to("/dev/zero")
    os.mkfifo(pipe)
    good = CORPUS / "orchestrated.nq"
    done = subprocess.run([sys.executable, "-m", "trace_explorer.cli", "ingest", str(zero), str(pipe), str(good),
                           "--store", str(store), "--quiet"], capture_output=True, text=True, timeout=120,
                          cwd=Path(__file__).resolve().parents[1])
    assert done.returncode == 1
    assert done.stderr.splitlines() == [
        f"trace-explorer: {zero}: expected a regular file; this is a character device (/dev/zero), not a regular file",
        f"trace-explorer: {pipe}: expected a regular file; this is a named pipe (FIFO), not a regular file"]
    listed = json.loads(_out(capsys, ["list", "--store", str(store), "--all", "--limit", "0", "--format", "json"]))
    assert sorted(r["id"] for r in listed) == sorted(s["session"] for s in manifest_sessions("orchestrated.nq"))


def test_a_local_content_file_has_no_cap_on_its_values(tmp_path, monkeypatch, capsys):
    """The cap on JSON values held (``json_stream.MAX_JSON_VALUES``) is for uploads and fetched
    files: a user's own content file of any size ingests (here the cap is made 20 values)."""
    from trace_explorer.read import files as read_files
    from trace_explorer.read.errors import TraceLoadError

    monkeypatch.setattr(read_files, "MAX_JSON_VALUES", 20)
    texts = {f"urn:trustgraph:doc:{n}": f"text number {n}" for n in range(50)}
    path = tmp_path / "many.documents.json"
    path.write_text(json.dumps(texts), encoding="utf-8")
    with pytest.raises(TraceLoadError, match="at most 20 values held at once"):
        read_trace_file(path.name, path.read_bytes())  # as an upload is read
    assert main(["ingest", str(path), "--store", str(tmp_path / "store")]) == 0
    assert "many.documents.json: 0 quads, 50 texts" in capsys.readouterr().err


def test_a_content_file_value_that_is_no_string_is_refused_alike_on_every_path(tmp_path, monkeypatch, capsys):
    """A content file with a value that is no string: the command line, an upload read in a
    worker and an upload saved into a local store (the app) each give the one line naming the
    file, the value's line and column, its key and what it is instead, and add nothing. Text too
    long to read again (``_PLACED_BYTES``) is named without the place."""
    from trace_explorer.read import json_files
    from trace_explorer.read.errors import TraceLoadError
    from trace_explorer.read.worker import read_in_worker
    from trace_explorer.store.ingest import ingest_file

    data = b'{"urn:trustgraph:doc:1": "a text",\n "urn:trustgraph:doc:2": ["not", "a", "text"]}\n'
    path, store = tmp_path / "texts.documents.json", tmp_path / "store"
    path.write_bytes(data)
    words = ("expected a JSON string (the document's text) as the value of \"urn:trustgraph:doc:2\"; "
             "found an array of 3 items")
    assert main(["ingest", str(path), "--store", str(store), "--quiet"]) == 1
    assert capsys.readouterr().err == f"trace-explorer: {path}:2:26: {words}\n"
    with pytest.raises(TraceLoadError) as refused:
        read_in_worker(path.name, data)
    assert str(refused.value) == f"{path.name}:2:26: {words}"
    with open_local_store(store) as local:
        with pytest.raises(TraceLoadError) as refused:
            ingest_file(local, path.name, data, untrusted=True)
        assert str(refused.value) == f"{path.name}:2:26: {words}" and local.texts() == 0 and len(local) == 0
    monkeypatch.setattr(json_files, "_PLACED_BYTES", len(data) - 1)
    with pytest.raises(TraceLoadError) as refused:
        read_trace_file(path.name, data)
    assert str(refused.value) == f"{path.name}: {words}"


def test_a_content_file_key_given_again_with_another_text_is_refused_alike_on_every_path(tmp_path, monkeypatch,
                                                                                           capsys):
    """A document IRI given twice in a content file with different texts: the command line (plain,
    ``.gz``, with a byte order mark), an upload read in a worker and an upload saved into a local
    store each refuse the file in one line at the second key, with the line of the first, and
    the store keeps what it held. The same text given twice is taken. Text too long to read
    again (``_PLACED_BYTES``) is named without the places."""
    import gzip

    from trace_explorer.read import json_files
    from trace_explorer.read.errors import TraceLoadError
    from trace_explorer.read.worker import read_in_worker
    from trace_explorer.store.ingest import ingest_file

    data = b'{"urn:trustgraph:doc:1": "a text",\n "urn:trustgraph:doc:2": "b",\n  "urn:trustgraph:doc:1": "c"}\n'
    words = 'expected one text for each document IRI; the key "urn:trustgraph:doc:1" is given again, with another text'
    store = tmp_path / "store"
    first = tmp_path / "first.documents.json"
    first.write_text('{"urn:trustgraph:doc:0": "kept"}')
    assert main(["ingest", str(first), "--store", str(store), "--quiet"]) == 0
    for name, written in (("texts.documents.json", data), ("texts.documents.json.gz", gzip.compress(data)),
                          ("marked.documents.json", b"\xef\xbb\xbf" + data)):
        path = tmp_path / name
        path.write_bytes(written)
        capsys.readouterr()
        assert main(["ingest", str(path), "--store", str(store), "--quiet"]) == 1
        assert capsys.readouterr().err == f"trace-explorer: {path}:3:3: {words} (first at line 1)\n"
    with pytest.raises(TraceLoadError) as refused:
        read_in_worker("texts.documents.json", data)
    assert str(refused.value) == f"texts.documents.json:3:3: {words} (first at line 1)"
    with open_local_store(store) as local:
        with pytest.raises(TraceLoadError) as refused:
            ingest_file(local, "texts.documents.json", data, untrusted=True)
        assert str(refused.value) == f"texts.documents.json:3:3: {words} (first at line 1)"
        assert local.texts() == 1
    same = tmp_path / "same.documents.json"
    same.write_bytes(b'{"urn:trustgraph:doc:1": "a text",\n "urn:trustgraph:doc:1": "a text"}')
    assert main(["ingest", str(same), "--store", str(store), "--quiet"]) == 0
    with open_local_store(store) as local:
        assert local.texts() == 2
    monkeypatch.setattr(json_files, "_PLACED_BYTES", len(data) - 1)
    with pytest.raises(TraceLoadError) as refused:
        read_trace_file("texts.documents.json", data)
    assert str(refused.value) == f"texts.documents.json: {words}"


def test_small_files_into_a_store_that_has_quads_count_the_quads_they_add(tmp_path, capsys):
    """Files too small to be streamed, added to a store that holds quads, count the quads the
    store lacked one file at a time (the store is not counted, about 1 s at 7 million quads):
    the same figure as the store's length after minus before."""
    store = tmp_path / "store"
    assert main(["ingest", str(CORPUS / "orchestrated.nq"), "--store", str(store)]) == 0
    with open_local_store(store) as local:
        before = len(local)
    capsys.readouterr()
    files = [CORPUS / "collection.trig", CORPUS / "collection.documents.json", CORPUS / "orchestrated.nq"]
    assert main(["ingest", *map(str, files), "--store", str(store)]) == 0
    with open_local_store(store) as local:
        after = len(local)
    last = capsys.readouterr().err.strip().splitlines()[-1]
    assert after - before > 36 and last.startswith(f"ingested 2 files, {after - before:,} quads, 36 texts, ")


def test_a_file_given_as_the_store_is_named_as_one_in_words(tmp_path, capsys):
    file = tmp_path / "img.nq"
    file.write_text("x\n")
    assert main(["ingest", "--demo", "--store", str(file)]) == 2
    err = capsys.readouterr().err
    assert f"cannot open the store at {file}: this is a file; a store is a folder" in err
    assert "Errno" not in err and file.read_text() == "x\n"


def test_a_folder_of_other_files_is_refused_as_a_store_and_an_empty_one_is_made_one(tmp_path, capsys):
    """A folder that holds files and nothing of a store's (a home folder given by mistake) is
    refused in one line naming it, by ``ingest`` and ``reindex`` alike, and left as it was; an
    empty or missing folder becomes a store, and a folder a store's own files are in (its
    traces, index, snapshots, or only the lock of a writer killed at once) stays one."""
    from trace_explorer.store.write_journal import WRITER_LOCK

    home = tmp_path / "home"
    (home / "Documents").mkdir(parents=True)
    (home / ".bashrc").write_text("x\n")
    line = (f"trace-explorer: cannot open the store at {home}: this folder holds other files (.bashrc, Documents) "
            "and no store; a store is a folder of its own (made when missing or empty)\n")
    for command in (["ingest", "--demo", "--store", str(home), "--quiet"], ["reindex", "--store", str(home)]):
        assert main(command) == 2
        assert capsys.readouterr().err == line
    assert sorted(p.name for p in home.iterdir()) == [".bashrc", "Documents"]
    empty, killed = tmp_path / "empty", tmp_path / "killed"
    empty.mkdir()
    killed.mkdir()
    (killed / WRITER_LOCK).touch()
    for folder in (empty, tmp_path / "missing", killed):
        assert main(["ingest", str(CORPUS / "seed-sessions.ttl"), "--store", str(folder), "--quiet"]) == 0
        (folder / "notes.txt").write_text("mine\n")  # a file of the user's beside the store's own
        assert main(["ingest", str(CORPUS / "orchestrated.nq"), "--store", str(folder), "--quiet"]) == 0
        assert main(["reindex", "--store", str(folder), "--no-health"]) == 0
        assert main(["list", "--store", str(folder), "--all", "--format", "json"]) == 0
    assert "cannot open" not in capsys.readouterr().err


def test_a_snapshot_of_a_store_is_refused_and_left_as_it_was(tmp_path, capsys):
    """A published snapshot is read through its store: given as a store itself, reading or
    writing it would put an index, a lock and snapshots of its own inside it."""
    from trace_explorer.store.local_store import local_source
    from trace_explorer.store.snapshots import SNAPSHOTS_DIR
    from trace_explorer.sources.source import SourceError

    store = tmp_path / "store"
    assert main(["ingest", str(CORPUS / "seed-sessions.ttl"), "--store", str(store), "--quiet"]) == 0
    snapshot = next(p for p in (store / SNAPSHOTS_DIR).iterdir() if p.is_dir())
    before = sorted(p.name for p in snapshot.iterdir())
    for command in (["list", "--store", str(snapshot)], ["ingest", str(CORPUS / "orchestrated.nq"), "--store",
                                                         str(snapshot), "--quiet"]):
        assert main(command) == 2
        assert f"is a snapshot of the store at {store.resolve()}" in capsys.readouterr().err
    with pytest.raises(SourceError):
        local_source(snapshot)
    with pytest.raises(SourceError):
        open_local_store(snapshot)
    assert sorted(p.name for p in snapshot.iterdir()) == before
    assert len(json.loads(_out(capsys, ["list", "--store", str(store), "--all", "--format", "json"]))) == len(
        MANIFEST["seed-sessions.ttl"]["sessions"])


def test_another_text_for_a_document_already_held_is_refused_in_a_store_and_among_files(tmp_path, capsys):
    """One text for each document IRI, across files as within one: a content file that gives a
    document the store (or a file read before) has another text is refused whole, naming it."""
    content = CORPUS / "collection.documents.json"
    texts = json.loads(content.read_text(encoding="utf-8"))
    iri = sorted(texts)[0]
    conflict = tmp_path / "conflict.documents.json"
    conflict.write_text(json.dumps({iri: "A DIFFERENT TEXT for the same IRI", "urn:doc:new": "new"}), encoding="utf-8")
    same = tmp_path / "same.documents.json"
    same.write_text(json.dumps({iri: texts[iri]}), encoding="utf-8")
    store = tmp_path / "store"
    assert main(["ingest", str(CORPUS / "collection.trig"), str(content), "--store", str(store), "--quiet"]) == 0
    capsys.readouterr()
    before = _out(capsys, ["list", "--store", str(store), "--all", "--format", "json"])
    with open_local_store(store) as local:
        quads = len(local)
    assert main(["ingest", str(conflict), "--store", str(store), "--quiet"]) == 1
    err = capsys.readouterr().err
    assert f"{conflict}: expected one text for each document IRI; \"{iri}\" has another text already" in err
    with open_local_store(store) as local:
        assert len(local) == quads  # nothing of the file: not even its new text
    assert _out(capsys, ["list", "--store", str(store), "--all", "--format", "json"]) == before
    assert main(["ingest", str(same), "--store", str(store), "--quiet"]) == 0  # the same text again is no conflict
    # files read together: the second file is refused, the first kept
    assert main(["list", str(CORPUS / "collection.trig"), str(content), str(conflict), "--format", "json"]) == 1
    err = capsys.readouterr().err
    assert f"{conflict}: expected one text for each document IRI" in err


def test_a_folder_inside_a_folder_given_is_named_as_left_out(tmp_path, capsys):
    """Folders are read one level deep: the demo's folder holds the service traces in a folder
    of their own, which a warning names unless it is given too."""
    services = CORPUS / "services"
    count = len([p for p in services.iterdir() if p.name != "manifest.json"])  # its .trig and content file
    assert main(["ingest", str(CORPUS), "--store", str(tmp_path / "a"), "--quiet"]) == 0
    err = capsys.readouterr().err
    assert (f"warning: {services}: left out, with its {count} trace or content files: a folder is read one level "
            f"deep (give {services} as well)") in err
    assert main(["list", str(CORPUS), "--format", "json"]) == 0
    assert f"warning: {services}: left out" in capsys.readouterr().err
    assert main(["ingest", str(CORPUS), str(services), "--store", str(tmp_path / "b"), "--quiet"]) == 0
    assert "left out" not in capsys.readouterr().err


def test_a_very_long_session_key_is_quoted_cut_short(capsys):
    assert main(["show", "--demo", "--session", "x" * 100_000]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("trace-explorer: no session 'xxx") and len(err[0]) < 400


def test_a_store_given_as_a_folder_of_files_says_to_use_store(tmp_path, capsys):
    store = tmp_path / "store"
    assert main(["ingest", str(CORPUS / "seed-sessions.ttl"), "--store", str(store), "--quiet"]) == 0
    capsys.readouterr()
    assert main(["list", str(store)]) == 2
    assert (f"trace-explorer: {store} is a local store, not a folder of trace files: read it with --store {store}"
            in capsys.readouterr().err)
