"""``trace-explorer list`` and ``show`` agree with the corpus manifest on every session of every
file, read from the files themselves, from a local store (``--store``), from a real Virtuoso
(``--endpoint``; quoted triples aside, which it cannot hold) and from a TrustGraph deployment's
gateway and librarian (``--trustgraph``, the stand-in of ``tests/trustgraph_server.py``)."""

from __future__ import annotations

import json

import pytest

from tests.conftest import (CONTENT_FILES, CORPUS, MECHANISM_NAMES, TRACE_FILES, corpus_paths, file_graph,
                            manifest_sessions)
from tests.totals_support import expected_totals, family_of
from trace_explorer.cli.main import main
from trace_explorer.model.totals import FIGURES, TOTAL_PREFIX

from tests.trustgraph_server import TOKEN, corpus_gateways, gateway_args  # noqa: F401 - a fixture

CASES = [pytest.param(s, id=f"{s['file']}:{s['session'][-12:]}") for s in manifest_sessions()]
SOURCES = ("files", "store", "endpoint", "trustgraph")


@pytest.fixture(params=SOURCES)
def source_args(request):
    """``source_args(name)``: the CLI arguments that read corpus file ``name`` from this source."""
    kind = request.param

    def args(name: str) -> list[str]:
        content = [str(CORPUS / CONTENT_FILES[name])] if name in CONTENT_FILES else []
        if kind == "files":
            return [str(p) for p in corpus_paths(name)]
        if kind == "store":
            return content + ["--store", str(request.getfixturevalue("corpus_stores")[name])]
        if kind == "trustgraph":  # a running deployment: traces from the gateway, texts from its librarian
            request.getfixturevalue("monkeypatch").setenv("TRUSTGRAPH_TOKEN", TOKEN)
            return gateway_args(request.getfixturevalue("corpus_gateways")[name])
        return content + ["--endpoint", request.getfixturevalue("virtuoso_url"), "--graph", file_graph(name),
                          "--no-quoted-triples"]

    args.kind = kind
    return args


def run_json(capsys, *argv) -> object:
    status = main([str(a) for a in argv])
    out = capsys.readouterr()
    assert status == 0, out.err
    return json.loads(out.out)


@pytest.mark.parametrize("name", TRACE_FILES)
def test_list_all_has_exactly_the_manifest_sessions_and_each_row_matches(capsys, source_args, name):
    rows = run_json(capsys, "list", *source_args(name), "--all", "--format", "json")
    assert sorted(r["id"] for r in rows) == sorted(s["session"] for s in manifest_sessions(name))
    assert all(set(r) == {"id", "type", "pattern", "question", "time", "parent", "has_answer",
                          "actions", "tool_errors", "parse_errors", "step_count", "status", "children", *FIGURES,
                          *(TOTAL_PREFIX + f for f in FIGURES), "sub_sessions"} for r in rows)
    by_id = {r["id"]: r for r in rows}
    for expected in manifest_sessions(name):  # one list a file, every row checked against its session
        row = by_id[expected["session"]]
        assert row["type"] == MECHANISM_NAMES[expected["mechanism"]], expected["session"]
        assert row["pattern"] == expected.get("pattern"), expected["session"]
        assert row["question"] == expected["question"], expected["session"]
        assert row["time"] == expected["started"], expected["session"]
        assert row["parent"] == expected["parent"], expected["session"]
        assert row["has_answer"] is expected["has_answer"], expected["session"]
        assert row["actions"] == expected.get("actions", []), expected["session"]
        if "tool_errors" in expected:
            assert row["tool_errors"] == expected["tool_errors"], expected["session"]


def test_list_and_show_give_own_figures_and_totals_with_sub_sessions(capsys, source_args):
    # the supervisor's own tokens are its Decomposition's; with its two sub-agents, theirs too
    name = "orchestrated.nq"
    rows = {r["id"]: r for r in run_json(capsys, "list", *source_args(name), "--all", "--format", "json")}
    for session in manifest_sessions(name):
        root = session["session"]
        own, total = expected_totals(name, root, sub_sessions=False), expected_totals(name, root)
        row = rows[root]
        assert {f: row[f] for f in FIGURES} == own, root
        assert {f: row[TOTAL_PREFIX + f] for f in FIGURES} == total, root
        assert row["sub_sessions"] == len(family_of(name, root)) - 1
    supervisor = next(s["session"] for s in manifest_sessions(name) if s.get("pattern") == "supervisor")
    assert rows[supervisor]["tokens"] == 780 and rows[supervisor]["total_tokens"] == 13_333
    shown = run_json(capsys, "show", *source_args(name), "--session", supervisor, "--format", "json")
    assert (shown["tokens"], shown["total_tokens"], shown["sub_sessions"]) == (780, 13_333, 2)
    assert main(["show", *source_args(name), "--session", supervisor]) == 0
    assert "Tokens:   780 own · 13,333 with sub-sessions" in capsys.readouterr().out


