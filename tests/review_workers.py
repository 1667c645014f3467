"""What a reviewer in a process of its own does (``test_reviews_store``): kept apart from the
test module, so that a spawned process imports only the review store."""

from __future__ import annotations

from trace_explorer.reviews import DEFAULT_LABELS, ReviewStore


def review(folder: str, target: str, session: str, number: int, start) -> None:
    """Wait for every reviewer at ``start`` (a Barrier), then add a review of ``target`` in
    ``session`` as "reviewer NUMBER" with the comment "note NUMBER" and the score NUMBER."""
    start.wait()
    ReviewStore(folder).add(target, DEFAULT_LABELS[number % len(DEFAULT_LABELS)], f"reviewer {number}",
                            comment=f"note {number}", score=float(number), session=session)
