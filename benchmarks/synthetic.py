"""A synthetic trace collection for the benchmark, made from the reference corpus.

``generate(out_dir, sessions)`` writes ``synthetic.nq`` (N-Quads, RDF 1.2 ``<<( )>>`` triple terms
kept), ``synthetic.documents.json`` (``{document IRI: text}``) and ``manifest.json`` (what was
written: counts, the mix, the IRIs of the sessions the benchmark opens).

How: every corpus file is read with the project's own loader (so the four spellings of a quoted
triple are already one triple term), its sessions are found with ``model.reader.SessionReader`` and
grouped into *families* (a top-level session with its sub-sessions: an agent with the GraphRAG
run its tool started, a supervisor with its sub-agents). Each family becomes an N-Quads template;
a copy replaces every UUID of the family's IRIs (session ids, step ids, ``tg:document`` IRIs) by a
fresh one, consistently, and shifts every ``prov:startedAtTime`` by the same amount. Families are
emitted round after round, each round every family once in a seeded order, so the mix of
mechanisms, patterns and shapes (current and seed, sub-traces, failed tools, unfinished runs) is
the corpus's. What belongs to no session (extraction provenance, knowledge labels) is written
once: each copied GraphRAG edge still traces back to its one Subgraph, as in a real deployment
where many questions touch the same facts.

Two more sessions are made from scratch by ``make_react_session``: agent ReAct runs with 2,000
and 200 Analysis iterations in the current shape (PatternDecision, ``/i{n}`` with a Thought and an
Observation, ``/final`` Conclusion), like the corpus's 12-step session
``urn:trustgraph:agent:62c33a4f-b774-4b52-88db-40af72158370``. Everything is seeded: the same
arguments give the same bytes.

    python benchmarks/synthetic.py OUT_DIR [--sessions 10000] [--seed 7]
"""

from __future__ import annotations

import argparse
import json
import random
import re
import sys
import uuid
from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pyoxigraph as ox

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from trace_explorer.model.reader import SessionReader  # noqa: E402
from trace_explorer.model.triple_index import TripleIndex  # noqa: E402
from trace_explorer.read.files import read_trace_file  # noqa: E402

CORPUS_DIRS = (REPO / "trace_explorer" / "demo_data",)
TRACE_FILES = ("seed-sessions.ttl", "collection.trig", "orchestrated.nq", "graph-dump.ttl", "wire-triples.json")
CONTENT_FILES = ("collection.documents.json",)
# The corpus's 12-step ReAct run (max-iterations, one failed tool): the benchmark opens a copy.
TWELVE_STEP = "urn:trustgraph:agent:62c33a4f-b774-4b52-88db-40af72158370"
LONG_STEPS = (2000, 200)
DEFAULT_SESSIONS = 10_000
DEFAULT_SEED = 7
# Copies go back in time from the corpus's own dates, about one family per SPACING.
SPACING = timedelta(minutes=50)

RETRIEVAL = "urn:graph:retrieval"
RDF_TYPE = "http://www.w3.org/1999/02/22-rdf-syntax-ns#type"
RDFS_LABEL = "http://www.w3.org/2000/01/rdf-schema#label"
PROV = "http://www.w3.org/ns/prov#"
TG = "https://trustgraph.ai/ns/"

UUID_RE = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
STARTED_RE = re.compile(r'(<http://www\.w3\.org/ns/prov#startedAtTime> ")([^"\\]*)(")')


@dataclass
class Family:
    """A top-level session with its sub-sessions, as an N-Quads template."""

    file: str
    roots: list[str]                     # the top-level root first
    mechanisms: list[str]                # per root
    patterns: list[str | None]           # per root
    text: str                            # N-Quads of every quad the family owns
    uuids: frozenset[str]                # the UUIDs a copy replaces
    documents: dict[str, str]            # document IRI -> text, for IRIs in ``text``

    @property
    def size(self) -> int:
        return len(self.roots)


