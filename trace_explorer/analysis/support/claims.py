"""A sentence cut into its claims: the clauses and items a reader checks one by one.

"Lake Baikal is 25 million years old, and it holds 23 % of the world's fresh water" states two
facts; the evidence of one does not back the other. The cuts are made at what joins clauses in
the languages the matcher reads: semicolons, colons and dashes between words, a comma before a
conjunction or a relative pronoun ("…, and …", "…, which …", "…, während …"), a bare "and"/"but"
before a verb or a pronoun that opens a clause, and a parenthesis (its content is a claim of its own). A piece with
fewer than ``MIN_WORDS`` content words is no claim on its own: it stays with the piece before
it (or after it, at the start), so "A, B and C" keeps its items with the verb they share only
when they are too short to stand alone.
"""

from __future__ import annotations

import re
from collections.abc import Callable

# Content words a piece needs to be a claim of its own.
MIN_WORDS = 2

_JOINERS = ("even though|even if|and|but|while|whereas|which|who|whom|whose|where|so|although|though|because|"
            "since|yet|or|"
            "und|aber|während|wobei|weil|sowie|denn|et|mais|tandis|qui|où|car|y|pero|mientras|que|donde|"
            "и|а|но|который|которая|которое|которые|где|поскольку")
# Words that open a clause after a bare "and": "…1957 and is on the WHO list", "…and it lies…"
# ("sun and cloud", "grey and mild" join words, not clauses).
_CLAUSE_STARTS = ("is|are|was|were|has|have|had|will|would|can|could|should|may|might|must|does|did|do|"
                  "it|its|they|their|he|his|she|her|we|you|there|this|that|these|those|then|also|so|"
                  "ist|sind|war|hat|wird|kann|es|sie|er|est|sont|était|a|ont|sera|peut|il|elle|ils|"
                  "es|son|fue|ha|tiene|puede|él|ella|это|он|она|они|был|была|было|будет")
_CUTS = re.compile(
    r"\s*[;:]\s+"                                   # a semicolon or colon between clauses
    r"|\s+[—–]\s+|\s*—\s*"                          # a dash between clauses
    rf"|,\s+(?=(?:{_JOINERS})\b)"                    # a comma before a conjunction or relative pronoun
    # a bare conjunction before a clause
    rf"|\s+(?=(?:and|but|und|aber|et|mais|y|pero|и|но)\s+(?:{_CLAUSE_STARTS})\b)"
    r"|\s*\((?=[^()]*\))|\)\s*",                     # a parenthesis
    re.IGNORECASE)


def split_claims(sentence: str, content_words: Callable[[str], int]) -> list[tuple[int, int]]:
    """The claims of ``sentence`` as ``(start, end)`` offsets in it, in order, white space and
    punctuation at their ends left out. ``content_words(text)`` counts the words of a piece that
    carry meaning (not stop words): a piece with fewer than ``MIN_WORDS`` joins a neighbour. A
    sentence with no cut is one claim."""
    pieces: list[list[int]] = []
    start = 0
    for cut in _CUTS.finditer(sentence):
        if cut.start() > start:
            pieces.append([start, cut.start()])
        start = cut.end()
    if start < len(sentence):
        pieces.append([start, len(sentence)])
    pieces = [p for p in (_trim(sentence, a, b) for a, b in pieces) if p]
    if not pieces:
        return []
    merged: list[list[int]] = []
    for piece in pieces:
        if merged and content_words(sentence[piece[0]:piece[1]]) < MIN_WORDS:
            merged[-1][1] = piece[1]
        elif merged and content_words(sentence[merged[-1][0]:merged[-1][1]]) < MIN_WORDS:
            merged[-1][1] = piece[1]
        else:
            merged.append(piece)
    return [(a, b) for a, b in merged]


def _trim(text: str, start: int, end: int) -> list[int] | None:
    while start < end and not text[start].isalnum() and text[start] not in "€$£¥₽<\"'“‘«(":
        start += 1
    while end > start and not (text[end - 1].isalnum() or text[end - 1] in "%‰°)²³"):
        end -= 1
    return [start, end] if start < end else None
