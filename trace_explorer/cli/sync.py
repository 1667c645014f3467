"""``trace-explorer sync``: mirror a TrustGraph deployment's sessions and texts into a local
store, incrementally (``store.trustgraph_sync``), with a progress bar by sessions."""

from __future__ import annotations

import sys

from ..network.bounded_http import DEFAULT_TIMEOUT_S
from ..store.local_store import open_local_store
from ..sources.source import SourceError
from ..views.visible_text import visible_controls
from .sources import TOKEN_VARIABLE, add_trustgraph_arguments, report, seconds, trustgraph_source


def add_parser(commands) -> None:
    """Add ``sync`` to the subcommands ``commands``."""
    parser = commands.add_parser(
        "sync", help="mirror a TrustGraph deployment into a local store",
        description="Copy the sessions of a TrustGraph deployment that the local store in DIR lacks, with their "
                    f"texts from the librarian, each session whole or not at all. The token is read from {TOKEN_VARIABLE}.")
    add_trustgraph_arguments(parser, required=True)
    parser.add_argument("--store", required=True, metavar="DIR", help="the local store (created when missing)")
    parser.add_argument("--timeout", type=seconds, default=DEFAULT_TIMEOUT_S, metavar="S", help="seconds each request may take in all (connect, wait, read the answer)")
    parser.add_argument("--quiet", action="store_true", help="no progress bar")
    parser.set_defaults(act=_sync)


def _sync(args) -> int:
    from tqdm import tqdm

    from ..store.trustgraph_sync import SyncReport, sync  # the HTTP client loads for this command only

    try:
        local = open_local_store(args.store, adopt=True)
    except SourceError as error:
        report([str(error)])
        return 2
    source = trustgraph_source(args)
    done = SyncReport()
    with local, tqdm(total=0, unit="session", desc="sync", disable=args.quiet, file=sys.stderr) as bar:
        def progress(count: int, total: int) -> None:
            bar.total = total
            bar.n = count
            bar.refresh()
        try:
            sync(source, local, progress, done)
        except SourceError as error:
            bar.close()
            report([str(error), f"{done.added:,} new sessions were written before it failed; "
                                f"sync again to go on"])
            return 2
    for document, why in sorted(done.missing_texts.items()):
        report([f"warning: {visible_controls(why)}"])
    print(f"{args.store}: {done.added:,} new sessions ({done.quads:,} quads, {done.texts:,} texts); "
          f"{done.known:,} of {done.listed:,} were there already; {done.requests:,} requests", file=sys.stderr)
    return 0
