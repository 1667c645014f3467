"""What an ingest tells of its phases: the command line's bar for each phase and its last line,
and the app's progress text while it saves an upload."""

from __future__ import annotations

import json
import re

import pyoxigraph as ox
import pytest

from tests.conftest import CORPUS, MANIFEST
from trace_explorer.cli.main import main
from trace_explorer.index.ingest_phases import FULL_TEXT, HEALTH, INDEX, PARSE, STORE, Phases
from trace_explorer.store.ingest import ingest_file
from trace_explorer.index.updates import IndexUpdate
from trace_explorer.store.local_store import open_local_store

ORCHESTRATED = MANIFEST["orchestrated.nq"]
# the distinct quads of orchestrated.nq: its lines repeat 17 (an agent's type and label in each session)
DISTINCT = len(set(ox.parse((CORPUS / "orchestrated.nq").read_bytes(), format=ox.RdfFormat.N_QUADS)))


@pytest.fixture(autouse=True)
def drawn_as_on_a_terminal(monkeypatch):
    """The bars drawn frame by frame, as on a terminal (the tests' stderr is not one)."""
    from trace_explorer.cli.ingest_progress import BarPhases

    monkeypatch.setattr(BarPhases, "LIVE", True)


class Recorder(Phases):
    def __init__(self):
        self.seen: list[tuple[str, int | None, int]] = []

    def begin(self, phase, total=None):
        self.seen.append((phase, total, 0))

    def advance(self, n):
        phase, total, done = self.seen[-1]
        self.seen[-1] = (phase, total, done + n)


def test_ingest_file_reports_each_phase_with_its_counts(tmp_path):
    phases = Recorder()
    with open_local_store(tmp_path / "store") as local:
        ingest_file(local, str(CORPUS / "orchestrated.nq"), phases=phases)
    sessions = len(ORCHESTRATED["sessions"])
    quads = ORCHESTRATED["quads"]
    size = (CORPUS / "orchestrated.nq").stat().st_size
    assert phases.seen == [(PARSE, size, size), (INDEX, sessions, sessions), (STORE, quads, quads),
                           (FULL_TEXT, sessions, sessions)]


def _streamed_phases(path, monkeypatch, tmp_path) -> list:
    from trace_explorer.read import rdf_stream

    monkeypatch.setattr(rdf_stream, "STREAM_BYTES", 0)
    phases = Recorder()
    with open_local_store(tmp_path / "store") as local:
        ingest_file(local, str(path), phases=phases)
    return phases.seen


def test_a_streamed_file_is_checked_in_one_pass_then_parsed_each_with_its_total(tmp_path, monkeypatch):
    # the pre-scan and the digest read the file once, as the check bar shows; the parse bar's
    # total is the text's bytes, known once that pass is done
    from trace_explorer.index.ingest_phases import CHECK

    path = CORPUS / "orchestrated.nq"
    size, sessions = path.stat().st_size, len(ORCHESTRATED["sessions"])
    seen = _streamed_phases(path, monkeypatch, tmp_path)
    assert seen[:2] == [(CHECK, size, size), (PARSE, size, size)]
    assert seen[2][0] == INDEX and seen[2][1:] == (sessions, sessions)


def test_a_streamed_gz_file_checks_in_its_own_bytes_and_parses_in_its_text(tmp_path, monkeypatch):
    import gzip

    from trace_explorer.index.ingest_phases import CHECK

    text = (CORPUS / "orchestrated.nq").read_bytes()
    path = tmp_path / "orchestrated.nq.gz"
    path.write_bytes(gzip.compress(text))
    seen = _streamed_phases(path, monkeypatch, tmp_path)
    given = path.stat().st_size
    assert given < len(text) // 4
    assert seen[:2] == [(CHECK, given, given), (PARSE, len(text), len(text))]


