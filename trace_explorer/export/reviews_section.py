"""A session's reviews (``trace_explorer.reviews``) as a section of the exports: each review's
target (and quoted span), label, score, reviewer, time and comment, grouped by target, with a
note where reviewers disagree (the same target, different labels).

Review text is untrusted (anyone who may review writes it): in HTML each piece is escaped
(``html.escape``) after its control characters are made visible; in Markdown it goes through
``markdown.escape_markdown`` / ``code_span``, so nothing in it renders as markup.
"""

from __future__ import annotations

import html
from collections.abc import Sequence

from ..reviews import Review
from ..views.visible_text import visible_controls
from .markdown_text import code_span, escape_markdown

CSS = """
#reviews table { border-collapse: collapse; width: 100%; font-size: 0.9em; }
#reviews th, #reviews td { border-bottom: 1px solid #e2e8f0; padding: 4px 6px; text-align: left; vertical-align: top; }
#reviews .label { font-weight: 600; }
#reviews .disagree { color: #991b1b; font-weight: 600; }
#reviews .comment { white-space: pre-wrap; }
"""


def by_target(reviews: Sequence[Review]) -> list[tuple[str, list[Review]]]:
    """``reviews`` grouped by target IRI, targets in the order of their first review, each
    group oldest first."""
    groups: dict[str, list[Review]] = {}
    for review in sorted(reviews, key=lambda r: (r.created, r.id)):
        groups.setdefault(review.target, []).append(review)
    return list(groups.items())


def disagreement(group: Sequence[Review]) -> bool:
    """Whether reviewers disagree on one target: two of them gave it different labels."""
    labels_by = {}
    for review in group:
        labels_by.setdefault(review.author, set()).add(review.label)
    return len({label for labels in labels_by.values() for label in labels}) > 1 and len(labels_by) > 1


def reviews_html(reviews: Sequence[Review]) -> str:
    """``<section id="reviews">``: a table of the reviews, a target's rows together, the first
    marked when its reviewers disagree; "" when there is no review."""
    if not reviews:
        return ""
    out = ['<section id="reviews"><h2>Reviews</h2>\n<table>\n<thead><tr><th>Target</th><th>Label</th><th>Score</th>'
           "<th>Reviewer</th><th>Time</th><th>Comment</th></tr></thead>\n<tbody>\n"]
    for target, group in by_target(reviews):
        note = '<div class="disagree">reviewers disagree</div>' if disagreement(group) else ""
        for n, review in enumerate(group):
            where = f"<code>{_t(target)}</code>{note}" if n == 0 else ""
            if review.selector:
                where += f'<div class="quote">“{_t(review.selector.quote)}” ({review.selector.start}–{review.selector.end})</div>'
            out.append(f'<tr><td>{where}</td><td class="label">{_t(review.label)}</td><td>{_score(review)}</td>'
                       f"<td>{_t(review.author)}</td><td>{_t(_moment(review))}</td>"
                       f'<td class="comment">{_t(review.comment or "")}</td></tr>\n')
    out.append("</tbody>\n</table>\n</section>\n")
    return "".join(out)


def reviews_markdown(reviews: Sequence[Review], hashes: str = "##") -> str:
    """A "Reviews" heading (``hashes`` deep) and a list item per review, a target's together
    under it (with "reviewers disagree" where they do); "" when there is no review."""
    if not reviews:
        return ""
    parts = [f"{hashes} Reviews"]
    for target, group in by_target(reviews):
        lines = [f"- {code_span(target)}" + (" — **reviewers disagree**" if disagreement(group) else "")]
        for review in group:
            span = f" “{escape_markdown(review.selector.quote)}” ({review.selector.start}–{review.selector.end})" \
                if review.selector else ""
            score = f", score {_score(review)}" if review.score is not None else ""
            comment = f": {escape_markdown(' '.join(review.comment.split()))}" if review.comment else ""
            lines.append(f"  - **{escape_markdown(review.label)}**{span}{score} by {escape_markdown(review.author)}, "
                         f"{escape_markdown(_moment(review))}{comment}")
        parts.append("\n".join(lines))
    return "\n\n".join(parts)


def _t(value: object) -> str:
    return html.escape(visible_controls(str(value)), quote=False)


def _score(review: Review) -> str:
    return "" if review.score is None else f"{review.score:g}"


def _moment(review: Review) -> str:
    return review.modified.isoformat(timespec="seconds").replace("+00:00", "Z")
