"""``trace-explorer ingest`` and ``reindex``: fill a local store, rebuild its session index (and
check the health of the sessions they changed, for the session list's health column)."""

from __future__ import annotations

import os
import sys

from ..analysis.health.index import refresh_health
from ..read.collection import expand_paths
from ..read.errors import TraceLoadError
from ..sources.local_store import ingest_file, open_local_store, reindex
from ..sources.source import SourceError
from ..views.visible_text import visible_controls
from .sources import add_demo_argument, given_paths, report


def add_parser(commands) -> None:
    """Add ``ingest`` and ``reindex`` to the subcommands ``commands``."""
    ingest = commands.add_parser("ingest", help="add trace and content files to a local store",
                                 description="Add files to the local store in DIR, each all or nothing; "
                                             "a file given twice adds nothing new.")
    ingest.add_argument("paths", nargs="*", metavar="FILE", help="trace files, content files or folders")
    add_demo_argument(ingest)
    ingest.add_argument("--store", required=True, metavar="DIR", help="the local store (created when missing)")
    ingest.add_argument("--quiet", action="store_true", help="no progress bar")
    ingest.add_argument("--no-health", action="store_true",
                        help="do not check the changed sessions' health now (the list shows them as unchecked)")
    ingest.set_defaults(act=_ingest)

    rebuild = commands.add_parser("reindex", help="rebuild a local store's session index",
                                  description="Read every session of the local store in DIR again and "
                                              "rewrite its session index (the rows the session list shows).")
    rebuild.add_argument("--store", required=True, metavar="DIR", help="the local store")
    rebuild.add_argument("--no-health", action="store_true", help="do not check every session's health now")
    rebuild.set_defaults(act=_reindex)


def _reindex(args) -> int:
    if not os.path.isdir(args.store):
        report([f"no store at {args.store}"])
        return 2
    try:
        with open_local_store(args.store) as local:
            count = reindex(local)
            if not args.no_health:
                _check_health(local, quiet=False)
    except SourceError as error:
        report([str(error)])
        return 2
    print(f"{args.store}: {count:,} sessions indexed", file=sys.stderr)
    return 0


def _check_health(local, quiet: bool, after_ingest: bool = False) -> None:
    """Check the health of the sessions whose index rows changed, with a progress bar."""
    from tqdm import tqdm

    with tqdm(unit=" sessions", desc="health", disable=quiet, file=sys.stderr) as bar:
        refresh_health(local.writer_source(), after_ingest=after_ingest, progress=bar.update)


def _ingest(args) -> int:
    """Add each file to the store, all or nothing, with a progress bar by bytes read."""
    paths = given_paths(args)
    if not paths:
        report(["give the files to add, or --demo"])
        return 2
    try:
        store = open_local_store(args.store)
    except SourceError as error:
        report([str(error)])
        return 2
    with store:
        failed = _ingest_files(store, expand_paths(paths), args.quiet)
        if not args.no_health:
            try:
                _check_health(store, args.quiet, after_ingest=True)
            except SourceError as error:
                report([str(error)])
                return 2
    return 1 if failed else 0


def _ingest_files(store, files, quiet: bool) -> int:
    """Ingest each of ``files`` with a progress bar by bytes read; returns how many failed."""
    from tqdm import tqdm

    failed = 0
    total = sum(p.stat().st_size for p in files if p.is_file())
    with tqdm(total=total, unit="B", unit_scale=True, desc="ingest", disable=quiet, file=sys.stderr) as bar:
        for path in files:
            bar.set_postfix_str(path.name, refresh=False)
            try:
                done = ingest_file(store, str(path), progress=lambda n: bar.update(n) if not str(path).endswith(".gz") else None)
            except TraceLoadError as error:
                bar.write(f"trace-explorer: {visible_controls(str(error))}", file=sys.stderr)  # on a line of its own
                failed += 1
                continue
            if str(path).endswith(".gz") and path.is_file():
                bar.update(path.stat().st_size)
            if done.skipped:
                bar.write(f"{path}: already in the store, nothing added", file=sys.stderr)
            else:
                bar.write(f"{path}: {done.quads:,} quads, {done.documents:,} texts ({done.format})", file=sys.stderr)
    return failed


