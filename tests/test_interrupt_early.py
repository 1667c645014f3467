"""A Ctrl-C while the command's modules are imported (its first half second) ends it with the
one line ``interrupted`` and status 130, as a Ctrl-C later does, not with Python's traceback."""

from __future__ import annotations

import signal
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent

# the ``trace-explorer`` console script, with a SIGINT sent to itself as networkx (imported by
# the command's modules, deep in the import) starts to load
PROGRAM = """
import os, signal, sys

class Interrupting:
    def find_spec(self, name, path=None, target=None):
        if name == "networkx":
            os.kill(os.getpid(), signal.SIGINT)
        return None

sys.meta_path.insert(0, Interrupting())
sys.argv = ["trace-explorer", "ingest", "--demo", "--store", sys.argv[1]]
from trace_explorer.cli import main
print("imported", flush=True)
sys.exit(main())
"""


def _as_from_a_shell() -> None:
    """In the child before it runs: SIGINT's default action and not blocked, as a shell starts
    a command (the test process may have it ignored or blocked, and a child inherits both)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})


def test_a_ctrl_c_while_the_command_is_imported_ends_it_in_one_line_with_130(tmp_path):
    done = subprocess.run([sys.executable, "-c", PROGRAM, str(tmp_path / "store")], cwd=REPO,
                          capture_output=True, text=True, timeout=120, preexec_fn=_as_from_a_shell)
    assert done.returncode == 130, done.stderr[-2000:]
    assert done.stderr == "trace-explorer: interrupted\n"
    assert done.stdout == ""
    assert not (tmp_path / "store").exists()


def test_the_handler_before_the_import_is_put_back(tmp_path):
    program = ("import signal\nfrom trace_explorer.cli import main\n"
               "print(signal.getsignal(signal.SIGINT) is signal.default_int_handler)")
    done = subprocess.run([sys.executable, "-c", program], cwd=REPO, capture_output=True, text=True, timeout=120,
                          preexec_fn=_as_from_a_shell)
    assert done.stdout.split() == ["True"], done.stderr[-2000:]
