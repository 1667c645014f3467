"""``trace-explorer follow``: print each new session, each new step and each answer of a source
as they land, like ``tail -f`` (issue 41), from the poller of ``live``: text lines for people,
or JSON lines (``--format jsonl``, ``live.events.LiveEvent.record``) for scripts. Existing
sessions are not replayed unless ``--from-start``; ``--for S`` stops after S seconds and
Ctrl-C stops at once, both with status 0. Once the first poll is made, a line on stderr says
that what is written from then on is shown. A source that stops answering is said once on
stderr, and again when it answers again; what was printed stays."""

from __future__ import annotations

import argparse
import json
import time

from ..live.events import ANSWER, SESSION, LiveEvent
from ..live.poller import DEFAULT_INTERVAL, Poller
from ..live.probes import FilesProbe, probe_for
from ..read.diagnosis import clip
from ..index.catalog import find_session_ids
from ..sources.source import SourceError
from ..views.visible_text import visible_controls
from .sources import add_source_arguments, given_paths, open_source, report, seconds
from .output_gone import READER_GONE, let_stdout_go
from .sessions import not_one_session

TEXT_SHOWN = 200  # characters of a step's words on a text line
FIRST_POLL_WAIT = 60.0  # seconds past --for that a first poll still running is waited for


def add_parser(commands) -> None:
    """Add ``follow`` to the subcommands ``commands``."""
    parser = commands.add_parser(
        "follow", help="print new sessions and steps as they are written, like tail -f",
        description="Follow a source: print each new session, each new step and each answer as it lands. "
                    "Existing sessions are not replayed unless --from-start.")
    add_source_arguments(parser)
    parser.add_argument("--session", metavar="ID", help="follow this session only (its IRI or a unique part of it)")
    parser.add_argument("--format", choices=("text", "jsonl"), default="text")
    parser.add_argument("--interval", type=seconds, default=DEFAULT_INTERVAL, metavar="S",
                        help=f"seconds between two polls of the source (default {DEFAULT_INTERVAL:g})")
    parser.add_argument("--for", dest="for_s", type=seconds, default=None, metavar="S",
                        help="stop after S seconds (default: until Ctrl-C)")
    parser.add_argument("--from-start", action="store_true", help="print the sessions already there first")
    parser.set_defaults(act=_follow)


def _follow(args: argparse.Namespace) -> int:
    source, errors = open_source(args)
    report(errors)
    if source is None:
        return 2
    session = None
    try:
        if args.session:
            found = find_session_ids(source, args.session)
            if len(found) != 1:
                report([not_one_session(args.session, found, source.label)])
                return 2
            session = found[0]
        chosen = args.store or args.endpoint or args.trustgraph
        probe = probe_for(source) if chosen else FilesProbe(given_paths(args))
    except SourceError as error:
        report([str(error)])
        return 2
    poller = Poller(probe, interval=args.interval, label=source.label, from_start=args.from_start)
    try:
        return _print_events(args, poller, session)
    finally:
        poller.stop()


def _print_events(args: argparse.Namespace, poller: Poller, session: str | None) -> int:
    """Print the poller's events until ``--for`` seconds have passed or Ctrl-C. ``--for``
    counts from the first poll made, so a slow first read (or ``--from-start``'s replay) is
    not cut short; from the start when the source fails, and ``FIRST_POLL_WAIT`` s more at
    most while the first poll is still running."""
    span = args.for_s if args.for_s is not None else float("inf")
    started = time.monotonic()
    deadline = started + span
    follower = poller.follow()
    failure, ready = None, False
    try:
        if session is not None:
            poller.watch(session)
        while True:
            left = deadline - time.monotonic()
            wait = min(max(left, 0.0), 0.5) if ready else 0.5
            for event in follower.take(wait=wait):  # what came is printed, even at the end
                if session is None or event.session == session:
                    print(json.dumps(event.record(), ensure_ascii=False) if args.format == "jsonl" else text_line(event),
                          flush=True)
            if poller.ready and not ready:  # the first poll is made: what is written from now on is shown
                ready = True
                deadline = time.monotonic() + span
                report([f"following {poller.label}{' (session ' + session + ')' if session else ''}; Ctrl-C stops"])
                continue  # its events are taken before any end
            if poller.failure != failure:
                report([poller.failure + " (still trying)" if poller.failure else f"{poller.label} answers again"])
                failure = poller.failure
            waited_enough = ready or failure is not None or time.monotonic() > started + span + FIRST_POLL_WAIT
            if left <= 0 and waited_enough:
                return 0
    except KeyboardInterrupt:  # Ctrl-C is how following ends: nothing was written, nothing to undo
        return 0
    except BrokenPipeError:  # the reader went away (``| head``): quietly, as ``main`` does
        let_stdout_go()
        return READER_GONE
    except SourceError as error:
        report([str(error)])
        return 2
    finally:
        follower.close()


def text_line(event: LiveEvent) -> str:
    """One event as a line for people: the time seen, what landed and its words (control
    characters made visible: trace text is untrusted); steps and answers are indented under
    their session."""
    at = event.at.strftime("%H:%M:%S")
    words = visible_controls(clip(event.text or "", TEXT_SHOWN))
    if event.event == SESSION:
        parent = f" (under {event.parent})" if event.parent else ""
        return f"{at} session {event.session} {event.kind or 'Question'}{parent}: {words}"
    if event.event == ANSWER:
        return f"{at}   answer {event.session}" + (f": {words}" if words else "")
    return f"{at}   step {event.step} {event.kind or ''}" + (f": {words}" if words else "")
