"""The command line loads what a command needs, not what every command could: ``list``, ``show``
and ``stats`` on a store start without the answer-support models (numpy, simplemma, bm25s, the word
vectors), the health checks' RDF library, Graphviz, the ``prov`` package or an HTTP client, which
together took about half of the command's second; the commands that need them still load them.
And its output, when it cannot be written, ends the command with one line, not a traceback."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from tests.conftest import CORPUS, MANIFEST
from trace_explorer.store.ingest import ingest_file
from trace_explorer.store.local_store import open_local_store

HEAVY = ("numpy", "simplemma", "bm25s", "wordllama", "rdflib", "graphviz", "prov", "urllib3")
FILE = "seed-sessions.ttl"
SESSION = MANIFEST[FILE]["sessions"][0]


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    path = tmp_path_factory.mktemp("start") / "store"
    with open_local_store(path) as local:
        ingest_file(local, str(CORPUS / FILE))
    return path


def _run(args: list[str]) -> tuple[int, str, list[str]]:
    """Run the command line with ``args`` in a new Python; its status, stdout and the modules of
    ``HEAVY`` it loaded."""
    code = ("import io, json, sys, contextlib\n"
            "from trace_explorer.cli.main import main\n"
            "out = io.StringIO()\n"
            "with contextlib.redirect_stdout(out):\n"
            f"    status = main({args!r})\n"
            f"print(json.dumps([status, out.getvalue(), [m for m in {HEAVY!r} if m in sys.modules]]))\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    status, out, loaded = json.loads(done.stdout.splitlines()[-1])
    return status, out, loaded


def test_list_show_and_stats_load_none_of_the_heavy_modules(store):
    status, out, loaded = _run(["list", "--store", str(store), "--format", "json", "--all"])
    assert status == 0 and loaded == []
    assert {row["id"] for row in json.loads(out)} == {s["session"] for s in MANIFEST[FILE]["sessions"]}
    status, out, loaded = _run(["show", "--store", str(store), "--session", SESSION["session"], "--format", "json"])
    assert status == 0 and loaded == []
    assert json.loads(out)["question"] == SESSION["question"]
    status, out, loaded = _run(["stats", "--store", str(store), "--all", "--format", "json"])
    assert status == 0 and loaded == []
    assert json.loads(out)["sessions"] == len(MANIFEST[FILE]["sessions"])


@pytest.mark.long
def test_the_commands_that_need_them_still_load_them(store):
    status, out, loaded = _run(["support", "--store", str(store), "--session", SESSION["session"], "--format", "json"])
    assert status == 0 and {"numpy", "simplemma", "bm25s"} <= set(loaded)
    assert json.loads(out)["session"] == SESSION["session"]
    status, out, loaded = _run(["lint", "--store", str(store), "--format", "json", "--fail-on", "error"])
    assert status in (0, 1) and "rdflib" in loaded and isinstance(json.loads(out), list)
    status, out, loaded = _run(["list", "--store", str(store), "--health", "errors", "--format", "json"])
    assert status == 0 and "numpy" in loaded  # a health filter checks what has no health row yet


@pytest.mark.parametrize("args", [["list", "--demo"], ["list", "--demo", "--format", "json"],
                                  ["show", "--demo", "--session", SESSION["session"], "--format", "json"]])
def test_output_to_a_full_disk_is_one_line_and_status_2(args):
    with open("/dev/full", "w") as full:
        done = subprocess.run([sys.executable, "-m", "trace_explorer.cli", *args], stdout=full,
                              stderr=subprocess.PIPE, text=True, timeout=120)
    assert done.returncode == 2
    assert done.stderr.strip().splitlines()[-1] == "trace-explorer: cannot write the output: No space left on device"
    assert "Traceback" not in done.stderr and "Exception ignored" not in done.stderr
