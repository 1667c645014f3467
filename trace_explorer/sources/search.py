"""How the session list's search box is answered: words, in any order, ignoring case and accents.

``search_words("France capital")`` -> ``["france", "capital"]``: the text folded (NFKD, combining
marks dropped, case-folded) and cut into runs of letters and digits, as SQLite FTS5's
``unicode61`` tokenizer with ``remove_diacritics 2`` cuts and folds what it indexes. A session
matches when every word starts a word of its question or of its IRI (``capital`` finds
"What is the capital of France?", ``montana`` finds "montaña", ``62c33a4f`` finds
``urn:trustgraph:agent:62c33a4f-…``).

Where the words are looked for depends on the source, and each source says how it does it with
its ``text_search`` (a ``TextSearch``):

- a store with a session index: the index's FTS5 table (``fts_query``), whatever ``text_search``
  says;
- a SPARQL endpoint: ``REGEX_SEARCH``, SPARQL ``REGEX`` with the accented letters of each plain
  one as alternatives (``(a|à|á|…)``), in either case: portable, the nearest a SPARQL 1.1 server
  offers (each word is found anywhere in the text, not only at a word's start);
- ``CONTAINS_SEARCH``: ``CONTAINS`` on lower-cased text, for servers whose ``REGEX`` is slow or
  missing (case ignored, accents not);
- ``NO_SEARCH``: a source that cannot filter text at all; the list then says so.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

from .sparql_text import literal

MAX_WORDS = 16  # words of one search (the rest are ignored)
_WORD = re.compile(r"[^\W_]+")


def fold(text: str) -> str:
    """``text`` without accents (NFKD, combining marks dropped), case-folded."""
    if text.isascii():
        return text.lower()
    decomposed = unicodedata.normalize("NFKD", text)
    return "".join(c for c in decomposed if not unicodedata.combining(c)).casefold()


def search_words(text: str | None) -> list[str]:
    """The words of a search, folded (``fold``), in order, each once, at most ``MAX_WORDS``;
    [] for empty text or text without letters or digits."""
    out: list[str] = []
    for word in _WORD.findall(fold(text or "")):
        if word not in out:
            out.append(word)
    return out[:MAX_WORDS]


def fts_query(words: Sequence[str]) -> str:
    """An FTS5 MATCH expression for ``words`` (from ``search_words``): every word as a prefix,
    ``"france"* AND "capital"*``. Words hold only letters and digits, so quoting is safe."""
    return " AND ".join(f'"{w}"*' for w in words)


@lru_cache(maxsize=1)
def _accented() -> dict[str, tuple[str, ...]]:
    """Each plain lower-case letter -> the ways to write it that a pattern lists: itself in both
    cases and every letter of Latin-1 and Latin Extended-A (U+00C0-U+017F: the languages of
    Europe) that folds to it, each also as its UTF-8 bytes read as Latin-1 ("ñ" -> "Ã±"), the
    form in which Virtuoso's regular expressions see it (they run on UTF-8 bytes and read the
    pattern as Latin-1); elsewhere that form only matches text garbled that way."""
    variants: dict[str, list[str]] = {}
    for code in range(0xC0, 0x180):
        char = chr(code)
        base = fold(char)
        if len(base) == 1 and base.isascii() and base.isalpha() and char != base:
            variants.setdefault(base, [base.upper(), base]).extend((char, char.encode("utf-8").decode("latin-1")))
    return {base: tuple(chars) for base, chars in variants.items()}


def word_regex(word: str) -> str:
    """An XPath regular expression (SPARQL ``REGEX``) that finds ``word`` (folded) in text with
    or without its accents, in either case: ``montana`` -> ``(M|m)(O|o|Ò|Ã\x92|…)(N|n|Ñ|…)…``.
    Alternatives, not character classes: a server whose regular expressions see UTF-8 bytes
    matches a multi-byte letter as one alternative, never inside a class (``_accented``)."""
    classes = _accented()  # a word holds letters and digits only: nothing else to escape
    return "".join("(" + "|".join(classes[c]) + ")" if c in classes
                   else f"({c.upper()}|{c})" if c.upper() != c else c for c in word)


@dataclass(frozen=True)
class TextSearch:
    """How a source answers the list's search box. ``kind``: "regex", "contains" or "none";
    ``note``: what it matches, for people (the search box's help)."""

    kind: str
    note: str

    def sparql_filter(self, text: str, question: str = "?searched", root: str = "?root") -> str:
        """A SPARQL ``FILTER`` keeping the solutions whose ``question`` (a string) or ``root``
        (an IRI) holds every word of ``text``; "" when it has no words. Raises ValueError for
        a source that cannot search ("none")."""
        words = search_words(text) if self.kind == "regex" else _plain_words(text)
        if not words:
            return ""
        if self.kind == "none":
            raise ValueError("this source cannot search the text of its sessions")
        tests = []
        for word in words:
            if self.kind == "regex":
                pattern = literal(word_regex(word))
                tests.append(f"(REGEX(STR({question}), {pattern}) || REGEX(STR({root}), {pattern}))")
            else:
                needle = literal(word)
                tests.append(f"(CONTAINS(LCASE(STR({question})), {needle}) || CONTAINS(LCASE(STR({root})), {needle}))")
        return "FILTER(" + " && ".join(tests) + ")"


def _plain_words(text: str) -> list[str]:
    """The words of ``text`` lower-cased, accents kept (NFC), each once."""
    out: list[str] = []
    for word in _WORD.findall(unicodedata.normalize("NFC", text or "").lower()):
        if word not in out:
            out.append(word)
    return out[:MAX_WORDS]


INDEX_SEARCH = TextSearch("index", "Words in the question or the session IRI, in any order, ignoring case and "
                                   "accents; each word matches the start of a word (full-text index).")
REGEX_SEARCH = TextSearch("regex", "Words in the question or the session IRI, in any order, ignoring case and "
                                   "accents (SPARQL REGEX on the server: slower on large stores).")
CONTAINS_SEARCH = TextSearch("contains", "Words in the question or the session IRI, in any order, ignoring case "
                                         "(accents count on this source).")
NO_SEARCH = TextSearch("none", "This source cannot search the text of its sessions.")