@dataclass
class Template:
    """The corpus cut into families, plus what belongs to no session (written once)."""

    corpus: Path
    families: list[Family]
    context: str
    context_quads: int


@dataclass
class Synthetic:
    """What ``generate`` wrote."""

    nquads: Path
    documents: Path
    info_path: Path
    info: dict = field(default_factory=dict)


def corpus_dir(path: str | Path | None = None) -> Path:
    """The reference corpus: ``path``, else the bundled copy in ``trace_explorer/demo_data``."""
    candidates = [Path(path)] if path else list(CORPUS_DIRS)
    for candidate in candidates:
        if all((candidate / name).is_file() for name in TRACE_FILES):
            return candidate
    raise FileNotFoundError(f"no reference corpus in {', '.join(map(str, candidates))}")


def _nquads(quads: list[ox.Quad]) -> str:
    return ox.serialize(quads, format=ox.RdfFormat.N_QUADS).decode("utf-8") if quads else ""


def _iris(term) -> list[str]:
    """The IRIs (and blank node labels) in a term, triple terms included."""
    if isinstance(term, (ox.NamedNode, ox.BlankNode)):
        return [term.value]
    if isinstance(term, ox.Triple):
        return [i for part in (term.subject, term.predicate, term.object) for i in _iris(part)]
    return []


def _bnodes_as_uuids(quads: list[ox.Quad]) -> list[ox.Quad]:
    """Give blank nodes labels that carry a UUID, so every copy renames them like IRIs (the
    corpus has none after its quoted triples are folded, but a template must not share them)."""
    names: dict[ox.BlankNode, ox.BlankNode] = {}

    def rename(term):
        if isinstance(term, ox.BlankNode):
            if term not in names:
                names[term] = ox.BlankNode("b" + str(uuid.uuid5(uuid.NAMESPACE_URL, term.value)))
            return names[term]
        if isinstance(term, ox.Triple):
            return ox.Triple(rename(term.subject), term.predicate, rename(term.object))
        return term

    return [ox.Quad(rename(q.subject), q.predicate, rename(q.object), rename(q.graph_name)) for q in quads]


def load_template(path: str | Path | None = None) -> Template:
    """Read the corpus and cut it into families (see the module docstring)."""
    root_dir = corpus_dir(path)
    texts: dict[str, str] = {}
    for name in CONTENT_FILES:
        texts.update(read_trace_file(str(root_dir / name)).documents)
    families: list[Family] = []
    context_quads: list[ox.Quad] = []
    for name in TRACE_FILES:
        quads = read_trace_file(str(root_dir / name)).quads
        reader = SessionReader(TripleIndex(quads))
        sessions = {s.id: s for s in reader.read_all()}
        top = {}
        for sid, session in sessions.items():
            head = session
            while head.parent_session and head.parent_session in sessions and head.parent_session != head.id:
                head = sessions[head.parent_session]
            top[sid] = head.id
        owner: dict[str, str] = {}
        for sid in sorted(sessions, key=lambda s: (s != top[s], s)):
            for node in sessions[sid].nodes:
                owner.setdefault(node, top[sid])
        owned: dict[str, list[ox.Quad]] = {}
        rest: list[ox.Quad] = []
        for quad in quads:
            key = quad.subject.value if isinstance(quad.subject, ox.NamedNode) else None
            if key in owner:
                owned.setdefault(owner[key], []).append(quad)
            else:
                rest.append(quad)
        context_quads.extend(rest)
        # UUIDs of the extraction provenance and knowledge stay: copies point at the same facts.
        fixed = {u for q in rest for t in (q.subject, q.object, q.graph_name) for i in _iris(t)
                 for u in UUID_RE.findall(i)}
        for head in sorted(owned, key=lambda h: (sessions[h].time or datetime.max.replace(tzinfo=timezone.utc), h)):
            members = sorted((s for s in sessions if top[s] == head), key=lambda s: (s != head, s))
            family_quads = _bnodes_as_uuids(owned[head])
            iris = {i for q in family_quads for t in (q.subject, q.object, q.graph_name) for i in _iris(t)}
            uuids = frozenset(u for i in iris for u in UUID_RE.findall(i)) - fixed
            text = _nquads(family_quads)
            families.append(Family(
                file=name, roots=members,
                mechanisms=[sessions[m].mechanism for m in members],
                patterns=[sessions[m].pattern for m in members],
                text=text, uuids=uuids,
                documents={d: t for d, t in texts.items() if d in iris}))
    return Template(root_dir, families, _nquads(context_quads), len(context_quads))


