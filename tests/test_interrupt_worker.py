"""A Ctrl-C that reaches a health-pass worker while it starts (its imports take about a second),
or the fork server of the upload parsers while it starts, is left to the parent: the worker goes
on quietly, and the command gives its one ``interrupted`` line and status 130, with no traceback
from the worker."""

from __future__ import annotations

import importlib.util
import os
import signal
import subprocess
import sys

import pytest
from tests.conftest import CORPUS

REPO = CORPUS.parents[1]

# an ingest whose health pass uses a worker (every N-Quads file streamed, the pass in batches of
# 15), with a Ctrl-C sent to the whole group 0.3 s after the worker is started: while it imports
PROGRAM = """
import os, signal, sys, time
from multiprocessing import context
from trace_explorer.analysis.health import in_pass
from trace_explorer.cli.main import main
from trace_explorer.read import rdf_stream

rdf_stream.STREAM_BYTES, rdf_stream.BATCH = 0, 2_000
in_pass.PARALLEL_FROM, in_pass.BATCH = 0, 15
start = context.SpawnProcess.start

def start_then_interrupt(self):
    start(self)
    print("worker", self.pid, flush=True)
    time.sleep(0.3)
    os.killpg(0, signal.SIGINT)

context.SpawnProcess.start = start_then_interrupt
sys.exit(main(["ingest", *sys.argv[1:3], "--store", sys.argv[3], "--quiet", "--workers", "1"]))
"""


def _synthetic(folder):
    spec = importlib.util.spec_from_file_location("interrupt_worker_synthetic", REPO / "benchmarks" / "synthetic.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    made = module.generate(folder, 60)
    return [str(made.nquads), str(made.documents)]


@pytest.mark.long
def test_a_ctrl_c_while_a_worker_starts_gives_the_ingest_s_one_line_and_no_worker_traceback(tmp_path):
    files = _synthetic(tmp_path / "made")
    done = subprocess.run([sys.executable, "-c", PROGRAM, *files, str(tmp_path / "store")], cwd=REPO,
                          capture_output=True, text=True, timeout=120, start_new_session=True,
                          preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    assert done.returncode == 130, done.stderr[-3000:]
    assert done.stdout.split()[0] == "worker"
    # --quiet: the one line, and no traceback
    assert done.stderr.strip().splitlines() == ["trace-explorer: interrupted"], done.stderr[-3000:]
    from trace_explorer.store.local_store import open_local_store

    with open_local_store(tmp_path / "store") as local:  # the content file, which went in first, is in whole
        assert local.texts() == 4_502


# an upload read in a parse worker (``read.worker``), with a Ctrl-C sent to the whole group by the
# fork server as it starts importing the workers' modules (the first module it preloads, found on
# PYTHONPATH: the fork server takes no other path of its parent's)
UPLOAD = """
import sys
from trace_explorer.cli.interrupt import catching
from trace_explorer.read import worker_start
from trace_explorer.read.worker import read_in_worker

preload = worker_start.WorkerContext.set_forkserver_preload
worker_start.WorkerContext.set_forkserver_preload = lambda self, names: preload(self, ["interrupting", *names])
try:
    with catching():
        print("read", len(read_in_worker("a.nq", b"<urn:a> <urn:b> <urn:c> .\\n").quads), flush=True)
except KeyboardInterrupt:
    print("trace-explorer: interrupted", file=sys.stderr)
    sys.exit(130)
"""


def test_a_ctrl_c_while_the_fork_server_starts_leaves_no_traceback_of_it(tmp_path):
    (tmp_path / "interrupting.py").write_text("import os, signal, time\nos.killpg(0, signal.SIGINT)\ntime.sleep(0.5)\n")
    done = subprocess.run([sys.executable, "-c", UPLOAD], cwd=REPO, capture_output=True, text=True, timeout=120,
                          env={**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path), str(REPO)])},
                          start_new_session=True, preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    assert done.returncode == 130, done.stderr[-3000:]
    assert done.stderr == "trace-explorer: interrupted\n"
