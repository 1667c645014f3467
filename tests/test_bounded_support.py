"""Answer support within bounds: the cap on sentences x texts (``analysis.support.budget``), the
check of a visitor's trace in a worker process under a deadline (``analysis.support.bounded``),
and what the command line and the app say about an answer that was not checked. The hostile
traces are ``tests/hostile_answers.py``'s."""

from __future__ import annotations

import json
import resource
import time

import pytest

from tests.hostile_answers import hostile_answer
from trace_explorer.analysis.health.checks import check_sessions
from trace_explorer.analysis.health.rules import UNSUPPORTED_SENTENCE
from trace_explorer.analysis.support.bounded import (SUPPORT_VARIABLE, support_in_worker, support_limits,
                                                     supports_here, supports_in_worker)
from trace_explorer.analysis.support.budget import MAX_PAIRS, MAX_SENTENCES, over_budget
from trace_explorer.analysis.support.support import MAX_SOURCES, AnswerSupport, session_support, support_record
from trace_explorer.cli.main import main
from trace_explorer.model.reader import read_sessions
from trace_explorer.read.collection import load_collection
from trace_explorer.read.worker import WorkerLimits
from trace_explorer.sources.demo import demo_paths
from trace_explorer.sources.store_source import StoreSource

FDA = "urn:trustgraph:agent:fda01076-05c7-49ae-b2c8-e06e75031b24"  # 2 of its 3 sentences unsupported


def hostile(case: str, tmp_path):
    """(root, path of the trace file, its StoreSource, its session) of a hostile case."""
    root, data = hostile_answer(case)
    path = tmp_path / f"{case}.nt"
    path.write_bytes(data)
    collection, errors = load_collection([path])
    assert errors == []
    source = StoreSource(collection.store, label="hostile", documents=collection.documents)
    return root, path, source, {s.id: s for s in read_sessions(collection)}[root]