def _fresh_uuid(rng: random.Random) -> str:
    return str(uuid.UUID(int=rng.getrandbits(128), version=4))


def _parse_time(value: str) -> datetime | None:
    try:
        moment = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None
    return moment if moment.tzinfo else moment.replace(tzinfo=timezone.utc)


def _shift_time(value: str, delta: timedelta) -> str:
    try:
        moment = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return value  # a bad time stays bad: the reader treats it as missing
    if moment.tzinfo is None:
        return (moment + delta).isoformat()
    text = (moment + delta).astimezone(timezone.utc).isoformat()
    return text.replace("+00:00", "Z") if value.endswith("Z") else text


def copy_family(family: Family, rng: random.Random, delta: timedelta) -> tuple[str, dict[str, str], dict[str, str]]:
    """One copy of ``family``: (N-Quads text, documents, old root -> new root)."""
    mapping = {u: _fresh_uuid(rng) for u in sorted(family.uuids)}

    def rename(text: str) -> str:
        return UUID_RE.sub(lambda m: mapping.get(m.group(0), m.group(0)), text)

    text = STARTED_RE.sub(lambda m: m.group(1) + _shift_time(m.group(2), delta) + m.group(3), rename(family.text))
    return text, {rename(d): t for d, t in family.documents.items()}, {r: rename(r) for r in family.roots}


TOOLS = ("knowledge-query", "document-query", "web-search", "calculator", "mcp:weather")
TOPICS = ("Alpine glaciers", "tidal energy", "medieval trade fairs", "coral reef recovery", "river deltas",
          "monsoon forecasting", "Roman aqueducts", "sea ice", "permafrost carbon", "urban heat islands")


