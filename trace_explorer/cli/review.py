"""``trace-explorer review``: add, list, export and import reviews (W3C Web Annotations in the
explorer's own review store; docs/reviews.md).

The review store is ``--reviews DIR``, else ``TRACE_EXPLORER_REVIEWS``, else the ``[reviews]``
table's ``folder`` in the sources file, else beside the session index of ``--store DIR``, else
the user's data folder (``reviews.settings``). Exit status 2: bad usage, an unknown label, a
review that is not one's own, a file that cannot be read or written, a store that stays busy.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from ..views.visible_text import visible_controls
from .sources import report

if TYPE_CHECKING:  # the review store, its files and the sources file are imported when a review command runs,
    # so that the other commands start as fast as before (tests/test_cli_start.py)
    from ..reviews import Review, ReviewStore
    from ..reviews.settings import ReviewSettings


def add_parser(commands) -> None:
    """Add ``review`` and its subcommands (add, list, export, import, edit, delete, history)."""
    review = commands.add_parser("review", help="review sessions, steps, spans, edges and chunks",
                                 description="Reviews are W3C Web Annotations in the explorer's own store.")
    verbs = review.add_subparsers(dest="verb", required=True, metavar="VERB")

    add = _verb(verbs, "add", "add a review", _add)
    add.add_argument("--target", required=True, metavar="IRI", help="the reviewed IRI: a session, step, edge or chunk")
    add.add_argument("--quote", metavar="TEXT", help="the reviewed span of the target's text (with --start and --end)")
    add.add_argument("--start", type=int, metavar="N", help="the span's first character (from 0)")
    add.add_argument("--end", type=int, metavar="M", help="the character after the span")
    add.add_argument("--label", required=True, metavar="L", help="one of the configured labels")
    add.add_argument("--score", type=float, metavar="X", help="a number on the reviewer's own scale")
    add.add_argument("--comment", metavar="C")
    add.add_argument("--session", metavar="IRI", help="the session the target belongs to (told from TrustGraph's "
                                                      "session and agent step IRIs when not given)")
    _by(add)

    listing = _verb(verbs, "list", "list reviews", _list)
    listing.add_argument("--session", metavar="ID", help="only this session's reviews (its IRI or a unique part)")
    listing.add_argument("--target", metavar="IRI", help="only the reviews of this IRI")
    listing.add_argument("--label", metavar="L", help="only reviews with this label")
    listing.add_argument("--by", metavar="NAME", help="only reviews by this reviewer")
    listing.add_argument("--format", choices=("text", "json", "jsonld"), default="text")

    export = _verb(verbs, "export", "write reviews to a .jsonld or .ttl file", _export)
    export.add_argument("file", metavar="FILE", help="FILE.jsonld (Web Annotation JSON-LD), FILE.ttl, .trig, .nt, .nq, .rdf")
    export.add_argument("--session", metavar="ID", help="only this session's reviews")

    imported = _verb(verbs, "import", "read reviews from a file (the same review twice is one)", _import)
    imported.add_argument("file", metavar="FILE", help="a file `review export` wrote, or any Web Annotations")

    edit = _verb(verbs, "edit", "change one's own review", _edit)
    edit.add_argument("id", metavar="REVIEW", help="the review's IRI")
    edit.add_argument("--label", metavar="L")
    edit.add_argument("--score", type=float, metavar="X")
    edit.add_argument("--comment", metavar="C")
    _by(edit)

    delete = _verb(verbs, "delete", "take one's own review out (its history stays)", _delete)
    delete.add_argument("id", metavar="REVIEW", help="the review's IRI")
    _by(delete)

    history = _verb(verbs, "history", "every change of a review", _history)
    history.add_argument("id", metavar="REVIEW", help="the review's IRI")


def _verb(verbs, name: str, help: str, act) -> argparse.ArgumentParser:
    parser = verbs.add_parser(name, help=help, description=help[0].upper() + help[1:] + ".")
    parser.add_argument("--reviews", metavar="DIR", help="the review store (default: beside --store's session index)")
    parser.add_argument("--store", metavar="DIR", help="the local store whose reviews these are")
    parser.set_defaults(act=lambda args: _acting(act, args))
    return parser


def _by(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--by", metavar="NAME", help="the reviewer (default: TRACE_EXPLORER_REVIEWER, the sources "
                                                     "file's [reviews] author, else \"local\")")


def _acting(act, args: argparse.Namespace) -> int:
    """Open the review store the arguments name and run ``act(args, store, settings)``; errors
    become one line on stderr and exit status 2."""
    from ..reviews import NoSuchReview, NotYourReview, ReviewError, ReviewStore, ReviewStoreBusy
    from ..sources.configured import SourcesConfigError
    from ..store.local_store import holds_store

    try:
        settings = _settings()
        if args.store and not holds_store(args.store):
            report([f"no store at {args.store} (create one with `trace-explorer ingest`)"])
            return 2
        store = ReviewStore(settings.folder_for(args.store, args.reviews), settings.labels)
        return act(args, store, settings)
    except (ReviewError, SourcesConfigError, ReviewStoreBusy, NotYourReview) as error:
        report([str(error)])
    except NoSuchReview as error:
        report([f"no review {error.args[0]}"])
    except OSError as error:
        report([f"{getattr(error, 'filename', None) or 'the review store'}: {error.strerror or error}"])
    return 2


def session_reviews(args: argparse.Namespace, session: str) -> list[Review]:
    """The reviews of the session IRI ``session`` in the review store the arguments name
    (``--reviews``, else beside ``--store``, else the configured one: ``_acting``'s rules); none
    when that store was never made. Raises ReviewError / SourcesConfigError for bad settings."""
    from ..reviews import ReviewStore

    settings = _settings()
    folder = settings.folder_for(getattr(args, "store", None), getattr(args, "reviews", None))
    return ReviewStore(folder, settings.labels).reviews_of(session=session) if folder.is_dir() else []


def _settings() -> ReviewSettings:
    """The operator's review settings: the environment over the sources file's [reviews]."""
    from ..reviews.settings import review_settings
    from ..sources.configured import load_sources

    return review_settings(load_sources().reviews)


def _add(args, store: ReviewStore, settings: ReviewSettings) -> int:
    from ..reviews import ReviewError, Selector
    from ..reviews.review import session_of

    spans = (args.quote, args.start, args.end)
    if any(v is not None for v in spans) and not all(v is not None for v in spans):
        raise ReviewError("a span needs --quote, --start and --end together")
    selector = Selector(args.quote, args.start, args.end) if args.quote is not None else None
    if args.session is None and session_of(args.target) is None:
        raise ReviewError(f"the session of {args.target[:200]} cannot be told from its IRI (a GraphRAG step, an edge "
                          "or a chunk): give --session IRI, so that the review shows with its session")
    review = store.add(args.target, args.label, settings.author_for(given=args.by), selector=selector,
                       score=args.score, comment=args.comment, session=args.session)
    print(review.id)
    return 0


def _list(args, store: ReviewStore, settings: ReviewSettings) -> int:
    reviews = _chosen(store, args.session, args.target)
    reviews = [r for r in reviews if (not args.label or r.label == args.label) and (not args.by or r.author == args.by)]
    if args.format == "jsonld":
        from ..reviews.jsonld import dumps

        print(dumps(reviews), end="")
    elif args.format == "json":
        print(json.dumps([review_record(r) for r in reviews], ensure_ascii=False, indent=2))
    else:
        for review in reviews:
            print(review_line(review))
    return 0


def _export(args, store: ReviewStore, settings: ReviewSettings) -> int:
    from ..reviews.exchange import export_text

    path = Path(args.file)
    data = export_text(_chosen(store, args.session, None), path)
    path.write_bytes(data)
    print(f"trace-explorer: wrote {path} ({len(data):,} bytes)", file=sys.stderr)
    return 0


def _import(args, store: ReviewStore, settings: ReviewSettings) -> int:
    from ..reviews.exchange import read_reviews

    added, changed, same = store.put(read_reviews(Path(args.file)))
    print(f"trace-explorer: {added} added, {changed} changed, {same} already there", file=sys.stderr)
    return 0


def _edit(args, store: ReviewStore, settings: ReviewSettings) -> int:
    from ..reviews import ReviewError

    changes = {k: v for k, v in (("label", args.label), ("score", args.score), ("comment", args.comment)) if v is not None}
    if not changes:
        raise ReviewError("give --label, --score or --comment to change")
    print(review_line(store.edit(args.id, settings.author_for(given=args.by), **changes)))
    return 0


def _delete(args, store: ReviewStore, settings: ReviewSettings) -> int:
    store.delete(args.id, settings.author_for(given=args.by))
    return 0


def _history(args, store: ReviewStore, settings: ReviewSettings) -> int:
    from ..reviews import NoSuchReview

    versions = store.history(args.id)
    if not versions:
        raise NoSuchReview(args.id)
    for v in versions:
        print(f"{v.number}\t{v.change}\t{_moment(v.at)}\t{visible_controls(v.by)}\t{review_line(v.review)}")
    return 0


def _chosen(store: ReviewStore, session: str | None, target: str | None) -> list[Review]:
    """The reviews of ``session`` (an IRI, or a part of exactly one reviewed session's IRI) and
    ``target``. Raises ReviewError when the part names several sessions."""
    from ..reviews import ReviewError

    if session and not store.reviews_of(session=session):
        found = sorted(s for s in store.reviewed_sessions() if session in s)
        if len(found) > 1:
            raise ReviewError(f"{session[:200]!r} matches several reviewed sessions: {', '.join(found[:5])}")
        session = found[0] if found else session
    return store.reviews_of(session=session, target=target)


def review_record(review: Review) -> dict:
    """``review`` as a plain JSON object (``list --format json``): id, target, selector (quote,
    start, end) or null, label, score, comment, author, created, modified (ISO 8601, UTC), session."""
    s = review.selector
    return {"id": review.id, "target": review.target,
            "selector": {"quote": s.quote, "start": s.start, "end": s.end} if s else None,
            "label": review.label, "score": review.score, "comment": review.comment, "author": review.author,
            "created": _moment(review.created), "modified": _moment(review.modified), "session": review.session}


def review_line(review: Review) -> str:
    """One line of ``list``: time, reviewer, label, score, target (and quoted span), comment, id;
    tab-separated, its untrusted text with controls shown and line breaks as spaces."""
    span = f" “{review.selector.quote}” [{review.selector.start}-{review.selector.end}]" if review.selector else ""
    fields = (_moment(review.modified), review.author, review.label, "" if review.score is None else f"{review.score:g}",
              review.target + span, review.comment or "", review.id)
    return "\t".join(visible_controls(" ".join(str(f).split())) for f in fields)


def _moment(moment) -> str:
    return moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")
