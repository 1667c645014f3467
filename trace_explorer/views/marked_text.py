"""A text with some words marked where they occur: an edge's words in the chunk it was
extracted from.

The text is untrusted (a document's words, through the librarian), and so are the words (the
edge's terms and labels). Marks are found as spans of the original text and the text is then
cut into pieces, each shown on its own: as HTML every piece is escaped (``html.escape``, quotes
too) after its control characters are made visible, and only our own ``<mark>`` elements are
written around the marked pieces, so nothing in the text or the words can open an element or
an attribute. Plain text marks with ``«`` and ``»``.
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterable

from .visible_text import visible_controls

MAX_WORDS = 64
MAX_WORD_CHARS = 400


def find_marks(text: str, words: Iterable[str]) -> list[tuple[int, int]]:
    """The spans ``(start, end)`` (character offsets in ``text``) where any of ``words``
    occurs, ignoring case. A word that begins (ends) with a letter or digit must not be
    preceded (followed) by one, so "tin" is not marked inside "Latin". Longer words win where
    two start at the same place; spans do not overlap and come in order. Words shorter than two
    characters, beyond ``MAX_WORDS`` or longer than ``MAX_WORD_CHARS`` are skipped."""
    chosen = sorted({w for w in words if w and 2 <= len(w.strip()) and len(w) <= MAX_WORD_CHARS},
                    key=lambda w: (-len(w), w))[:MAX_WORDS]
    if not chosen or not text:
        return []
    parts = []
    for word in chosen:
        before = r"(?<!\w)" if re.match(r"\w", word) else ""
        after = r"(?!\w)" if re.search(r"\w$", word) else ""
        parts.append(before + re.escape(word) + after)
    pattern = re.compile("|".join(parts), re.IGNORECASE)
    return [m.span() for m in pattern.finditer(text) if m.end() > m.start()]


def pieces(text: str, spans: list[tuple[int, int]]) -> list[tuple[str, bool]]:
    """``text`` cut at ``spans`` into ``(piece, marked)`` pairs, in order (empty pieces left
    out); spans that overlap one already taken, or fall outside the text, are ignored."""
    out: list[tuple[str, bool]] = []
    at = 0
    for start, end in sorted(spans):
        start, end = max(start, 0), min(end, len(text))
        if start < at or end <= start:
            continue
        if start > at:
            out.append((text[at:start], False))
        out.append((text[start:end], True))
        at = end
    if at < len(text):
        out.append((text[at:], False))
    return out


def marked_html(text: str, spans: list[tuple[int, int]]) -> str:
    """``text`` as HTML with ``<mark>`` around each span: every piece escaped, control
    characters shown (``visible_controls``); no other markup."""
    return "".join(f"<mark>{_escaped(p)}</mark>" if marked else _escaped(p) for p, marked in pieces(text, spans))


def marked_plain(text: str, spans: list[tuple[int, int]], opening: str = "«", closing: str = "»") -> str:
    """``text`` with each span between ``opening`` and ``closing``, control characters shown."""
    return "".join(f"{opening}{visible_controls(p)}{closing}" if marked else visible_controls(p)
                   for p, marked in pieces(text, spans))


def _escaped(piece: str) -> str:
    return html.escape(visible_controls(piece), quote=True)