def test_the_cap_counts_sentences_and_pairs():
    assert over_budget(MAX_SENTENCES, MAX_PAIRS // MAX_SENTENCES) is None
    assert over_budget(MAX_SENTENCES + 1, 1) == ("answer support not checked: the answer has 401 sentences, "
                                                 "more than the 400 the check reads")
    assert over_budget(101, 2_000) == ("answer support not checked: 101 sentences against 2,000 texts of the "
                                       "session are 202,000 pairs to match, more than the 200,000 the check takes on")


def test_an_answer_over_the_cap_is_not_matched_and_says_why(tmp_path):
    root, _, _, session = hostile("wide", tmp_path)
    support = session_support(session)
    # 1,100 tool calls, each an Analysis (its arguments hold numbers) and an Observation: the first 2,000 read
    assert support.sentences == [] and len(support.sources) == MAX_SOURCES == 2_000
    assert support.unchecked == ("answer support not checked: the answer has 839 sentences, more than the 400 "
                                 "the check reads")
    assert support_record(support)["unchecked"] == support.unchecked


def test_the_cli_says_an_answer_was_not_checked(tmp_path, capsys):
    root, path, _, _ = hostile("long_observations", tmp_path)
    assert main(["support", str(path), "--session", root]) == 0
    assert capsys.readouterr().out.splitlines() == [
        f"session {root}", "answer support not checked: the answer has 788 sentences, more than the 400 the check reads"]
    assert main(["support", str(path), "--session", root, "--format", "json"]) == 0
    record = json.loads(capsys.readouterr().out)
    assert (record["sentences"], record["unchecked"][:27]) == ([], "answer support not checked:")


def test_a_check_in_a_worker_gives_what_the_check_here_gives(demo):
    sessions = [demo[FDA], *(s for s in demo.values() if s.answer)][:4]
    here = supports_here([(s, {}, None) for s in sessions])
    there = supports_in_worker([(s, {}, None) for s in sessions])
    assert [s.unchecked for s in there] == [None] * 4
    assert [support_record(s) for s in there] == [support_record(s) for s in here]
    assert [s.supported for s in there[0].sentences] == [True, False, False]


def test_a_check_past_its_deadline_says_so_and_costs_this_process_nothing(tmp_path, demo):
    root, _, _, session = hostile("busy", tmp_path)  # about 6 s of matching
    assert support_in_worker(demo[FDA]).unchecked is None  # the pool's workers started
    limits = WorkerLimits(memory=2 << 30, cpu=1, wall=1)
    before = resource.getrusage(resource.RUSAGE_SELF)
    support = support_in_worker(session, limits=limits)
    after = resource.getrusage(resource.RUSAGE_SELF)
    assert support.sentences == [] and support.answer == session.answer
    # the CPU limit or the wall-clock deadline, whichever the machine's load makes come first
    assert support.unchecked in (
        f"answer support took too long for this answer: it ran past the deadline of 1 s (the limit set by "
        f"{SUPPORT_VARIABLE})",
        f"answer support took too long for this answer: it needed more than 1 s of CPU time (the limit set by "
        f"{SUPPORT_VARIABLE})")
    assert (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime) < 0.5
    started = time.monotonic()  # the same answer and texts again, read anew: the verdict kept
    (tmp_path / "again").mkdir()
    again = hostile("busy", tmp_path / "again")[3]
    assert support_in_worker(again, limits=limits).unchecked == support.unchecked
    assert time.monotonic() - started < 2


def test_an_answer_that_stops_its_batch_costs_the_others_nothing(tmp_path, demo, monkeypatch):
    """The batch is checked again an answer at a time; only the hostile one is "took too long".
    (Here the worker is this process, and the deadline a stand-in that stops what holds it.)"""
    from trace_explorer.analysis.support import bounded
    from trace_explorer.read.worker import WorkerStopped

    session = hostile("dashes", tmp_path)[3]
    tasks = []

    def in_process(function, args, limits, **names):
        sessions = [s for s, _, _ in args[0]]
        tasks.append([s.id for s in sessions])
        if any(s is session for s in sessions):
            raise WorkerStopped("it ran past the deadline of 7 s (the limit set by TRACE_EXPLORER_SUPPORT_S)")
        return function(*args)

    monkeypatch.setattr(bounded, "run_limited", in_process)
    out = supports_in_worker([(demo[FDA], {}, None), (session, {}, None)], WorkerLimits(memory=2 << 30, cpu=7, wall=7))
    assert tasks == [[FDA, session.id], [FDA], [session.id]]
    assert [s.unchecked for s in out] == [None, "answer support took too long for this answer: it ran past the "
                                                "deadline of 7 s (the limit set by TRACE_EXPLORER_SUPPORT_S)"]
    assert [s.supported for s in out[0].sentences] == [True, False, False]


def test_a_session_the_demo_checked_is_checked_here_among_a_visitors(tmp_path, demo, monkeypatch):
    """The demo's sessions, uploaded beside a visitor's file (or read again for one), are byte for
    byte those checked as trusted: no worker for them; the visitor's own answer goes to one."""
    from trace_explorer.analysis.support import bounded

    sent = []
    monkeypatch.setattr(bounded, "run_limited", lambda function, args, limits, **names: sent.append(args) or
                        function(*args))
    bounded.supports_trusted([(demo[FDA], {}, None)])
    again = {s.id: s for s in read_sessions(load_collection(list(demo_paths()))[0])}[FDA]  # read anew
    visitor = hostile("long_observations", tmp_path)[3]
    out = supports_in_worker([(again, {}, None), (visitor, {}, None)])
    assert [s.session for s in out] == [FDA, visitor.id]
    assert [s.supported for s in out[0].sentences] == [True, False, False]
    assert [[a.id for a, _, _ in args[0]] for args in sent] == [[visitor.id]]


def test_the_deadline_comes_from_the_environment():
    assert (support_limits({SUPPORT_VARIABLE: "3"}).wall, support_limits({SUPPORT_VARIABLE: "3"}).cpu) == (3, 3)
    assert support_limits({SUPPORT_VARIABLE: "-1"}).wall == support_limits({}).wall == 10


def test_the_health_check_takes_the_support_it_is_given(tmp_path):
    root, _, source, _ = hostile("wide", tmp_path)
    given = []

    def unsupported_everywhere(items):
        given.extend(s.id for s, _, _ in items)
        return [AnswerSupport(s.id, s.answer, [], [], unchecked="answer support took too long") for s, _, _ in items]

    found = check_sessions(source, [root], supports=unsupported_everywhere)
    assert given == [root]
    assert not [f for f in found if f.rule == UNSUPPORTED_SENTENCE]  # not checked: nothing said about it


@pytest.fixture(scope="module")
def demo():
    collection, errors = load_collection(list(demo_paths()))
    assert errors == []
    return {s.id: s for s in read_sessions(collection)}


def test_the_app_checks_an_uploaded_answer_in_a_worker_and_says_when_it_took_too_long(tmp_path, monkeypatch):
    """The busy case: about 6 s of matching. Uploaded, its session page says the check took too
    long, the health check after the upload and the panel having
    spent the worker's time, not this process's."""
    from tests.test_app import open_session, unescape
    from tests.test_app_bad_files import start, upload

    monkeypatch.setenv(SUPPORT_VARIABLE, "1")
    root, data = hostile_answer("busy")
    at = start()
    before = resource.getrusage(resource.RUSAGE_SELF)
    upload(at, ("busy.nt", data))
    at = open_session(root, at=at)
    after = resource.getrusage(resource.RUSAGE_SELF)
    [panel] = [e for e in at.main.expander if e.label.startswith("Answer support")]
    assert panel.label == "Answer support: not checked"
    assert [unescape(w.value) for w in panel.warning] == [
        f"Answer support took too long for this answer: it ran past the deadline of 1 s (the limit set by "
        f"{SUPPORT_VARIABLE})."]
    assert (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime) < 6  # 0.15 s measured


def test_the_workers_priority_step_is_read_from_the_setting_within_nice_s_range():
    from trace_explorer.read.worker import NICENESS, NICENESS_VARIABLE, worker_niceness

    assert worker_niceness({}) == NICENESS == 10
    assert [worker_niceness({NICENESS_VARIABLE: v}) for v in ("0", " 5 ", "19")] == [0, 5, 19]
    assert [worker_niceness({NICENESS_VARIABLE: v}) for v in ("20", "-3", "high", "")] == [NICENESS] * 4
