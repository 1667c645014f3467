"""Comparing two sessions (``trace_explorer.analysis.compare.compare``): the rules every comparison
keeps, the exact rows of pairs built to differ in one known way each (``tests/compare_pairs.py``)
and of pairs from the reference corpus, the chosen edges and chunks, the totals, and the field
diffs the outputs draw from."""

from __future__ import annotations

import itertools
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.compare_pairs import PAIRS, build_pair
from trace_explorer.analysis.compare import alignment
from trace_explorer.analysis.compare.alignment import align
from trace_explorer.analysis.compare.compare import (CHANGED, ONLY_A, ONLY_B, SAME, Comparison, compare_sessions,
                                                     comparison_record, one_sided, comparison_totals)
from trace_explorer.analysis.compare.diffs import ABSENT, ADDED, EQUAL, REMOVED, describe, json_changes, text_segments

SEED_FRANCE = "urn:trustgraph:agent:6513270e-269e-4d37-b2a7-4de452e6b438"
DUMP_FRANCE = "urn:trustgraph:agent:ec3b9605-4274-43eb-ad84-e91ef132bf2d"
TRAPPIST_COLLECTION = "urn:trustgraph:question:95e60af5-93bd-44cf-8fd6-30f1f29d0da9"
TRAPPIST_DUMP = "urn:trustgraph:question:f10637ce-81fc-469e-ba60-9683ceaf4915"
BRONZE_DOCRAG = "urn:trustgraph:docrag:4a23d596-2217-4ead-9bc4-96cb8e81973e"
ELBRUS_DOCRAG = "urn:trustgraph:docrag:e2015522-40cb-4cd0-a49a-45845dbe3023"
SUPERVISOR = "urn:trustgraph:agent:4787f93b-ca44-4b86-8726-e25cfd56a926"
PLAN = "urn:trustgraph:agent:1a4f44f9-a651-4445-b9f3-635cf88c422b"
FORTS = "urn:trustgraph:agent:fa7f0eab-4c4f-4b06-8732-2e25c215a82a"
TRAPPIST_AGENT = "urn:trustgraph:agent:4ecadea2-81b6-4bb5-b866-64ae64a149f5"


def check_rules(comparison: Comparison) -> None:
    """The rules of the issue, on a comparison and every sub-session comparison under it."""
    rows = comparison.rows
    for side, session in (("a", comparison.a), ("b", comparison.b)):
        listed = [getattr(r, side).id for r in rows if getattr(r, side) is not None]
        assert listed == ([s.id for s in session.steps] if session is not None else [])
    last_pair = -1
    for index, row in enumerate(rows):
        assert row.status in (SAME, CHANGED, ONLY_A, ONLY_B)
        if row.status in (SAME, CHANGED):
            assert row.a is not None and row.b is not None and row.a.kind == row.b.kind == row.kind
            assert bool(row.changes) == (row.status == CHANGED)
            gap = rows[last_pair + 1:index]
            # two steps of the same kind pair before they fall to "only" (as far as order allows)
            assert not ({r.kind for r in gap if r.status == ONLY_A} & {r.kind for r in gap if r.status == ONLY_B})
            last_pair = index
        else:
            assert row.changes == {}
            assert (row.a is None) == (row.status == ONLY_B) and (row.b is None) == (row.status == ONLY_A)
    gap = rows[last_pair + 1:]
    assert not ({r.kind for r in gap if r.status == ONLY_A} & {r.kind for r in gap if r.status == ONLY_B})
    for child in comparison.children:
        check_rules(child.comparison)


def statuses(comparison: Comparison) -> list[tuple]:
    return [(r.status, r.kind, r.a.id if r.a else None, r.b.id if r.b else None) for r in comparison.rows]


def paired(a_steps, b_steps, kinds_changed: dict[int, str] | None = None) -> list[tuple]:
    """Rows pairing two equally long step lists position by position, all same except the
    positions in ``kinds_changed``."""
    kinds_changed = kinds_changed or {}
    return [(CHANGED if i in kinds_changed else SAME, x.kind, x.id, y.id) for i, (x, y) in enumerate(zip(a_steps, b_steps))]


