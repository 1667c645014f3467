"""``trace-explorer review`` (issue 42): add, list, export and import as the issue words them,
with ``--reviews DIR``; the store beside a local store's session index by default."""

from __future__ import annotations

import json

import pytest

from tests.review_targets import AGENT, ANSWER, GRAPHRAG, TARGETS
from trace_explorer.cli.main import main
from trace_explorer.reviews import ReviewStore
from trace_explorer.reviews.jsonld import CONTEXT_URL
from trace_explorer.reviews.settings import REVIEWS_DIR
from trace_explorer.store.local_store import open_local_store


@pytest.fixture(autouse=True)
def _no_settings(monkeypatch, tmp_path):
    for name in ("TRACE_EXPLORER_REVIEWS", "TRACE_EXPLORER_REVIEW_LABELS", "TRACE_EXPLORER_REVIEWER"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("TRACE_EXPLORER_SOURCES", str(tmp_path / "sources.toml"))
    (tmp_path / "sources.toml").write_text("", encoding="utf-8")


def _run(capsys, *argv) -> tuple[int, str, str]:
    status = main(list(argv))
    out = capsys.readouterr()
    return status, out.out, out.err


def test_add_list_export_import_round_trip(capsys, tmp_path):
    reviews = str(tmp_path / "reviews")
    status, out, _ = _run(capsys, "review", "add", "--reviews", reviews, "--target", TARGETS[1].iri,
                          "--label", "wrong-tool", "--score", "0.5", "--comment", "should search\x1b[2J", "--by", "alice")
    assert status == 0 and out.strip().startswith("urn:uuid:")
    status, out, _ = _run(capsys, "review", "add", "--reviews", reviews, "--target", TARGETS[2].iri,
                          "--session", GRAPHRAG["session"], "--quote", ANSWER[:5], "--start", "0", "--end", "5",
                          "--label", "unsupported")
    assert status == 0
    status, out, _ = _run(capsys, "review", "list", "--reviews", reviews, "--session", AGENT["session"].rsplit(":", 1)[1])
    line = out.strip().split("\t")
    assert status == 0 and line[1:6] == ["alice", "wrong-tool", "0.5", TARGETS[1].iri, "should search␛[2J"]
    status, out, _ = _run(capsys, "review", "list", "--reviews", reviews, "--label", "unsupported", "--format", "json")
    [record] = json.loads(out)
    assert (record["author"], record["selector"], record["session"]) == ("local", {"quote": "Paris", "start": 0, "end": 5},
                                                                          GRAPHRAG["session"])
    status, out, _ = _run(capsys, "review", "list", "--reviews", reviews, "--format", "jsonld")
    assert [a["@context"] for a in json.loads(out)] == [CONTEXT_URL, CONTEXT_URL]
    for suffix in (".jsonld", ".ttl"):
        path, empty = tmp_path / f"out{suffix}", str(tmp_path / f"empty{suffix}")
        assert _run(capsys, "review", "export", "--reviews", reviews, str(path))[0] == 0
        assert _run(capsys, "review", "import", "--reviews", empty, str(path))[2].endswith("2 added, 0 changed, 0 already there\n")
        assert _run(capsys, "review", "import", "--reviews", empty, str(path))[2].endswith("0 added, 0 changed, 2 already there\n")
        assert ReviewStore(empty).reviews_of() == ReviewStore(reviews).reviews_of()


def test_the_cli_refuses_what_the_store_refuses(capsys, tmp_path):
    reviews = str(tmp_path / "reviews")
    status, _, err = _run(capsys, "review", "add", "--reviews", reviews, "--target", TARGETS[0].iri, "--label", "great")
    assert status == 2 and "unknown label 'great'" in err
    status, _, err = _run(capsys, "review", "add", "--reviews", reviews, "--target", TARGETS[0].iri, "--label", "correct",
                          "--quote", "Paris")
    assert status == 2 and "--quote, --start and --end together" in err
    status, out, _ = _run(capsys, "review", "add", "--reviews", reviews, "--target", TARGETS[0].iri, "--label", "correct",
                          "--by", "alice")
    review_id = out.strip()
    status, _, err = _run(capsys, "review", "edit", review_id, "--reviews", reviews, "--label", "harmful", "--by", "bob")
    assert status == 2 and f"{review_id} is by alice, not bob" in err
    assert _run(capsys, "review", "edit", review_id, "--reviews", reviews, "--label", "harmful", "--by", "alice")[0] == 0
    assert _run(capsys, "review", "delete", review_id, "--reviews", reviews, "--by", "alice")[0] == 0
    status, out, _ = _run(capsys, "review", "history", review_id, "--reviews", reviews)
    assert [line.split("\t")[:2] for line in out.splitlines()] == [["1", "add"], ["2", "edit"], ["3", "delete"]]
    assert _run(capsys, "review", "list", "--reviews", reviews)[1] == ""
    # an edge's session cannot be told from its IRI: asked for, not left unknown (hidden from its page)
    edge = next(t for t in TARGETS if t.kind == "edge")
    status, _, err = _run(capsys, "review", "add", "--reviews", reviews, "--target", edge.iri, "--label", "correct")
    assert status == 2 and "give --session IRI" in err
    status, out, _ = _run(capsys, "review", "add", "--reviews", reviews, "--target", edge.iri, "--label", "correct",
                          "--session", edge.session)
    assert status == 0 and [r.session for r in ReviewStore(reviews).reviews_of(target=edge.iri)] == [edge.session]


def test_the_store_defaults_beside_the_session_index_and_the_settings_move_it(capsys, tmp_path, monkeypatch):
    store = tmp_path / "store"
    open_local_store(store).close()  # an empty local store: its session index is there
    assert _run(capsys, "review", "add", "--store", str(store), "--target", TARGETS[0].iri, "--label", "correct")[0] == 0
    assert len(ReviewStore(store / REVIEWS_DIR).reviews_of()) == 1
    (tmp_path / "sources.toml").write_text(f'[reviews]\nfolder = "{tmp_path / "team"}"\nlabels = ["ok", "not ok"]\n'
                                           'author = "night shift"\n', encoding="utf-8")
    status, out, _ = _run(capsys, "review", "add", "--store", str(store), "--target", TARGETS[0].iri, "--label", "not ok")
    assert status == 0
    assert [(r.label, r.author) for r in ReviewStore(tmp_path / "team").reviews_of()] == [("not ok", "night shift")]
    monkeypatch.setenv("TRACE_EXPLORER_REVIEWS", str(tmp_path / "env"))
    monkeypatch.setenv("TRACE_EXPLORER_REVIEWER", "env name")
    assert _run(capsys, "review", "add", "--target", TARGETS[0].iri, "--label", "ok")[0] == 0
    assert [r.author for r in ReviewStore(tmp_path / "env").reviews_of()] == ["env name"]
    status, _, err = _run(capsys, "review", "list", "--store", str(tmp_path / "nothing"))
    assert status == 2 and "no store at" in err
