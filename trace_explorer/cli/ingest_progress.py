"""The command line's progress for ``ingest``: a tqdm bar for each phase
(``index.ingest_phases``: parse, index, store, full-text, health) with its count and ETA, each
left on its own line when done (none for a phase with nothing to do), redrawn each second so that
its clock moves while work with nothing to count runs (named after the file: ``step``); on a
terminal only: elsewhere (a log file) a bar is written as a line every ``LOG_TICK`` seconds, and
once more as the line it leaves. Then a
last line with the
totals (the files added, the quads and texts the store gained, the sessions indexed) and the
seconds each phase took (wall clock and, on a machine shared with other work, the truer CPU
seconds of the process and of the worker processes it waited for, summed over the files)."""

from __future__ import annotations

import io
import sys
import threading
import time
from typing import IO

from ..index.ingest_phases import FULL_TEXT, PHASES, UNITS, Phases, cpu_seconds
from . import interrupt
from .interrupt import check


class BarPhases(Phases):
    """``ingest_phases.Phases`` drawn as tqdm bars on ``file`` (none when ``quiet``), adding up
    each phase's seconds (``seconds``) and units done (``done``) over every file. A phase begun
    with nothing to do (a total of 0) draws no bar and counts no time: it is not among those
    that began (``began``), which the totals line lists. Used as a context manager, it closes
    the bar it left open when the block raises (a Ctrl-C, an error), so the bar is drawn before
    the line that says why, never after it."""

    TICK = 1.0  # seconds between redraws of a bar that nothing advances (its clock moves on)
    LOG_TICK = 10.0  # away from a terminal: seconds between two lines of a phase under way
    # None: bars drawn as they move only on a terminal; elsewhere (stderr sent to a file, a CI
    # log) each phase's bar is one line once it is done, not a frame for each redraw joined by
    # carriage returns
    LIVE: bool | None = None

    def __init__(self, quiet: bool = False, file: IO[str] | None = None):
        self.quiet, self.file = quiet, file or sys.stderr
        self.live = not quiet and (self.LIVE if self.LIVE is not None else _is_terminal(self.file))
        self._lock = threading.Lock()  # the bar, between the ingest and the ticker
        self._stop = threading.Event()
        self._ticker: threading.Thread | None = None
        self.seconds = dict.fromkeys(PHASES, 0.0)
        self.cpu = dict.fromkeys(PHASES, 0.0)
        self.done = dict.fromkeys(PHASES, 0)
        self.began: dict[str, None] = {}  # in the order they first began
        self.label = ""
        self._bar = None
        self._phase: str | None = None
        self._started = self._started_cpu = 0.0
        self._command, self._command_cpu = time.perf_counter(), cpu_seconds()  # the whole ingest's

    def __enter__(self) -> BarPhases:
        return self

    def __exit__(self, *exc) -> None:
        self.finish()
        self._stop.set()

    def _tick(self) -> None:
        """Redraw the open bar every ``TICK`` seconds, so that its elapsed time moves while a
        native call (a flush, a commit) runs with nothing to count; away from a terminal, write
        its state as a line every ``LOG_TICK`` seconds instead (``tail -f`` of a log shows the
        phase moving). Not after a Ctrl-C (``interrupt.INTERRUPTED``), whose unwinding (workers
        waited for, a write rolled back) would else draw the bar again below what it says."""
        while not self._stop.wait(self.TICK if self.live else self.LOG_TICK):
            with self._lock:
                if self._bar is None or interrupt.INTERRUPTED.is_set():
                    continue
                if self.live:
                    self._bar.refresh()
                else:
                    self.file.write(str(self._bar) + "\n")
                    self.file.flush()

    def begin(self, phase: str, total: int | None = None) -> None:
        from tqdm import tqdm
        from tqdm.utils import _supports_unicode

        check()  # a Ctrl-C a native call let pass (``interrupt``)
        self.finish()
        if total == 0:
            return  # nothing to do: no bar
        self._phase, self._started, self._started_cpu = phase, time.perf_counter(), cpu_seconds()
        unit = UNITS[phase]
        self.began.setdefault(phase)
        # away from a terminal, drawn into a sink, its lines written by this object (``_tick``,
        # ``finish``) in the blocks or ASCII that the file's own encoding allows
        bar = tqdm(total=total, desc=f"{phase:<12}", unit=unit if unit == "B" else f" {unit}",
                   unit_scale=unit == "B", disable=self.quiet, file=self.file if self.live else io.StringIO(),
                   ascii=None if self.live else not _supports_unicode(self.file),
                   leave=True, postfix=self.label or None)  # on its first drawing too
        with self._lock:
            self._bar = bar
        if not self.quiet and self._ticker is None:
            self._ticker = threading.Thread(target=self._tick, name="ingest-bar", daemon=True)
            self._ticker.start()

    def advance(self, n: int) -> None:
        check()
        if self._phase is not None and n:
            self.done[self._phase] += n
            self._bar.update(n)

    def finish(self) -> None:
        if self._phase is None:
            return
        self.seconds[self._phase] += time.perf_counter() - self._started
        self.cpu[self._phase] += cpu_seconds() - self._started_cpu
        with self._lock:
            self._bar.set_postfix_str(self.label, refresh=False)  # the line left says no step
            _average_rate(self._bar)
            line = None if self.live or self.quiet else str(self._bar)
            self._bar.close()
            self._phase, self._bar = None, None
        if line is not None:
            self.file.write(line + "\n")

    def set_total(self, total: int) -> None:
        """Give the open bar, begun with no total, its ``total``. Its rate, and so its ETA, is
        measured from now: the wait before (reading what gives the total) did none of the units
        (counted from the bar's start, the first ETA of a reindex of 10,000 sessions that waited
        15 s said 43 hours)."""
        if self._phase is not None:
            with self._lock:
                self._bar.total = total
                _rate_from_now(self._bar)
                self._bar.refresh()

    def step(self, what: str) -> None:
        """Name ``what`` the open bar's phase is doing now, after the file's name ("": nothing
        more than its count)."""
        check()
        if self._phase is not None:
            with self._lock:
                if not what:  # counting again: the rate is measured from here, as after set_total
                    _rate_from_now(self._bar)
                self._bar.set_postfix_str(f"{self.label}, {what}" if self.label and what else what or self.label)

    def counted(self, phase: str, n: int) -> None:
        """Add ``n`` to ``phase``'s units done (the totals line's count) with no bar of its own
        (one drawn for work another phase did would show it done at millions a second); the
        open bar stays open and names the steps that follow."""
        self.done[phase] += n

    def write(self, line: str) -> None:
        """A line of its own between the bars (a warning or an error: written even when quiet)."""
        from tqdm import tqdm

        tqdm.write(line, file=self.file)

    def note(self, line: str) -> None:
        """A line of information (a file's counts, the totals): ``write`` unless quiet."""
        if not self.quiet:
            self.write(line)

    def totals(self, quads: int, texts: int, files: int) -> str:
        """The last line: what went in (``quads``: those the store gained, its texts' own among
        them; ``texts``: the document texts it gained), the wall and CPU seconds since this
        object was made (the whole ingest: opening the store, counting it and what no phase
        covers included) and how long each phase that began took, e.g. ``ingested 2 files,
        768,266 quads, 20,757 texts, 10,000 sessions indexed in 61.9 s, CPU 58.6 s (wall/CPU:
        parse 5.1/4.9 s, index 12.0/11.8 s, store 9.8/9.0 s, full-text 2.4/2.3 s, health
        31.9/30.0 s)``."""
        return (f"ingested {count(files, 'file')}, {count(quads, 'quad')}, {count(texts, 'text')}, "
                f"{count(self.done[FULL_TEXT], 'session')} indexed {self.times()}")

    def times(self) -> str:
        """The wall and CPU seconds since this object was made, and each phase's that began:
        ``in 12.0 s, CPU 19.8 s (wall/CPU: index 9.1/15.2 s, health 2.6/4.3 s)`` (the end of a
        command's last line: ``totals``, ``reindex``'s)."""
        self.finish()
        parts = ", ".join(f"{p} {self.seconds[p]:.1f}/{self.cpu[p]:.1f} s" for p in self.began)
        return (f"in {time.perf_counter() - self._command:.1f} s, CPU {cpu_seconds() - self._command_cpu:.1f} s"
                + (f" (wall/CPU: {parts})" if parts else ""))


def _rate_from_now(bar) -> None:
    """Measure ``bar``'s rate (tqdm's moving average of the units between two drawings) from
    now: what came before (workers starting, a read that gave the total) counted none of its
    units, and counted in, it made the first ETA 7 to 30 times too long."""
    _average_rate(bar)
    if not bar.disable:
        bar.last_print_t, bar.last_print_n = bar._time(), bar.n


def _average_rate(bar) -> None:
    """Forget ``bar``'s moving average of the last drawings (as tqdm's own ``reset`` does): until
    the next drawing adds to it, the bar gives its average rate, units over its time. The line a
    bar leaves then gives its phase's, where the moving average says more of the end than of the
    phase."""
    from tqdm.std import EMA

    if not bar.disable:
        bar._ema_dn, bar._ema_dt = EMA(bar.smoothing), EMA(bar.smoothing)


def _is_terminal(file: IO[str]) -> bool:
    try:
        return file.isatty()
    except (AttributeError, ValueError):  # no such method, or closed
        return False


def count(n: int, word: str) -> str:
    """``1 file``, ``2 files``, ``1,000 sessions``."""
    return f"{n:,} {word}{'' if n == 1 else 's'}"