def test_a_streamed_file_refused_by_the_pre_scan_names_its_line_and_writes_nothing(tmp_path, monkeypatch):
    from trace_explorer.read import rdf_stream
    from trace_explorer.read.errors import TraceLoadError
    from trace_explorer.read.prescan import MAX_TRIPLE_DEPTH

    monkeypatch.setattr(rdf_stream, "STREAM_BYTES", 0)
    good = (CORPUS / "orchestrated.nq").read_bytes()
    deep = "<<( " * (MAX_TRIPLE_DEPTH + 1)
    path = tmp_path / "deep.nq"
    path.write_bytes(good + f"<urn:s> <urn:p> {deep}<urn:a> <urn:b> <urn:c> .\n".encode())
    lines = good.count(b"\n") + 1
    with open_local_store(tmp_path / "store") as local:
        try:
            ingest_file(local, str(path))
        except TraceLoadError as error:
            assert f"deep.nq:{lines}:" in str(error) and f"nested at most {MAX_TRIPLE_DEPTH} deep" in str(error)
        else:
            raise AssertionError("a file nesting triple terms too deep went in")
        assert len(local.store) == 0


def test_the_command_line_draws_a_bar_a_phase_and_ends_with_the_totals(tmp_path, capsys):
    path = CORPUS / "orchestrated.nq"
    assert main(["ingest", str(path), "--store", str(tmp_path / "store")]) == 0
    err = capsys.readouterr().err.replace("\r", "\n")
    sessions, quads, size = len(ORCHESTRATED["sessions"]), ORCHESTRATED["quads"], path.stat().st_size
    finished = {line.split(":", 1)[0].strip(): line for line in err.splitlines() if "100%" in line}
    assert set(finished) == {PARSE, INDEX, STORE, FULL_TEXT, HEALTH}
    assert f"{sessions}/{sessions}" in finished[INDEX] and f"{quads}/{quads}" in finished[STORE]
    assert f"{sessions}/{sessions}" in finished[HEALTH] and f"{round(size / 1000)}k/{round(size / 1000)}k" in finished[PARSE]  # tqdm: 3 digits
    last = err.strip().splitlines()[-1]
    assert DISTINCT == quads - 17
    assert last.startswith(f"ingested 1 file, {DISTINCT:,} quads, 0 texts, {sessions:,} sessions indexed in ")
    for phase in (PARSE, INDEX, STORE, FULL_TEXT, HEALTH):
        assert f" {phase} " in last


def test_quiet_prints_no_bar_no_file_line_and_no_totals(tmp_path, capsys):
    store = str(tmp_path / "store")
    assert main(["ingest", str(CORPUS / "orchestrated.nq"), "--store", store, "--quiet"]) == 0
    assert capsys.readouterr().err == ""
    assert main(["ingest", str(CORPUS / "orchestrated.nq"), "--store", store, "--quiet"]) == 0  # already in
    assert capsys.readouterr().err == ""
    assert main(["ingest", str(CORPUS / "orchestrated.nq"), "--store", store]) == 0  # without: the file's line
    assert "orchestrated.nq: already in the store, nothing added" in capsys.readouterr().err


def test_the_apps_progress_text_names_each_phase(tmp_path):
    from components.sidebar.store_source import _PhaseText

    class Bar:
        def __init__(self):
            self.texts = []

        def progress(self, fraction, text=None):
            self.texts.append(text)

    bar = Bar()
    with open_local_store(tmp_path / "store") as local:
        data = (CORPUS / "orchestrated.nq").read_bytes()
        ingest_file(local, "orchestrated.nq", data, phases=_PhaseText(bar, lambda: 0.5, "orchestrated.nq"))
    sessions, quads = len(ORCHESTRATED["sessions"]), ORCHESTRATED["quads"]
    assert f"Saving orchestrated.nq: index, {sessions} of {sessions} sessions…" in bar.texts
    assert f"Saving orchestrated.nq: store, {quads:,} of {quads:,} quads…" in bar.texts
    assert f"Saving orchestrated.nq: full-text, {sessions} of {sessions} sessions…" in bar.texts
    assert f"Saving orchestrated.nq: store, {quads:,} of {quads:,} quads, flushing the store…" in bar.texts