# -- the rules on every pair of the corpus ---------------------------------------------------------
def test_every_session_compared_with_itself_gives_only_same_rows(sessions):
    for session in sessions.values():
        comparison = compare_sessions(session, session, sessions)
        assert [r.status for r in comparison.rows] == [SAME] * len(session.steps), session.id
        assert [(r.a.id, r.b.id) for r in comparison.rows] == [(s.id, s.id) for s in session.steps]
        assert comparison.answer_same and comparison.totals_a == comparison.totals_b
        assert not comparison.edges.only_a and not comparison.edges.only_b
        assert len(comparison.children) == len([c for c in session.children if c in sessions])
        check_rules(comparison)


def test_the_rules_hold_for_every_pair_of_corpus_sessions(sessions):
    for a, b in itertools.product(sessions.values(), repeat=2):
        check_rules(compare_sessions(a, b, sessions))


# -- pairs built to differ in one known way ----------------------------------------------------------
@pytest.fixture(scope="module")
def pairs():
    return {name: build_pair(name) for name in PAIRS}


def compared(pair) -> Comparison:
    comparison = compare_sessions(pair.sessions[pair.a], pair.sessions[pair.b], pair.sessions)
    check_rules(comparison)
    return comparison


def test_one_tool_swapped(pairs):
    pair = pairs["tool_swapped"]
    a, b = pair.sessions[pair.a], pair.sessions[pair.b]
    comparison = compared(pair)
    swapped = [i for i, s in enumerate(a.steps) if s.id.endswith("/i5")][0]
    assert statuses(comparison) == paired(a.steps, b.steps, {swapped: "Analysis"})
    assert comparison.rows[swapped].changes == {"action": ("web-search", "calculator")}
    assert comparison.answer_same and comparison.totals_a == comparison.totals_b


def test_one_extra_iteration(pairs):
    pair = pairs["extra_iteration"]
    a, b = pair.sessions[pair.a], pair.sessions[pair.b]
    assert (len(a.steps), len(b.steps)) == (24, 26)
    comparison = compared(pair)
    before = [s for s in b.steps if s.id.split("/")[-1] in ("pattern-decision", "i1", "i2", "i3", "i4", "i5")
              or s.id.split("/")[-2:-1] in (["i1"], ["i2"], ["i3"], ["i4"], ["i5"])]
    assert len(before) == 11
    expected = paired(a.steps[:11], before)
    expected += [(ONLY_B, "Analysis", None, b.id + "/i6"), (ONLY_B, "Observation", None, b.id + "/i6/observation")]
    expected += paired(a.steps[11:], b.steps[13:])
    assert statuses(comparison) == expected
    assert comparison.totals_b["steps"] - comparison.totals_a["steps"] == 2
    assert comparison.totals_b["tool_calls"] - comparison.totals_a["tool_calls"] == 1
    analysis = b.nodes[b.id + "/i6"]
    assert comparison.totals_b["in_tokens"] - comparison.totals_a["in_tokens"] == analysis.fields["in_tokens"]


def test_a_failed_tool_call(pairs):
    pair = pairs["failed_tool"]
    a, b = pair.sessions[pair.a], pair.sessions[pair.b]
    comparison = compared(pair)
    failed = [i for i, s in enumerate(a.steps) if s.id.endswith("/i3/observation")][0]
    assert statuses(comparison) == paired(a.steps, b.steps, {failed: "Observation"})
    assert comparison.rows[failed].changes == {"error": (None, "knowledge-query failed: connection refused")}
    # the Analysis leaves its observation's error to the Observation: the failure shows once
    assert comparison.rows[failed - 1].status == SAME
    assert (comparison.totals_a["errors"], comparison.totals_b["errors"]) == (1, 2)


def test_other_edges(pairs):
    pair = pairs["other_edges"]
    a, b = pair.sessions[pair.a], pair.sessions[pair.b]
    comparison = compared(pair)
    assert statuses(comparison) == paired(a.steps, b.steps, {2: "Focus"})
    assert list(comparison.rows[2].changes) == ["edges"]
    france = ("http://trustgraph.ai/e/france", "http://www.w3.org/2000/01/rdf-schema#seeAlso",
              "http://trustgraph.ai/e/capital-city")
    fact = ("http://trustgraph.ai/e/capital-city", "http://trustgraph.ai/e/describedAs")
    assert comparison.edges.only_a == [fact + ("fact 1 about capital city",)]
    assert comparison.edges.only_b == [fact + ("fact 9 about capital city",)]
    assert comparison.edges.both == [france, france, fact + ("fact 3 about capital city",)]
    record = comparison_record(comparison)["edges"]
    assert record["scores"] == [{"edge": list(france), "a": 0.99, "b": 0.75, "delta": -0.24},
                                {"edge": list(france), "a": 0.85, "b": 0.85, "delta": 0.0},
                                {"edge": list(fact) + ["fact 3 about capital city"], "a": 0.78, "b": 0.78, "delta": 0.0}]


