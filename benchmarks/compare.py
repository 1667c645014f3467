"""How long comparing two long sessions takes (``trace_explorer.analysis.compare.compare``), against the
target: a 2,000-step pair compares in under 2 s.

The sessions are ReAct runs made by ``benchmarks/synthetic.py``'s ``make_react_session`` (2,000
iterations: 4,002 steps with the PatternDecision and the Conclusion). Pairs:

- ``edited copy``: the run against a copy of itself with a tool swapped (iteration 1,000), an
  iteration removed (500) and a failed tool call (1,500): the usual before/after pair;
- ``other run``: against another seeded 2,000-iteration run (every tool, text and number differs);
- ``other length``: against a 1,990-iteration run (the kinds no longer line up one to one, so the
  banded dynamic programme does the work);
- ``200 against 2,000``: a 200-iteration run against the 2,000-iteration one.

Each figure is the median of ``--repeat`` runs of ``compare_sessions`` (the sessions read
once, before), then the outputs built from it (JSON record, text, Markdown, HTML page) and the
reading of the two sessions, for scale.

    .venv/bin/python benchmarks/compare.py [--repeat 5]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import pyoxigraph as ox

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from benchmarks.synthetic import make_react_session  # noqa: E402
from trace_explorer.analysis.compare.compare import compare_sessions, comparison_record  # noqa: E402
from trace_explorer.export.comparison_markdown import comparison_markdown  # noqa: E402
from trace_explorer.export.comparison_page import comparison_page  # noqa: E402
from trace_explorer.export.comparison_text import comparison_text  # noqa: E402
from trace_explorer.model.reader import SessionReader  # noqa: E402
from trace_explorer.model.triple_index import TripleIndex  # noqa: E402

TARGET_S = 2.0
TG = "https://trustgraph.ai/ns/"
PROV = "http://www.w3.org/ns/prov#"
RDF_TYPE = "http://www.w3.org/1999/02/22-rdf-syntax-ns#type"
COPY_UUID = "c0ffee00-0000-4000-8000-0000000000be"


def edited_copy(root: str, quads: list[ox.Quad]) -> tuple[str, list[ox.Quad]]:
    """A copy of the run ``root`` under a new UUID: iteration 1,000's tool swapped, iteration 500
    removed (501 derives from 499's observation), iteration 1,500's tool call failed."""
    old = root.rsplit(":", 1)[-1]
    copy_root = root.replace(old, COPY_UUID)

    def rename(term):
        return ox.NamedNode(term.value.replace(old, COPY_UUID)) if isinstance(term, ox.NamedNode) else term

    gone = {f"{copy_root}/i500", f"{copy_root}/i500/thought", f"{copy_root}/i500/observation"}
    out = []
    for quad in quads:
        subject, obj = rename(quad.subject), rename(quad.object)
        if subject.value in gone:
            continue
        if subject.value == f"{copy_root}/i1000" and quad.predicate.value == TG + "action":
            obj = ox.Literal("calculator" if obj.value != "calculator" else "web-search")
        if subject.value == f"{copy_root}/i501" and quad.predicate.value == PROV + "wasDerivedFrom":
            obj = ox.NamedNode(f"{copy_root}/i499/observation")
        out.append(ox.Quad(subject, quad.predicate, obj, quad.graph_name))
    failed = ox.NamedNode(f"{copy_root}/i1500/observation")
    graph = quads[0].graph_name
    out += [ox.Quad(failed, ox.NamedNode(TG + "toolError"), ox.Literal("web-search failed: timed out"), graph),
            ox.Quad(failed, ox.NamedNode(RDF_TYPE), ox.NamedNode(TG + "Error"), graph)]
    return copy_root, out


def timed(function, repeat: int) -> tuple[float, object]:
    """Median seconds of ``repeat`` calls, and the last result."""
    times, result = [], None
    for _ in range(repeat):
        start = time.perf_counter()
        result = function()
        times.append(time.perf_counter() - start)
    return statistics.median(times), result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args(argv)
    root, quads, documents = make_react_session(2000, seed=7)
    other, other_quads, other_docs = make_react_session(2000, seed=8)
    shorter, shorter_quads, shorter_docs = make_react_session(1990, seed=9)
    small, small_quads, small_docs = make_react_session(200, seed=10)
    copy_root, copy_quads = edited_copy(root, quads)
    everything = quads + other_quads + shorter_quads + small_quads + copy_quads
    documents = {**documents, **other_docs, **shorter_docs, **small_docs}
    start = time.perf_counter()
    reader = SessionReader(TripleIndex(everything), documents)
    sessions = {r: reader.read(r) for r in (root, other, shorter, small, copy_root)}
    read_s = time.perf_counter() - start
    pairs = (("edited copy", root, copy_root), ("other run", root, other), ("other length", root, shorter),
             ("200 against 2,000", small, root))
    print(f"sessions read: {read_s:.2f} s for {sum(len(s.steps) for s in sessions.values()):,} steps "
          f"(5 sessions, {len(everything):,} quads)")
    print(f"{'pair':<20}{'steps A/B':>14}{'rows':>8}{'compare':>11}{'target':>9}{'ratio':>8}  verdict   "
          f"{'JSON':>8}{'text':>8}{'Markdown':>10}{'HTML':>8}  rows by status")
    worst = 0.0
    for name, a, b in pairs:
        seconds, comparison = timed(lambda: compare_sessions(sessions[a], sessions[b], sessions), args.repeat)
        outputs = [timed(lambda f=f: f(comparison), 1)[0] for f in (comparison_record, comparison_text,
                                                                   comparison_markdown, comparison_page)]
        counts = {s: comparison.count(s) for s in ("same", "changed", "only_a", "only_b")}
        ratio = seconds / TARGET_S
        worst = max(worst, ratio)
        print(f"{name:<20}{len(sessions[a].steps):>7,}/{len(sessions[b].steps):<6,}{len(comparison.rows):>8,}"
              f"{seconds:>9.3f} s{TARGET_S:>7.1f} s{ratio:>7.2f}x  {'PASS' if ratio <= 1 else 'MISS':<8}"
              + "".join(f"{o:>7.2f}s" for o in outputs[:2]) + f"{outputs[2]:>9.2f}s{outputs[3]:>7.2f}s  "
              + ", ".join(f"{k} {v:,}" for k, v in counts.items()))
    print(f"slowest compare: {worst:.2f}x of the {TARGET_S:.0f} s target")
    return 0 if worst <= 1 else 1


if __name__ == "__main__":
    sys.exit(main())
