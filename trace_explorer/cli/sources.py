"""The CLI's choice of source: trace files (read into memory; ``--demo`` adds the bundled demo
traces, so a fresh checkout has something to read without a path), ``--store DIR`` (the
embedded local store), ``--endpoint URL`` (a SPARQL endpoint) or ``--trustgraph URL`` (a
TrustGraph deployment's API gateway, its bearer token from ``TRUSTGRAPH_TOKEN`` as TrustGraph's
own CLI reads it), with content files beside any of them."""

from __future__ import annotations

import argparse
import math
import os
import sys
from typing import TYPE_CHECKING

from ..read.collection import expand_paths, folders_left_out, load_collection
from ..read.errors import TraceLoadError
from ..read.formats import DOCUMENTS_JSON, format_for_name
from ..network.bounded_http import DEFAULT_TIMEOUT_S
from ..sources.demo import demo_paths
from ..store.local_store import holds_store, local_source
from ..index.build import build_index
from ..sources.source import SourceError, TraceSource
from ..sources.store_source import StoreSource
from ..views.visible_text import visible_controls

if TYPE_CHECKING:
    from ..sources.trustgraph.source import TrustGraphSource

TOKEN_VARIABLE = "TRUSTGRAPH_TOKEN"


def add_source_arguments(parser: argparse.ArgumentParser) -> None:
    """Add PATH..., --demo and the --store / --endpoint options (with authentication and timeout)."""
    parser.add_argument("paths", nargs="*", metavar="PATH",
                        help="trace files, *.documents.json content files or folders of them")
    add_demo_argument(parser)
    where = parser.add_argument_group("source (instead of trace files)")
    where.add_argument("--store", metavar="DIR", help="the local store in DIR")
    where.add_argument("--endpoint", metavar="URL", help="a SPARQL 1.1 endpoint (read-only queries)")
    where.add_argument("--graph", action="append", default=[], metavar="IRI",
                       help="endpoint: read these named graphs as the default graph (repeatable)")
    where.add_argument("--user", help="endpoint: HTTP basic user (password from TRACE_EXPLORER_PASSWORD)")
    where.add_argument("--token-env", metavar="VAR", help="endpoint: bearer token from this environment variable")
    where.add_argument("--timeout", type=seconds, default=DEFAULT_TIMEOUT_S, metavar="S",
                       help="endpoint: seconds each request may take in all (connect, wait, read the answer)")
    where.add_argument("--no-quoted-triples", action="store_true",
                       help="endpoint: the server cannot hold RDF 1.2 quoted triples")
    add_trustgraph_arguments(where, required=False)


MOST_SECONDS = 86_400.0  # a request's timeout at most: a day


def seconds(text: str) -> float:
    """``--timeout``: seconds, more than 0 and at most ``MOST_SECONDS`` (0, a negative number,
    nan or inf failed deep inside the HTTP client). Raises argparse.ArgumentTypeError."""
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not 0 < value <= MOST_SECONDS:  # False for nan
        raise argparse.ArgumentTypeError(f"expected seconds, more than 0 and at most {MOST_SECONDS:,.0f}, "
                                         f"got {text[:40]!r}")
    return value


def add_trustgraph_arguments(group, required: bool) -> None:
    """``--trustgraph URL`` with ``--flow``, ``--collection`` and ``--workspace`` (the token is
    read from TRUSTGRAPH_TOKEN, never from the command line)."""
    group.add_argument("--trustgraph", metavar="URL", required=required,
                       help=f"a TrustGraph API gateway, such as http://localhost:8888/ (bearer token from {TOKEN_VARIABLE})")
    group.add_argument("--flow", default="default", metavar="ID", help="trustgraph: the flow (default: default)")
    group.add_argument("--collection", default="default", metavar="ID", help="trustgraph: the collection (default: default)")
    group.add_argument("--workspace", default="default", metavar="ID", help="trustgraph: the workspace (default: default)")