@pytest.mark.parametrize("name", TRACE_FILES)
def test_list_shows_top_level_sessions_newest_first(capsys, source_args, name):
    rows = run_json(capsys, "list", *source_args(name), "--format", "json")
    expected = sorted((s for s in manifest_sessions(name) if s["parent"] is None),
                      key=lambda s: s["started"], reverse=True)
    assert [r["id"] for r in rows] == [s["session"] for s in expected]


@pytest.mark.parametrize("mechanism", sorted(MECHANISM_NAMES))
def test_list_type_filter(capsys, mechanism):
    paths = [p for name in TRACE_FILES for p in corpus_paths(name)]
    rows = run_json(capsys, "list", *paths, "--all", "--type", mechanism, "--format", "json")
    expected = {s["session"] for s in manifest_sessions() if s["mechanism"] == mechanism}
    assert {r["id"] for r in rows} == expected
    assert {r["type"] for r in rows} == {MECHANISM_NAMES[mechanism]}


@pytest.mark.parametrize("expected", CASES)
def test_show_json_matches_manifest(capsys, source_args, expected):
    shown = run_json(capsys, "show", *source_args(expected["file"]), "--session", expected["session"],
                     "--format", "json")
    steps = shown["steps"]
    kinds = [s["kind"] for s in steps]
    assert shown["id"] == expected["session"]
    assert shown["type"] == MECHANISM_NAMES[expected["mechanism"]]
    assert shown["question"] == expected["question"]
    assert shown["time"] == expected["started"]
    assert shown["parent"] == expected["parent"]
    assert shown["has_answer"] is expected["has_answer"]
    if "answer" in expected:
        assert shown["answer"] == expected["answer"]
    if "answer_uri" in expected:
        assert shown["answer_id"] == expected["answer_uri"]
    if expected.get("format") == "seed":
        assert shown["shape"] == "seed"
    if "analysis_steps" in expected:
        analyses = [s for s in steps if s["kind"] == "Analysis"]
        assert len(analyses) == expected["analysis_steps"]
        assert [s["action"] for s in analyses] == expected["actions"]
        assert [s["step_number"] for s in analyses if "step_number" in s] in ([], list(range(1, len(analyses) + 1)))
    if "tool_errors" in expected:
        errors = [s for s in steps if s["kind"] == "Observation" and s.get("error") is not None]
        assert len(errors) == expected["tool_errors"] == shown["tool_errors"]
    if "chunk_count" in expected:
        exploration = next(s for s in steps if s["kind"] == "Exploration")
        assert exploration["chunk_count"] == expected["chunk_count"]
    if "concepts" in expected:
        grounding = next(s for s in steps if s["kind"] == "Grounding")
        assert sorted(grounding["concepts"]) == sorted(expected["concepts"])  # RDF keeps no order
    if "selected_edges" in expected and source_args.kind != "endpoint":
        assert [[e["s"], e["p"], e["o"]] for e in shown["edges"]] == expected["selected_edges"]
        assert all(e["stored"] and e["score"] is not None and e["concept"] for e in shown["edges"])
    elif "selected_edges" in expected:  # the server holds no quoted triples: the rest of each selection stays
        assert [e["stored"] for e in shown["edges"]] == [False] * len(expected["selected_edges"])
        assert all(e["score"] is not None and e["concept"] for e in shown["edges"])
    if "plan_steps" in expected:
        plan = next(s for s in steps if s["kind"] == "Plan")
        assert plan["plan_steps"] == expected["plan_steps"]
        assert [s["plan_step"] for s in steps if s["kind"] == "StepResult"] == expected["plan_steps"]
        assert kinds[-1] == "Synthesis"
    if "goals" in expected:
        decomposition = next(s for s in steps if s["kind"] == "Decomposition")
        assert decomposition["goals"] == expected["goals"]
        assert [s["goal"] for s in steps if s["kind"] == "Finding"] == expected["goals"]
    if "findings" in expected:
        assert kinds.count("Finding") == expected["findings"]
    children = [s["session"] for s in manifest_sessions(expected["file"])
                if s["parent"] and s["parent"].startswith(expected["session"] + "/")]
    assert sorted(shown["children"]) == sorted(children)


@pytest.mark.parametrize("expected", CASES)
def test_show_text_prints_every_step(capsys, source_args, expected):
    assert main(["show", *source_args(expected["file"]), "--session", expected["session"]]) == 0
    text = capsys.readouterr().out
    assert expected["question"] in text
    for action in expected.get("actions", []):
        assert f"action: {action}" in text
    for step in expected.get("plan_steps", []):
        assert f"plan step: {step}\n" in text
    if expected.get("answer"):
        assert expected["answer"] in text
    for s, p, o in expected.get("selected_edges", []) if source_args.kind != "endpoint" else []:
        assert f"{s} -- {p} --> {o}" in text


def test_show_unknown_session_is_a_clear_error(capsys):
    assert main(["show", *map(str, corpus_paths("seed-sessions.ttl")), "--session", "urn:nope"]) == 2
    assert "no session 'urn:nope'" in capsys.readouterr().err


