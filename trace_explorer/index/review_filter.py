"""The session list's review filters on the session index (issue 42): the review rows attached to
the index's connection and the reviewed rows' ids kept while nothing changes
(``attach_reviews``), and the count of the sessions not reviewed as the others' complement."""

from __future__ import annotations

import dataclasses

from ..sources.filter import SessionFilter
from . import review_rows


def attach_reviews(index, filters: SessionFilter) -> bool:
    """Make ready on ``index``'s connection (a ``SessionIndex``) what ``list_pages._where`` reads
    for ``filters.reviews``, when it filters: the review rows attached and the reviewed rows' ids
    kept (``review_rows.ReviewedIds``, one per index). True when it filters."""
    if not (filters.reviews and filters.reviews.active):
        return False
    stamp = index.stamp()
    with index._lock:
        if getattr(index, "_reviewed_ids", None) is None:
            index._reviewed_ids = review_rows.ReviewedIds()
        index._reviewed_ids.keep(index._db, filters.reviews, stamp)
    return True


def not_reviewed(filters: SessionFilter) -> bool:
    """Whether ``filters`` asks for the sessions not reviewed (by anyone, or by one reviewer)."""
    return bool(filters.reviews and filters.reviews.not_reviewed and filters.reviews.active)


def count_of_others(index, filters: SessionFilter) -> int:
    """The count of sessions not reviewed under ``filters``: the others, two counts of few rows
    (or kept ones), not a walk of every row. ``index``: a ``SessionIndex``."""
    reviewed = dataclasses.replace(filters.reviews, not_reviewed=False, reviewed=True)
    return (index.count(dataclasses.replace(filters, reviews=None))
            - index.count(dataclasses.replace(filters, reviews=reviewed)))
