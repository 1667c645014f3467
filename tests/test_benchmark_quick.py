"""The benchmark runs end to end on a tiny collection and the synthetic collection is what it
claims to be. No timing is asserted here: speed and memory targets live in benchmarks/run.py."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path


import pytest
from trace_explorer.model.reader import read_sessions
from trace_explorer.read.collection import load_collection
from trace_explorer.index.catalog import SessionFilter, count_sessions
from trace_explorer.store.local_store import local_source

REPO = Path(__file__).resolve().parents[1]
BENCHMARKS = REPO / "benchmarks"


def _module(name: str, path: Path):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


synthetic = _module("benchmark_synthetic", BENCHMARKS / "synthetic.py")
bench = _module("benchmark_run", BENCHMARKS / "run.py")

SESSIONS = 50
# Short "long" runs keep this test quick; the full benchmark uses 2,000 and 200 iterations.
LONG_STEPS = (60, 20)


@pytest.mark.long
def test_quick_run_prints_every_measurement_and_its_store_holds_every_session(tmp_path):
    # one test for both, so that a run of the suite over several processes runs the benchmark once
    keep = tmp_path / "run"
    done = subprocess.run(
        [sys.executable, str(BENCHMARKS / "run.py"), "--quick", "--sessions", str(SESSIONS),
         "--long-steps", ",".join(map(str, LONG_STEPS)), "--repeat", "1", "--keep", str(keep)],
        capture_output=True, text=True, timeout=1800, cwd=REPO)
    assert done.returncode == 0, done.stderr[-3000:]
    lines = done.stdout.splitlines()
    for label in bench.labels(LONG_STEPS):
        row = next((line for line in lines if line.startswith(label + " ")), None)
        assert row is not None, f"no row for {label!r} in:\n{done.stdout}"
        assert row[len(label):].strip(), f"{label!r} has no value"
    assert any(line.startswith("machine: cores ") and "pyoxigraph" in line for line in lines)
    assert any(line.startswith("targets missed: ") for line in lines)

    # the store it measured holds every session it generated
    manifest = json.loads((keep / "data" / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["sessions"] == SESSIONS
    source = local_source(keep / "store")
    assert count_sessions(source, SessionFilter(include_sub=True)) == SESSIONS
    assert count_sessions(source) == manifest["top_level"]
    assert manifest["top_level"] + manifest["sub_sessions"] == SESSIONS


def test_synthetic_copies_read_like_the_corpus(tmp_path):
    made = synthetic.generate(tmp_path / "a", 30, long_steps=(5, 3))
    again = synthetic.generate(tmp_path / "b", 30, long_steps=(5, 3))
    assert made.nquads.read_bytes() == again.nquads.read_bytes()  # seeded
    assert made.documents.read_bytes() == again.documents.read_bytes()

    collection, errors = load_collection([made.nquads, made.documents])
    assert errors == []
    sessions = {s.id: s for s in read_sessions(collection)}
    assert len(sessions) == 30
    corpus, _ = load_collection([synthetic.corpus_dir()])
    original = {s.id: s for s in read_sessions(corpus)}[synthetic.TWELVE_STEP]

    copy = sessions[made.info["notable"]["react_12"]]
    assert copy.id != original.id
    assert [s.kind for s in copy.steps] == [s.kind for s in original.steps]
    assert copy.actions == original.actions and copy.tool_errors == original.tool_errors == 1
    assert copy.answer == original.answer and copy.question == original.question
    assert copy.time is not None and copy.time <= original.time

    long_run = sessions[made.info["notable"]["react_5"]]
    assert long_run.mechanism == "Agent" and long_run.pattern == "react" and long_run.shape == "current"
    assert [s.kind for s in long_run.steps] == ["PatternDecision"] + ["Analysis", "Observation"] * 5 + ["Conclusion"]
    assert all(s.fields.get("thought") and s.fields.get("observation") for s in long_run.steps_of("Analysis"))
    assert long_run.answer

    # Sub-traces stay attached to their own copy of the parent.
    for session in sessions.values():
        if session.parent is not None:
            assert session.parent_session in sessions
            assert session.id in sessions[session.parent_session].children


def test_browser_benchmark_lists_its_measurements():
    browser = _module("benchmark_browser", BENCHMARKS / "browser.py")
    done = subprocess.run([sys.executable, str(BENCHMARKS / "browser.py"), "--list"], capture_output=True,
                          text=True, timeout=120, cwd=REPO)
    assert done.returncode == 0, done.stderr[-2000:]
    labels = [m.label for m in browser.MEASUREMENTS]
    assert labels[0] == "bare one-line Streamlit page" and len(labels) == len(set(labels)) >= 7
    for item in browser.MEASUREMENTS:
        assert item.server in browser.SERVERS and f"{item.run.__name__:32s} {item.server:6s} {item.label}" in done.stdout
    # every measurement but the bare page has a target: a ratio to the bare page or seconds
    assert all((m.ratio is None) != (m.seconds is None) for m in browser.MEASUREMENTS[1:])
    # the first views side by side: the list at 1.5x the bare page, a 26-step session from its link at 2x
    by_name = {m.run.__name__: m for m in browser.MEASUREMENTS}
    assert by_name["list_first_page_demo"].ratio == 1.5 and by_name["session_from_link_demo"].ratio == 2.0
    react = next(s for f in json.loads((REPO / "trace_explorer/demo_data/manifest.json").read_text(encoding="utf-8")).values()
                 for s in f["sessions"] if s["session"] == browser.REACT_26)
    assert react["pattern"] == "react" and react["parent"] is None
    assert 2 * react["analysis_steps"] + 2 == 26  # question, pattern decision, an analysis and observation each, answer


def test_main_thread_time_is_told_apart_by_who_spent_it():
    main_thread = _module("benchmark_main_thread", BENCHMARKS / "main_thread.py")
    kind = main_thread.kind_of
    assert kind("http://127.0.0.1:8501/static/js/react-dom.Dzbslgj4.js", "Ho") == main_thread.STREAMLIT
    assert kind("http://127.0.0.1:8501/session/static/js/index.DormvYxC.js", "") == main_thread.STREAMLIT
    assert kind("blob:http://127.0.0.1:8501/0b1c2d3e-4f50-4a6b-8c7d-9e0f1a2b3c4d", "drawAxis") == main_thread.OURS
    assert kind("http://127.0.0.1:8501/0b1c2d3e-4f50-4a6b-8c7d-9e0f1a2b3c4d", "draw") == main_thread.OURS
    assert [kind("", f) for f in ("(program)", "(garbage collector)", "(root)")] == [main_thread.ENGINE] * 3
    assert kind("", "visit") == main_thread.OTHER and kind("", "(idle)") is None