def test_a_bad_file_is_reported_and_the_rest_still_listed(capsys, tmp_path):
    bad = tmp_path / "broken.ttl"
    bad.write_text("<urn:a> <urn:b> .\n", encoding="utf-8")
    status = main(["list", str(bad), *map(str, corpus_paths("seed-sessions.ttl")), "--format", "json"])
    out = capsys.readouterr()
    assert status == 1
    assert f"{bad}:1:" in out.err
    assert len(json.loads(out.out)) == len(manifest_sessions("seed-sessions.ttl"))


def test_an_ambiguous_session_ending_says_so(capsys):
    paths = [str(p) for name in TRACE_FILES for p in corpus_paths(name)]
    assert main(["show", *paths, "--session", "6"]) == 2
    assert "matches several sessions" in capsys.readouterr().err
    assert main(["show", *paths, "--session", "<urn:trustgraph:agent:6513270e-269e-4d37-b2a7-4de452e6b438>"]) == 0


def test_a_session_part_is_found_whatever_its_case(capsys, source_args):
    # a UUID pasted in upper case names its session on every source; a start that several
    # sessions share, whatever its case, stays an error that lists them, first the sessions it
    # starts, then those whose id holds it
    ids = sorted(s["session"] for s in manifest_sessions("graph-dump.ttl"))
    single = next(i for i in ids if i.rsplit(":", 1)[-1].startswith("f"))
    shared = [i for i in ids if i.rsplit(":", 1)[-1].startswith("e")]
    holding = [i for i in ids if i not in shared and "e" in i.rsplit(":", 1)[-1]]
    assert len(shared) == 2 and holding
    assert run_json(capsys, "show", *source_args("graph-dump.ttl"), "--session", single.rsplit(":", 1)[-1].upper(),
                    "--format", "json")["id"] == single
    assert main(["show", *source_args("graph-dump.ttl"), "--session", "E"]) == 2
    named = (shared + holding)[:5]
    more = ", …" if len(shared + holding) > 5 else ""
    assert f"'E' matches several sessions: {', '.join(named)}{more}; give more of the IRI" in capsys.readouterr().err


def _one_start_held_by_many() -> tuple[str, str, list[str], list[str]]:
    """A corpus file and a character that starts one session's UUID and sits inside at least two
    others: (file, character, the session it starts, those that hold it)."""
    for name in TRACE_FILES:
        ids = sorted(s["session"] for s in manifest_sessions(name))
        for letter in "0123456789abcdef":
            starting = [i for i in ids if i.rsplit(":", 1)[-1].startswith(letter)]
            holding = [i for i in ids if i not in starting and letter in i.rsplit(":", 1)[-1]]
            if len(starting) == 1 and len(holding) > 1:
                return name, letter, starting, holding
    raise AssertionError("the corpus has no such character")


def test_a_start_that_other_sessions_hold_too_names_none_of_them(capsys, source_args):
    # "a" started one session's UUID and sat inside most others: it opened that one in silence;
    # it is an error that lists them, the one it starts first
    name, letter, starting, holding = _one_start_held_by_many()
    assert main(["show", *source_args(name), "--session", letter]) == 2
    err = capsys.readouterr().err
    named = (starting + holding)[:5]
    more = ", …" if len(starting + holding) > 5 else ""
    assert err == f"trace-explorer: {letter!r} matches several sessions: {', '.join(named)}{more}; give more of the IRI\n"


def test_a_folder_without_traces_is_nothing_usable(tmp_path, capsys):
    (tmp_path / "notes.md").write_text("no traces here")
    assert main(["list", str(tmp_path)]) == 2
    assert "no trace files found" in capsys.readouterr().err


def test_export_reads_every_source_and_data_needs_a_local_copy(capsys, source_args, tmp_path):
    # images, pages and Markdown come from any source; the triples only from files or a store
    iri = manifest_sessions("orchestrated.nq")[0]["session"]
    status = main(["export", *source_args("orchestrated.nq"), "--session", iri, "--markdown", str(tmp_path / "s.md"),
                   "--data", str(tmp_path / "s.ttl")])
    err = capsys.readouterr().err
    markdown = (tmp_path / "s.md").read_text(encoding="utf-8")
    assert markdown.startswith(f"# {manifest_sessions('orchestrated.nq')[0]['question']}\n")
    if source_args.kind == "endpoint":
        assert status == 2 and not (tmp_path / "s.ttl").exists()
        assert f"trace-explorer: {tmp_path / 's.ttl'}: the triples are exported from a local copy" in err
    else:
        assert status == 0 and (tmp_path / "s.ttl").stat().st_size > 0


def test_follow_names_the_sessions_an_ambiguous_session_matches(capsys, source_args):
    # as show does: follow --session with a part several sessions hold lists them, not only says so
    name, letter, starting, holding = _one_start_held_by_many()
    assert main(["follow", *source_args(name), "--session", letter, "--for", "0.1"]) == 2
    named = (starting + holding)[:5]
    more = ", …" if len(starting + holding) > 5 else ""
    assert f"{letter!r} matches several sessions: {', '.join(named)}{more}; give more of the IRI" in capsys.readouterr().err