def test_another_plan_order(pairs):
    pair = pairs["plan_order"]
    a, b = pair.sessions[pair.a], pair.sessions[pair.b]
    comparison = compared(pair)
    plan = [i for i, s in enumerate(a.steps) if s.kind == "Plan"][0]
    one, two = (plan + 2, plan + 3)  # /step/1 and /step/2
    assert (a.steps[one].id.endswith("/step/1"), a.steps[two].id.endswith("/step/2")) == (True, True)
    assert statuses(comparison) == paired(a.steps, b.steps, {plan: "Plan", one: "StepResult", two: "StepResult"})
    steps = a.steps[plan].fields["plan_steps"]
    assert comparison.rows[plan].changes == {"plan_steps": (steps, steps[:1] + [steps[2], steps[1]] + steps[3:])}
    assert comparison.rows[one].changes == {"plan_step": ("Step 2: check source 2", "Step 3: check source 3"),
                                            "result": ("Done: Step 2: check source 2", "Done: Step 3: check source 3")}
    assert comparison.rows[two].changes == {"plan_step": ("Step 3: check source 3", "Step 2: check source 2"),
                                            "result": ("Done: Step 3: check source 3", "Done: Step 2: check source 2")}


def test_a_sub_session_more(pairs):
    pair = pairs["sub_session_more"]
    a, b = pair.sessions[pair.a], pair.sessions[pair.b]
    comparison = compared(pair)
    assert statuses(comparison) == paired(a.steps, b.steps)
    assert a.children == [] and len(b.children) == 1
    [child] = comparison.children
    sub = pair.sessions[b.children[0]]
    assert (child.parent_a, child.parent_b, child.comparison.a) == (None, b.id + "/i1", None)
    assert child.comparison.b is sub
    assert statuses(child.comparison) == [(ONLY_B, s.kind, None, s.id) for s in sub.steps]
    assert child.comparison.edges.only_b == [(e["s"], e["p"], e["o"]) for e in sub.steps_of("Focus")[0].fields["edges"]]
    assert (comparison.totals_a["sub_sessions"], comparison.totals_b["sub_sessions"]) == (0, 1)
    assert comparison.totals_b["steps"] == len(b.steps) + len(sub.steps)


# -- pairs from the corpus ---------------------------------------------------------------------------
def test_the_seed_and_the_current_shape_of_one_question(sessions):
    """The same question asked of an older agent (seed shape: one document-query, inline words)
    and a current one (PatternDecision, document-query then web-search)."""
    a, b = sessions[SEED_FRANCE], sessions[DUMP_FRANCE]
    comparison = compare_sessions(a, b, sessions)
    check_rules(comparison)
    assert statuses(comparison) == [
        (ONLY_B, "PatternDecision", None, DUMP_FRANCE + "/pattern-decision"),
        (CHANGED, "Analysis", SEED_FRANCE + "/i1", DUMP_FRANCE + "/i1"),
        (ONLY_B, "Observation", None, DUMP_FRANCE + "/i1/observation"),
        (ONLY_B, "Analysis", None, DUMP_FRANCE + "/i2"),
        (ONLY_B, "Observation", None, DUMP_FRANCE + "/i2/observation"),
        (CHANGED, "Conclusion", SEED_FRANCE + "/final", DUMP_FRANCE + "/final"),
    ]
    assert list(comparison.rows[1].changes) == ["thought", "arguments", "observation", "tool_candidates",
                                                "llm_duration_ms", "in_tokens", "out_tokens", "model"]
    assert comparison.rows[1].changes["arguments"] == ({"question": "France"}, {"question": "France?"})
    assert comparison.answer_same  # "Paris is the capital of France." both times
    assert (comparison.totals_a["tool_calls"], comparison.totals_b["tool_calls"]) == (1, 2)
    assert comparison.totals_a["tokens"] is None and comparison.totals_b["tokens"] == 5769


