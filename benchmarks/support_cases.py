"""The labelled answer-support set, read two ways.

``benchmarks/data/support/cases.json`` holds the cases as written (the format is in
``benchmarks/data/support/README.md``): each a session's steps and its answer sentence by
sentence, each sentence with the refs of the steps that back it (none: invented). Half the cases
are "dev" (thresholds are chosen on them), half "held-out" (never looked at while tuning).

* ``spec_cases(half)``: the steps' texts straight from the cases, as the matcher sees them
  (``texts``: each an evidence text with the ref of its step; ``sentences`` with ``support`` the
  indexes of the texts that back them). Quick: no trace is read.
* ``trace_cases(half)``: the same sessions as TrustGraph's own service code wrote them
  (``support.trig``, ``support.documents.json``, ``labels.json``, made by
  ``scripts/trustgraph_services/generate.py --support``), read by the project's loader, with
  each labelled sentence's backing steps as IRIs.
"""

from __future__ import annotations

import json
from pathlib import Path

DATA = Path(__file__).resolve().parent / "data" / "support"
HALVES = ("dev", "held-out")


def load_spec(path: Path = DATA / "cases.json") -> list[dict]:
    """The cases as written."""
    return json.loads(path.read_text(encoding="utf-8"))["cases"]


def spec_texts(case: dict) -> list[tuple[str, str]]:
    """``(ref, text)`` for every text of ``case`` that may back its answer, as the project reads
    them from the trace: each tool call's arguments and observation (or error; a knowledge-query's
    sub-answer and its edges), each plan step's result, each sub-agent's steps and answer (the
    Finding), each edge's labels, each chunk."""
    out: list[tuple[str, str]] = []

    def steps(items):
        for step in items:
            ref = step["ref"]
            arguments = step.get("arguments") or {}
            if arguments and any(c.isdigit() for c in "".join(map(str, arguments.values()))):
                # arguments with a number are evidence (a calculator's expression); others repeat
                # the question and are context (``spec_cases``)
                out.append((ref, step["tool"] + "\n" + "\n".join(f"{k}: {v}" for k, v in arguments.items())))
            if step.get("error"):
                out.append((ref, step["error"]))
            elif "sub_answer" in step:
                out.append((ref, step["sub_answer"]))
                edges(step.get("edges") or [], ref)
            elif step.get("observation") is not None:
                out.append((ref, str(step["observation"])))

    def edges(items, parent=None):
        for edge in items:
            out.append((edge.get("ref") or parent, f"{edge['s']} {edge['p']} {edge['o']}"))

    mechanism = case["mechanism"]
    if mechanism == "react":
        steps(case["steps"])
    elif mechanism == "plan":
        for step in case["plan"]:
            out.append((step["ref"], str(step["result"])))
    elif mechanism == "supervisor":
        for sub in case["subagents"]:
            steps(sub.get("steps") or [])
            out.append((sub["ref"], sub["answer"]))
    elif mechanism == "graphrag":
        edges(case["edges"])
    else:
        for chunk in case["chunks"]:
            out.append((chunk["ref"], chunk["text"]))
    return out


def spec_cases(half: str | None = None, path: Path = DATA / "cases.json") -> list[dict]:
    """The cases of ``half`` ("dev", "held-out"; None: both) as the matcher sees them: each with
    ``texts`` (the evidence texts), ``refs`` (the ref of each text's step), ``context`` (the
    question, the goals of plan steps and sub-agents, and the tools' arguments), and ``sentences`` whose
    ``support`` lists the indexes of the texts that back them (every text of a labelled step)."""
    out = []
    for case in load_spec(path):
        if half and case["half"] != half:
            continue
        pairs = spec_texts(case)
        refs = [ref for ref, _ in pairs]
        sentences = [{"text": s["text"], "support": [i for i, ref in enumerate(refs) if ref in s["support"]],
                      "refs": s["support"]} for s in case["answer"]]
        steps = [*(case.get("steps") or []), *(st for a in case.get("subagents") or [] for st in a.get("steps") or [])]
        context = [case["question"]] + [p["goal"] for p in case.get("plan") or []] \
            + [a["goal"] for a in case.get("subagents") or []] \
            + ["\n".join(f"{k}: {v}" for k, v in (st.get("arguments") or {}).items()) for st in steps]
        out.append({"id": case["id"], "half": case["half"], "mechanism": case["mechanism"],
                    "texts": [t for _, t in pairs], "refs": refs, "sentences": sentences, "context": context,
                    "answer": " ".join(s["text"] for s in case["answer"])})
    return out


def trace_cases(half: str | None = None, folder: Path = DATA) -> list[dict]:
    """The cases of ``half`` as the service-made trace holds them: each with ``session`` (the
    project's ``Session``), ``family`` (every session of the trace by IRI, sub-sessions
    included), ``documents`` (the librarian's texts), and ``sentences`` from ``labels.json``:
    ``{text, start, end, support: [{step, kind, chunk, edge}]}``, offsets in the session's answer."""
    from trace_explorer.model.reader import read_sessions
    from trace_explorer.read.collection import load_collection

    collection, errors = load_collection([folder / "support.trig", folder / "support.documents.json"])
    if errors:
        raise ValueError(f"the labelled trace did not load: {errors}")
    sessions = {s.id: s for s in read_sessions(collection)}
    labels = json.loads((folder / "labels.json").read_text(encoding="utf-8"))
    out = []
    for case in labels["cases"] if isinstance(labels, dict) else labels:
        if half and case["half"] != half:
            continue
        out.append({"id": case["id"], "half": case["half"], "mechanism": case["mechanism"],
                    "session": sessions[case["session"]], "family": sessions, "documents": collection.documents,
                    "sentences": case["sentences"]})
    return out
