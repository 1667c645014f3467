"""``trace-explorer export`` and ``list --format csv``: several outputs at once, formats from the
suffix, the round trip through ``show --format json``, clear errors (exit 2) for bad suffixes."""

from __future__ import annotations

import csv
import io
import json

import pytest

from tests.conftest import CORPUS, TRACE_FILES, corpus_paths, manifest_sessions
from trace_explorer.cli.main import main
from trace_explorer.export.table import COLUMNS, sessions_csv, sessions_json
from trace_explorer.model.reader import read_sessions
from trace_explorer.read.collection import TraceStore

AGENT_12 = "urn:trustgraph:agent:62c33a4f-b774-4b52-88db-40af72158370"
SUPERVISOR = "urn:trustgraph:agent:4787f93b-ca44-4b86-8726-e25cfd56a926"
GRAPHRAG = "urn:trustgraph:question:1fb17c23-90c1-42cf-93ac-94af0f21ddb6"


def run(capsys, *argv) -> tuple[int, str, str]:
    status = main([str(a) for a in argv])
    out = capsys.readouterr()
    return status, out.out, out.err


def show_json(capsys, *paths, session: str) -> dict:
    status, out, err = run(capsys, "show", *paths, "--session", session, "--format", "json")
    assert status == 0, err
    return json.loads(out) | {"parent_session": None}


def test_every_output_at_once(capsys, tmp_path):
    outputs = {"--image": ["dag.svg", "dag.png", "dag.pdf"], "--timeline": ["t.svg", "t.png", "t.pdf"],
               "--html": ["s.html"], "--data": ["s.ttl", "s.trig", "s.nq", "s.jsonld", "s.json", "s.provn", "s.provjson"],
               "--markdown": ["s.md"]}
    argv = [option_value for option, names in outputs.items() for name in names
            for option_value in (option, tmp_path / name)]
    status, out, err = run(capsys, "export", CORPUS, "--session", AGENT_12, *argv)
    assert status == 0, err
    for names in outputs.values():
        for name in names:
            assert (tmp_path / name).stat().st_size > 0, name
            assert f"wrote {tmp_path / name}" in err
    assert (tmp_path / "s.documents.json").exists()
    assert (tmp_path / "dag.png").read_bytes().startswith(b"\x89PNG")
    assert (tmp_path / "t.pdf").read_bytes().startswith(b"%PDF")
    assert (tmp_path / "s.md").read_text(encoding="utf-8").startswith("# ¿Cuál es la montaña")


@pytest.mark.parametrize("suffix", [".ttl", ".trig", ".nq", ".jsonld", ".json"])
@pytest.mark.parametrize("iri", [AGENT_12, SUPERVISOR, GRAPHRAG], ids=lambda i: i[-12:])
def test_export_then_show_gives_the_same_json(capsys, tmp_path, iri, suffix):
    data = tmp_path / f"out{suffix}"
    status, _, err = run(capsys, "export", CORPUS, "--session", iri, "--data", data)
    assert status == 0, err
    exported = [data] + ([tmp_path / "out.documents.json"] if (tmp_path / "out.documents.json").exists() else [])
    assert show_json(capsys, *exported, session=iri) == show_json(capsys, CORPUS, session=iri)


def test_no_sub_sessions(capsys, tmp_path):
    status, _, err = run(capsys, "export", CORPUS, "--session", SUPERVISOR, "--data", tmp_path / "s.nq",
                         "--markdown", tmp_path / "s.md", "--no-sub-sessions")
    assert status == 0, err
    status, out, _ = run(capsys, "list", tmp_path / "s.nq", "--all", "--format", "json")
    assert [r["id"] for r in json.loads(out)] == [SUPERVISOR]
    assert "Sub-session: " not in (tmp_path / "s.md").read_text(encoding="utf-8")


@pytest.mark.parametrize("option,name", [("--image", "dag.gif"), ("--timeline", "t.jpeg"), ("--data", "s.xml"),
                                         ("--data", "s"), ("--html", "s.htm5"), ("--markdown", "s.txt")])
def test_unknown_suffix_is_a_usage_error(capsys, tmp_path, option, name):
    with pytest.raises(SystemExit) as stop:
        main(["export", str(CORPUS), "--session", AGENT_12, option, str(tmp_path / name)])
    assert stop.value.code == 2
    assert "unknown" in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == []


def test_nothing_to_export_or_no_such_session(capsys, tmp_path):
    status, _, err = run(capsys, "export", CORPUS, "--session", AGENT_12)
    assert status == 2 and "nothing to export" in err
    status, _, err = run(capsys, "export", CORPUS, "--session", "urn:nope", "--markdown", tmp_path / "x.md")
    assert status == 2 and "no session" in err


def test_markdown_to_stdout_and_prov_warning(capsys, tmp_path):
    status, out, err = run(capsys, "export", CORPUS, "--session", GRAPHRAG, "--markdown", "-",
                           "--data", tmp_path / "g.provjson")
    assert status == 0, err
    assert out.startswith("# What is the capital of France?\n")
    assert "4 triple(s) have no PROV-DM counterpart" in err and err.count("<<( ") == 4


def test_an_unwritable_output_fails_with_status_2(capsys, tmp_path):
    status, _, err = run(capsys, "export", CORPUS, "--session", GRAPHRAG, "--markdown", tmp_path / "no" / "x.md",
                         "--data", tmp_path / "ok.ttl")
    assert status == 2 and "x.md" in err
    assert (tmp_path / "ok.ttl").exists()  # the other outputs are still written


# -- the session list ---------------------------------------------------------------------------
@pytest.mark.parametrize("name", TRACE_FILES)
def test_list_csv_has_the_manifest_sessions(capsys, name):
    status, out, err = run(capsys, "list", *corpus_paths(name), "--all", "--format", "csv")
    assert status == 0, err
    rows = list(csv.DictReader(io.StringIO(out)))
    assert tuple(rows[0]) == COLUMNS if rows else True
    assert sorted(r["id"] for r in rows) == sorted(s["session"] for s in manifest_sessions(name))
    for row, expected in ((r, next(s for s in manifest_sessions(name) if s["session"] == r["id"])) for r in rows):
        assert row["question"] == expected["question"]
        assert row["has_answer"] == ("true" if expected["has_answer"] else "false")
        assert row["actions"] == "; ".join(expected.get("actions", []))


def test_table_rows_and_formula_cells():
    collection = TraceStore()
    collection.add_file("q.ttl", (
        '@prefix tg: <https://trustgraph.ai/ns/> .\n'
        '<urn:trustgraph:agent:1> a tg:Question, tg:AgentQuestion ; tg:query "=HYPERLINK(\\"http://evil\\")" .\n'
        '<urn:trustgraph:agent:2> a tg:Question, tg:AgentQuestion ; tg:query "plain, with \\"quotes\\"\\nand a line" .\n'
    ).encode("utf-8"))
    sessions = sorted(read_sessions(collection), key=lambda s: s.id)
    rows = list(csv.DictReader(io.StringIO(sessions_csv(sessions))))
    assert rows[0]["question"] == "'=HYPERLINK(\"http://evil\")"
    assert rows[1]["question"] == 'plain, with "quotes"\nand a line'
    data = json.loads(sessions_json(sessions))
    assert [tuple(r) for r in data] == [COLUMNS, COLUMNS]
    assert data[0]["question"] == '=HYPERLINK("http://evil")'  # JSON keeps the value as it is
