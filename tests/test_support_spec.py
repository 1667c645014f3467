"""The checks the support generator makes on a spec file before any service runs
(``scripts/trustgraph_services/support_spec.py``, plain Python: it runs here without TrustGraph):
the committed spec and the example pass; a case the services cannot run as written is refused
with its id and the sentence's index, never the sentence's words."""

from __future__ import annotations

import copy
import importlib.util
import json
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
_spec = importlib.util.spec_from_file_location(
    "support_spec", REPO / "scripts" / "trustgraph_services" / "support_spec.py")
support_spec = importlib.util.module_from_spec(_spec)
sys.modules["support_spec"] = support_spec
_spec.loader.exec_module(support_spec)

EXAMPLE = REPO / "tests" / "data" / "support_cases_example.json"
CASES = {c["id"]: c for c in json.loads(EXAMPLE.read_text(encoding="utf-8"))["cases"]}


def test_the_committed_and_example_specs_pass():
    committed = support_spec.load(REPO / "benchmarks" / "data" / "support" / "cases.json")
    assert len(committed) == 34
    assert [c["id"] for c in support_spec.load(EXAMPLE)] == list(CASES)


def test_the_answer_is_the_sentences_joined_by_a_space():
    case = CASES["rhine-plan"]
    assert support_spec.answer_text(case) == " ".join(s["text"] for s in case["answer"])
    assert support_spec.answer_text(case).count(". ") == 2


def test_refs_cover_steps_sub_agents_edges_and_chunks():
    kinds = {ref: kind for ref, (kind, _) in support_spec.refs(CASES["baikal-react-knowledge"]).items()}
    assert kinds == {"s1": "step", "s2": "step", "e1": "edge", "e2": "edge"}
    kinds = {ref: kind for ref, (kind, _) in support_spec.refs(CASES["volcano-supervisor"]).items()}
    assert kinds == {"f1": "subagent", "s1": "step", "f2": "subagent", "s2": "step", "s3": "step"}


def broken(case_id, change):
    case = copy.deepcopy(CASES[case_id])
    change(case)
    return case


@pytest.mark.parametrize(("case", "message"), [
    (broken("rhine-plan", lambda c: c["answer"][1].update(support=["p9"])),
     "rhine-plan: sentence 1 cites 'p9'"),
    (broken("rhine-plan", lambda c: c["plan"][1].update(ref="p1")), "repeated ref 'p1'"),
    (broken("rhine-plan", lambda c: c["plan"][0].update(error="down")), "a plan step cannot fail"),
    (broken("baikal-react-knowledge", lambda c: c["steps"][0].update(error="down")),
     "knowledge-query step 's1' cannot fail"),
    (broken("baikal-react-knowledge", lambda c: c["steps"][0]["arguments"].pop("question")),
     "needs edges and a question argument"),
    (broken("danube-graphrag", lambda c: c["edges"].append(dict(c["edges"][0], ref="e9"))),
     "two edges with the same labels"),
    (broken("volcano-supervisor", lambda c: c["subagents"][1].update(goal=c["subagents"][0]["goal"])),
     "distinct goals"),
    (broken("heizung-docrag-rerank", lambda c: c.pop("rerank")), "needs 'rerank'"),
    (broken("metro-docrag-plain", lambda c: c["answer"][0].update(text=c["answer"][0]["text"] + "\n")),
     "sentence 0 has a line break"),
])
def test_a_case_the_services_cannot_run_is_refused_by_id_and_index(case, message):
    with pytest.raises(support_spec.SpecError) as raised:
        support_spec.check(case)
    assert message in str(raised.value)
    assert not any(s["text"] in str(raised.value) for s in case["answer"])
