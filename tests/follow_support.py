"""Running ``trace-explorer follow`` in a thread of the test, its output lines kept with the
time each arrived, so that a test can wait for a line and measure how long it took."""

from __future__ import annotations

import ctypes
import io
import json
import sys
import threading
import time

from trace_explorer.cli.main import main
from trace_explorer.model.vocabulary import DOCUMENT

from tests.live_support import LiveSession


class Lines(io.TextIOBase):
    """A text stream that keeps each whole line written with ``time.monotonic()`` at its end."""

    def __init__(self):
        self.lines: list[tuple[float, str]] = []
        self._part = ""
        self._lock = threading.Lock()

    def write(self, text: str) -> int:
        with self._lock:
            self._part += text
            *whole, self._part = self._part.split("\n")
            self.lines += [(time.monotonic(), line) for line in whole]
        return len(text)

    def texts(self) -> list[str]:
        with self._lock:
            return [line for _, line in self.lines]

    def wait_for(self, predicate, timeout: float) -> tuple[float, str] | None:
        """The first line (arrival time, text) that ``predicate`` accepts, waiting up to ``timeout`` s."""
        end = time.monotonic() + timeout
        while True:
            with self._lock:
                found = next(((t, line) for t, line in self.lines if predicate(line)), None)
            if found is not None or time.monotonic() > end:
                return found
            time.sleep(0.02)


class Following:
    """``trace-explorer follow ARGS`` in a daemon thread, its stdout and stderr as ``Lines``
    (``sys.stdout`` and ``sys.stderr`` replaced through ``monkeypatch`` for the test)."""

    def __init__(self, args: list[str], monkeypatch):
        self.out, self.err = Lines(), Lines()
        monkeypatch.setattr(sys, "stdout", self.out)
        monkeypatch.setattr(sys, "stderr", self.err)
        self.status: int | None = None
        self.thread = threading.Thread(target=self._run, args=(args,), daemon=True)
        self.thread.start()

    def _run(self, args: list[str]) -> None:
        self.status = main(["follow", *args])

    def events(self) -> list[dict]:
        return [json.loads(line) for line in self.out.texts()]

    def join(self, timeout: float) -> int | None:
        """The command's exit status once it ended by itself (``--for``), waiting up to ``timeout`` s."""
        self.thread.join(timeout)
        return self.status

    def interrupt(self) -> int | None:
        """Ctrl-C in the command's thread (a KeyboardInterrupt raised there, as Python's handler
        of SIGINT raises it in the main thread); its exit status once it ended."""
        ctypes.pythonapi.PyThreadState_SetAsyncExc(ctypes.c_ulong(self.thread.ident), ctypes.py_object(KeyboardInterrupt))
        self.thread.join(5.0)
        return self.status


def write_over_time(live: LiveSession, write, following: Following) -> list[float]:
    """Write ``live`` a stage at a time with ``write(quads)``, waiting after each for the
    jsonl line of what it added (the session, then each step); the seconds each took to show."""
    delays = []
    wanted = [("session", None)] + [("step", step) for step in live.steps]
    for stage, (event, step) in zip(live.stages, wanted):
        written = time.monotonic()
        write(stage)
        found = following.out.wait_for(
            lambda line: (record := json.loads(line))["event"] == event and record["session"] == live.root
            and record["step"] == step, 5.0)
        assert found is not None, f"no {event} {step} in {following.out.texts()[-3:]} {following.err.texts()}"
        delays.append(found[0] - written)
    return delays


def expected_answer(live: LiveSession) -> str:
    """The words of ``live``'s last step (its Conclusion): the text its ``tg:document`` names."""
    return next(live.documents[q.object.value] for q in live.quads
                if q.subject.value == live.steps[-1] and q.predicate.value == DOCUMENT)
