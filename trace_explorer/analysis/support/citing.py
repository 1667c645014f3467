"""What a backed claim cites, and which words of each cited text match it: the parts of answer
support a reader sees (the steps listed under a sentence, the marked words of their texts)."""

from __future__ import annotations

from rapidfuzz import fuzz, process

from .embedding import WordVectors
from .numbers import agrees
from .reading import Evidence
from .settings import Settings
from .words import Word, fold


def also_cited(chosen: list[int], credit: list[list[float]], indexes: list[int], weights: list[float],
               words, settings: Settings) -> list[int]:
    """The evidence a backed claim cites (indexes into ``credit``, the matched share of each
    word ``j`` of the sentence by each text ``i``, ``credit[i][j]``; ``indexes`` the claim's
    words): what was picked (``chosen``), then every other text that backs the claim about as
    well (a Finding and the sub-agent's Observation it repeats; an edge and the GraphRAG answer
    that states it): ``settings.cite_share`` of the best one's score, or for a claim with
    numbers, a text that holds one of them and ``settings.cite_floor`` of the claim."""
    total = sum(weights[j] for j in indexes) or 1.0
    scores = {i: sum(row[j] * weights[j] for j in indexes) / total for i, row in enumerate(credit)}
    best = max((scores[i] for i in chosen), default=0.0)
    numbers = [j for j in indexes if words[j].in_digits]
    out = list(chosen)
    for i, value in sorted(scores.items(), key=lambda item: -item[1]):
        if i in out or value < settings.cite_floor:
            continue
        if value >= settings.cite_share * best or any(credit[i][j] >= 1.0 for j in numbers):
            out.append(i)
    return out


def matching_spans(item: Evidence, words: tuple[Word, ...], credit: list[float], settings: Settings,
                   vectors: WordVectors | None) -> list[list[int]]:
    """The ``[start, end]`` character spans of ``item``'s text whose words match a word of the
    sentence it backs (``words``, with the share ``credit`` of each that ``item`` matched): by
    key, by value for numbers, by close spelling, by a close embedding; neighbouring matches
    joined into one span."""
    wanted = {w.key for w, c in zip(words, credit) if c > 0}
    numbers = [w.quantity for w, c in zip(words, credit) if c > 0 and w.quantity is not None]
    forms = tuple(sorted({fold(w.form) for w, c in zip(words, credit) if c > 0}))
    spans: list[list[int]] = []
    seen: dict[tuple[str, str], bool] = {}
    for w in item.words:
        if w.stop:
            continue
        known = (w.key, w.kind)
        if known not in seen:
            hit = w.key in wanted or (w.quantity is not None and any(agrees(q, w.quantity) for q in numbers)) \
                or (bool(settings.fuzzy) and len(w.key) >= 4 and w.kind != "number" and process.extractOne(
                    w.key, wanted, scorer=fuzz.ratio, score_cutoff=settings.fuzzy) is not None)
            if not hit and vectors is not None and settings.similar is not None and w.kind == "word" and forms:
                hit = vectors.best(fold(w.form), forms) >= settings.similar
            seen[known] = hit
        if seen[known]:
            if spans and item.text[spans[-1][1]:w.start].strip() == "":
                spans[-1][1] = w.end
            else:
                spans.append([w.start, w.end])
    return spans
