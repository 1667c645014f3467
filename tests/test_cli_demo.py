"""``--demo``: the command line reaches the bundled demo traces without a path, as the app does,
in list, show, export and ingest, run from any folder."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
import pyoxigraph as ox

from tests.conftest import CORPUS, MANIFEST, demo_sessions, manifest_sessions
from trace_explorer.cli.main import main
from trace_explorer.model.docrag import PLAIN_CHUNK_ID
from trace_explorer.sources.demo import demo_paths

SUPERVISOR = "urn:trustgraph:agent:4787f93b-ca44-4b86-8726-e25cfd56a926"

def _answer() -> str:
    """The supervisor's answer: the text behind its Synthesis's ``tg:document``, from the content file."""
    store = ox.Store()
    store.load(path=str(CORPUS / "orchestrated.nq"), format=ox.RdfFormat.N_QUADS)
    [document] = [q.object.value for q in store.quads_for_pattern(
        ox.NamedNode(f"{SUPERVISOR}/synthesis"), ox.NamedNode("https://trustgraph.ai/ns/document"), None)]
    return json.loads((CORPUS / "orchestrated.documents.json").read_text(encoding="utf-8"))[document]


ANSWER = _answer()


def _json(capsys, argv) -> list | dict:
    assert main(argv) == 0, capsys.readouterr().err
    return json.loads(capsys.readouterr().out)


def test_list_and_show_the_demo_without_a_path(capsys):
    rows = _json(capsys, ["list", "--demo", "--all", "--limit", "0", "--format", "json"])
    assert sorted(r["id"] for r in rows) == sorted(s["session"] for s in demo_sessions())
    by_id = {r["id"]: r for r in rows}
    for expected in demo_sessions():
        assert by_id[expected["session"]]["question"] == expected["question"]
        assert by_id[expected["session"]]["has_answer"] == expected["has_answer"]
    shown = _json(capsys, ["show", "--demo", "--session", "4787f93b", "--format", "json"])
    assert shown["id"] == SUPERVISOR
    assert shown["answer"] == ANSWER  # the demo's texts come along
    assert sorted(shown["children"]) == sorted(s["session"] for s in manifest_sessions() if s["parent"]
                                               and s["parent"].startswith(SUPERVISOR))


def test_export_the_demo_from_another_folder(tmp_path):
    done = subprocess.run([sys.executable, "-m", "trace_explorer.cli", "export", "--demo", "--session", "4787f93b",
                           "--markdown", "-"], capture_output=True, text=True, cwd=tmp_path, timeout=120)
    assert done.returncode == 0, done.stderr
    supervisor = next(s for s in manifest_sessions() if s["session"] == SUPERVISOR)
    assert done.stdout.startswith(f"# {supervisor['question']}")
    assert ANSWER in done.stdout.replace("\\", "")


def test_ingest_the_demo_into_a_store(tmp_path, capsys):
    store = tmp_path / "store"
    assert main(["ingest", "--demo", "--store", str(store)]) == 0
    err = capsys.readouterr().err
    assert all(f"{name}: {MANIFEST[name]['quads']:,} quads" in err for name in MANIFEST if name.endswith((".trig", ".nq")))
    assert "services.trig:" in err
    rows = _json(capsys, ["list", "--store", str(store), "--all", "--limit", "0", "--format", "json"])
    assert sorted(r["id"] for r in rows) == sorted(s["session"] for s in demo_sessions())


def test_demo_with_another_source_or_nothing_at_all_is_bad_usage(tmp_path, capsys):
    assert main(["list", "--demo", "--store", str(tmp_path)]) == 2
    assert "--demo reads the demo's files: give it without --store" in capsys.readouterr().err
    assert main(["ingest", "--store", str(tmp_path / "s")]) == 2
    assert "give the files to add, or --demo" in capsys.readouterr().err
    assert main(["list"]) == 2
    assert "give trace files, --demo, --store DIR, --endpoint URL or --trustgraph URL" in capsys.readouterr().err


def test_a_reader_that_goes_away_gets_no_traceback():
    # ``trace-explorer list --all | head -1``: the pipe closes before the table is written
    proc = subprocess.Popen([sys.executable, "-m", "trace_explorer.cli", "list", "--demo", "--all"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    proc.stdout.close()  # long before the command has read the demo and writes
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 141 and err == b""  # as a shell says of a program a closed pipe stopped, not 1


def test_list_all_names_each_sub_sessions_parent(capsys):
    assert main(["list", "--demo", "--all", "--limit", "0"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split()[-1] == "Parent"
    subs = [s for s in demo_sessions() if s["parent"]]
    for s in subs:
        row = next(line for line in lines if line.startswith(s["session"] + " "))
        assert row.rstrip().endswith(s["parent"]), (row, s["parent"])
    assert main(["list", "--demo"]) == 0 and "Parent" not in capsys.readouterr().out.splitlines()[0]


def test_list_columns_stay_in_line_with_wide_characters(capsys):
    from wcwidth import wcswidth

    assert main(["list", "--demo", "--limit", "0"]) == 0
    lines = capsys.readouterr().out.splitlines()
    rows = [line for line in lines if line.startswith("urn:")]
    wide = [line for line in rows if "最高峰は？" in line]  # the DocRAG question in Spanish and Japanese
    assert len(wide) == 2
    # the Time column starts at the same terminal column on every row (a CJK character takes two)
    starts = {wcswidth(line[:line.index(" 2026-")]) for line in rows}
    assert len(starts) == 1 and wcswidth(lines[0][:lines[0].index(" Time")]) in starts


def test_every_demo_docrag_sessions_evidence_gives_its_chunks_texts_or_says_why_there_is_none(capsys):
    texts = {}
    for path in demo_paths():
        if path.name.endswith(".documents.json"):
            texts.update(json.loads(path.read_text(encoding="utf-8")))
    seed = CORPUS / "seed-sessions.ttl"
    plain_ids = {q.object.value for q in ox.parse(path=str(seed), format=ox.RdfFormat.TURTLE)
                 if q.predicate.value == "https://trustgraph.ai/ns/selectedChunk"}
    assert plain_ids and not any(":" in c for c in plain_ids)  # literals, no IRIs
    for session in (s for s in demo_sessions() if s["mechanism"] == "docrag"):
        assert main(["evidence", "--demo", "--session", session["session"]]) == 0
        out = capsys.readouterr().out
        assert "not loaded" not in out
        chunks = [line.split(None, 1)[1] for line in out.splitlines() if line.strip().startswith("chunk ")]
        shown = [line.split(None, 1)[1] for line in out.splitlines() if line.strip().startswith("text ")]
        assert chunks and len(shown) == len(chunks)
        for chunk, text in zip(chunks, shown):
            if chunk in plain_ids:
                assert text == f"(none: {PLAIN_CHUNK_ID})"
            else:
                iri = chunk.rsplit("<", 1)[1].rstrip(">")
                assert " ".join(texts[iri].split()).startswith(text.removesuffix(" …")), (iri, text)


@pytest.mark.long
def test_a_reader_that_goes_away_after_a_large_write_began_gets_141(tmp_path):
    # ``list --format csv | head -c 10``: one print of the whole CSV, far larger than the pipe
    # holds; the reader closes after its first bytes, part way through that write
    lines = [f'<urn:trustgraph:question:{n:06d}> <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> '
             f'<https://trustgraph.ai/ns/AgentQuestion> .' for n in range(20000)]
    path = tmp_path / "many.nt"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    assert len(list(ox.parse(path.read_bytes(), format=ox.RdfFormat.N_TRIPLES))) == 20000
    proc = subprocess.Popen([sys.executable, "-m", "trace_explorer.cli", "list", str(path), "--limit", "0",
                             "--format", "csv"], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    proc.stdout.read(10)
    proc.stdout.close()
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 141 and err == b""


def test_show_says_not_loaded_where_a_value_is_missing(capsys):
    # the app's tables say "not loaded" for a missing value; the text report once printed Python's None
    graphrag = "urn:trustgraph:question:ad4a5804-4a8a-44d1-8ce5-fcdf107a510a"
    shown = _json(capsys, ["show", "--demo", "--session", graphrag, "--format", "json"])
    missing = sum(e["reasoning"] is None for e in shown["edges"])
    assert missing > 0
    assert main(["show", "--demo", "--session", graphrag]) == 0
    text = capsys.readouterr().out
    assert text.count("reasoning: not loaded") == missing and "None" not in text