def test_a_streamed_file_checks_health_in_its_index_pass(tmp_path, capsys, monkeypatch):
    from trace_explorer.read import rdf_stream
    from trace_explorer.index.ingest_phases import INDEX_HEALTH

    monkeypatch.setattr(rdf_stream, "STREAM_BYTES", 0)
    path = CORPUS / "orchestrated.nq"
    assert main(["ingest", str(path), "--store", str(tmp_path / "store")]) == 0
    err = capsys.readouterr().err.replace("\r", "\n")
    sessions = len(ORCHESTRATED["sessions"])
    finished = {line.split(":", 1)[0].strip(): line for line in err.splitlines() if "100%" in line}
    assert f"{sessions}/{sessions}" in finished[INDEX_HEALTH]
    last = err.strip().splitlines()[-1]
    assert f" {INDEX_HEALTH} " in last and f" {INDEX} " not in last  # only the phases that ran
    # nothing was left to check after the files: no health bar, and no health in the totals
    assert f" {HEALTH} " not in last and not any(line.startswith(HEALTH) for line in err.splitlines())
    # its rows were written as they were read: counted in the totals, with no full-text bar of
    # their own (one drew them done in no time, at millions of sessions a second)
    assert f", {sessions} sessions indexed in " in last and f" {FULL_TEXT} " not in last
    assert not any(line.startswith(FULL_TEXT) for line in err.splitlines())


def test_texts_for_steps_already_in_the_store_draw_a_words_bar(tmp_path, capsys):
    # a content file given after its trace: its texts are looked up for the sessions whose
    # searched words they add to, with a bar of their own, named in the totals line
    from trace_explorer.index.ingest_phases import WORDS

    store = tmp_path / "store"
    assert main(["ingest", str(CORPUS / "orchestrated.nq"), "--store", str(store), "--quiet"]) == 0
    texts = json.loads((CORPUS / "orchestrated.documents.json").read_text(encoding="utf-8"))
    capsys.readouterr()
    assert main(["ingest", str(CORPUS / "orchestrated.documents.json"), "--store", str(store)]) == 0
    err = capsys.readouterr().err.replace("\r", "\n")
    words = [line for line in err.splitlines() if line.startswith(WORDS)]
    assert words and f"| {len(texts)}/{len(texts)} [" in words[-1]
    assert any(line.rstrip().endswith("orchestrated.documents.json, writing the words]") for line in words)
    last = err.strip().splitlines()[-1]
    assert f" {WORDS} " in last and f" {FULL_TEXT} " not in last  # no session's row was written again


def test_the_cpu_seconds_count_worker_processes_once_waited_for():
    import subprocess
    import sys

    from trace_explorer.index.ingest_phases import cpu_seconds

    before = cpu_seconds()
    subprocess.run([sys.executable, "-c", "import time\nend = time.process_time() + 0.3\n"
                    "while time.process_time() < end: pass"], check=True)
    assert cpu_seconds() - before >= 0.3


def _last_line(capsys) -> tuple[str, str]:
    err = capsys.readouterr().err.replace("\r", "\n")
    return err, err.strip().splitlines()[-1]


def test_the_totals_give_the_quads_and_texts_the_store_gained(tmp_path, capsys):
    """The last line counts what the store holds after less what it held before: a quad repeated
    in a file, or already in the store from another, counts once; a content file's texts count
    as texts (and, each a quad in the documents graph, among the quads)."""
    store = tmp_path / "store"
    texts = json.loads((CORPUS / "orchestrated.documents.json").read_text(encoding="utf-8"))
    assert main(["ingest", str(CORPUS / "orchestrated.nq"), str(CORPUS / "orchestrated.documents.json"),
                 "--store", str(store)]) == 0
    _, last = _last_line(capsys)
    assert last.startswith(f"ingested 2 files, {DISTINCT + len(texts):,} quads, {len(texts):,} texts, "
                           f"{len(ORCHESTRATED['sessions'])} sessions indexed in ")
    # the same quads under other bytes (a comment added): a file ingested, nothing gained
    again = tmp_path / "again.nq"
    again.write_bytes(b"# the same quads again\n" + (CORPUS / "orchestrated.nq").read_bytes())
    assert main(["ingest", str(again), "--store", str(store)]) == 0
    err, last = _last_line(capsys)
    assert f"again.nq: {ORCHESTRATED['quads']:,} quads, 0 texts (N-Quads)" in err  # the file's own lines
    assert last.startswith("ingested 1 file, 0 quads, 0 texts, ")