def test_graphrag_from_a_collection_and_from_a_damaged_dump(sessions):
    """One GraphRAG question in two files: the dump chose three of the six edges again."""
    from tests.conftest import MANIFEST
    edges = {s["session"]: [tuple(e) for e in s["selected_edges"]] for f in MANIFEST.values()
             for s in f["sessions"] if "selected_edges" in s}
    a, b = sessions[TRAPPIST_COLLECTION], sessions[TRAPPIST_DUMP]
    comparison = compare_sessions(a, b, sessions)
    check_rules(comparison)
    assert [(r.status, r.kind) for r in comparison.rows] == [(SAME, "Grounding"), (CHANGED, "Exploration"),
                                                              (CHANGED, "Focus"), (SAME, "Synthesis")]
    assert comparison.rows[1].changes == {"edge_count": (42, 21)}
    remaining, both, only_a = list(edges[TRAPPIST_DUMP]), [], []
    for edge in edges[TRAPPIST_COLLECTION]:  # the manifest's edges, as a multiset, in order
        if edge in remaining:
            remaining.remove(edge)
            both.append(edge)
        else:
            only_a.append(edge)
    assert (len(both), len(only_a), remaining) == (3, 3, [])
    assert comparison.edges.both == both and comparison.edges.only_a == only_a
    assert comparison.edges.only_b == [] and comparison.answer_same


def test_docrag_chunks_split(sessions):
    a, b = sessions[BRONZE_DOCRAG], sessions[ELBRUS_DOCRAG]
    comparison = compare_sessions(a, b, sessions)
    check_rules(comparison)
    chunks_a = [c["chunk"] for c in a.steps_of("Focus")[0].fields["chunks"]]
    chunks_b = [c["chunk"] for c in b.steps_of("Focus")[0].fields["chunks"]]
    assert comparison.chunks.only_a == chunks_a and comparison.chunks.only_b == chunks_b
    assert comparison.chunks.both == []
    assert [r.status for r in comparison.rows] == [CHANGED] * 4


def test_supervisor_against_plan_then_execute(sessions):
    a, b = sessions[SUPERVISOR], sessions[PLAN]
    comparison = compare_sessions(a, b, sessions)
    check_rules(comparison)
    kinds = [(r.status, r.kind) for r in comparison.rows]
    assert kinds == ([(CHANGED, "PatternDecision"), (ONLY_A, "Decomposition"), (ONLY_A, "Finding"), (ONLY_A, "Finding"),
                      (ONLY_B, "Plan")] + [(ONLY_B, "StepResult")] * 11 + [(CHANGED, "Synthesis")])
    assert comparison.rows[0].changes == {"pattern": ("supervisor", "plan-then-execute"), "task_type": ("research", "general")}
    assert [(c.parent_a, c.parent_b, c.comparison.a.id, c.comparison.b) for c in comparison.children] == [
        (SUPERVISOR + "/decompose", None, child, None) for child in a.children]
    assert all(r.status == ONLY_A for c in comparison.children for r in c.comparison.rows)


def test_sub_sessions_pair_under_paired_steps(sessions):
    comparison = compare_sessions(sessions[FORTS], sessions[TRAPPIST_AGENT], sessions)
    check_rules(comparison)
    [child] = comparison.children
    assert (child.parent_a, child.parent_b) == (FORTS + "/i1", TRAPPIST_AGENT + "/i1")
    assert [r.status for r in child.comparison.rows] == [CHANGED] * 4
    assert child.comparison.a.id == sessions[FORTS].children[0]


def test_one_sided_comparison_and_totals(sessions):
    session = sessions[SUPERVISOR]
    alone = one_sided(session, "b", sessions)
    assert [r.status for r in alone.rows] == [ONLY_B] * len(session.steps)
    assert alone.totals_a is None and alone.totals_b == comparison_totals(session, sessions)
    totals = comparison_totals(session, sessions)
    family = [session] + [sessions[c] for c in session.children]
    assert totals["steps"] == sum(len(s.steps) for s in family) and totals["sub_sessions"] == 2
    assert totals["tokens"] == totals["in_tokens"] + totals["out_tokens"]
    assert totals["in_tokens"] == sum(st.fields.get("in_tokens", 0) for s in family for st in s.steps)