def make_react_session(iterations: int, *, seed: int = DEFAULT_SEED, started: datetime | None = None,
                       question: str | None = None, session_uuid: str | None = None,
                       graph: str = RETRIEVAL, error_rate: float = 0.08,
                       termination: str = "max-iterations") -> tuple[str, list[ox.Quad], dict[str, str]]:
    """One agent ReAct session with ``iterations`` Analysis steps, in the current shape.

    Question <- PatternDecision <- i1 <- i1/observation <- i2 <- ... <- final, each ``/i{n}``
    with a ``tg:thought`` Thought sub-entity; Thought, Observation and Conclusion texts live in
    the document store. Returns (root IRI, quads, {document IRI: text}). Seeded.
    """
    rng = random.Random(f"react:{iterations}:{seed}")
    sid = session_uuid or _fresh_uuid(rng)
    root = f"urn:trustgraph:agent:{sid}"
    started = started or datetime(2025, 9, 1, 12, 0, tzinfo=timezone.utc)
    topic = rng.choice(TOPICS)
    question = question or f"Survey what is known about {topic}, step by step ({iterations} tool calls)"
    g = ox.NamedNode(graph)
    quads: list[ox.Quad] = []
    docs: dict[str, str] = {}

    def add(subject: str, predicate: str, obj) -> None:
        if isinstance(obj, str):
            obj = ox.Literal(obj)
        quads.append(ox.Quad(ox.NamedNode(subject), ox.NamedNode(predicate), obj, g))

    def iri(value: str) -> ox.NamedNode:
        return ox.NamedNode(value)

    def document(text: str) -> ox.NamedNode:
        doc = f"urn:trustgraph:doc:{_fresh_uuid(rng)}"
        docs[doc] = text
        return iri(doc)

    def entity(subject: str, classes: tuple[str, ...], label: str, derived_from: str) -> None:
        """A step or part: its types, label and the entity it derives from."""
        for cls in classes:
            add(subject, RDF_TYPE, iri(cls))
        add(subject, RDFS_LABEL, label)
        add(subject, PROV + "wasDerivedFrom", iri(derived_from))

    for cls in (PROV + "Entity", TG + "Question", TG + "AgentQuestion"):
        add(root, RDF_TYPE, iri(cls))
    add(root, RDFS_LABEL, "Agent Question")
    add(root, PROV + "startedAtTime", started.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"))
    add(root, TG + "query", question)
    decision = root + "/pattern-decision"
    entity(decision, (PROV + "Entity", TG + "PatternDecision"), "Pattern: react", root)
    add(decision, TG + "pattern", "react")
    add(decision, TG + "taskType", "general")
    previous = decision
    for n in range(1, iterations + 1):
        step = f"{root}/i{n}"
        tool = rng.choice(TOOLS)
        subject = rng.choice(TOPICS)
        entity(step, (PROV + "Entity", TG + "Analysis", TG + "ToolUse"), f"Analysis: {tool}", previous)
        add(step, TG + "action", tool)
        arguments = ({"expression": f"{rng.randint(100, 9999)} - {rng.randint(100, 9999)}"} if tool == "calculator"
                     else {"question": f"{subject}?"})
        add(step, TG + "arguments", json.dumps(arguments))
        for candidate in TOOLS[:4]:
            add(step, TG + "toolCandidate", candidate)
        add(step, TG + "stepNumber", str(n))
        add(step, TG + "llmDurationMs", str(rng.randint(300, 9000)))
        thought = step + "/thought"
        add(step, TG + "thought", iri(thought))
        entity(thought, (TG + "Reflection", TG + "Thought"), "Thought", step)
        add(thought, TG + "document", document(f"Step {n}: I should use {tool} to learn about {subject}."))
        add(step, TG + "inToken", str(rng.randint(200, 4000)))
        add(step, TG + "outToken", str(rng.randint(40, 500)))
        add(step, TG + "llmModel", "gpt-4o-mini")
        observation = step + "/observation"
        entity(observation, (PROV + "Entity", TG + "Observation"), "Observation", step)
        add(observation, TG + "document", document(f"Result of {tool}: facts about {topic}."))
        add(observation, TG + "toolDurationMs", str(rng.randint(100, 3000)))
        if rng.random() < error_rate:
            add(observation, TG + "toolError", f"{tool} failed: upstream timed out after 30 s")
            add(observation, RDF_TYPE, iri(TG + "Error"))
        previous = observation
    final = root + "/final"
    entity(final, (PROV + "Entity", TG + "Conclusion", TG + "Answer"), "Conclusion", previous)
    add(final, TG + "document", document(f"After {iterations} steps: a summary of what is known about {topic}."))
    add(final, TG + "terminationReason", termination)
    add(final, TG + "inToken", "1200")
    add(final, TG + "outToken", "90")
    add(final, TG + "llmModel", "gpt-4o-mini")
    return root, quads, docs


def generate(out_dir: str | Path, sessions: int = DEFAULT_SESSIONS, *, seed: int = DEFAULT_SEED,
             long_steps: tuple[int, ...] = LONG_STEPS, corpus: str | Path | None = None,
             name: str = "synthetic") -> Synthetic:
    """Write a collection of exactly ``sessions`` sessions (sub-sessions included; the
    ``long_steps`` ReAct runs among them) to ``out_dir``; returns the paths and ``info``."""
    template = load_template(corpus)
    target = sessions - len(long_steps)
    if target < 1:
        raise ValueError(f"need more than {len(long_steps)} sessions, got {sessions}")
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    rng = random.Random(seed)
    first = next(f for f in template.families if TWELVE_STEP in f.roots)
    singles = [f for f in template.families if f.size == 1]
    nq_path = out / f"{name}.nq"
    documents: dict[str, str] = {}
    mix: Counter = Counter()
    sub_sessions = 0
    top_level = 0
    lines = 0
    notable: dict[str, str] = {}
    emitted = 0
    copy = 0
    newest = max(_parse_time(m[1]) for f in template.families for m in STARTED_RE.findall(f.text)
                 if _parse_time(m[1]) is not None)
    with open(nq_path, "w", encoding="utf-8", newline="\n") as handle:
        handle.write(template.context)
        lines += template.context.count("\n")
        round_number = 0
        while emitted < target:
            order = list(template.families)
            rng.shuffle(order)
            if round_number == 0:
                order.remove(first)
                order.insert(0, first)
            for family in order:
                if emitted >= target:
                    break
                if family.size > target - emitted:
                    family = singles[(target - emitted + copy) % len(singles)]
                delta = -(copy * SPACING) - timedelta(seconds=rng.randrange(int(SPACING.total_seconds())))
                text, docs, roots = copy_family(family, rng, delta)
                handle.write(text)
                lines += text.count("\n")
                documents.update(docs)
                if TWELVE_STEP in roots and "react_12" not in notable:
                    notable["react_12"] = roots[TWELVE_STEP]
                for original, mechanism, pattern in zip(family.roots, family.mechanisms, family.patterns):
                    mix[mechanism + (f"/{pattern}" if pattern else "")] += 1
                top_level += 1
                sub_sessions += family.size - 1
                emitted += family.size
                copy += 1
            round_number += 1
        # The long runs sit in the middle of the time range: the first page shows typical sessions.
        middle = newest - (copy // 2) * SPACING
        for steps in long_steps:
            root, quads, docs = make_react_session(steps, seed=seed, started=middle - timedelta(minutes=steps % 97))
            text = _nquads(quads)
            handle.write(text)
            lines += text.count("\n")
            documents.update(docs)
            notable[f"react_{steps}"] = root
            mix["Agent/react"] += 1
            top_level += 1
            emitted += 1
    docs_path = out / f"{name}.documents.json"
    docs_path.write_text(json.dumps(documents, ensure_ascii=False, indent=0, sort_keys=True), encoding="utf-8")
    info = {
        "sessions": emitted, "top_level": top_level, "sub_sessions": sub_sessions,
        "quads_written": lines, "context_quads": template.context_quads, "documents": len(documents),
        "mix": dict(sorted(mix.items())), "notable": notable, "seed": seed,
        "corpus": str(template.corpus), "families": len(template.families),
        "nquads": nq_path.name, "documents_file": docs_path.name,
        "nquads_bytes": nq_path.stat().st_size,
        "quoted_triple_quads": _count_lines_with(nq_path, "<<("),
    }
    info_path = out / "manifest.json"  # a folder load skips manifest.json, as in the corpus
    info_path.write_text(json.dumps(info, indent=1), encoding="utf-8")
    return Synthetic(nq_path, docs_path, info_path, info)


def _count_lines_with(path: Path, needle: str) -> int:
    with open(path, encoding="utf-8") as handle:
        return sum(1 for line in handle if needle in line)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out_dir")
    parser.add_argument("--sessions", type=int, default=DEFAULT_SESSIONS)
    parser.add_argument("--seed", type=int, default=DEFAULT_SEED)
    parser.add_argument("--corpus", default=None, help="the reference corpus folder (default trace_explorer/demo_data)")
    args = parser.parse_args(argv)
    made = generate(args.out_dir, args.sessions, seed=args.seed, corpus=args.corpus)
    print(json.dumps(made.info, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
