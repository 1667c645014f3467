"""The phases of an ingest into a local store, as a writer reports them to whoever shows
progress (the command line draws a bar for each: ``cli.ingest_progress``).

An ingest goes through, in order: ``CHECK`` (for a file read a batch at a time, below: the
bytes of the file as given, read once before parsing for the pre-scan's refusals and the digest),
``PARSE`` (bytes of text read and parsed), ``INDEX``
(sessions read for their index rows), ``STORE`` (quads written into the store), ``FULL_TEXT``
(the index rows and their searched words written into SQLite and FTS5, in one transaction),
``WORDS`` (texts given for steps the store had before, looked up for the sessions whose
searched words they add to, then those words written) and, once every file is in, ``HEALTH``
(sessions checked). A writer calls ``begin(phase,
total)`` when a phase starts (``total`` in the phase's unit, or None when unknown), then
``advance(n)`` as each further ``n`` units are done; a phase ends when the next begins or
``finish()`` is called; ``step(what)`` names work within a phase that has no count (the flush
after the last batch, the commit after the last row). ``NO_PHASES`` listens to nothing. A large N-Quads or N-Triples file is
read a batch at a time (``read.rdf_stream``): each batch is written as it is parsed, so its
``PARSE`` covers ``STORE`` too, and its rows are written as they are read, so ``INDEX`` covers
``FULL_TEXT`` (which then only counts them: ``counted``); when the health check reads its sessions in that
same pass (``session_index.RowsReader``, ``analysis.health.in_pass``), that pass is
``INDEX_HEALTH`` instead, and ``HEALTH`` counts only the sessions left to check once every file
is in.
"""

from __future__ import annotations

import os
import time

CHECK, PARSE, INDEX, STORE, FULL_TEXT, HEALTH = "check", "parse", "index", "store", "full-text", "health"
INDEX_HEALTH = "index+health"
WORDS = "words"
PHASES = (CHECK, PARSE, INDEX, INDEX_HEALTH, STORE, FULL_TEXT, WORDS, HEALTH)
UNITS = {CHECK: "B", PARSE: "B", INDEX: "sessions", INDEX_HEALTH: "sessions", STORE: "quads", FULL_TEXT: "sessions",
         WORDS: "texts", HEALTH: "sessions"}


class Phases:
    """What an ingest tells of its progress; this base class ignores it all (``NO_PHASES``)."""

    def begin(self, phase: str, total: int | None = None) -> None:
        """``phase`` (one of PHASES) starts, with ``total`` units to do (None: not known)."""

    def advance(self, n: int) -> None:
        """``n`` more units of the current phase are done."""

    def finish(self) -> None:
        """The current phase is over."""

    def set_total(self, total: int) -> None:
        """The current phase, begun with no total, now has ``total`` units to do."""

    def step(self, what: str) -> None:
        """The current phase is now doing ``what`` (a few words: "flushing the store"), work
        with no count of its own, such as what follows its last unit; "" when its count says it
        all again."""

    def counted(self, phase: str, n: int) -> None:
        """``n`` units of ``phase`` were done within the phase before it, which took their time
        (a streamed file's rows, written as they were read): counted, as no phase of its own."""


NO_PHASES = Phases()


def cpu_seconds() -> float:
    """CPU seconds (user + system, every thread) of this process and of the child processes it
    has waited for (the health pass's workers, ``analysis.health.in_pass``, once their pool is
    shut): what a phase's CPU time is measured by."""
    times = os.times()
    return time.process_time() + times.children_user + times.children_system
