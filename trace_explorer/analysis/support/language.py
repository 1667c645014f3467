"""Which language a text is in, as far as the support matcher needs it: a code that picks the
sentence splitter's rules, the lemmatiser, the Snowball stemmer and the stop words. Decided by script (kana:
"ja", Han: "zh", Cyrillic: "ru") and, for Latin script, by which language's stop words
(bm25s's lists) the text uses most; "en" when nothing tells."""

from __future__ import annotations

import re
from functools import lru_cache

from bm25s import stopwords as bm25s_stopwords

_LATIN_LISTS = {"en": "STOPWORDS_EN", "de": "STOPWORDS_GERMAN", "fr": "STOPWORDS_FRENCH",
                "es": "STOPWORDS_SPANISH", "it": "STOPWORDS_ITALIAN", "pt": "STOPWORDS_PORTUGUESE",
                "nl": "STOPWORDS_DUTCH", "sv": "STOPWORDS_SWEDISH", "da": "STOPWORDS_DANISH"}
_WORD = re.compile(r"[^\W\d_]+")


@lru_cache(maxsize=None)
def _lists() -> dict[str, frozenset[str]]:
    return {code: frozenset(w.casefold() for w in getattr(bm25s_stopwords, name)) for code, name in _LATIN_LISTS.items()}


@lru_cache(maxsize=None)
def _languages_of_stopwords() -> dict[str, tuple[str, ...]]:
    """Stop word -> the codes of the lists that hold it."""
    out: dict[str, tuple[str, ...]] = {}
    for code, stops in _lists().items():
        for word in stops:
            out[word] = out.get(word, ()) + (code,)
    return out


def language_of(text: str) -> str:
    """The language code of ``text``: "ja", "zh", "ru" by script, else the Latin-script
    language whose stop words it uses most ("en" on a tie or none)."""
    if re.search("[\u3040-\u30ff]", text):
        return "ja"
    han = len(re.findall("[\u4e00-\u9fff]", text))
    cyrillic = len(re.findall("[\u0400-\u04ff]", text))
    latin = len(re.findall("[A-Za-z\u00c0-\u024f]", text))
    if han and han >= latin / 4:
        return "zh"
    if cyrillic > latin:
        return "ru"
    counts = dict.fromkeys(_lists(), 0)
    languages = _languages_of_stopwords()
    for word in _WORD.findall(text):
        for code in languages.get(word.casefold(), ()):
            counts[code] += 1
    best = max(counts, key=lambda code: (counts[code], code == "en"))
    return best if counts[best] > counts["en"] else "en"
