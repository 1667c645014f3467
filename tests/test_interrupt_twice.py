"""A second Ctrl-C while the first is handled (worker processes waited for) ends the command at
once with status 130, its workers killed, instead of leaving it waiting on them forever."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent

PROGRAM = """
import os, signal, sys, time
from concurrent.futures import ProcessPoolExecutor
from multiprocessing import get_context
from trace_explorer.cli.interrupt import catching

with catching():
    pool = ProcessPoolExecutor(1, mp_context=get_context("spawn"))
    pool.submit(time.sleep, 120).running  # a batch the worker is busy with
    pool.submit(time.sleep, 0)
    time.sleep(3)
    print("worker", [p.pid for p in pool._processes.values()][0], flush=True)
    try:
        os.kill(os.getpid(), signal.SIGINT)
        time.sleep(30)
    except KeyboardInterrupt:
        print("first", flush=True)
        os.kill(os.getpid(), signal.SIGINT)  # the second lands while the worker is waited for
        pool.shutdown(wait=True)
    print("waited for the worker", flush=True)
"""


def test_a_second_ctrl_c_while_the_workers_are_waited_for_stops_at_once(tmp_path):
    done = subprocess.run([sys.executable, "-c", PROGRAM], cwd=REPO, capture_output=True, text=True, timeout=60)
    assert done.returncode == 130, done.stderr[-2000:]
    lines = done.stdout.split()
    assert lines[0] == "worker" and lines[2] == "first" and "waited for the worker" not in done.stdout
    assert "interrupted again: stopped at once" in done.stderr
    worker = int(lines[1])
    assert not Path(f"/proc/{worker}").exists() or "Z" in Path(f"/proc/{worker}/stat").read_text().split()[2]
