"""Health in the session index: each session's counts of errors, warnings and infos and its
rule ids, kept in the index's ``health`` table (``index.insights``) so the session
list shows and filters them without reading a session.

A session's health row goes when its index row is rewritten (a file added steps to it) and is
written again by ``refresh_health``: after ``trace-explorer ingest`` and ``reindex``, when the
app saves uploads into a store, and when it reads files into memory. What a later file may mend
(a text, a derivation target, a parent session) is checked again after an ingest that brought
what it lacked (``mending``). Checking takes about 3 ms of CPU a session on a 2-core machine, after one
scan of the store (2 s of CPU at 10,000 sessions): ``benchmarks/stats.py``; a local store whose
index keeps its typed IRIs (``index.typed``) needs no scan: a few sessions added to
10,000 are checked in milliseconds (``benchmarks/small_ingest.py``).
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Sequence
from typing import Protocol

from pyoxigraph import Quad

from ...read.collector import collector_paused
from ...index.insights import forget_health, mending_done, mending_due, unchecked_roots, write_health
from ...sources.store_source import StoreSource
from ...store.written_triples import WrittenTriples
from ..support.bounded import Supports, supports_here
from .checks import BATCH, check_sessions, entities_under, summaries
from .mending import CONTEXT_RULES, mended


class SharedCheck(Protocol):
    """Checks sessions in worker processes too (``in_pass.HealthInPass``)."""

    def parallel(self, sessions: int) -> bool: ...

    def check(self, roots: Sequence[str], triples_of: Callable[[list[str]], list[Quad]] | None,
              progress: Callable[[int], None] | None = None, step: Callable[[str], None] | None = None) -> None: ...


def refresh_health(source: StoreSource, *, after_ingest: bool = False,
                   progress: Callable[[int], None] | None = None,
                   written: WrittenTriples | None = None, total: Callable[[int], None] | None = None,
                   fresh: Iterable[str] = (), texts_given: Collection[str] | None = None,
                   only_texts: bool = False, shared: SharedCheck | None = None,
                   step: Callable[[str], None] | None = None, supports: Supports = supports_here) -> int:
    """Check every session of ``source``'s index that has no health row and write its row;
    ``after_ingest``: first forget the rows of sessions with ``CONTEXT_RULES`` findings, but for
    those of ``fresh`` (checked after the last write: ``in_pass.HealthInPass.write``), and for
    those whose findings lack nothing the store now has (``mending.mended``, with the ingest's
    hints ``texts_given``, the IRIs it gave a text to, and ``only_texts``). Returns
    how many sessions were checked (0 when the source has no writable index). ``progress(n)``
    after each batch of ``n``, ``total(n)`` first with the number to check. ``written``: every triple of ``source`` (an ingest into an empty
    store kept them: ``store.written_triples``), read instead of the store's for the sessions'
    own triples. A check after an ingest that did not finish (``session_insights.mending_due``:
    a Ctrl-C, a kill, ``ingest --no-health``) is made by the next call, looking every finding
    up; a caller whose ingest follows such a one gives no hints (``texts_given`` None,
    ``only_texts`` False). ``shared``: what checks many sessions in worker processes beside this
    one (``in_pass.HealthInPass``, the ingest's own), used when it says there are enough
    (a content file after its traces: 2,731 sessions of 10,000 checked again, 11.9 s in one
    process); ``step(what)`` then hears what they do before their first batch is back.
    ``supports``: what checks the answers' support (``check_sessions``; the app's is a worker
    process with a deadline for a visitor's traces). Raises SourceError when the source fails."""
    index = source.index
    if index is None or index.read_only or not index.usable:
        return 0
    if written is not None and not written.kept:
        written = None
    due = mending_due(index)
    if due and not after_ingest:  # an ingest whose check did not finish: every finding looked at
        after_ingest, texts_given, only_texts = True, None, False
    if after_ingest:
        forget_health(index, CONTEXT_RULES, keep=fresh,
                      mended=lambda wants: mended(source.store, wants, texts_given, only_texts))
    roots = unchecked_roots(index)
    if total is not None:
        total(len(roots))
    if roots and shared is not None and shared.parallel(len(roots)):
        shared.check(roots, written.session_quads if written is not None else None, progress, step)
    elif roots:
        _check(source, roots, written, progress, supports)
    if due:
        mending_done(index)
    return len(roots)


def _check(source: StoreSource, roots: list[str], written: WrittenTriples | None,
           progress: Callable[[int], None] | None, supports: Supports) -> None:
    """Check ``roots`` a batch at a time and write each batch's health rows."""
    extending = entities_under(source, roots, scan=len(roots) > BATCH,
                               typed=written.typed_iris() if written is not None else None)
    # quads as kept (no triple made of each), and the collector paused while a batch's objects
    # are made: at 10,000 sessions its passes over the kept triples took a fifth of the check
    triples_of = written.session_quads if written is not None else None
    for start in range(0, len(roots), BATCH):
        chunk = roots[start:start + BATCH]
        with collector_paused():
            found = check_sessions(source, chunk, extending, triples_of, supports)
        write_health(source.index, summaries(chunk, found))
        if progress is not None:
            progress(len(chunk))

