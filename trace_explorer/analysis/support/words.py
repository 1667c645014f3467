"""The words of a text as the support matcher compares them: each with its character offsets,
a comparison key (case-folded, accents dropped, stemmed by Snowball for its language; numbers as
their value, so "5,642 m", "5642 metres" and "5 642 м" agree) and whether it is a number or a
name. Stop words (bm25s's lists) are kept apart: they never count as support.

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
                          "more", "less", "than", "like", "every", "one", "first", "s"},
                   "de": {"rund", "etwa", "gut", "ca"}, "fr": {"environ", "près"}, "es": {"unos", "alrededor"},
                   "ru": {"около", "примерно", "более"}}

# Units written differently across languages and styles, folded to one key each.
_UNITS = {}
for _key, _forms in {
    "m": "m metre metres meter meters mètre mètres metro metros метр метра метров метры м メートル",
    "km": "km kilometre kilometres kilometer kilometers kilomètre kilomètres kilómetro kilómetros "
          "километр километра километров км キロメートル",
    "%": "% percent pourcent prozent porcentaje процент процента процентов パーセント",
    "kg": "kg kilogram kilograms kilogramme kilogrammes kilogramm kilogramos килограмм килограммов",
    "twh": "twh terawattstunden terawattstunde terawatt-hours",
    "km²": "km² km2",
}.items():
    for _form in _forms.split():
        _UNITS[_form] = _key

MEASURES = frozenset(_UNITS.values())

_SCALES = {"thousand": 1e3, "thousands": 1e3, "tausend": 1e3, "mille": 1e3, "mil": 1e3, "тысяч": 1e3, "тысячи": 1e3,
           "тыс": 1e3, "million": 1e6, "millions": 1e6, "millionen": 1e6, "millones": 1e6, "millón": 1e6,
           "milliones": 1e6, "миллион": 1e6, "миллиона": 1e6, "миллионов": 1e6, "млн": 1e6, "billion": 1e9,
           "billions": 1e9, "milliard": 1e9, "milliards": 1e9, "milliarden": 1e9, "миллиард": 1e9,
           "миллиарда": 1e9, "миллиардов": 1e9, "млрд": 1e9, "万": 1e4, "億": 1e8}
# Numbers written as words, where answers and sources often differ ("ten years" / "10 years").
_NUMBER_WORDS = {"two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9,
                 "ten": 10, "eleven": 11, "twelve": 12, "twenty": 20, "hundred": 100,
                 "twelfth": 12, "thirteenth": 13, "fourteenth": 14, "fifteenth": 15, "sixteenth": 16,
                 "seventeenth": 17, "eighteenth": 18, "nineteenth": 19, "twentieth": 20,
                 "zwei": 2, "drei": 3, "vier": 4, "fünf": 5, "sechs": 6, "zehn": 10, "deux": 2,
                 "trois": 3, "cinq": 5, "dix": 10, "dos": 2, "tres": 3, "cinco": 5, "diez": 10,
                 "два": 2, "три": 3, "пять": 5, "десять": 10}

_CJK = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af"
_TOKEN = re.compile(
    r"(?P<number>\d{1,3}(?:[.,\u00a0\u202f ]\d{3})+(?![\d])(?:[.,]\d+)?|\d+(?:[.,]\d+)?(?:st|nd|rd|th)?)"
    rf"|(?P<unit>メートル|キロメートル|パーセント|km²|%)"
    rf"|(?P<cjk>[{_CJK}]+)"
    r"|(?P<word>[^\W\d_]+(?:['’][^\W\d_]+)?)")
_KANA = re.compile(r"^[\u3040-\u30ff]+$")
_HIRAGANA = re.compile(r"[\u3040-\u309f]")
_GROUPED = re.compile(r"^\d{1,3}(?:[.,\u00a0\u202f ]\d{3})+$")


@dataclass(frozen=True, slots=True)
class Word:
    """One word of a text: ``start``/``end`` character offsets in it, ``form`` as written,
    ``key`` what it is compared by, ``kind`` "word", "number" or "name", ``stop`` True for a
    stop word (kept for offsets, never counted)."""

    start: int
    end: int
    form: str
    key: str
    kind: str = "word"
    stop: bool = False


def number_value(text: str) -> float | None:
    """The value of a number as written: "5,642" and "5 642" and "1.233" (groups of three) are
    thousands, "37.4" and "3,2" decimals; "13th" is 13. None for anything else."""
    text = re.sub(r"(st|nd|rd|th)$", "", text)
    if _GROUPED.match(text):
        head, _, tail = re.sub(r"[\u00a0\u202f ]", ",", text).rpartition(",") if "," in text or " " in text \
            or "\u00a0" in text or "\u202f" in text else text.rpartition(".")
        digits = re.sub(r"\D", "", head) + tail
        return float(digits)
    try:
        return float(text.replace(",", "."))
    except ValueError:
        return None


def number_key(value: float) -> str:
    """The key of a number's value: "#5642", "#37.4", "#25000000"."""
    return "#" + (str(int(value)) if float(value).is_integer() else f"{value:g}")


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
    """The words of ``text`` (``language``: a code such as "en", "ru", "ja"), in order, numbers
    with their scale folded in ("25 million" is one number, keyed "#25000000", spanning both)."""
    out: list[Word] = []
    first = True
    for match in _TOKEN.finditer(text):
        kind = match.lastgroup
        form = match.group()
        start, end = match.span()
        if kind == "number":
            value = number_value(form)
            if value is None:
                continue
            out.append(Word(start, end, form, number_key(value), "number"))
        elif kind == "unit":
            out.append(Word(start, end, form, _UNITS.get(form.casefold(), form)))
        elif kind == "cjk":
            out.extend(_cjk_words(form, start))
        else:
            scale, reading, key = _reading(form, language)
            if scale and out and out[-1].kind == "number" and text[out[-1].end:start].strip() == "":
                previous = out.pop()
                value = float(previous.key[1:]) * scale
                out.append(Word(previous.start, end, text[previous.start:end], number_key(value), "number"))
            elif reading == "content":
                name = form[0].isupper() and (not first or form.isupper()) and language != "de" \
                    or (form.isupper() and len(form) > 1)
                out.append(Word(start, end, form, key, "name" if name else "word"))
            else:
                out.append(Word(start, end, form, key, "number" if reading == "number" else "word",
                                stop=reading == "stop"))
        first = first and kind not in ("word", "cjk", "number")  # a capital after this is a name
    return out


