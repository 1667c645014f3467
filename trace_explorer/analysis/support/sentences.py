"""An answer cut into sentences, with their character offsets: simplemma's rule-based splitter
(abbreviations, initials, decimals and ordinals in the languages it has lists for), which runs in
time linear in the text, plus the full stops of Chinese and Japanese (。！？), which need no
space after them. A line break always ends a sentence."""

from __future__ import annotations

import re

import simplemma

from .language import language_of

# The languages whose abbreviation and sentence-starter lists simplemma has; any other is cut by
# its generic rules.
_LISTED = {"cs", "de", "en", "fr", "nl", "pl", "pt", "el"}
_CJK_STOP = re.compile(r"(?<=[。！？])")
# Languages that write ordinals with a full stop ("9. Juli"): there simplemma keeps "9. " inside a
# sentence; elsewhere a number with a full stop after it ends one ("... today's 9. If you ...").
_ORDINAL_DOT = {"de", "da", "no", "fi", "cs", "pl", "hu", "sk", "sl", "hr", "et", "lv", "lt", "tr", "is"}
_NUMBER_END = re.compile(r"(?<=\d[.!?])\s+(?=[\"'“‘(«]?[A-ZÀ-ÖØ-ÞА-Я])"
                         # a sentence that opens with a lower-case identifier ("... on kafka-events.
                         # billing-api is deployed ..."): simplemma reads a lower-case word after a
                         # full stop as the same sentence
                         r"|(?<=\w{3}[.!?])\s+(?=[a-z][a-z0-9]*[-_][\w-]*\s)")


def split_sentences(text: str, language: str | None = None) -> list[tuple[int, int]]:
    """The sentences of ``text`` as ``(start, end)`` character offsets, surrounding white space
    left out; a line break always ends a sentence (TrustGraph joins a multi-line answer's
    lines with spaces, but other writers keep them). ``language`` defaults to ``language_of``.
    Linear in the length of ``text``."""
    language = language or language_of(text)
    code = language if language in _LISTED else None
    out: list[tuple[int, int]] = []
    offset = 0
    for line in text.splitlines(keepends=True):
        for piece_start, piece in _pieces(line):
            cursor = 0
            for sentence in simplemma.split_sentences(piece, lang=code):
                found = piece.find(sentence, cursor)
                if found < 0:  # the splitter gives slices of its input; this is a safeguard
                    continue
                cursor = found + len(sentence)
                start = offset + piece_start + found
                for a, b in _after_numbers(sentence, language):
                    out.append((start + a, start + b))
        offset += len(line)
    return out


def _after_numbers(sentence: str, language: str) -> list[tuple[int, int]]:
    """``sentence`` cut after a number that ends a sentence, where the language writes no
    ordinals with a full stop, and before a lower-case identifier that opens one: ``(start,
    end)`` offsets in it."""
    if language in _ORDINAL_DOT:
        return [(0, len(sentence))]
    out, start = [], 0
    for cut in _NUMBER_END.finditer(sentence):
        out.append((start, cut.start()))
        start = cut.end()
    out.append((start, len(sentence)))
    return out


def _pieces(line: str) -> list[tuple[int, str]]:
    """The parts of ``line`` between Chinese and Japanese full stops, with their offsets."""
    if not any(c in line for c in "。！？"):
        return [(0, line)] if line.strip() else []
    out, start = [], 0
    for part in _CJK_STOP.split(line):
        if part.strip():
            out.append((start, part))
        start += len(part)
    return out
