"""How well answer support finds the steps behind each sentence, and how fast: scored on the
labelled set ``benchmarks/data/answer_support.json`` (answers written from chosen steps, with
paraphrases, numbers written differently, distractor steps and invented sentences, in English,
Russian, German, French, Spanish and Japanese), then timed on every demo session.

    .venv/bin/python benchmarks/answer_support.py [--repeat 5] [--store DIR]

Prints, for the matcher as shipped and for simpler variants (plain word overlap, words weighed
by rarity, without embeddings, without the joining check) at their best coverage threshold:
``pairs`` the share of labelled (sentence, supporting step) pairs found, ``cited`` the share of
cited steps that are right, ``flag precision`` / ``flag recall`` for sentences flagged
unsupported; then milliseconds per session (model load excluded), the 26-step one named: with
its texts read anew (nothing kept from an earlier run: ``text_cache``) and read again.
Targets: pairs >= 0.9, cited >= 0.5, flags >= 0.8 each, <= 200 ms for a 26-step session.

With ``--store DIR`` (a store made by ``trace-explorer ingest --no-health``), also runs the
health check over every session of it and prints the CPU seconds spent in answer support, as an
ingest spends them, with a digest of every support found (the same digest: the same supports).
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

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from trace_explorer.analysis.support.embedding import word_vectors  # noqa: E402
from trace_explorer.analysis.support.evidence import edge_text  # noqa: E402
from trace_explorer.analysis.support.matcher import Evidence, Matcher, Settings  # noqa: E402
from trace_explorer.analysis.support.support import session_support, support_record  # noqa: E402
from trace_explorer.analysis.support.text_cache import clear_all  # noqa: E402

LABELLED = Path(__file__).resolve().parent / "data" / "answer_support.json"
VARIANTS = {
    "plain word overlap": Settings(idf=False, fuzzy=None, similar=None, numbers=False, joins=False, floor=0),
    "words weighed by rarity (BM25 idf)": Settings(fuzzy=None, similar=None, numbers=False, joins=False),
    "+ close spellings, number check": Settings(similar=None, joins=False),
    "+ joining check (no embeddings)": Settings(similar=None),
    "+ name check": Settings(names=True),
}


def labelled_cases(path: Path = LABELLED) -> list[dict]:
    """The labelled cases, each with ``texts`` (its steps' words: an edge's labels joined) and
    ``answer`` (its sentences joined by the case's ``join``, a space by default)."""
    cases = json.loads(path.read_text(encoding="utf-8"))["cases"]
    for case in cases:
        case["texts"] = [edge_text({"s_label": s["labels"][0], "p_label": s["labels"][1], "o_label": s["labels"][2],
                                    "s": s["edge"][0], "p": s["edge"][1], "o": s["edge"][2]})
                         if s["kind"] == "Edge" else s["text"] for s in case["steps"]]
        case["answer"] = case.get("join", " ").join(s["text"] for s in case["sentences"])
    return cases


def score(cases: list[dict], settings: Settings = Settings(), vectors=None) -> dict:
    """The figures of ``settings`` on ``cases``: ``pairs`` (labelled pairs found), ``cited``
    (cited pairs that are labelled), ``flag_precision``, ``flag_recall`` (sentences flagged
    unsupported), each 0-1, and ``sentences``, ``unsupported`` (labelled) counts."""
    found = labelled = cited = right = 0
    flagged_right = flagged = unsupported = 0
    for case in cases:
        matcher = Matcher([Evidence.of(t) for t in case["texts"]], settings, vectors)
        for sentence in case["sentences"]:
            match = matcher.match(sentence["text"])
            gold = set(sentence["support"])
            got = {i for i, _, _ in match.cited} if match.backed else set()
            labelled += len(gold)
            found += len(gold & got)
            cited += len(got)
            right += len(gold & got)
            unsupported += not gold
            if match.backed is False:
                flagged += 1
                flagged_right += not gold
    return {"pairs": found / max(labelled, 1), "cited": right / max(cited, 1),
            "flag_precision": flagged_right / max(flagged, 1), "flag_recall": flagged_right / max(unsupported, 1),
            "sentences": sum(len(c["sentences"]) for c in cases), "unsupported": unsupported}


def _best(cases, settings, vectors) -> tuple[float, dict]:
    tries = [(c / 20, score(cases, replace(settings, cover=c / 20), vectors)) for c in range(4, 17)]
    return max(tries, key=lambda t: min(t[1]["flag_precision"], t[1]["flag_recall"]) + t[1]["pairs"])


def _line(name: str, figures: dict, cover: float) -> str:
    return (f"  {name:<38} cover {cover:.2f}  pairs {figures['pairs']:.2f}  cited {figures['cited']:.2f}  "
            f"flag precision {figures['flag_precision']:.2f}  flag recall {figures['flag_recall']:.2f}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=5, help="timed runs per session (median)")
    parser.add_argument("--store", help="also time answer support over every session of this store, "
                                        "as its health check runs it")
    args = parser.parse_args()
    started = time.perf_counter()
    vectors = word_vectors()
    print(f"model load: {(time.perf_counter() - started) * 1000:.0f} ms (once per process)")
    cases = labelled_cases()
    shipped = score(cases, Settings(), vectors)
    print(f"labelled set: {len(cases)} answers, {shipped['sentences']} sentences, "
          f"{shipped['unsupported']} of them unsupported")
    print(_line("as shipped", shipped, Settings().cover))
    for name, settings in VARIANTS.items():
        cover, figures = _best(cases, settings, vectors)
        print(_line(name + " (best cover)", figures, cover))
    texts = [t for case in cases for t in case["texts"]][:26]
    answer = [s["text"] for case in cases[:3] for s in case["sentences"]]

    def labelled_steps() -> None:
        matcher = Matcher([Evidence.of(t) for t in texts], Settings(), vectors)
        for sentence in answer:
            matcher.match(sentence)

    anew, again = _timed(labelled_steps, args.repeat, vectors)
    print(f"26 labelled steps, a {len(answer)}-sentence answer: {anew:.1f} ms read anew, {again:.1f} ms read again "
          f"(target <= 200 ms)")
    from trace_explorer.model.reader import read_sessions
    from trace_explorer.read.collection import load_collection
    from trace_explorer.sources.demo import demo_paths

    collection, _ = load_collection(list(demo_paths()))
    timings = []
    for session in read_sessions(collection):
        anew, again = _timed(lambda: session_support(session, collection.documents, vectors=vectors),
                             args.repeat, vectors)
        timings.append((anew, again, len(session.steps), session.id))
    worst = max(timings)
    median = statistics.median(t[0] for t in timings)
    print(f"time per demo session ({len(timings)}), read anew: median {median:.1f} ms, "
          f"slowest {worst[0]:.1f} ms ({worst[2]} steps); read again: median "
          f"{statistics.median(t[1] for t in timings):.1f} ms")
    for anew, again, steps, iri in timings:
        if steps >= 26:
            print(f"  {steps}-step session {iri}: {anew:.1f} ms read anew, {again:.1f} ms again (target <= 200 ms)")
    if args.store:
        store_support(args.store)
    return 0


def _timed(run, repeat: int, vectors) -> tuple[float, float]:
    """Median milliseconds of ``run()`` with nothing kept from earlier runs (the embeddings of
    single words aside), and run again at once."""
    anew, again = [], []
    for _ in range(max(repeat, 1)):
        clear_all()  # the texts' words and the embedding matrices
        for runs in (anew, again):
            start = time.perf_counter()
            run()
            runs.append((time.perf_counter() - start) * 1000)
    return statistics.median(anew), statistics.median(again)


def store_support(path: str) -> None:
    """Run the health check over every session of the store in ``path`` and print the CPU
    seconds its answer support took, the answers and unsupported sentences, and a digest of
    every support (its JSON record and missing numbers, in the check's order)."""
    from trace_explorer.analysis.health import checks
    from trace_explorer.analysis.support import bounded
    from trace_explorer.sources.local_store import local_source

    shipped = bounded.session_support  # what the check's default ``supports_here`` calls
    spent, answers, unsupported, digest = 0.0, 0, 0, hashlib.sha256()

    def timed(session, chunks):
        nonlocal spent, answers, unsupported
        start = time.process_time()
        support = shipped(session, chunks)
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


if __name__ == "__main__":
    sys.exit(main())
