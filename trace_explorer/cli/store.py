"""``trace-explorer ingest`` and ``reindex``: fill a local store, rebuild its session index (and
check the health of the sessions they changed, for the session list's health column)."""

from __future__ import annotations

import argparse
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from ..read.collection import empty_folders, expand_paths, folders_left_out
from ..read.errors import TraceLoadError
from ..read.files import check_before_opening, reckoned_text_bytes
from ..read.formats import DOCUMENTS_JSON, format_for_name
from ..index.ingest_phases import HEALTH
from ..store.ingest import ingest_file, reindex
from ..store.local_store import open_local_store
from ..index.insights import mending_due
from ..sources.source import SourceError
from ..store.written_triples import WrittenTriples
from ..views.visible_text import visible_controls
from .ingest_progress import BarPhases, count
from .sources import add_demo_argument, given_paths, report

if TYPE_CHECKING:
    from ..analysis.health.in_pass import HealthInPass


def add_parser(commands) -> None:
    """Add ``ingest`` and ``reindex`` to the subcommands ``commands``."""
    ingest = commands.add_parser("ingest", help="add trace and content files to a local store",
                                 description="Add files to the local store in DIR, each all or nothing; "
                                             "a file given twice adds nothing new.")
    ingest.add_argument("paths", nargs="*", metavar="FILE", help="trace files, content files or folders")
    add_demo_argument(ingest)
    ingest.add_argument("--store", required=True, metavar="DIR", help="the local store (created when missing)")
    ingest.add_argument("--quiet", action="store_true",
                        help="no progress bars and no lines for the files and totals (warnings and errors still)")
    ingest.add_argument("--no-health", action="store_true",
                        help="do not check the changed sessions' health now (the list shows them as unchecked)")
    _add_workers_argument(ingest, "a large file's sessions")
    ingest.set_defaults(act=_ingest)

    rebuild = commands.add_parser("reindex", help="rebuild a local store's session index",
                                  description="Read every session of the local store in DIR again and "
                                              "rewrite its session index (the rows the session list shows).")
    rebuild.add_argument("--store", required=True, metavar="DIR", help="the local store")
    rebuild.add_argument("--quiet", action="store_true",
                         help="no progress bars and no last line (warnings and errors still)")
    rebuild.add_argument("--no-health", action="store_true",
                         help="do not check every session's health now: every session is shown as unchecked "
                              "until the next reindex (the health found before goes with the old rows)")
    _add_workers_argument(rebuild, "the sessions")
    rebuild.set_defaults(act=_reindex)


def _add_workers_argument(parser, sessions: str) -> None:
    """``--workers N``: the worker processes of the pass that reads ``sessions`` for their rows
    and health (``analysis.health.in_pass``), for ``ingest`` and ``reindex`` alike."""
    parser.add_argument("--workers", type=_workers, default=None, metavar="N",
                        help=f"worker processes that read {sessions} for their rows and health beside this one "
                             "(default: one for each further core, at most 3; 0: none, about 250 MB less memory)")


def _reindex(args) -> int:
    # a store is made by ingest, never here; a file given is told by opening it
    if not os.path.exists(args.store) or (os.path.isdir(args.store) and not os.listdir(args.store)):
        report([f"no store at {args.store or repr(args.store)} (create one with `trace-explorer ingest`)"])
        return 2
    try:
        with BarPhases(args.quiet) as phases, open_local_store(args.store, adopt=True) as local:
            if args.no_health:
                count = reindex(local, phases)
            else:
                from ..analysis.health import in_pass  # with the checks, only when they run

                # every session's row and health in one pass, shared with worker processes, as a
                # large file's ingest does; then any session that pass left unchecked
                health = in_pass.HealthInPass(local, workers=args.workers)
                count = reindex(local, phases, rows_reader=health)
                health.write()
                _check_health(local, quiet=args.quiet, phases=phases, shared=health)
    except SourceError as error:
        report([str(error)])
        return 2
    phases.note(f"{args.store}: {count:,} sessions indexed {phases.times()}")
    return 0


def _workers(text: str) -> int:
    """``--workers``: a whole number from 0 to 16."""
    try:
        value = int(text)
    except ValueError:
        value = -1
    if not 0 <= value <= 16:
        raise argparse.ArgumentTypeError(f"expected a whole number from 0 to 16, got {text!r}")
    return value


def _check_health(local, quiet: bool, after_ingest: bool = False, phases: BarPhases | None = None,
                  written: WrittenTriples | None = None, fresh: list[str] | None = None,
                  texts_given: set[str] | None = None, only_texts: bool = False,
                  shared: HealthInPass | None = None) -> None:
    """Check the health of the sessions whose index rows changed and were not checked in the
    pass that wrote them (``fresh``), with a progress bar once their number is known (none when
    there are none); ``texts_given``, ``only_texts`` and ``shared`` (the ingest's own reader, whose
    workers then share the check): as ``refresh_health`` takes them."""
    from ..analysis.health.index import refresh_health

    phases = phases or BarPhases(quiet)
    refresh_health(local.writer_source(), after_ingest=after_ingest, progress=phases.advance, written=written,
                   total=lambda total: phases.begin(HEALTH, total), fresh=fresh or (), texts_given=texts_given,
                   only_texts=only_texts, shared=shared, step=phases.step)
    phases.finish()