# Distinct (word, language) pairs whose reading is kept: a text's vocabulary repeats across the
# texts of a session and across sessions, so most words are read once per process (about 8 MB).
READING_CACHE = 20_000


@lru_cache(maxsize=READING_CACHE)
def _reading(form: str, language: str) -> tuple[float | None, str, str]:
    """How ``text_words`` reads a letter word ``form`` in ``language``: ``(scale, reading, key)``,
    ``scale`` the factor it makes a number before it ("million": 1e6; None), ``reading`` "unit",
    "number" (a number word), "stop" or "content" (a word or name: which, depends on where it
    stands), ``key`` its comparison key."""
    folded = fold(form)
    lowered = form.casefold()
    scale = _SCALES.get(folded) or _SCALES.get(lowered)
    if folded in _UNITS or lowered in _UNITS:
        return scale, "unit", _UNITS.get(folded) or _UNITS[lowered]
    if folded in _NUMBER_WORDS:
        return scale, "number", number_key(_NUMBER_WORDS[folded])
    stops = stopwords(language)
    if folded in stops or lowered in stops or len(folded) < 2:
        return scale, "stop", folded
    return scale, "content", _stemmer(_script_language(form, language)).stemWord(folded)


def _cjk_words(run: str, start: int) -> list[Word]:
    if len(run) == 1:
        return [Word(start, start + 1, run, run, stop=bool(_KANA.match(run)))]
    out = []
    for i in range(len(run) - 1):
        pair = run[i:i + 2]
        out.append(Word(start + i, start + i + 2, pair, pair, stop=bool(_HIRAGANA.search(pair))))
    return out
