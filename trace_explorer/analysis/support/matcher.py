"""Which evidence backs a sentence: the scoring behind answer support.

A sentence is cut into its claims (``claims.split_claims``); it is backed when every claim is,
and each claim may be backed by other steps (a sentence joining two chunks' facts cites both).
For a claim and the texts of a session's evidence (``Evidence``: an Observation, a tool call's
arguments, a chunk, a selected edge's labels, a Finding, a plan step's result, a sub-session's
answer):

* each content word of the claim (``words.text_words``: stop words left out) weighs by how rare
  it is among the evidence (BM25's inverse document frequency, so a topic word every step shares
  counts little), names and numbers half again;
* a word is matched by an evidence text holding the same key (same lemma and stem, same unit),
  a close spelling (rapidfuzz ratio: inflections and transliterations), a word whose WordLlama
  embedding is close (synonyms: "finished" / "completed"), and a number by its value
  (``numbers.agrees``: "1.6 km" and "1,642 m", "nearly a quarter" and "23 %", "834 m" and a
  calculator's bare "834");
* the evidence that backs the claim is picked greedily, most matched weight first, then any
  other that adds enough;
* the claim is backed when every number written in digits in it is found in that evidence and
  the evidence covers enough of its weight — or, for evidence in another language than the
  answer, when every name, number, unit and acronym of the claim is found in it (words of one
  language do not meet those of another; names, numbers and terms such as IBAN do) — or when
  its wording as a whole is close to a sentence of that evidence (WordLlama's embedding of the
  phrase) and the evidence covers part of its words.

A claim that is not backed names the terms no text of the session holds in any form the matcher
accepts (``missing``): a term only a thought or the question holds is not listed.

The thresholds are chosen on the dev half of the labelled set in ``benchmarks/data/support/``
(``benchmarks/answer_support.py`` prints what they give on both halves).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field

from rapidfuzz import fuzz, process

from .claim_rules import across, joins, light, unbacked_degree
from .citing import also_cited, matching_spans
from .claims import split_claims
from .embedding import WordVectors
from .numbers import agrees
from .reading import MAX_SENTENCE_CHARS, Evidence, sentence_words
from .settings import Settings
from .words import Word, fold


@dataclass
class ClaimMatch:
    """One claim of a sentence: ``start``/``end`` in the sentence, ``backed``, ``cited``
    evidence indexes, ``coverage`` (0-1), ``missing`` the terms of it no text of the session
    holds, ``undecided`` (its coverage is within ``Settings.margin`` of the threshold)."""

    start: int
    end: int
    backed: bool
    cited: list[int]
    coverage: float
    missing: list[str] = field(default_factory=list)
    undecided: bool = False


@dataclass
class Match:
    """What a sentence got: ``backed`` (True when every claim is backed; None when it has no
    content words to check), ``cited``: evidence indexes with their score (0-1: the share of the
    sentence's weight each matches) and the character spans of the words that matched,
    ``[[start, end], ...]``, in order of strength; ``claims`` the verdict of each claim;
    ``missing`` the terms of its unbacked claims that no text of the session holds;
    ``undecided`` when a claim's verdict is close to the threshold."""

    backed: bool | None
    cited: list[tuple[int, float, list[list[int]]]]
    coverage: float = 0.0
    missing: list[str] = field(default_factory=list)
    claims: list[ClaimMatch] = field(default_factory=list)
    undecided: bool = False


class Matcher:
    """Matches sentences against one session's evidence (``evidence``: the texts that may back
    them, in order; ``everything``: every text of the session, thoughts and questions included,
    for what is "not found" — default the evidence; a function giving them is called when first
    needed; ``context``: what the answer was asked about, the questions and goals, whose names
    and numbers a claim may repeat without evidence)."""

    def __init__(self, evidence: list[Evidence], settings: Settings = Settings(),
                 vectors: WordVectors | None = None,
                 everything: list[Evidence] | Callable[[], list[Evidence]] | None = None,
                 context: list[Evidence] | None = None):
        self.evidence = evidence
        self.context = context or []
        self.settings = settings
        self.vectors = vectors if settings.similar is not None or settings.phrase is not None else None
        self._everything = everything if everything is not None else evidence
        self.df: dict[str, int] = {}
        for item in evidence:
            for key in item.keys:
                self.df[key] = self.df.get(key, 0) + 1

    @property
    def everything(self) -> list[Evidence]:
        """Every text of the session (read when first asked for: only an unbacked claim needs it)."""
        if callable(self._everything):
            self._everything = self._everything()
        return self._everything

    def weight(self, word: Word) -> float:
        """How much ``word`` counts: BM25's idf among the evidence (its document frequency at least
        ``floor``; or 1), x1.5 for a name or a number."""
        base = 1.0
        if self.settings.idf:
            n, df = len(self.evidence), max(self.df.get(word.key, 0), self.settings.floor)
            base = math.log(1 + (n - df + 0.5) / (df + 0.5)) + 0.5
        return base * (1.5 if word.kind in ("number", "name") else 1.0)

    def match(self, sentence: str) -> Match:
        """The evidence that backs ``sentence``, and whether it is backed (see the module)."""
        sentence = sentence[:MAX_SENTENCE_CHARS]
        language, words = sentence_words(sentence)
        if not words:
            return Match(None, [])

        weights = [self.weight(w) for w in words]
        total = sum(weights)
        forms = [fold(w.form) for w in words]
        # credit[i][j]: how much of word j's weight evidence i matches (0..1)
        credit = [[self._credit(item, w, f) for w, f in zip(words, forms)] for item in self.evidence]
        claims = []
        for start, end in self._claims(sentence):
            indexes = [j for j, w in enumerate(words) if start <= w.start < end]
            if indexes:
                claims.append(self._claim(sentence, start, end, language, words, indexes, weights, credit))
        if not claims:
            claims = [self._claim(sentence, 0, len(sentence), language, words, list(range(len(words))), weights,
                                  credit)]
        heavy = [c for c in claims if not self._light(words, c)]
        backed = all(c.backed for c in heavy) and (any(c.backed for c in claims) or len(claims) == len(heavy))
        light_unbacked = any(not c.backed for c in claims if c not in heavy)
        chosen = list(dict.fromkeys(i for c in claims for i in c.cited))
        got = [max((credit[i][j] for i in chosen), default=0.0) for j in range(len(words))]
        coverage = sum(g * w for g, w in zip(got, weights)) / total
        cited = []
        for i in chosen:
            score = sum(c * w for c, w in zip(credit[i], weights)) / total
            spans = matching_spans(self.evidence[i], words, credit[i], self.settings, self.vectors)
            cited.append((i, round(score, 3), spans))
        cited.sort(key=lambda c: -c[1])
        missing = list(dict.fromkeys(term for c in claims for term in c.missing))
        undecided = any(c.undecided for c in claims) or (backed and light_unbacked)
        return Match(backed, cited, coverage, missing, claims, undecided)

    def _light(self, words, claim: ClaimMatch) -> bool:
        """True for a claim too thin to sink its sentence alone (``claim_rules.light``)."""
        return light([w for w in words if claim.start <= w.start < claim.end], claim.coverage, self.settings.light)

    def _claims(self, sentence: str) -> list[tuple[int, int]]:
        if not self.settings.claims:
            return [(0, len(sentence))]
        return split_claims(sentence, lambda piece: len(sentence_words(piece)[1]))

    def _claim(self, sentence, start, end, language, words, indexes, weights, credit) -> ClaimMatch:
        settings = self.settings
        total = sum(weights[j] for j in indexes)
        matching = [i for i, row in enumerate(credit) if any(row[j] for j in indexes)]
        asked = {j for j in indexes if any(self._credit(item, words[j], fold(words[j].form)) >= 1.0
                                           for item in self.context)}
        chosen: list[int] = []
        got = {j: 0.0 for j in indexes}
        joined = []
        while len(chosen) < settings.most:
            best, best_gain = None, 0.0
            for i in matching:
                if i in chosen:
                    continue
                gain = sum(max(0.0, credit[i][j] - got[j]) * weights[j] for j in indexes) / total
                if gain > best_gain:
                    best, best_gain = i, gain
            if best is None or (chosen and best_gain < settings.gain):
                break
            if chosen and settings.joins and joins(self.evidence[best], [words[j] for j in indexes
                                                                        if credit[best][j] > got[j]]):
                joined.append(best)
            chosen.append(best)
            for j in indexes:
                got[j] = max(got[j], credit[best][j])
        # the evidence must back something the question did not ask: "Paris is the capital of
        # France" is not backed by a step that says only "France is relevant" (a new name or
        # number of the claim, none of whose new words a step holds)
        novel = [j for j in indexes if j not in asked or words[j].kind == "number"]
        repeats = bool(asked) and any(words[j].form[:1].isupper() or words[j].kind == "number" for j in novel) \
            and not any(got[j] >= 0.8 for j in novel)
        if chosen:  # names and numbers the question or a goal gives are not made up
            for j in asked:
                if got[j] < 1.0:
                    got[j] = max(got[j], 1.0 if words[j].kind in ("name", "number") else settings.context_credit)
        coverage = sum(got[j] * weights[j] for j in indexes) / total
        numbers_missing = [j for j in indexes if settings.numbers and words[j].in_digits and got[j] < 1.0]
        anchors = [j for j in indexes if words[j].in_digits or words[j].kind == "name"]
        anchored = (any(words[j].in_digits for j in anchors) or len(anchors) >= 2) \
            and all(got[j] >= 1.0 for j in anchors)
        backed = coverage >= (settings.anchored_cover if anchored else settings.cover)
        cited = [self.evidence[i] for i in chosen]
        if not backed and settings.across:
            backed = across(language, [words[j] for j in indexes], [got[j] >= 1.0 for j in indexes], cited)
        if not backed and settings.phrase is not None and self.vectors is not None \
                and coverage >= settings.phrase_cover:
            backed = self._phrase(sentence[start:end], chosen) >= settings.phrase
        same_language = all(e.language == language for e in cited)
        backed = backed and not numbers_missing and not joined and not repeats and not (
            settings.degrees and same_language and unbacked_degree(sentence, [words[j] for j in indexes], cited))
        undecided = not numbers_missing and abs(coverage - settings.cover) < settings.margin
        missing = [] if backed else self._not_found(words, indexes)
        return ClaimMatch(start, end, backed, also_cited(chosen, credit, indexes, weights, words, self.settings) if backed else [],
                          round(coverage, 3), missing, undecided)

    def _phrase(self, claim: str, chosen: list[int]) -> float:
        """The highest cosine similarity between the claim's embedding and a sentence of its
        evidence (-1..1)."""
        passages = tuple(p for i in chosen for p in self.evidence[i].passages)
        return self.vectors.best(claim, passages) if passages else 0.0

    def _credit(self, item: Evidence, word: Word, form: str) -> float:
        """How much of ``word``'s weight ``item`` matches (0..1); ``form``: the word folded."""
        if word.quantity is not None and any(agrees(word.quantity, q) for q in item.quantities):
            return 1.0
        if word.key in item.keys:
            return 1.0
        if word.kind == "number":
            return 0.0
        if self.settings.fuzzy and len(word.key) >= 4 and process.extractOne(word.key, item.key_list, scorer=fuzz.ratio,
                                                     score_cutoff=self.settings.fuzzy):
            return 1.0
        if self.vectors is not None and self.settings.similar is not None and word.kind == "word" and item.forms:
            similarity = self.vectors.best(form, item.forms)
            if similarity >= self.settings.similar:
                return self.settings.synonym_credit
        return 0.0

    def _not_found(self, words, indexes) -> list[str]:
        """The terms of a claim no text of the session holds in any form ``_credit`` accepts."""
        out = []
        for j in indexes:
            word = words[j]
            if not any(self._credit(item, word, fold(word.form)) for item in self.everything):
                out.append(word.form)
        return out
