"""What a reviewer in a process of its own does (``test_reviews_store``): kept apart from the
test module, so that a spawned process imports only the review store."""

from __future__ import annotations

import threading
from collections.abc import Callable

from trace_explorer.reviews import DEFAULT_LABELS, ReviewStore


def review(folder: str, target: str, session: str, number: int, start) -> None:
    """Wait for every reviewer at ``start`` (a Barrier), then add a review of ``target`` in
    ``session`` as "reviewer NUMBER" with the comment "note NUMBER" and the score NUMBER."""
    start.wait()
    ReviewStore(folder).add(target, DEFAULT_LABELS[number % len(DEFAULT_LABELS)], f"reviewer {number}",
                            comment=f"note {number}", score=float(number), session=session)


def reviewers(folder: str, target: str, session: str, numbers: list[int], start) -> None:
    """Reviewers ``numbers`` in threads of this process, each doing ``review`` (all of them, in
    every process, wait at ``start``, a multiprocessing Barrier); exits 1 when one of them failed."""
    errors = at_once(len(numbers), lambda k: review(folder, target, session, numbers[k], start))
    if errors:
        raise SystemExit(f"reviewers failed: {errors!r}")


def at_once(count: int, work: Callable[[int], None]) -> list[Exception]:
    """Run ``work(number)`` for ``number`` in ``range(count)`` in as many threads, started
    together at a Barrier; the errors they raised (empty when none did)."""
    start, errors = threading.Barrier(count), []

    def run(number: int) -> None:
        try:
            start.wait()
            work(number)
        except Exception as error:  # noqa: BLE001 - returned to the caller, which asserts none
            errors.append(error)

    threads = [threading.Thread(target=run, args=(n,)) for n in range(count)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    return errors