def test_a_file_read_in_batches_counts_the_quads_the_store_lacked(tmp_path, monkeypatch):
    """A file read a batch at a time counts what the store gained as it goes in, without the
    store counted before and after: quads already in the store, and a quad given twice in two
    batches, count none and once."""
    from trace_explorer.read import rdf_stream

    monkeypatch.setattr(rdf_stream, "STREAM_BYTES", 0)
    monkeypatch.setattr(rdf_stream, "BATCH", 40)  # the repeats fall in other batches than their first
    store = open_local_store(tmp_path / "store")
    with store:
        ingest_file(store, str(CORPUS / "orchestrated.nq"))
        new = [f'<urn:test:gained:{n}> <urn:test:p> "{n}" <urn:graph:retrieval> .\n' for n in range(30)]
        mixed = tmp_path / "mixed.nq"
        mixed.write_text((CORPUS / "orchestrated.nq").read_text(encoding="utf-8") + "".join(new + new[::-1]),
                         encoding="utf-8")
        before = len(store)
        done = ingest_file(store, str(mixed), count_gained=True)
        assert done.quads == ORCHESTRATED["quads"] + 60 and done.gained == 30 == len(store) - before
        assert ingest_file(store, str(CORPUS / "collection.trig"), count_gained=True).gained == len(store) - before - 30


def test_a_phase_with_nothing_to_do_draws_no_bar_and_is_left_out_of_the_totals(tmp_path, capsys):
    store = tmp_path / "store"
    assert main(["ingest", str(CORPUS / "orchestrated.nq"), "--store", str(store)]) == 0
    capsys.readouterr()
    assert main(["ingest", str(CORPUS / "orchestrated.nq"), "--store", str(store)]) == 0  # already in
    err, last = _last_line(capsys)
    drawn = {line.split(":", 1)[0].strip() for line in err.splitlines() if "|" in line}
    assert drawn == {PARSE}  # no "health: 0 sessions"
    assert last.startswith("ingested 0 files, 0 quads, 0 texts, 0 sessions indexed in ")
    assert re.fullmatch(rf"{PARSE} \d+\.\d/\d+\.\d s\)", last.split("(wall/CPU: ", 1)[1])  # the only phase


def test_reindex_draws_the_index_bars_as_ingest_does(tmp_path, capsys):
    """With the health check, one pass reads each session's row and health, as a large file's
    ingest does; with ``--no-health``, the rows are read from the summary triples and written
    after. Each bar names what runs before its first unit and after its last."""
    from trace_explorer.index.ingest_phases import INDEX_HEALTH

    store = tmp_path / "store"
    assert main(["ingest", str(CORPUS / "orchestrated.nq"), str(CORPUS / "collection.trig"),
                 "--store", str(store), "--quiet"]) == 0
    capsys.readouterr()
    sessions = len(ORCHESTRATED["sessions"]) + len(MANIFEST["collection.trig"]["sessions"])
    for argv, phases in (([], (INDEX_HEALTH,)), (["--no-health"], (INDEX, FULL_TEXT))):
        assert main(["reindex", "--store", str(store), *argv]) == 0
        err = capsys.readouterr().err.replace("\r", "\n")
        finished = {line.split(":", 1)[0].strip(): line for line in err.splitlines() if "100%" in line}
        assert set(finished) == set(phases)
        for phase in phases:
            assert f"| {sessions}/{sessions} [" in finished[phase]
        drawn = [line.rstrip() for line in err.splitlines()]
        if argv:  # the read before the first session, predicate by predicate
            read = [int(m[1]) for line in drawn if line.startswith(INDEX)
                    for m in [re.search(r"reading the summary triples: (\d+) of 29 predicates]$", line)] if m]
            assert read[0] == 0 and read == sorted(read) and read[-1] == 28
        else:
            assert any(line.startswith(INDEX_HEALTH) and line.endswith("finding the sessions]") for line in drawn)
        # what ends the one transaction after the last row
        assert any(line.startswith(phases[-1]) and line.endswith("making the list's indexes]") for line in drawn)
        # the last line gives the time and each phase's, as ingest's does
        times = ", ".join(rf"{re.escape(p)} [\d.]+/[\d.]+ s" for p in phases)
        assert re.fullmatch(rf"{re.escape(str(store))}: {sessions:,} sessions indexed in \d+\.\d s, CPU \d+\.\d s "
                            rf"\(wall/CPU: {times}\)", drawn[-1]), drawn[-1]


