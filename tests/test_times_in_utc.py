"""Every time the explorer shows is UTC, as its columns say ("Time (UTC)"): a Question started
at ``11:44:56+02:00`` is listed, shown and exported at ``09:44:56Z``, from a file and from a
store, and sorts as the instant it is. The trace is the demo's ``seed-sessions.ttl`` with its
first session's ``prov:startedAtTime`` written with an offset, the same instant as the manifest's;
without it, the session is counted as undated by the statistics."""

from __future__ import annotations

import json

import pytest

from tests.conftest import CORPUS, MANIFEST
from trace_explorer.cli.main import main
from trace_explorer.model.literals import format_time, parse_time

FIRST = MANIFEST["seed-sessions.ttl"]["sessions"][0]
OFFSET_TIME = "2026-03-09T11:44:56+02:00"


def test_format_time_gives_the_instant_in_utc():
    assert FIRST["started"] == "2026-03-09T09:44:56Z"
    assert format_time(parse_time(OFFSET_TIME)) == FIRST["started"]
    assert format_time(parse_time("2026-03-09T04:14:56.5-05:30")) == "2026-03-09T09:44:56.500000Z"
    assert format_time(parse_time("2026-03-09T09:44:56")) == "2026-03-09T09:44:56Z"  # no zone: UTC


@pytest.fixture(scope="module")
def offset_trace(tmp_path_factory):
    text = (CORPUS / "seed-sessions.ttl").read_text(encoding="utf-8")
    written = f'"{FIRST["started"]}"'
    assert text.count(written) == 1
    path = tmp_path_factory.mktemp("offset") / "seed-offset.ttl"
    path.write_text(text.replace(written, f'"{OFFSET_TIME}"'), encoding="utf-8")
    return path


def _json(capsys, argv):
    assert main(argv) == 0
    return json.loads(capsys.readouterr().out)


@pytest.mark.parametrize("kind", ["file", "store"])
def test_the_list_and_the_session_give_the_time_in_utc(offset_trace, kind, tmp_path, capsys):
    if kind == "file":
        source = [str(offset_trace)]
    else:
        assert main(["ingest", "--store", str(tmp_path / "store"), str(offset_trace)]) == 0
        capsys.readouterr()
        source = ["--store", str(tmp_path / "store")]
    rows = _json(capsys, ["list", *source, "--format", "json", "--limit", "0", "--sort", "time"])
    by_id = {r["id"]: r for r in rows}
    assert by_id[FIRST["session"]]["time"] == FIRST["started"]
    expected = sorted(MANIFEST["seed-sessions.ttl"]["sessions"], key=lambda s: s["started"])
    top = [s["session"] for s in expected if s["parent"] is None]
    assert [r["id"] for r in rows] == top  # oldest first, the offset time at its instant
    shown = _json(capsys, ["show", *source, "--session", FIRST["session"], "--format", "json"])
    assert FIRST["started"] in json.dumps(shown) and OFFSET_TIME not in json.dumps(shown)
    assert main(["show", *source, "--session", FIRST["session"]]) == 0
    text = capsys.readouterr().out
    assert f"Time:     {FIRST['started']}" in text and OFFSET_TIME not in text


@pytest.mark.parametrize("kind", ["file", "store"])
def test_a_session_with_no_start_time_is_counted_as_undated(tmp_path, kind, capsys):
    """A Question with no ``prov:startedAtTime`` is in no period of the series; the numbers say
    how many such sessions there are rather than leaving them out unsaid."""
    text = (CORPUS / "seed-sessions.ttl").read_text(encoding="utf-8")
    line = f'<{FIRST["session"]}> <http://www.w3.org/ns/prov#startedAtTime> "{FIRST["started"]}" .\n'
    assert text.count(line) == 1
    path = tmp_path / "undated.ttl"
    path.write_text(text.replace(line, ""), encoding="utf-8")
    source = [str(path)]
    if kind == "store":
        assert main(["ingest", "--store", str(tmp_path / "store"), str(path), "--quiet"]) == 0
        source = ["--store", str(tmp_path / "store")]
    numbers = _json(capsys, ["stats", *source, "--format", "json"])
    top = [s for s in MANIFEST["seed-sessions.ttl"]["sessions"] if s["parent"] is None]
    assert numbers["sessions"] == len(top) and numbers["undated"] == 1
    assert sum(d["sessions"] for d in numbers["per_period"]) == len(top) - 1
    assert main(["stats", *source]) == 0
    assert "\n1 session has no start time (prov:startedAtTime), so no period.\n" in capsys.readouterr().out
