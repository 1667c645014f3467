"""The ``trace-explorer`` command: ingest, list, show, export and compare sessions; trace evidence;
sync a TrustGraph deployment; follow a source as it is written; reindex a store; lint and stats.

``PATH...`` is any mix of trace files (Turtle, TriG, N-Quads, N-Triples, JSON-LD, RDF/XML,
TrustGraph wire JSON, ``.gz`` too), ``*.documents.json`` content files and folders of them.
Instead of trace files, ``--store DIR`` reads the local store and ``--endpoint URL`` a SPARQL
endpoint (content files may still be given beside either). A file that fails to load is
reported on stderr and skipped; the rest are still read, and the exit status is then 1.
Exit status 2: bad usage (an unknown output suffix too), nothing could be loaded, the source
failed, no such session, an export that could not be written, or output that could not be
written (a full disk). Exit status 141 (``READER_GONE``): the reader of the output went away
(``| head``), quietly, as a shell reports a program a closed pipe stopped (128 + SIGPIPE).

Each command lives in a module of its own with ``add_parser(commands)``, which sets ``run`` (a
command that reads a source: ``run(args, source)``) or ``act`` (one that opens what it needs
itself: ``act(args)``). What only some commands use (the answer-support models, the health
checks, Graphviz, the ``prov`` package, the HTTP clients) is imported where they use it, so
that ``list``, ``show`` and ``stats`` start in about half the time (0.45 s against 0.8 s for
``list`` on a store of 1,000 sessions; ``tests/test_cli_start.py`` holds it).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from ..sources.source import SourceError
from . import ask, diff, evidence, export, follow, lint, review, sessions, stats, store, support, sync
from .interrupt import catching
from .output_gone import READER_GONE, let_stdout_go
from .sources import open_source, report

COMMANDS = (sessions, export, diff, evidence, support, store, sync, follow, ask, lint, stats, review)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit status (see the module docstring)."""
    args = _parser().parse_args(argv)
    if getattr(args, "act", None) is not None:
        try:
            with catching():
                return args.act(args)
        except KeyboardInterrupt:  # Ctrl-C: a write part way is rolled back (or finished by the next writer)
            report(["interrupted"])
            return 130
    source, errors = open_source(args)
    report(errors)
    if source is None:
        return 2
    stdout = sys.stdout
    sys.stdout = _InPieces(stdout)
    try:
        status = args.run(args, source)
        sys.stdout.flush()  # a write that fails (a full disk) fails here, where it is said, not at exit
    except SourceError as error:
        report([str(error)])
        return 2
    except KeyboardInterrupt:  # Ctrl-C: nothing is written by a command that reads
        report(["interrupted"])
        return 130
    except BrokenPipeError:  # the reader went away (``| head``): stop quietly, as Python's docs advise
        let_stdout_go()
        return READER_GONE
    except OSError as error:  # the output could not be written (a full disk): one line, not a traceback
        let_stdout_go()
        report([f"cannot write the output: {error.strerror or error}"])
        return 2
    finally:
        sys.stdout = stdout
        dropped = getattr(source, "sparql_failure", None)  # a gateway's SPARQL service given up
        if dropped:
            report([f"warning: read with triple patterns instead of the SPARQL service, which failed: {dropped}"])
    return status or (1 if errors else 0)


class _InPieces:
    """Standard output written ``PIECE`` characters at a time: CPython's buffered writer hands
    a larger write to the system whole, and when the reader goes away part way (``| head``)
    it reports the part written and drops the error, so the command would end with 0 and its
    output cut. A piece at a time, the next write raises BrokenPipeError."""

    PIECE = 1 << 16

    def __init__(self, out):
        self._out = out

    def write(self, text: str) -> int:
        for start in range(0, len(text), self.PIECE):
            self._out.write(text[start:start + self.PIECE])
        return len(text)

    def __getattr__(self, name):
        return getattr(self._out, name)


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="trace-explorer", description="Explore TrustGraph provenance traces.")
    commands = parser.add_subparsers(dest="command", required=True)
    for module in COMMANDS:
        module.add_parser(commands)
    return parser
