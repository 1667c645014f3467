"""How well answer support finds the steps behind each sentence, and how fast.

Scored on the labelled set in ``benchmarks/data/support/`` (``support_cases``): sessions that
TrustGraph 2.11.1's own service code ran (agents with several tools, plan-then-execute,
supervisors, GraphRAG, DocRAG), with answers written as models write them (paraphrases, several
sources in one sentence, bare-value tools, evidence in another language, invented sentences that
reuse the trace's names), in two halves: "dev", on which the thresholds were chosen, and
"held-out", never looked at while tuning. Every figure is printed for both.

    .venv/bin/python benchmarks/answer_support.py [--repeat 5] [--quick] [--store DIR]

Prints per half, for the matcher as shipped (read from the service-made trace by the project's
loader, as ``trace-explorer support`` reads it) and for simpler variants (read from the cases'
texts): ``pairs`` the share of labelled (sentence, step) pairs found, ``cited`` the share of
cited steps that are right, ``flag precision`` / ``flag recall`` for sentences flagged
unsupported; then whether the service-made demo corpus has any sentence flagged; then
milliseconds per session (model load excluded): the demo's 26-step session and a generated
50-step ReAct session, read anew and again. Targets: pairs >= 0.9, cited >= 0.6, flags >= 0.8
each, <= 200 ms for a 50-step session.

With ``--store DIR`` (a store made by ``trace-explorer ingest --no-health``), also runs the
health check over every session of it and prints the CPU seconds spent in answer support, as an
ingest spends them, with a digest of every support found.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import statistics
import sys
import time
from dataclasses import replace
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "benchmarks"))

from support_cases import HALVES, spec_cases, trace_cases  # noqa: E402

from trace_explorer.analysis.support.embedding import word_vectors  # noqa: E402
from trace_explorer.analysis.support.matcher import Matcher  # noqa: E402
from trace_explorer.analysis.support.reading import Evidence  # noqa: E402
from trace_explorer.analysis.support.settings import Settings  # noqa: E402
from trace_explorer.analysis.support.support import session_support, support_record  # noqa: E402
from trace_explorer.analysis.support.text_cache import clear_all  # noqa: E402

VARIANTS = {
    "plain word overlap, whole sentences": Settings(idf=False, fuzzy=None, similar=None, phrase=None, numbers=False,
                                                    claims=False, across=False, floor=0),
    "+ words weighed by rarity (BM25 idf)": Settings(fuzzy=None, similar=None, phrase=None, numbers=False,
                                                     claims=False, across=False),
    "+ numbers by value": Settings(fuzzy=None, similar=None, phrase=None, claims=False, across=False),
    "+ claims": Settings(fuzzy=None, similar=None, phrase=None, across=False),
    "+ close spellings, word embeddings": Settings(phrase=None, across=False),
    "+ other languages' names and numbers": Settings(phrase=None),
    "as shipped (+ phrase embeddings)": Settings(),
}


def score_pairs(results) -> dict:
    """Figures from ``(gold refs, cited refs, flagged)`` per sentence: ``pairs`` (labelled
    pairs found), ``cited`` (cited pairs that are labelled), ``flag_precision``, ``flag_recall``
    (sentences flagged unsupported), each 0-1, with the counts behind them."""
    found = labelled = cited = right = flagged_right = flagged = unsupported = 0
    for gold, got, flag in results:
        labelled += len(gold)
        found += len(gold & got)
        cited += len(got)
        right += len(gold & got)
        unsupported += not gold
        if flag:
            flagged += 1
            flagged_right += not gold
    return {"pairs": found / max(labelled, 1), "cited": right / max(cited, 1),
            "flag_precision": flagged_right / max(flagged, 1), "flag_recall": flagged_right / max(unsupported, 1),
            "sentences": len(results), "unsupported": unsupported, "flagged": flagged}


def spec_results(cases: list[dict], settings: Settings, vectors) -> list:
    """``(gold refs, cited refs, flagged)`` per sentence of ``cases`` (``support_cases.spec_cases``)."""
    out = []
    for case in cases:
        matcher = Matcher([Evidence.of(t) for t in case["texts"]], settings, vectors,
                          context=[Evidence.of(t) for t in case["context"]])
        for sentence in case["sentences"]:
            match = matcher.match(sentence["text"])
            got = {case["refs"][i] for i, _, _ in match.cited} if match.backed else set()
            out.append((set(sentence["refs"]), got, match.backed is False))
    return out


def trace_results(cases: list[dict], settings: Settings, vectors) -> list:
    """``(gold, cited, flagged)`` per labelled sentence of the service-made trace
    (``support_cases.trace_cases``): gold and cited as ``(step, chunk, edge)`` keys."""
    out = []
    for case in cases:
        support = session_support(case["session"], case["documents"], settings, vectors, case["family"])
        by_offset = {(s.start, s.end): s for s in support.sentences}
        for sentence in case["sentences"]:
            found = by_offset.get((sentence["start"], sentence["end"]))
            got = set()
            flagged = False
            if found is not None:
                got = {_source_key(b.source.step, b.source.chunk, b.source.edge) for b in found.support}
                flagged = not found.supported
            else:  # cut elsewhere: the sentences that overlap it answer for it
                overlapping = [s for s in support.sentences if s.start < sentence["end"] and sentence["start"] < s.end]
                got = {_source_key(b.source.step, b.source.chunk, b.source.edge)
                       for s in overlapping for b in s.support}
                flagged = any(not s.supported for s in overlapping)
            gold = {_source_key(s["step"], s.get("chunk"), s.get("edge")) for s in sentence["support"]}
            # a calculator's Analysis (its expression) may be cited beside its result, not instead
            also = {_source_key(s["also"]["step"], None, None) for s in sentence["support"] if s.get("also")}
            out.append((gold, got - (also - gold), flagged))
    return out


def _source_key(step, chunk, edge) -> tuple:
    return (step, chunk, tuple(edge) if edge else None)


def _line(name: str, figures: dict) -> str:
    return (f"  {name:<44} pairs {figures['pairs']:.2f}  cited {figures['cited']:.2f}  "
            f"flag precision {figures['flag_precision']:.2f}  flag recall {figures['flag_recall']:.2f}  "
            f"({figures['sentences']} sentences, {figures['unsupported']} invented, {figures['flagged']} flagged)")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=5, help="timed runs per session (median)")
    parser.add_argument("--quick", action="store_true", help="the figures only, no variants and no timings")
    parser.add_argument("--store", help="also time answer support over every session of this store, "
                                        "as its health check runs it")
    args = parser.parse_args()
    started = time.perf_counter()
    vectors = word_vectors()
    print(f"model load: {(time.perf_counter() - started) * 1000:.0f} ms (once per process)")
    for half in HALVES:
        print(f"{half} half:")
        traced = trace_cases(half)
        figures = score_pairs(trace_results(traced, Settings(), vectors))
        print(_line("as shipped, read from the service-made trace", figures))
        if args.quick:
            continue
        cases = spec_cases(half)
        for name, settings in VARIANTS.items():
            print(_line(name, score_pairs(spec_results(cases, settings, vectors))))
    service_corpus(vectors)
    if not args.quick:
        timings(args.repeat, vectors)
    if args.store:
        store_support(args.store)
    return 0


def service_corpus(vectors) -> None:
    """Print each sentence of the service-made demo corpus that is flagged unsupported."""
    from trace_explorer.model.reader import read_sessions
    from trace_explorer.read.collection import load_collection
    from trace_explorer.sources.demo import demo_paths

    services = [p for p in demo_paths() if "services" in str(p)]
    collection, _ = load_collection(services)
    sessions = {s.id: s for s in read_sessions(collection)}
    flagged = total = 0
    for session in sessions.values():
        support = session_support(session, collection.documents, vectors=vectors, family=sessions)
        total += len(support.sentences)
        for sentence in support.unsupported:
            flagged += 1
            print(f"  flagged in {session.id}: {sentence.text!r}")
    print(f"service-made demo corpus: {len(sessions)} sessions, {total} sentences, {flagged} flagged")


def timings(repeat: int, vectors) -> None:
    """Milliseconds of answer support for the demo's 26-step session and a generated 50-step one."""
    from synthetic import _nquads, make_react_session

    from trace_explorer.model.reader import read_sessions
    from trace_explorer.read.collection import load_collection
    from trace_explorer.sources.demo import demo_paths

    collection, _ = load_collection(list(demo_paths()))
    sessions = {s.id: s for s in read_sessions(collection)}
    longest = max(sessions.values(), key=lambda s: len(s.steps))
    anew, again = _timed(lambda: session_support(longest, collection.documents, vectors=vectors, family=sessions),
                         repeat)
    print(f"{len(longest.steps)}-step demo session: {anew:.1f} ms read anew, {again:.1f} ms again")
    import tempfile

    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "react.nq"
        root, quads, texts = make_react_session(25)
        path.write_text(_nquads(quads), encoding="utf-8")
        (Path(folder) / "react.documents.json").write_text(json.dumps(texts), encoding="utf-8")
        made, _ = load_collection([path, Path(folder) / "react.documents.json"])
        session = next(s for s in read_sessions(made) if s.id == root)
    anew, again = _timed(lambda: session_support(session, made.documents, vectors=vectors), repeat)
    print(f"{len(session.steps)}-step generated ReAct session: {anew:.1f} ms read anew, {again:.1f} ms again "
          f"(target <= 200 ms)")