def trustgraph_source(args: argparse.Namespace) -> TrustGraphSource:
    """The TrustGraph source the arguments name, reading every text at once."""
    # the HTTP clients are loaded for the commands that speak to a server only
    from ..sources.trustgraph.gateway import Gateway
    from ..sources.trustgraph.source import TrustGraphSource

    gateway = Gateway(args.trustgraph, os.environ.get(TOKEN_VARIABLE), flow=args.flow, collection=args.collection,
                      workspace=args.workspace, timeout=getattr(args, "timeout", DEFAULT_TIMEOUT_S))
    return TrustGraphSource(gateway, eager_texts=True)


def add_demo_argument(parser: argparse.ArgumentParser) -> None:
    """Add ``--demo``: the bundled demo traces, read as if their files were given."""
    parser.add_argument("--demo", action="store_true",
                        help="the bundled demo traces (the reference corpus, with their texts), "
                             "besides any PATH given")


def given_paths(args: argparse.Namespace) -> list:
    """The PATHs given, after the demo's files when ``--demo`` is given."""
    return (list(demo_paths()) if getattr(args, "demo", False) else []) + list(args.paths)


def open_source(args: argparse.Namespace) -> tuple[TraceSource | None, list[str]]:
    """The source the arguments name, and the error messages of files that failed.

    Returns ``(None, errors)`` when nothing usable was given (bad usage, unreadable store)."""
    chosen = [name for name, value in (("--store", args.store), ("--endpoint", args.endpoint),
                                       ("--trustgraph", args.trustgraph)) if value]
    if len(chosen) > 1:
        return None, ["give one of --store, --endpoint or --trustgraph, not both"]
    if args.demo and chosen:
        return None, [f"--demo reads the demo's files: give it without {chosen[0]} "
                      f"(`trace-explorer ingest --demo --store DIR` puts them into a store)"]
    if chosen:
        content, errors = [], []
        for path in expand_paths(args.paths):
            try:
                kind = format_for_name(str(path))
            except TraceLoadError as error:
                errors.append(str(error))
                continue
            if kind != DOCUMENTS_JSON:
                errors.append(f"{path}: with --store, --endpoint or --trustgraph only *.documents.json files may be given "
                              f"(add trace files to a store with `trace-explorer ingest`)")
            else:
                content.append(path)
        collection, load_errors = load_collection(content)
        errors += [str(e) for e in load_errors]
        try:
            if args.store:
                if not os.path.isdir(args.store):
                    return None, errors + [f"no store at {args.store} (create one with `trace-explorer ingest`)"]
                source = local_source(args.store, adopt=True)
                source.documents = collection.documents
            elif args.trustgraph:
                source = trustgraph_source(args)
                source.documents.update(collection.documents)
            else:
                token = os.environ.get(args.token_env) if args.token_env else None
                if args.token_env and not token:
                    return None, errors + [f"--token-env {args.token_env}: expected that environment variable to "
                                           f"hold the endpoint's token; it is not set"]
                from ..sources.endpoint import EndpointSource

                source = EndpointSource(args.endpoint, tuple(args.graph), args.user,
                                        os.environ.get("TRACE_EXPLORER_PASSWORD"), token, args.timeout,
                                        not args.no_quoted_triples, collection.documents)
        except SourceError as error:
            return None, errors + [str(error)]
        return source, errors
    paths = given_paths(args)
    if not paths:
        return None, ["give trace files, --demo, --store DIR, --endpoint URL or --trustgraph URL"]
    stores = [p for p in map(str, paths) if os.path.isdir(p) and holds_store(p)]
    if stores:  # a store's folder holds no trace files: it is read with --store
        return None, [f"{p} is a local store, not a folder of trace files: read it with --store {p}" for p in stores]
    report([f"warning: {note}" for note in folders_left_out(paths)])
    collection, errors = load_collection(paths)
    if not collection.sources:
        return None, [str(e) for e in errors] or ["no trace files found"]
    label = "the files" if not args.demo else "the demo traces and the files" if args.paths else "the demo traces"
    return StoreSource(collection.store, label=label, documents=collection.documents,
                       index=build_index(collection.store, documents=collection.documents)), [str(e) for e in errors]


def report(errors: list[str]) -> None:
    """Print each error on stderr, prefixed with the command's name."""
    for error in errors:
        print(f"trace-explorer: {visible_controls(error)}", file=sys.stderr)