def test_reindex_counts_the_rows_written_a_batch_at_a_time(tmp_path, monkeypatch):
    """The full-text bar of a rebuild moves as each batch of rows is written, not once at the
    end of its one transaction; then it names what ends the transaction."""
    from trace_explorer.index import build
    from trace_explorer.sources.filter import SessionFilter

    class Events(Phases):
        def __init__(self):
            self.seen: list[tuple] = []

        def begin(self, phase, total=None):
            self.seen.append(("begin", phase, total))

        def advance(self, n):
            self.seen.append(("advance", n))

        def step(self, what):
            self.seen.append(("step", what))

    monkeypatch.setattr(build, "_WRITE_BATCH", 4)
    with open_local_store(tmp_path / "store") as local:
        ingest_file(local, str(CORPUS / "orchestrated.nq"))
        phases = Events()
        build.build_index(local._open(), local.index, phases=phases)
        rows = local.index.count(SessionFilter(include_sub=True))
    sessions = len(ORCHESTRATED["sessions"])
    assert rows == sessions > 4  # two batches at least
    full_text = phases.seen[phases.seen.index(("begin", FULL_TEXT, sessions)) + 1:]
    whole, rest = divmod(sessions, 4)
    assert full_text == ([("advance", 4)] * whole + [("advance", rest)] * bool(rest)
                         + [("step", "making the list's indexes")])


class Clock:
    """A clock for a bar (tqdm's ``_time``), moved on by hand: rates and ETAs to the digit."""

    def __init__(self):
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def _clocked(phases, phase: str, total: int | None = None) -> Clock:
    """Begin ``phase`` on ``phases`` with its bar on a ``Clock`` started now."""
    clock = Clock()
    phases.begin(phase, total)
    phases._bar._time = clock
    phases._bar.start_t = phases._bar.last_print_t = clock.now
    return clock


@pytest.mark.parametrize("wait", ["total", "workers"])
def test_an_eta_is_measured_from_when_the_units_began(wait):
    """A bar begun with no total (``reindex`` reading its summary triples) and given one later,
    or one whose workers start before the first batch is back, reckons its ETA from the units
    done since: 200 sessions in the 1 s after a wait of 100 s leave 9,800 for 49 s, not for the
    82 minutes of a rate counted from the bar's start."""
    import io

    from trace_explorer.cli.ingest_progress import BarPhases
    from trace_explorer.index.ingest_phases import INDEX_HEALTH

    out = io.StringIO()
    with BarPhases(file=out) as phases:
        if wait == "total":
            clock = _clocked(phases, INDEX)
            clock.now += 100
            phases.set_total(10_000)
        else:
            clock = _clocked(phases, INDEX_HEALTH, 10_000)
            phases.step("starting 1 worker process")
            clock.now += 100
            phases.step("")
        clock.now += 1
        phases.advance(200)
        frame = out.getvalue().replace("\r", "\n").splitlines()[-1]
    assert re.search(r"\| 200/10000 \[01:41<00:4[89], 200\.00 sessions/s\]", frame), frame  # 9,800 / 200 a second


def test_the_line_a_bar_leaves_gives_the_phases_average_rate():
    """Not tqdm's moving average, which weighs the last drawings most: 10 sessions in 10 s, then
    990 in 1 s, is 90.91 a second over the phase (its moving average says about 125)."""
    import io

    from trace_explorer.cli.ingest_progress import BarPhases

    class Log(io.StringIO):
        encoding = "utf-8"

    out = Log()
    phases = BarPhases(file=out)
    phases.live = False  # a log
    clock = _clocked(phases, INDEX, 1000)
    clock.now += 10
    phases.advance(10)
    clock.now += 1
    phases.advance(990)
    phases.finish()
    phases._stop.set()
    assert out.getvalue().splitlines() == [
        f"{INDEX:<12}: 100%|██████████| 1000/1000 [00:11<00:00, 90.91 sessions/s]"]


def test_reindex_of_an_empty_folder_makes_no_store_there(tmp_path, capsys):
    folder = tmp_path / "empty"
    folder.mkdir()
    assert main(["reindex", "--store", str(folder)]) == 2
    assert capsys.readouterr().err == (f"trace-explorer: no store at {folder} "
                                       "(create one with `trace-explorer ingest`)\n")
    assert list(folder.iterdir()) == []


