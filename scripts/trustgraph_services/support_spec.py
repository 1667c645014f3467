"""Reading a file of labelled answer-support cases (the format of ``SUPPORT-CASES.md``: one
session per case, its tool outputs, edges or chunks, and its answer sentence by sentence with
the refs of the steps backing each) and checking it before any service runs.

A case's refs name its steps: a react step (``s1``), a plan step (``p1``), a supervisor's
sub-agent (``f1``), an edge (``e1``) or a chunk (``c1``). Errors name the case and the sentence
by index, never by its words (a held-out case's sentences stay out of logs).
"""

from __future__ import annotations

import json
from pathlib import Path

MECHANISMS = ("react", "plan", "supervisor", "graphrag", "docrag")
KNOWLEDGE_QUERY = "knowledge-query"


class SpecError(ValueError):
    """A case the generator cannot run: the message names the case (and the sentence by
    index)."""


def load(path: Path) -> list[dict]:
    """The cases of the spec file at ``path``, checked (``check``). Raises SpecError, or
    OSError / json.JSONDecodeError for an unreadable file."""
    data = json.loads(Path(path).read_text(encoding="utf-8"))
    cases = data["cases"] if isinstance(data, dict) else data
    seen = set()
    for case in cases:
        check(case)
        if case["id"] in seen:
            raise SpecError(f"two cases are called {case['id']!r}")
        seen.add(case["id"])
    return cases


def answer_text(case: dict) -> str:
    """The case's final answer: its sentences joined by a single space."""
    return " ".join(s["text"] for s in case["answer"])


def agent_steps(case: dict) -> list[dict]:
    """Every tool step of an agent case, in spec order: a react case's steps, a plan's steps,
    each sub-agent's steps."""
    if case["mechanism"] == "react":
        return list(case["steps"])
    if case["mechanism"] == "plan":
        return list(case["plan"])
    if case["mechanism"] == "supervisor":
        return [step for sub in case["subagents"] for step in sub["steps"]]
    return []


def edges_of(case: dict) -> list[dict]:
    """Every edge the case's GraphRAG sessions read: a graphrag case's, and those of its
    knowledge-query steps."""
    out = list(case.get("edges") or [])
    for step in agent_steps(case):
        out.extend(step.get("edges") or [])
    return out


def refs(case: dict) -> dict:
    """ref -> ``(kind, item)``: kind "step" (react or sub-agent step), "plan", "subagent",
    "edge" or "chunk"."""
    out = {}
    items = [("step", s) for s in (case.get("steps") or [])]
    items += [("plan", s) for s in (case.get("plan") or [])]
    for sub in case.get("subagents") or []:
        items.append(("subagent", sub))
        items += [("step", s) for s in sub["steps"]]
    items += [("edge", e) for e in edges_of(case)]
    items += [("chunk", c) for c in (case.get("chunks") or [])]
    for kind, item in items:
        ref = item.get("ref")
        if not ref or ref in out:
            raise SpecError(f"{case['id']}: missing or repeated ref {ref!r}")
        out[ref] = (kind, item)
    return out


REQUIRED = {
    "react": ("steps",), "plan": ("plan",), "supervisor": ("subagents",),
    "graphrag": ("edges",), "docrag": ("chunks", "rerank"),
}


def check(case: dict) -> None:
    """Raise SpecError when ``case`` misses a key its mechanism needs, repeats a ref, cites a
    ref it does not define, or holds a step the services cannot run as written."""
    name = case.get("id") or "?"
    for key in ("id", "half", "mechanism", "question", "answer"):
        if key not in case:
            raise SpecError(f"{name}: no {key!r}")
    if case["mechanism"] not in MECHANISMS:
        raise SpecError(f"{name}: unknown mechanism {case['mechanism']!r}")
    for key in REQUIRED[case["mechanism"]]:
        if key not in case:
            raise SpecError(f"{name}: a {case['mechanism']} case needs {key!r}")
    known = refs(case)
    for i, sentence in enumerate(case["answer"]):
        if "\n" in sentence["text"] or sentence["text"] != sentence["text"].strip():
            raise SpecError(f"{name}: sentence {i} has a line break or outer spaces")
        for ref in sentence.get("support") or []:
            if ref not in known:
                raise SpecError(f"{name}: sentence {i} cites {ref!r}, which the case does not define")
    for step in agent_steps(case):
        check_step(name, step)
    if case["mechanism"] == "supervisor":
        goals = [sub["goal"] for sub in case["subagents"]]
        if len(set(goals)) != len(goals) or not 0 < len(goals) <= 5:
            raise SpecError(f"{name}: a supervisor needs 1 to 5 sub-agents with distinct goals")
    if case["mechanism"] == "plan" and any(s.get("error") for s in case["plan"]):
        raise SpecError(f"{name}: a plan step cannot fail (the plan pattern has no tool error)")
    labels = [(e["s"], e["p"], e["o"]) for e in edges_of(case)]
    if len(set(labels)) != len(labels):
        raise SpecError(f"{name}: two edges with the same labels (GraphRAG keeps one)")


def check_step(name: str, step: dict) -> None:
    if not step.get("tool") or not isinstance(step.get("arguments", {}), dict):
        raise SpecError(f"{name}: step {step.get('ref')!r} needs a tool and an arguments object")
    if step["tool"] == KNOWLEDGE_QUERY:
        if step.get("error"):
            raise SpecError(f"{name}: knowledge-query step {step['ref']!r} cannot fail (the "
                            "GraphRAG it runs always answers)")
        if not step.get("edges") or not (step.get("arguments") or {}).get("question"):
            raise SpecError(f"{name}: knowledge-query step {step['ref']!r} needs edges and a "
                            "question argument")
        if not (step.get("sub_answer") or step.get("result")):
            raise SpecError(f"{name}: knowledge-query step {step['ref']!r} needs its sub_answer")
