"""Which evidence backs a sentence: the scoring behind answer support.

For a sentence and the texts of a session's evidence (``Evidence``: an Observation, a chunk, a
selected edge's labels, a Finding, a plan step's result):

* each content word of the sentence (``words.text_words``: stop words left out) weighs by how
  rare it is among the evidence (BM25's inverse document frequency, so a topic word every step
  shares counts little), names and numbers half again;
* a word is matched by an evidence text holding the same key (same stem, same number value),
  a close spelling (rapidfuzz ratio, for inflections the stemmer misses and transliterations), or
  a word whose WordLlama embedding is close (synonyms: "finished" / "completed");
* the evidence that backs the sentence is picked greedily, most matched weight first, then any
  other that adds enough (a sentence may join two steps' facts);
* the sentence is backed when the picked evidence covers enough of its weight, every number in it
  is found in that evidence, and no piece of it adds only names or numbers to the rest (that
  joins unrelated facts). Invented sentences on the right topic fail the coverage (their claim's
  own words are not in the trace), the number check or the joining check.

The thresholds are chosen on the labelled set in ``benchmarks/data/answer_support.json``
(``benchmarks/answer_support.py`` prints what they give).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from rapidfuzz import fuzz, process

from .embedding import WordVectors
from .language import language_of
from .text_cache import TextCache
from .words import MEASURES, Word, fold, text_words


@dataclass(frozen=True)
class Settings:
    """The matcher's thresholds: ``cover`` the share of a sentence's weight its evidence must
    match; ``gain`` the share another piece of evidence must add to be cited too; ``fuzzy`` the
    rapidfuzz ratio (0-100) that counts as the same word; ``similar`` the cosine similarity of
    two words' embeddings that counts as a synonym (None: no embedding); ``synonym_credit`` the
    share of a word's weight such a synonym is worth; ``idf`` weigh words by their rarity;
    ``numbers`` every number written in digits must be in the cited evidence; ``names`` every
    capitalised name must be somewhere in the trace (off: on the labelled set it flags more
    true sentences than invented ones); ``joins`` a second piece of evidence that adds only
    names or numbers to the first marks the sentence unbacked (it joins unrelated facts:
    "the Nile flows into the Atlantic" from an Amazon edge and a Nile edge); ``most`` how many
    pieces of evidence one sentence may cite; ``floor`` the least document frequency a word is
    weighed with (1: a word no evidence holds weighs as one only a single piece holds, so a
    paraphrase's own words do not outweigh what it shares with a short Observation)."""

    cover: float = 0.5
    gain: float = 0.05
    fuzzy: float | None = 85.0
    similar: float | None = 0.6
    synonym_credit: float = 0.8
    idf: bool = True
    numbers: bool = True
    names: bool = False
    most: int = 3
    joins: bool = True
    floor: int = 1


# Bounds on untrusted text: the words of a backing text past its first MAX_TEXT_CHARS characters,
# and of a sentence past MAX_SENTENCE_CHARS, are not read (a 1 MB tool output costs no more than
# its start).
MAX_TEXT_CHARS = 20_000
MAX_SENTENCE_CHARS = 2_000


# Characters of evidence texts whose words are kept between sessions (``text_cache``): about
# 25 MB at most; and of sentences (a view or a check matches the same answer again).
EVIDENCE_CACHE_CHARS = 500_000
SENTENCE_CACHE_CHARS = 200_000
_EVIDENCE = TextCache(EVIDENCE_CACHE_CHARS)
_SENTENCES = TextCache(SENTENCE_CACHE_CHARS)


@dataclass(frozen=True)
class Evidence:
    """One text a step holds, with its words (``words``: of its first ``MAX_TEXT_CHARS``
    characters), read once per text: ``keys`` the keys of its content words and their
    acronyms, ``key_list`` those sorted (what close spellings are searched in), ``forms`` its
    content words other than numbers, case-folded and sorted (what synonyms are searched in)."""

    text: str
    words: tuple[Word, ...] = ()
    keys: frozenset[str] = frozenset()
    key_list: tuple[str, ...] = ()
    forms: tuple[str, ...] = ()

    @classmethod
    def of(cls, text: str) -> "Evidence":
        """The evidence ``text``, with its words keyed (its language guessed from the text); a
        text read before (``EVIDENCE_CACHE_CHARS``) is not read again."""
        head = text[:MAX_TEXT_CHARS]
        return cls(text, *_EVIDENCE.get(head, None, lambda: _read_evidence(head)))


def _read_evidence(head: str) -> tuple[tuple[Word, ...], frozenset[str], tuple[str, ...], tuple[str, ...]]:
    words = text_words(head, language_of(head))
    keys = {w.key for w in words if not w.stop} | _acronyms(words)
    forms = {fold(w.form) for w in words if not w.stop and w.kind != "number"}
    return tuple(words), frozenset(keys), tuple(sorted(keys)), tuple(sorted(forms))


def _content_words(sentence: str) -> tuple[Word, ...]:
    return tuple(w for w in text_words(sentence, language_of(sentence)) if not w.stop)


@dataclass
class Match:
    """What a sentence got: ``backed`` (True when the evidence covers it and passes the
    number and name checks; None when it has no content words to check), ``cited``: evidence
    indexes with their score (0-1: the share of the sentence's weight each matches) and the
    character spans of the words that matched, ``[[start, end], ...]``, in order of strength."""

    backed: bool | None
    cited: list[tuple[int, float, list[list[int]]]]
    coverage: float = 0.0
    missing: list[str] = field(default_factory=list)


class Matcher:
    """Matches sentences against one session's evidence (``evidence``: the texts, in order)."""

    def __init__(self, evidence: list[Evidence], settings: Settings = Settings(),
                 vectors: WordVectors | None = None):
        self.evidence = evidence
        self.settings = settings
        self.vectors = vectors if settings.similar is not None else None
        self.df: dict[str, int] = {}
        for item in evidence:
            for key in item.keys:
                self.df[key] = self.df.get(key, 0) + 1
        self.all_keys = set(self.df)

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
        words = _SENTENCES.get(sentence, None, lambda: _content_words(sentence))
        if not words:
            return Match(None, [])
        weights = [self.weight(w) for w in words]
        total = sum(weights)
        # credit[i][j]: how much of word j's weight evidence i matches (0..1)
        forms = [fold(w.form) for w in words]
        credit = [[self._credit(item, w, f) for w, f in zip(words, forms)] for item in self.evidence]
        matching = [i for i, row in enumerate(credit) if any(row)]  # the rest can gain nothing
        chosen: list[int] = []
        got = [0.0] * len(words)
        joined: list[int] = []
        while len(chosen) < self.settings.most:
            best, best_gain = None, 0.0
            for i in matching:
                if i in chosen:
                    continue
                row = credit[i]
                gain = sum(max(0.0, c - g) * w for c, g, w in zip(row, got, weights)) / total
                if gain > best_gain:
                    best, best_gain = i, gain
            if best is None or (chosen and best_gain < self.settings.gain):
                break
            chosen.append(best)
            if len(chosen) > 1 and self.settings.joins and not any(
                    c > g and w.kind == "word" and w.key not in MEASURES for c, g, w in zip(credit[best], got, words)):
                joined.append(best)
            got = [max(g, c) for g, c in zip(got, credit[best])]
        coverage = sum(g * w for g, w in zip(got, weights)) / total
        missing = []
        if self.settings.numbers:
            missing += [w.form for w, g in zip(words, got) if w.kind == "number" and w.form[:1].isdigit() and g < 1.0]
        if self.settings.names:
            missing += [w.form for w in words if w.kind == "name" and not self._anywhere(w)]
        missing += [w.form for i in joined for w, c in zip(words, credit[i]) if c > 0 and w.kind != "word"]
        backed = coverage >= self.settings.cover and not missing
        cited = []
        for i in chosen:
            score = sum(c * w for c, w in zip(credit[i], weights)) / total
            cited.append((i, round(score, 3), self._spans(i, words, credit[i])))
        return Match(backed, cited, coverage, missing)

    def _credit(self, item: Evidence, word: Word, form: str) -> float:
        """How much of ``word``'s weight ``item`` matches (0..1); ``form``: the word folded."""
        if word.key in item.keys:
            return 1.0
        if word.kind == "number":
            return 0.0
        if self.settings.fuzzy and len(word.key) >= 4 and process.extractOne(word.key, item.key_list, scorer=fuzz.ratio,
                                                     score_cutoff=self.settings.fuzzy):
            return 1.0
        if self.vectors is not None and word.kind == "word" and item.forms:
            similarity = self.vectors.best(form, item.forms)
            if similarity >= self.settings.similar:
                return self.settings.synonym_credit
        return 0.0

    def _anywhere(self, word: Word) -> bool:
        if word.key in self.all_keys:
            return True
        return bool(self.settings.fuzzy) and len(word.key) >= 4 and any(
            process.extractOne(word.key, keys, scorer=fuzz.ratio, score_cutoff=self.settings.fuzzy)
            for keys in (item.key_list for item in self.evidence))

    def _spans(self, i: int, words: list[Word], credit: list[float]) -> list[list[int]]:
        item = self.evidence[i]
        wanted = {w.key for w, c in zip(words, credit) if c > 0}
        forms = tuple(sorted({fold(w.form) for w, c in zip(words, credit) if c > 0}))
        spans: list[list[int]] = []
        seen: dict[tuple[str, str], bool] = {}
        for w in item.words:
            if w.stop:
                continue
            known = (w.key, w.kind)
            if known not in seen:
                hit = w.key in wanted or (bool(self.settings.fuzzy) and len(w.key) >= 4 and process.extractOne(
                    w.key, wanted, scorer=fuzz.ratio, score_cutoff=self.settings.fuzzy) is not None)
                if not hit and self.vectors is not None and w.kind == "word" and forms:
                    hit = self.vectors.best(fold(w.form), forms) >= (self.settings.similar or 1.0)
                seen[known] = hit
            if seen[known]:
                if spans and item.text[spans[-1][1]:w.start].strip() == "":
                    spans[-1][1] = w.end
                else:
                    spans.append([w.start, w.end])
        return spans


def _acronyms(words: list[Word]) -> set[str]:
    """The acronyms of runs of capitalised words ("World Health Organization" -> "who")."""
    out: set[str] = set()
    run: list[str] = []
    for w in words + [Word(0, 0, "", "", stop=True)]:  # the last one ends the last run
        if w.kind != "number" and w.form[:1].isupper() and not w.stop:
            run.append(w.form[0])
        else:
            if len(run) >= 2:
                for a in range(len(run)):
                    for b in range(a + 2, min(len(run), a + 5) + 1):
                        out.add("".join(run[a:b]).casefold())
            run = []
    return out