def test_a_ctrl_c_leaves_the_bar_above_the_interrupted_line_and_draws_nothing_after(tmp_path, capsys, monkeypatch):
    """A Ctrl-C (here one a native call let pass, raised again at the next step) in the middle of
    a phase: its bar is closed before ``interrupted`` is said, not drawn again after it; so too
    for ``reindex``."""
    import signal

    from trace_explorer.store import ingest

    whole = tmp_path / "whole"
    assert main(["ingest", str(CORPUS / "orchestrated.nq"), "--store", str(whole), "--quiet"]) == 0
    original = IndexUpdate.apply

    def swallowed(self, *args, **kwargs):
        try:
            signal.raise_signal(signal.SIGINT)
        except KeyboardInterrupt:
            pass
        return original(self, *args, **kwargs)

    def interrupted(source, index, phases, rows_reader=None):
        phases.begin(INDEX, 3)
        phases.advance(1)
        raise KeyboardInterrupt

    monkeypatch.setattr(IndexUpdate, "apply", swallowed)
    monkeypatch.setattr(ingest, "build_index", interrupted)
    for argv, bar in ((["ingest", str(CORPUS / "orchestrated.nq"), "--store", str(tmp_path / "store")], STORE),
                      (["reindex", "--store", str(whole)], INDEX)):
        assert main(argv) == 130
        lines = capsys.readouterr().err.replace("\r", "\n").splitlines()
        assert lines[-1] == "trace-explorer: interrupted"
        assert lines[-2].startswith(bar) and "|" in lines[-2]  # the bar, closed on a line of its own before
    assert "| 1/3 [" in lines[-2]


def test_a_path_that_is_no_regular_file_is_refused_before_a_bar_is_drawn(tmp_path, capsys):
    """``/dev/zero`` and a link to it: each the one-line refusal, with no bar drawn before it
    (and no parse phase in the totals)."""
    zero = tmp_path / "zero.nq"
    zero.symlink_to("/dev/zero")
    assert main(["ingest", "/dev/zero", str(zero), "--store", str(tmp_path / "store")]) == 1
    err, last = _last_line(capsys)
    assert err.splitlines() == [
        "trace-explorer: /dev/zero: expected a regular file; this is a character device, not a regular file",
        f"trace-explorer: {zero}: expected a regular file; this is a character device (/dev/zero), not a regular file",
        last]
    assert re.fullmatch(r"ingested 0 files, 0 quads, 0 texts, 0 sessions indexed in \d+\.\d s, CPU \d+\.\d s", last)


def test_a_streamed_file_names_the_work_after_its_last_batch_and_row(tmp_path, capsys, monkeypatch):
    # the loads, flush, commit and snapshot after a bar's last unit each say what runs, and the
    # lines left once each bar is done say only the file's name
    from trace_explorer.read import rdf_stream

    monkeypatch.setattr(rdf_stream, "STREAM_BYTES", 0)
    assert main(["ingest", str(CORPUS / "orchestrated.nq"), "--store", str(tmp_path / "store")]) == 0
    err = capsys.readouterr().err
    drawn = err.replace("\r", "\n").splitlines()
    for phase, step in ((PARSE, "loading the last batch"), (PARSE, "flushing the store"),
                        ("index+health", "writing the rows"), ("index+health", "publishing a snapshot")):
        assert any(line.startswith(phase) and line.rstrip().endswith(f"orchestrated.nq, {step}]") for line in drawn), step
    left = [line for line in err.split("\n") if "100%" in line]
    assert left and all(line.rsplit("\r", 1)[-1].rstrip().endswith("orchestrated.nq]") for line in left)


def test_a_bar_nothing_advances_is_redrawn_so_its_clock_moves(monkeypatch):
    import io
    import time

    from trace_explorer.cli.ingest_progress import BarPhases

    monkeypatch.setattr(BarPhases, "TICK", 0.05)
    out = io.StringIO()
    with BarPhases(file=out) as phases:
        phases.begin(PARSE, 100)
        phases.advance(100)
        phases.step("flushing the store")
        drawn = out.getvalue().count("\r")
        time.sleep(0.5)
        assert out.getvalue().count("\r") >= drawn + 3  # redrawn about ten times, with no advance
    with BarPhases(quiet=True, file=out) as quiet:
        quiet.begin(PARSE, 100)
        assert quiet._ticker is None