def _ingest(args) -> int:
    """Add each file to the store, all or nothing, with a progress bar for each phase and a
    last line with the totals: the quads and texts the store gained (counted before and after,
    so a quad given twice counts once)."""
    paths = given_paths(args)
    if not paths:
        report(["give the files to add, or --demo"])
        return 2
    files, empty = expand_paths(paths), empty_folders(paths)
    if not files:
        report([str(error) for error in empty])
        return 2
    report([f"warning: {error}" for error in empty] + [f"warning: {note}" for note in folders_left_out(paths)])
    try:
        store = open_local_store(args.store, adopt=True)
    except SourceError as error:
        report([str(error)])
        return 2
    with BarPhases(args.quiet) as phases, store:
        empty = next(iter(store.store.quads_for_pattern(None, None, None, None)), None) is None
        # the quads gained: each file counts those the store lacks (about 4 us a quad) when its
        # text is small beside the store, else the store is counted before and after (len: about
        # 0.4 us a quad, 3.6 s at 9.3 million quads, a store of 2.3 GB on disk)
        by_file = not empty and _text_bytes(files) < store.disk_bytes() / 10
        quads, texts = 0 if empty or by_file else len(store), store.texts()
        # an empty store: keep what goes in, so the health check reads it from memory
        written = None if args.no_health else WrittenTriples.for_store(store.store, store.index)
        # the health checks (and their language models) load with the first ingest that checks
        from ..analysis.health import in_pass

        health = None if args.no_health else in_pass.HealthInPass(store, written, args.workers)
        earlier = mending_due(store.index)  # an ingest before this one whose check did not finish
        run = _ingest_files(store, texts_first(files), phases, written, health, by_file)
        quads, texts = run.gained if by_file else len(store) - quads, store.texts() - texts
        if not args.no_health:
            try:
                # what a later file may mend is checked again only when a file went in
                _check_health(store, args.quiet, after_ingest=run.added > 0 or earlier, phases=phases,
                              written=written, fresh=run.fresh, texts_given=None if earlier else run.texts_given,
                              only_texts=run.only_texts and not earlier, shared=health)
            except SourceError as error:
                phases.finish()  # the bar before the line, not after it
                report([str(error)])
                return 2
        del written
    phases.note(phases.totals(quads, texts, run.added))
    return 1 if run.failed else 0


def texts_first(files: list[Path]) -> list[Path]:
    """``files`` with the content files (``*.documents.json``) first, in their order, then the
    others in theirs: a trace file's sessions are then checked with their texts in the store,
    in the pass that indexes them, instead of again once the texts come."""
    def is_texts(path: Path) -> bool:
        try:
            return format_for_name(path.name) == DOCUMENTS_JSON
        except TraceLoadError:
            return False
    return sorted(files, key=lambda path: not is_texts(path))


def _text_bytes(files: list[Path]) -> int:
    """About how many bytes of text ``files`` hold, as the choice to stream each reckons
    (``files.reckoned_text_bytes``); a file that cannot be asked counts 0."""
    total = 0
    for path in files:
        try:
            total += reckoned_text_bytes(path.name, path.stat().st_size)
        except OSError:
            pass
    return total


@dataclass
class IngestRun:
    """What ``_ingest_files`` did: how many files ``failed`` and were ``added``, the sessions
    the health check in the pass checked after the last write (``fresh``: a large N-Quads or
    N-Triples file's, checked as it was indexed), the quads the store ``gained`` (when counted
    file by file), the IRIs the files gave a text to (``texts_given``: ``LoadedSource.text_iris``)
    and whether every file added was a content file (``only_texts``)."""

    failed: int = 0
    added: int = 0
    fresh: list[str] = field(default_factory=list)
    gained: int = 0
    texts_given: set[str] = field(default_factory=set)
    only_texts: bool = True


def _ingest_files(store, files, phases: BarPhases, written: WrittenTriples | None,
                  health: HealthInPass | None = None, count_gained: bool = False) -> IngestRun:
    """Ingest each of ``files``, each phase with its bar (``IngestRun``; ``gained`` with
    ``count_gained``: ``LoadedSource.gained``, summed)."""
    run = IngestRun()
    for path in files:
        phases.label = path.name
        try:
            check_before_opening(str(path))  # before a bar is drawn
            done = ingest_file(store, str(path), phases=phases,  # its bars, from the check on
                               written=written, rows_reader=health, count_gained=count_gained)
        except TraceLoadError as error:
            phases.finish()
            phases.write(f"trace-explorer: {visible_controls(str(error))}")  # on a line of its own
            run.failed += 1
            continue
        phases.finish()
        if done.skipped:
            phases.note(f"{path}: already in the store, nothing added")
        else:
            if health is not None:
                run.fresh = health.write()  # the file's sessions were checked after every write so far
            run.added += 1
            run.gained += done.gained or 0
            run.texts_given.update(done.text_iris)
            run.only_texts = run.only_texts and done.format == DOCUMENTS_JSON and not done.quads
            phases.note(f"{path}: {count(done.quads, 'quad')}, {count(done.documents, 'text')} ({done.format})")
    phases.label = ""
    return run
