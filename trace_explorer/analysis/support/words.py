"""The words of a text as the support matcher compares them: each with its character offsets,
a comparison key (case-folded, accents dropped, lemmatised by simplemma and stemmed by Snowball
for its language; a unit word keyed by its unit, so "days", "Tagen" and "jours" agree) and
whether it is a number (with its ``numbers.Quantity``), a name or a word. Stop words (bm25s's
lists) are kept apart: they never count as support.

Scripts without spaces between words (Chinese, Japanese) are read as overlapping pairs of
characters, the usual unit of CJK retrieval, leaving out pairs that hold a hiragana (particles
and endings: grammar, not content)."""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from functools import lru_cache

import Stemmer
from bm25s import stopwords as bm25s_stopwords

from .lemmas import LANGUAGES as _LEMMAS, lemma as lemma_of
from .numbers import (FRACTIONS, HEDGES, SCALES, UNITS, Quantity, digits_values, number_key, quantity,
                      spelled_value, unit_of)

UNIT_DIMENSIONS = {unit: dimension for unit, (dimension, _) in UNITS.items()}

# Snowball stemmers (PyStemmer) and bm25s stop-word lists by language code.
STEMMERS = {"en": "english", "de": "german", "fr": "french", "es": "spanish", "it": "italian",
            "pt": "portuguese", "nl": "dutch", "ru": "russian", "sv": "swedish", "no": "norwegian",
            "da": "danish", "tr": "turkish"}
_STOPWORD_LISTS = {"en": "STOPWORDS_EN_PLUS", "de": "STOPWORDS_GERMAN", "fr": "STOPWORDS_FRENCH",
                   "es": "STOPWORDS_SPANISH", "it": "STOPWORDS_ITALIAN", "pt": "STOPWORDS_PORTUGUESE",
                   "nl": "STOPWORDS_DUTCH", "ru": "STOPWORDS_RUSSIAN", "sv": "STOPWORDS_SWEDISH",
                   "no": "STOPWORDS_NORWEGIAN", "da": "STOPWORDS_DANISH", "tr": "STOPWORDS_TURKISH"}
# Words too common in answers to back anything, beyond the stop-word lists.
_MORE_STOPWORDS = {"en": {"also", "about", "around", "roughly", "some", "nearly", "approximately", "just",
                          "more", "less", "than", "like", "every", "one", "first", "s", "whose", "within",
                          "per", "via", "across", "along", "among", "yet", "thus", "therefore", "however",
                          "would", "could", "may", "might", "must", "shall", "can", "according", "based",
                          # hedges and connectives: how a model frames a claim, not what it claims
                          "seems", "seem", "seemed", "appears", "appear", "apparently", "likely", "probably",
                          "perhaps", "already", "still", "even", "really", "actually", "indeed", "overall",
                          "therefore", "hence", "instead", "altogether", "essentially", "basically", "notably",
                          "meanwhile", "note", "words", "say", "says", "said", "well", "whereas", "though",
                          "although", "since", "both", "either", "neither", "much", "many", "several",
                          "yes", "no", "ok", "okay", "sure"},
                   "de": {"rund", "etwa", "gut", "ca"}, "fr": {"environ", "près"}, "es": {"unos", "alrededor"},
                   "ru": {"около", "примерно", "более"}}

_CJK = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af"
_TOKEN = re.compile(
    r"(?P<number>\d{1,3}(?:[.,\u00a0\u202f\u2009 '’]\d{3})+(?![\d])(?:[.,]\d+)?|\d+(?:[.,]\d+)?(?:st|nd|rd|th)?)"
    r"|(?P<unit>メートル|キロメートル|パーセント|km²|m²|km/h|°[CF]|℃|℉|%|‰|[€$£¥₽]"
    r"|(?i:per[\s-]cent|pour[\s-]cent|por[\s-]ciento))"
    rf"|(?P<cjk>[{_CJK}]+)"
    r"|(?P<word>[^\W\d_]+(?:['’][^\W\d_]+)?)")
