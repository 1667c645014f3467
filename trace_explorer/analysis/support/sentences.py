"""An answer cut into sentences, with their character offsets, by pysbd (rule-based sentence
boundaries for 22 languages, abbreviations and decimals included) in the answer's language."""

from __future__ import annotations

import threading
from functools import lru_cache

import pysbd

from .language import language_of
from .text_cache import TextCache

# The languages pysbd has rules for; any other is cut by the English rules.
_PYSBD = {"en", "hi", "mr", "zh", "es", "am", "ar", "hy", "bg", "ur", "ru", "pl", "fa", "nl", "da", "fr", "my",
          "el", "it", "ja", "de", "kk", "sk"}


# Characters of lines whose sentences are kept (``text_cache``): an answer is cut again each time
# a view or a check asks for its support.
LINE_CACHE_CHARS = 200_000
_LINES = TextCache(LINE_CACHE_CHARS)


@lru_cache(maxsize=None)
def _segmenter(language: str) -> pysbd.Segmenter:
    return pysbd.Segmenter(language=language if language in _PYSBD else "en", clean=False, char_span=True)


def split_sentences(text: str, language: str | None = None) -> list[tuple[int, int]]:
    """The sentences of ``text`` as ``(start, end)`` character offsets, surrounding white space
    left out; a line break always ends a sentence (TrustGraph joins a multi-line answer's
    lines with spaces, but other writers keep them). ``language`` defaults to ``language_of``."""
    language = language or language_of(text)
    out: list[tuple[int, int]] = []
    offset = 0
    for line in text.splitlines(keepends=True):
        if line.strip():
            for line_start, line_end in _LINES.get(line, language, lambda: _segment(line, language)):
                start, end = offset + line_start, offset + line_end
                while start < end and text[start].isspace():
                    start += 1
                while end > start and text[end - 1].isspace():
                    end -= 1
                if start < end:
                    out.append((start, end))
        offset += len(line)
    return out


def _segment(line: str, language: str) -> tuple[tuple[int, int], ...]:
    with _SEGMENTING:  # a pysbd Segmenter keeps the text it cuts on itself: one thread at a time
        return tuple((span.start, span.end) for span in _segmenter(language).segment(line))


_SEGMENTING = threading.Lock()  # the app checks sessions in threads, which share the segmenters
