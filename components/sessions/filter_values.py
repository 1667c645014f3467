"""The session list's filters as a URL names them (``?type=graphrag&status=Answered``): the
values each filter takes, and a URL's values read against them whatever their case. Shared by
the list (``list_state``, whose widgets are bound to these parameters) and the Insights page
(``insights``, which counts what a link to it names)."""

from __future__ import annotations

from collections.abc import Iterable

import streamlit as st

from trace_explorer.analysis.health.rules import RULES
from trace_explorer.model.session import MECHANISMS, PATTERNS
from trace_explorer.index.insights import HEALTH_CHOICES

from ..collection import Collection
from ..health import HEALTH_KEY, indexed
from ..reviews.list_filter import REVIEW_KEY, REVIEWER_KEY, review_choices
from ..text import md_escape

STATUSES = ("answered", "unfinished")
MULTI = ("type", "pattern")  # the filters that take several values; the others one
# the list's filters' parameters (its widgets' keys, bound to them: bind="query-params"), and
# its Follow switch's (``live_list``)
BOUND_PARAMS = ("type", "pattern", "status", "q", "sub", HEALTH_KEY, REVIEW_KEY, REVIEWER_KEY, "follow")


def filter_choices(collection: Collection) -> dict[str, tuple[str, ...]]:
    """The values of each filter a URL may set: ``type``, ``pattern``, ``status``, ``review`` (a
    review label or "not reviewed"; ``reviewer`` takes any name) and, on a
    collection with a session index, ``health`` (a severity, "clean", "unchecked" or a rule id)."""
    choices = {"type": MECHANISMS, "pattern": PATTERNS, "status": STATUSES, REVIEW_KEY: review_choices()}
    if indexed(collection):
        choices[HEALTH_KEY] = tuple(HEALTH_CHOICES) + tuple(sorted(RULES))
    return choices


def known_values(given: Iterable[str], options: Iterable[str]) -> tuple[list[str], list[str]]:
    """``(kept, unknown)``: the values of ``given`` that are ``options`` whatever their case and
    surrounding spaces, spelled as the options spell them, each once, in order; and the others,
    as given."""
    known = {o.lower(): o for o in options}
    kept, unknown = [], []
    for value in given:
        option = known.get(value.strip().lower())
        if option is None:
            unknown.append(value)
        elif option not in kept:
            kept.append(option)
    return kept, unknown


def warn_left_out(unknown: Iterable[str]) -> None:
    """Say which ``name=value`` pairs of the URL no filter knows (nothing when there are none)."""
    unknown = list(unknown)
    if unknown:
        st.warning(md_escape(f"Not a value of the list's filters, left out: {', '.join(unknown)}."),
                   icon=":material/warning:")