def _timed(run, repeat: int) -> tuple[float, float]:
    """Median milliseconds of ``run()`` with nothing kept from earlier runs (the embeddings of
    single words aside), and run again at once."""
    anew, again = [], []
    for _ in range(max(repeat, 1)):
        clear_all()
        for runs in (anew, again):
            start = time.perf_counter()
            run()
            runs.append((time.perf_counter() - start) * 1000)
    return statistics.median(anew), statistics.median(again)


def store_support(path: str) -> None:
    """Run the health check over every session of the store in ``path`` and print the CPU
    seconds its answer support took, the answers and unsupported sentences, and a digest of
    every support (its JSON record and missing terms, in the check's order)."""
    from trace_explorer.analysis.health import checks
    from trace_explorer.analysis.support import bounded
    from trace_explorer.store.local_store import local_source

    shipped = bounded.session_support  # what the check's default ``supports_here`` calls
    spent, answers, unsupported, digest = 0.0, 0, 0, hashlib.sha256()

    def timed(session, chunks, *rest, **named):
        nonlocal spent, answers, unsupported
        start = time.process_time()
        support = shipped(session, chunks, *rest, **named)
        spent += time.process_time() - start
        answers += 1
        unsupported += len(support.unsupported)
        record = {**support_record(support), "missing": [s.missing for s in support.sentences]}
        digest.update(json.dumps(record, sort_keys=True).encode())
        return support

    clear_all()
    bounded.session_support = timed
    try:
        started = time.process_time()
        findings = sum(1 for _ in checks.check_source(local_source(path)))
        total = time.process_time() - started
    finally:
        bounded.session_support = shipped
    print(f"store {path}: health check {total:.1f} s CPU, {findings} findings; answer support "
          f"{spent:.2f} s CPU for {answers} answers ({unsupported} unsupported sentences), "
          f"digest {digest.hexdigest()[:16]}")


def tune(half: str = "dev") -> None:
    """Print the figures of a grid of thresholds on ``half`` (the dev half: the held-out half is
    never tuned on)."""
    vectors = word_vectors()
    cases = spec_cases(half)
    for cover in (0.35, 0.4, 0.45, 0.5, 0.55, 0.6):
        for phrase in (None, 0.75, 0.8, 0.85):
            settings = replace(Settings(), cover=cover, phrase=phrase)
            print(_line(f"cover {cover} phrase {phrase}", score_pairs(spec_results(cases, settings, vectors))))


if __name__ == "__main__":
    if sys.argv[1:2] == ["--tune"]:
        tune()
        sys.exit(0)
    sys.exit(main())
