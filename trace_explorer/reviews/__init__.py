"""Reviews (issue 42): what a team marks right and wrong in a trace, kept as W3C Web Annotations
(``http://www.w3.org/ns/oa#``) in the explorer's own store, never among a source's triples.

- ``Review``, ``Selector``, ``Version`` (``review``): a review, the span of text it may target,
  one kept change of it;
- ``ReviewStore`` (``store``): add, edit, delete (authors only their own, every change kept),
  ``reviews_of(session=..., target=...)``, ``history``, ``labels()``, ``sessions_with`` and
  ``reviewed_sessions`` for the session list's filters; safe across threads and processes;
- ``ReviewSettings`` / ``review_settings`` (``settings``): the store's folder, the labels, the
  author's name, as the operator sets them;
- ``triples`` / ``reviews_from`` (``rdf``): a review as annotation triples and back.

docs/reviews.md describes them for a user.
"""

from .lock import ReviewStoreBusy
from .rdf import reviews_from, triples
from .review import Review, ReviewError, Selector, Version, session_of
from .settings import DEFAULT_LABELS, REVIEWS_DIR, ReviewSettings, review_settings
from .store import NoSuchReview, NotYourReview, ReviewStore

__all__ = ["DEFAULT_LABELS", "REVIEWS_DIR", "NoSuchReview", "NotYourReview", "Review", "ReviewError", "ReviewSettings",
           "ReviewStore", "ReviewStoreBusy", "Selector", "Version", "review_settings", "reviews_from", "session_of",
           "triples"]
