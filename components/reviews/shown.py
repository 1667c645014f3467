"""How a review reads on the page: one escaped Markdown line (the dialog, the session's Reviews
panel) or a plain dict for the workspace's inspector, which writes it as text. Review text
(label, comment, author) is untrusted: it reaches Markdown only through ``md_escape``."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from ..text import md_escape

COMMENT_CHARS = 600  # of a comment shown on one line (the whole in the dialog's edit form)


def when(value: Any) -> str:
    """A review's time as "2026-12-06 06:12 UTC" (a datetime) or as stored (anything else)."""
    if isinstance(value, datetime):
        return value.strftime("%Y-%m-%d %H:%M UTC")
    return str(value or "")


def review_line(review: Any) -> str:
    """``review`` as one line of Markdown: the label in bold, its score, author, time and
    comment, every part escaped ("**incorrect** · score 0.2 · alice · 2026-12-06 06:12 UTC ·
    edited — the date is wrong")."""
    parts = [f"**{md_escape(review.label, one_line=True)}**"]
    if review.score is not None:
        parts.append(md_escape(f"score {review.score:g}"))
    parts.append(md_escape(review.author, one_line=True))
    parts.append(md_escape(when(review.created)))
    if review.modified and review.modified != review.created:
        parts.append("edited")
    line = " · ".join(parts)
    if review.comment:
        comment = review.comment if len(review.comment) <= COMMENT_CHARS else review.comment[:COMMENT_CHARS - 1] + "…"
        line += " — " + md_escape(comment, one_line=True)
    return line


def review_brief(review: Any) -> dict[str, Any]:
    """``review`` as the inspector draws it: ``{"label", "score", "comment", "by", "at",
    "quote"}`` (plain values, ``quote`` the reviewed words of a span, else None; the script
    writes them with ``textContent``)."""
    return {"label": review.label, "score": review.score, "comment": review.comment, "by": review.author,
            "at": when(review.created), "quote": review.selector.quote if review.selector is not None else None}
