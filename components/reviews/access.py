"""The app's way to the review store (``trace_explorer.reviews``): which store the shown source's
reviews live in, who the person reviewing is, and the calls the page makes (save, edit, delete,
read), each on the store the operator set.

Where: the operator's folder (``TRACE_EXPLORER_REVIEWS``, or the sources file's ``[reviews]``
``folder``), else the local store's own folder
beside its session index, else the user's data folder (``ReviewSettings.folder_for``). Who: the
signed-in user (e-mail address, else name), else the configured name
(``TRACE_EXPLORER_REVIEWER``), else "local" (``ReviewSettings.author_for``).
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from pathlib import Path

import streamlit as st

from trace_explorer.reviews import Review, ReviewError, ReviewSettings, ReviewStore, Selector, review_settings

from ..collection import Collection, current_collection
from ..sidebar.configured_sources import sources_config
from ..hosting.sign_in import display_name, sign_in_configured
from .targets import Target

_log = logging.getLogger(__name__)


def settings() -> ReviewSettings:
    """The operator's review settings: the environment's over the sources file's ``[reviews]``
    table, as the command line reads them; a table of the wrong shape is logged and left out."""
    try:
        return review_settings(sources_config()[0].reviews)
    except ReviewError as error:
        _log.warning("review settings: %s", error)
        return review_settings({})


def store_folder(collection: Collection) -> Path:
    """The review store's folder for ``collection``: a local store keeps it beside its index."""
    store_dir = collection.key[1] if collection.key and collection.key[0] == "store" else None
    return settings().folder_for(store_dir)


def review_store(collection: Collection | None = None) -> ReviewStore:
    """The review store of ``collection`` (default: the one shown)."""
    collection = collection or current_collection()
    return ReviewStore(store_folder(collection), labels=settings().labels)


def labels() -> tuple[str, ...]:
    """The labels a review may carry, in the order offered."""
    return settings().labels


def reviewer() -> str:
    """Who reviews in this browser session: the signed-in user's e-mail address (else their
    name), else the configured name, else "local"."""
    signed_in = None
    if sign_in_configured() and st.user.is_logged_in:
        claims = st.user.to_dict()
        email = claims.get("email")
        signed_in = email if isinstance(email, str) and email.strip() else display_name(claims)
    return settings().author_for(signed_in)


def save_review(target: Target, label: str, score: float | None = None, comment: str | None = None) -> Review:
    """Save a new review of ``target`` by ``reviewer()``. Raises ReviewError (a label not
    configured), ReviewStoreBusy, OSError."""
    selector = Selector(target.quote, target.start, target.end) if target.quote is not None else None
    return review_store().add(target.iri, label, reviewer(), selector=selector, score=score, comment=comment,
                              session=target.session)


def edit_review(review_id: str, label: str, score: float | None, comment: str | None) -> Review:
    """Change the person's own review ``review_id``. Raises NoSuchReview, NotYourReview."""
    return review_store().edit(review_id, reviewer(), label=label, score=score, comment=comment)


def delete_review(review_id: str) -> None:
    """Delete the person's own review ``review_id``. Raises NoSuchReview, NotYourReview."""
    review_store().delete(review_id, reviewer())


def reviews_of_target(target: Target) -> list[Review]:
    """The reviews of ``target`` as they stand (of its span only, for a sentence), oldest first."""
    found = review_store().reviews_of(target=target.iri)
    if target.quote is None:
        return [r for r in found if r.selector is None]
    return [r for r in found if r.selector is not None and (r.selector.start, r.selector.end) == (target.start, target.end)]


def reviews_of_sessions(sessions: Sequence[str]) -> list[Review]:
    """The reviews of the sessions ``sessions`` (IRIs: a session and its sub-sessions), oldest first."""
    store = review_store()
    found = [r for s in dict.fromkeys(sessions) for r in store.reviews_of(session=s)]
    return sorted(found, key=lambda r: r.created)