def test_away_from_a_terminal_each_bar_is_one_line_once_its_phase_is_done(tmp_path, monkeypatch):
    """stderr sent to a file: no frame per redraw joined by carriage returns, but the line each
    bar leaves, in the order the phases ran, then the totals."""
    import io

    from trace_explorer.cli.ingest_progress import BarPhases

    monkeypatch.setattr(BarPhases, "LIVE", None)
    monkeypatch.setattr(BarPhases, "TICK", 0.01)
    log = io.StringIO()
    monkeypatch.setattr("sys.stderr", log)
    assert main(["ingest", str(CORPUS / "orchestrated.nq"), "--store", str(tmp_path / "store")]) == 0
    text = log.getvalue()
    assert "\r" not in text
    lines = text.splitlines()
    sessions, quads = len(ORCHESTRATED["sessions"]), ORCHESTRATED["quads"]
    bars = [line for line in lines if "|" in line]
    assert [line.split(":", 1)[0].strip() for line in bars] == [PARSE, INDEX, STORE, FULL_TEXT, HEALTH]
    assert all("100%" in line for line in bars)
    for line, done in zip(bars[1:], (sessions, quads, sessions, sessions)):
        assert f"| {done}/{done} [" in line, line
    assert lines[-1].startswith("ingested 1 file, ") and len(lines) == len(bars) + 2  # the file's line too


def test_away_from_a_terminal_a_phase_under_way_writes_a_line_now_and_then(monkeypatch):
    """``tail -f`` of a log shows a long phase moving: a line of its bar every ``LOG_TICK``
    seconds, each a line of its own."""
    import io
    import time

    from trace_explorer.cli.ingest_progress import BarPhases

    monkeypatch.setattr(BarPhases, "LIVE", None)
    monkeypatch.setattr(BarPhases, "LOG_TICK", 0.05)
    out = io.StringIO()
    with BarPhases(file=out) as phases:
        phases.begin(INDEX, 100)
        phases.advance(40)
        time.sleep(0.4)
    lines = out.getvalue().splitlines()
    assert "\r" not in out.getvalue() and len(lines) >= 3
    assert all(line.startswith(f"{INDEX:<12}:  40%|") and "| 40/100 [" in line for line in lines), lines


def test_a_bar_is_not_redrawn_once_a_ctrl_c_came(monkeypatch):
    """While a Ctrl-C unwinds (workers waited for, a write rolled back), the bar stays as it
    was: the next line is ``interrupted``, with no frame of the bar after it."""
    import io
    import time

    from trace_explorer.cli import interrupt
    from trace_explorer.cli.ingest_progress import BarPhases

    monkeypatch.setattr(BarPhases, "TICK", 0.05)
    monkeypatch.setattr(interrupt, "INTERRUPTED", interrupt.threading.Event())
    out = io.StringIO()
    phases = BarPhases(file=out)
    phases.begin(PARSE, 100)
    phases.advance(10)
    time.sleep(0.2)
    assert out.getvalue().count("\r") >= 3  # the ticker draws
    interrupt.INTERRUPTED.set()
    time.sleep(0.1)  # a redraw under way when it came is let end
    drawn = out.getvalue()
    time.sleep(0.3)
    assert out.getvalue() == drawn
    phases._stop.set()


def test_a_streamed_file_already_in_the_store_draws_its_check_and_no_parse_bar(tmp_path, capsys, monkeypatch):
    from trace_explorer.read import rdf_stream

    monkeypatch.setattr(rdf_stream, "STREAM_BYTES", 0)
    args = ["ingest", str(CORPUS / "orchestrated.nq"), "--store", str(tmp_path / "store")]
    assert main(args) == 0
    capsys.readouterr()
    assert main(args) == 0
    err = capsys.readouterr().err.replace("\r", "\n")
    assert "already in the store, nothing added" in err
    assert not any(line.startswith(PARSE) for line in err.splitlines())
    assert " check " in err.strip().splitlines()[-1] and f" {PARSE} " not in err.strip().splitlines()[-1]