_KANA = re.compile(r"^[\u3040-\u30ff]+$")
_HIRAGANA = re.compile(r"[\u3040-\u309f]")


@dataclass(frozen=True, slots=True)
class Word:
    """One word of a text: ``start``/``end`` character offsets in it, ``form`` as written,
    ``key`` what it is compared by, ``kind`` "word", "number" or "name", ``stop`` True for a
    stop word (kept for offsets, never counted), ``quantity`` the value of a number (or of a
    fraction word such as "quarter"), else None."""

    start: int
    end: int
    form: str
    key: str
    kind: str = "word"
    stop: bool = False
    quantity: Quantity | None = None

    @property
    def in_digits(self) -> bool:
        """True for a number written with digits (a claim's such numbers must all be found)."""
        return self.kind == "number" and self.form[:1].isdigit()


@lru_cache(maxsize=None)
def _stemmer(language: str):
    return Stemmer.Stemmer(STEMMERS.get(language, "english"))


@lru_cache(maxsize=None)
def stopwords(language: str) -> frozenset[str]:
    """The stop words of ``language`` (bm25s's list, plus a few words of answers), case-folded."""
    listed = getattr(bm25s_stopwords, _STOPWORD_LISTS.get(language, "STOPWORDS_EN_PLUS"))
    return frozenset(w.casefold() for w in listed) | _MORE_STOPWORDS.get(language, set()) | _MORE_STOPWORDS["en"] \
        | frozenset(getattr(bm25s_stopwords, "STOPWORDS_EN_PLUS"))


def fold(text: str) -> str:
    """Case-folded, accents dropped ("Cáucaso" -> "caucaso"), apostrophes removed."""
    if text.isascii():  # NFKD leaves ASCII as it is, and it has no combining marks
        return text.casefold().replace("'", "")
    text = unicodedata.normalize("NFKD", text.casefold())
    return "".join(c for c in text if not unicodedata.combining(c)).replace("'", "").replace("’", "")


def _script_language(form: str, language: str) -> str:
    if re.search("[\u0400-\u04ff]", form):
        return "ru"
    return language if language in STEMMERS and language != "ru" else "en"


def text_words(text: str, language: str) -> list[Word]:
    """The words of ``text`` (``language``: a code such as "en", "ru", "ja"), in order. A number
    takes in the hedge before it, a currency sign before or after, and the scale and unit after
    it ("about 25 million years" is one number, its ``quantity`` 25e6 years, hedged)."""
    tokens = [(m.lastgroup, m.group(), m.start(), m.end()) for m in _TOKEN.finditer(text)]
    out: list[Word] = []
    first = True
    i = 0
    while i < len(tokens):
        kind, form, start, end = tokens[i]
        if kind == "number" or (kind == "word" and _reading(form, language)[1] == "number"):
            word, i = _number(tokens, i, text, language, out)
            out.append(word)
            first = False
            continue
        i += 1
        if kind == "unit":
            out.append(Word(start, end, form, "u:" + (unit_of(form.replace(" ", "-")) or form)))
        elif kind == "cjk":
            out.extend(_cjk_words(form, start))
        else:
            reading, key = _reading(form, language)[1:]
            if reading == "content":
                name = form[0].isupper() and (not first or form.isupper()) and language != "de" \
                    or (form.isupper() and len(form) > 1)
                out.append(Word(start, end, form, key, "name" if name else "word"))
            elif reading == "fraction":
                share = 1 / FRACTIONS[fold(form)]
                out.append(Word(start, end, form, key, quantity=quantity((share,), (0.01,), "%", True, 100)))
            else:
                out.append(Word(start, end, form, key, stop=reading == "stop"))
        first = first and kind not in ("word", "cjk", "number")  # a capital after this is a name
    return out


