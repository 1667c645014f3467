"""The labels of one case, from what the services emitted for it (``emitted.Emitted``) and what
the librarian holds: the case's session (its top Question), its answer as the librarian holds
it, and each sentence's character span in that answer with a SOURCE for each ref it cites:

    {"step": IRI, "kind": "Observation" | "StepResult" | "Finding" | "Edge" | "Chunk",
     "chunk": chunk IRI or None, "edge": [s, p, o] or None}

(a react or sub-agent step: the Observation paired with its Analysis, plus ``also``, that
Analysis, when the step's arguments hold an ``expression``; a plan step: its StepResult; a
sub-agent: the supervisor's Finding for its goal; an edge: the Focus of the GraphRAG session
that read it; a chunk: the Focus when reranked, else the Exploration). Every text is checked
against what the spec gave the services, and every GraphRAG and DocRAG session against the
edges and chunks it was meant to select: a mismatch raises RuntimeError naming the case and the
ref, never a sentence's words.
"""

from __future__ import annotations

import json

from emitted import TG, Emitted
from support_knowledge import edge_key
from support_retrieval import wanted_edges
from support_spec import answer_text, refs


class CaseLabels:
    """Resolves the refs of ``case`` in ``emitted`` (its run's explain triples); ``texts`` is the
    librarian's {document id: text}, ``chunk_iris`` the case's chunk ref -> IRI."""

    def __init__(self, case: dict, emitted: Emitted, texts: dict, chunk_iris: dict):
        self.case, self.e, self.texts, self.chunk_iris = case, emitted, texts, chunk_iris
        tops = [q for q in emitted.roots() if emitted.parent(q) is None]
        self.fail_unless(len(tops) == 1, None, f"{len(tops)} top-level sessions")
        self.session = tops[0]
        self.refs = refs(case)
        self.step_entity = {}  # step ref -> its Analysis or StepResult
        self.sub_session = {}  # sub-agent ref -> its session
        self.edge_home = {}  # edge ref -> the step whose tool read it (None: the session)
        self.map_steps()

    def fail_unless(self, ok, ref, what):
        if not ok:
            raise RuntimeError(f"{self.case['id']}{'' if ref is None else ' ' + ref}: {what}")

    def text(self, entity) -> str | None:
        doc = self.e.value(entity, "document")
        return self.texts.get(doc) if doc else None

    def map_steps(self):
        mechanism = self.case["mechanism"]
        if mechanism == "react":
            self.map_react(self.session, self.case["steps"])
        elif mechanism == "plan":
            results = self.e.of_kind("StepResult", self.session)
            self.fail_unless(len(results) == len(self.case["plan"]), None, "plan step count")
            for step, entity in zip(self.case["plan"], results):
                self.fail_unless(self.e.value(entity, "planStep") == step["goal"], step["ref"], "goal")
                self.step_entity[step["ref"]] = entity
        elif mechanism == "supervisor":
            decompose = self.e.of_kind("Decomposition", self.session)
            subs = {self.e.value(q, "query"): q for d in decompose for q in self.e.sub_sessions(d)}
            for sub in self.case["subagents"]:
                self.fail_unless(sub["goal"] in subs, sub["ref"], "no sub-agent session")
                self.sub_session[sub["ref"]] = subs[sub["goal"]]
                self.map_react(subs[sub["goal"]], sub["steps"])
        for ref, (kind, item) in self.refs.items():
            if kind in ("step", "plan"):
                for edge in item.get("edges") or []:
                    self.edge_home[edge["ref"]] = ref
        for edge in self.case.get("edges") or []:
            self.edge_home[edge["ref"]] = None

    def map_react(self, session, steps):
        analyses = self.e.of_kind("Analysis", session)
        self.fail_unless(len(analyses) == len(steps), None, "Analysis count")
        for step, analysis in zip(steps, analyses):
            args = json.loads(self.e.value(analysis, "arguments") or "{}")
            self.fail_unless(self.e.value(analysis, "action") == step["tool"]
                             and args == step["arguments"], step["ref"], "action or arguments")
            self.step_entity[step["ref"]] = analysis

    def answer(self) -> str:
        kind = "Conclusion" if self.case["mechanism"] == "react" else "Synthesis"
        final = self.e.of_kind(kind, self.session)
        self.fail_unless(len(final) == 1, None, f"no single {kind}")
        answer = self.text(final[0])
        self.fail_unless(answer == answer_text(self.case), None,
                         "the answer the librarian holds is not the sentences joined")
        return answer

    def source(self, ref: str) -> dict:
        kind, item = self.refs[ref]
        if kind == "step":
            return self.observation_source(ref, item)
        if kind == "plan":
            entity = self.step_entity[ref]
            self.fail_unless(self.text(entity) == item["result"].strip(), ref, "step result text")
            return source(entity, "StepResult")
        if kind == "subagent":
            findings = [f for f in self.e.of_kind("Finding", self.session)
                        if self.e.value(f, "subagentGoal") == item["goal"]]
            self.fail_unless(len(findings) == 1 and self.text(findings[0]) == item["answer"].strip(),
                             ref, "finding")
            return source(findings[0], "Finding")
        if kind == "edge":
            focus = self.focus_of(self.edge_home[ref])
            edge = list(edge_key(item))
            self.fail_unless(edge in self.selected_edges(focus), ref, "edge not selected")
            return source(focus, "Edge", edge=edge)
        chunk = self.chunk_iris[ref]
        step = self.chunk_step()
        self.fail_unless(chunk in self.selected_chunks(step), ref, "chunk not selected")
        return source(step, "Chunk", chunk=chunk)

    def observation_source(self, ref, step) -> dict:
        analysis = self.step_entity[ref]
        obs = self.e.observation_of(analysis)
        if step.get("error"):
            expected = f"Error: {step['error']}"
        else:
            expected = (step.get("sub_answer") or step.get("observation") or "").strip()
        self.fail_unless(obs is not None and self.text(obs) == expected, ref, "observation text")
        out = source(obs, "Observation")
        if "expression" in step["arguments"]:
            out["also"] = {"step": analysis, "kind": "Analysis"}
        return out

    def focus_of(self, home: str | None) -> str:
        session = self.session if home is None else self.e.sub_sessions(self.step_entity[home])[0]
        return self.e.of_kind("Focus", session)[0]

    def selected_edges(self, focus) -> list:
        return [list(self.e.value(sel, "edge")) for sel in self.e.values(focus, TG + "selectedEdge")]

    def chunk_step(self) -> str:
        kind = "Focus" if self.case["rerank"] else "Exploration"
        found = self.e.of_kind(kind, self.session)
        self.fail_unless(len(found) == 1, None, f"no single {kind}")
        return found[0]

    def selected_chunks(self, step) -> list:
        picked = self.e.values(step, TG + "selectedChunk")
        if self.e.kind(step) == "Focus":
            return [self.e.value(sel, "document") for sel in picked]
        return picked

    def check_selections(self):
        """Every GraphRAG session selected exactly its edges, the DocRAG session every chunk."""
        for ref, (kind, item) in self.refs.items():
            if kind in ("step", "plan") and item.get("edges"):
                got = {tuple(e) for e in self.selected_edges(self.focus_of(ref))}
                self.fail_unless(got == wanted_edges(item["edges"]), ref, "selected edges differ")
        if self.case["mechanism"] == "graphrag":
            got = {tuple(e) for e in self.selected_edges(self.focus_of(None))}
            self.fail_unless(got == wanted_edges(self.case["edges"]), None, "selected edges differ")
        if self.case["mechanism"] == "docrag":
            got = sorted(self.selected_chunks(self.chunk_step()))
            self.fail_unless(got == sorted(self.chunk_iris.values()), None, "selected chunks differ")

    def build(self) -> dict:
        """``{id, half, mechanism, session, answer, sentences: [{text, start, end, support
        [, note]}]}``."""
        self.check_selections()
        answer = self.answer()
        sentences, at = [], 0
        for i, sentence in enumerate(self.case["answer"]):
            start = answer.find(sentence["text"], at)
            self.fail_unless(start >= 0, None, f"sentence {i} not found in the answer")
            at = start + len(sentence["text"])
            entry = {"text": sentence["text"], "start": start, "end": at,
                     "support": [self.source(ref) for ref in sentence.get("support") or []]}
            if sentence.get("note"):
                entry["note"] = sentence["note"]
            sentences.append(entry)
        return {"id": self.case["id"], "half": self.case["half"],
                "mechanism": self.case["mechanism"], "session": self.session,
                "answer": answer, "sentences": sentences}


def source(step: str, kind: str, chunk: str | None = None, edge: list | None = None) -> dict:
    return {"step": step, "kind": kind, "chunk": chunk, "edge": edge}