def test_record_has_the_contract_shape(sessions):
    record = comparison_record(compare_sessions(sessions[FORTS], sessions[TRAPPIST_AGENT], sessions))
    assert set(record) == {"a", "b", "rows", "edges", "chunks", "answer", "totals", "children"}
    assert all(set(r) == {"status", "kind", "a", "b", "changes"} for r in record["rows"])
    assert all(set(v) == {"a", "b"} for r in record["rows"] for v in r["changes"].values())
    assert record["answer"] == {"same": False, "a": sessions[FORTS].answer, "b": sessions[TRAPPIST_AGENT].answer}
    child = record["children"][0]
    assert child["parent"] == {"a": FORTS + "/i1", "b": TRAPPIST_AGENT + "/i1"}
    assert all(len(e) == 3 for e in child["edges"]["only_a"] + child["edges"]["only_b"])


# -- the alignment itself ---------------------------------------------------------------------------
def kind_lcs(a: list, b: list) -> int:
    table = [[0] * (len(b) + 1) for _ in range(len(a) + 1)]
    for i, x in enumerate(a):
        for j, y in enumerate(b):
            table[i + 1][j + 1] = table[i][j] + 1 if x[0] == y[0] else max(table[i][j + 1], table[i + 1][j])
    return table[-1][-1]


items = st.lists(st.tuples(st.sampled_from("AOPS"), st.sampled_from("xyz"), st.sampled_from("12")), max_size=14)


@settings(max_examples=300, deadline=None)
@given(items, items)
def test_alignment_pairs_as_many_steps_of_a_kind_as_order_allows(a, b):
    rows = align(a, b)
    assert [i for i, _ in rows if i is not None] == list(range(len(a)))
    assert [j for _, j in rows if j is not None] == list(range(len(b)))
    pairs = [(i, j) for i, j in rows if i is not None and j is not None]
    assert all(a[i][0] == b[j][0] for i, j in pairs)
    assert len(pairs) == kind_lcs(a, b)


def test_alignment_prefers_the_same_key_then_the_same_step():
    a = [("A", "search", 1), ("A", "calc", 2)]
    b = [("A", "search", 1), ("A", "web", 3), ("A", "calc", 2)]
    assert align(a, b) == [(0, 0), (None, 1), (1, 2)]
    a = [("A", "search", "x"), ("A", "search", "y")]
    b = [("A", "search", "new"), ("A", "search", "x"), ("A", "search", "y")]
    assert align(a, b) == [(None, 0), (0, 1), (1, 2)]


def test_banded_alignment_of_long_runs_stays_valid(monkeypatch):
    monkeypatch.setattr(alignment, "CELL_BUDGET", 2_000)
    rng = random.Random(3)
    a = [(rng.choice("AOPS"), rng.choice("xyz"), i) for i in range(300)]
    b = a[:100] + [("A", "w", -1), ("O", "w", -2)] + a[100:250] + a[252:]
    rows = align(a, b)
    assert [i for i, _ in rows if i is not None] == list(range(len(a)))
    assert [j for _, j in rows if j is not None] == list(range(len(b)))
    assert rows[100:102] == [(None, 100), (None, 101)] and rows[252:254] == [(250, None), (251, None)]
    assert rows[102:252] == [(100 + k, 102 + k) for k in range(150)]


# -- field diffs --------------------------------------------------------------------------------------
def test_text_segments_spell_both_texts():
    a, b = "I should use calculator to learn about Elbrus.", "I should use web-search to learn about Mont Blanc."
    segments = text_segments(a, b)
    assert "".join(t for op, t in segments if op != ADDED) == a
    assert "".join(t for op, t in segments if op != REMOVED) == b
    assert (REMOVED, "calculator ") in segments and (ADDED, "web-search ") in segments
    assert segments[0] == (EQUAL, "I should use ")
    big_a, big_b = "word " * 5000, "word " * 4999 + "other"
    assert "".join(t for op, t in text_segments(big_a, big_b) if op != REMOVED) == big_b


def test_json_changes_name_paths_and_values():
    changes = json_changes({"q": "x", "limit": 5, "filter": {"year": 1900}}, {"q": "y", "filter": {"year": 1901}, "tags": ["a"]})
    assert [(c.path, c.a, c.b) for c in changes] == [("filter.year", 1900, 1901), ("limit", 5, ABSENT),
                                                      ("q", "x", "y"), ("tags", ABSENT, ["a"])]
    assert describe("arguments", "not json", {"q": 1}).form == "text"
    assert describe("llm_duration_ms", 1200, 1500).delta == 300
    items = describe("plan_steps", ["s1", "s2", "s3"], ["s1", "s3", "s2"]).items
    assert [op for op, _ in items].count(EQUAL) == 2