def _number(tokens, i: int, text: str, language: str, before: list[Word]) -> tuple[Word, int]:
    """The number starting at token ``i`` with what belongs to it; returns it and the index of
    the token after it."""
    kind, form, start, end = tokens[i]
    if kind == "number":
        values, steps = digits_values(form)
    else:
        values, steps = (spelled_value(form, language),), (1.0,)
    j = i + 1
    scale, unit, rounded = 1.0, None, False

    def next_word(j):
        if j < len(tokens) and text[tokens[j - 1][3]:tokens[j][2]].strip(" \u00a0\u202f\u2009.") == "":
            return tokens[j]
        return None

    following = next_word(j)
    if following and following[0] == "word" and fold(following[1]).rstrip(".") in SCALES:
        scale, rounded, end = SCALES[fold(following[1]).rstrip(".")], True, following[3]
        j += 1
        following = next_word(j)
    if following and following[0] == "word" and fold(following[1]) in FRACTIONS and values[0] is not None:
        values = tuple(v / FRACTIONS[fold(following[1])] for v in values)
        steps, end, j = (0.01,) * len(values), following[3], j + 1
        following = next_word(j)
    if following and following[0] in ("unit", "word", "cjk") and unit_of(following[1].replace(" ", "-")):
        unit, end = unit_of(following[1].replace(" ", "-")), following[3]
        j += 1
    if before and before[-1].key.startswith("u:") and text[before[-1].end:start].strip() == "" \
            and UNIT_DIMENSIONS.get(before[-1].key[2:], "").startswith("money"):
        sign = before.pop()  # "€30", "EUR 60": the currency is part of the number
        unit = unit or sign.key[2:]
        start = sign.start
    hedged = _hedged(before)
    found = quantity(values, steps, unit, hedged, scale, rounded or hedged)
    return Word(start, end, text[start:end], number_key(found.based[0]), "number", quantity=found), j


def _hedged(before: list[Word]) -> bool:
    for word in reversed(before[-3:]):
        if fold(word.form) in HEDGES:
            return True
        if not word.stop:
            return False
    return False


# Distinct (word, language) pairs whose reading is kept: a text's vocabulary repeats across the
# texts of a session and across sessions, so most words are read once per process (about 8 MB).
READING_CACHE = 20_000


@lru_cache(maxsize=READING_CACHE)
def _reading(form: str, language: str) -> tuple[float | None, str, str]:
    """How ``text_words`` reads a letter word ``form`` in ``language``: ``(value, reading, key)``,
    ``reading`` "number" (a spelled number, ``value`` its value), "fraction" ("quarter"), "unit"
    (a unit word: its key is the unit's), "stop" or "content" (a word or name: which, depends on
    where it stands), ``key`` its comparison key."""
    folded = fold(form)
    unit = unit_of(form)
    if unit and len(folded) > 1:
        return None, "unit", "u:" + unit
    if folded in FRACTIONS:
        return None, "fraction", "frac:" + str(FRACTIONS[folded])
    stops = stopwords(language)
    if folded in stops or form.casefold() in stops or len(folded) < 2:
        return None, "stop", folded
    value = spelled_value(form, language)
    if value is not None:
        return value, "number", number_key(value)
    if folded in SCALES:
        return None, "content", "scale:" + str(int(SCALES[folded]))
    return None, "content", _key(form, _script_language(form, language))


@lru_cache(maxsize=READING_CACHE)
def _key(form: str, language: str) -> str:
    """A content word's key: its lemma (simplemma, in ``language``), folded and stemmed."""
    lemma = form
    if language in _LEMMAS and not form.isupper():
        try:
            lemma = lemma_of(form, language)
        except ValueError:
            pass
    return _stemmer(language).stemWord(fold(lemma))


def _cjk_words(run: str, start: int) -> list[Word]:
    if len(run) == 1:
        return [Word(start, start + 1, run, run, stop=bool(_KANA.match(run)))]
    out = []
    for i in range(len(run) - 1):
        pair = run[i:i + 2]
        out.append(Word(start + i, start + i + 2, pair, pair, stop=bool(_HIRAGANA.search(pair))))
    return out
