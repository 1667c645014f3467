"""The texts of a session as the support matcher reads them: each evidence text's words, keys,
numbers, language and sentences (``Evidence``), and a sentence's content words, each read once
per text and kept (``text_cache``): the same Observation, chunk or edge recurs across the steps
of a session and across the sessions of a store."""

from __future__ import annotations

from dataclasses import dataclass

from .language import language_of
from .numbers import Quantity
from .sentences import split_sentences
from .text_cache import TextCache
from .words import Word, fold, text_words

# Bounds on untrusted text: the words of a backing text past its first MAX_TEXT_CHARS characters,
# and of a sentence past MAX_SENTENCE_CHARS, are not read (a 1 MB tool output costs no more than
# its start).
MAX_TEXT_CHARS = 20_000
MAX_SENTENCE_CHARS = 2_000
# Sentences of one evidence text whose embeddings are compared with a claim.
MAX_PASSAGES = 200

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
    content words other than numbers, case-folded and sorted (what synonyms are searched in),
    ``quantities`` its numbers' values, ``language`` its language code, ``passages`` its
    sentences (at most ``MAX_PASSAGES``), whose embeddings a claim's is compared with."""

    text: str
    words: tuple[Word, ...] = ()
    keys: frozenset[str] = frozenset()
    key_list: tuple[str, ...] = ()
    forms: tuple[str, ...] = ()
    quantities: tuple[Quantity, ...] = ()
    language: str = "en"
    passages: tuple[str, ...] = ()

    @classmethod
    def of(cls, text: str) -> "Evidence":
        """The evidence ``text``, with its words keyed (its language guessed from the text); a
        text read before (``EVIDENCE_CACHE_CHARS``) is not read again."""
        head = text[:MAX_TEXT_CHARS]
        return cls(text, *_EVIDENCE.get(head, None, lambda: _read_evidence(head)))


def _read_evidence(head: str):
    language = language_of(head)
    words = text_words(head, language)
    keys = {w.key for w in words if not w.stop} | _acronyms(words)
    forms = {fold(w.form) for w in words if not w.stop and w.kind != "number"}
    quantities = tuple(w.quantity for w in words if w.quantity is not None)
    passages = tuple(head[a:b] for a, b in split_sentences(head, language)[:MAX_PASSAGES])
    return tuple(words), frozenset(keys), tuple(sorted(keys)), tuple(sorted(forms)), quantities, language, passages


def sentence_words(sentence: str) -> tuple[str, tuple[Word, ...]]:
    """``(language, content words)`` of ``sentence`` (stop words left out), kept for the next
    time it is asked (``SENTENCE_CACHE_CHARS``)."""
    return _SENTENCES.get(sentence, None, lambda: _words_of(sentence))


def _words_of(sentence: str) -> tuple[str, tuple[Word, ...]]:
    language = language_of(sentence)
    return language, tuple(w for w in text_words(sentence, language) if not w.stop)


def _acronyms(words: list[Word]) -> set[str]:
    """The acronyms of runs of capitalised words ("World Health Organization" -> "who")."""
    out: set[str] = set()
    run: list[str] = []
    for w in list(words) + [Word(0, 0, "", "", stop=True)]:  # the last one ends the last run
        if w.kind != "number" and w.form[:1].isupper() and not w.stop:
            run.append(w.form[0])
        else:
            if len(run) >= 2:
                for a in range(len(run)):
                    for b in range(a + 2, min(len(run), a + 5) + 1):
                        out.add("".join(run[a:b]).casefold())
            run = []
    return out
