"""How the session list's search box is answered: words, in any order, ignoring case and accents.

``search_words("France capital")`` -> ``["france", "capital"]``: the text folded (NFKD, combining
marks dropped, case-folded) and cut into runs of letters and digits, as SQLite FTS5's
``unicode61`` tokenizer with ``remove_diacritics 2`` cuts and folds what it indexes. A session
matches when every word starts a word of its texts (``model.words``: its question, answer,
thoughts, tools and their arguments, observations, errors, findings, step results, its IRI):
``capital`` finds "What is the capital of France?", ``montana`` finds "montaña", ``62c33a4f``
finds ``urn:trustgraph:agent:62c33a4f-…``.

A word may name the field it must be in (``search_terms``): ``answer:elbrus``,
``tool:weather``, ``error:"timed out"`` (every word of the quotes), ``question:``,
``thought:``, ``observation:``, ``finding:``, ``result:``, ``iri:`` (``model.words.WORD_FIELDS``).

Where the words are looked for depends on the source, and each source says how it does it with
its ``text_search`` (a ``TextSearch``):

- a store with a session index: the index's FTS5 table (``fts_query``), whatever ``text_search``
  says (every field);
- a TrustGraph gateway: the question and the IRI of every session, and every field of the
  sessions read so far (``matches``);
- a SPARQL endpoint (the question and the IRI only: the ``question:`` and ``iri:`` fields, a
  search naming another field is refused): ``REGEX_SEARCH``, SPARQL ``REGEX`` with the accented letters of each plain
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

from ..model.words import WORD_FIELDS
from .sparql_text import literal

MAX_WORDS = 16  # distinct words of one search (the rest are ignored, ``capped_note`` says so)
MAX_SEARCH_CHARS = 1000  # characters of one search read (the rest are ignored, before any other work)
MARKS = ("\x02", "\x03")  # before and after each word found, in a snippet (``text_match``)
_WORD = re.compile(r"[^\W_]+")
# a field name and its colon, then the quoted words or the run of text up to the next space
_TERM = re.compile(r"(?:([A-Za-z]+):)?(\"[^\"]*\"?|[^\s\"]+)")


def fold(text: str) -> str:
    """``text`` without accents (NFKD, combining marks dropped), case-folded."""
    if text.isascii():
        return text.lower()
    decomposed = unicodedata.normalize("NFKD", text)
    return "".join(c for c in decomposed if not unicodedata.combining(c)).casefold()


def capped(text: str | None) -> str:
    """The part of a search that is read: its first ``MAX_SEARCH_CHARS`` characters ("" for
    None). Cut before anything else is done with it, so a search's cost has a bound whatever a
    link or a box is given (a 349 KB search once held the server for two minutes)."""
    return (text or "")[:MAX_SEARCH_CHARS]


def capped_note(text: str | None) -> str | None:
    """The one line that says a search was cut (``MAX_SEARCH_CHARS`` characters, ``MAX_WORDS``
    distinct words) and so what was searched is less than what was typed; None when nothing was
    cut. Reads at most ``MAX_SEARCH_CHARS`` characters (and ``len`` of the rest)."""
    cut = []
    if len((text or "").strip()) > MAX_SEARCH_CHARS:
        cut.append(f"its first {MAX_SEARCH_CHARS:,} characters")
    if len(_terms(text, MAX_WORDS + 1)) > MAX_WORDS:
        cut.append(f"its first {MAX_WORDS} different words")
    return f"the search was cut to {' and '.join(cut)}; the rest was not searched" if cut else None


def _distinct(items, limit: int) -> list:
    """The first ``limit`` distinct ``items``, in order: one pass that stops at ``limit`` (a set
    remembers what was seen, so the cost is linear in what is read)."""
    out: dict = {}
    for item in items:
        out.setdefault(item, None)
        if len(out) >= limit:
            break
    return list(out)


def _terms(text: str | None, limit: int) -> list[tuple[str | None, str]]:
    """The first ``limit`` distinct ``(field, word)`` of the search ``text`` (``capped``)."""
    return _distinct(((field, m.group()) for field, rest in _pieces(capped(text)) for m in _WORD.finditer(fold(rest))),
                     limit)


def search_words(text: str | None) -> list[str]:
    """The words of a search (``capped``), folded (``fold``), in order, each once, at most
    ``MAX_WORDS``; [] for empty text or text without letters or digits."""
    return _distinct((m.group() for m in _WORD.finditer(fold(capped(text)))), MAX_WORDS)


def search_terms(text: str | None) -> list[tuple[str | None, str]]:
    """The words of a search (folded, as ``search_words``) each with the field it must be found
    in, or None for any: ``'answer:Elbrus tool:"mcp weather" peak'`` -> ``[("answer", "elbrus"),
    ("tool", "mcp"), ("tool", "weather"), (None, "peak")]``. A name before a colon that is not a
    field (``mcp:weather``) is searched as words; a field name with no word after it is left out
    (``dogs answer:`` searches ``dogs``, as a half-typed filter does in a search box). Each
    (field, word) once, at most ``MAX_WORDS``, from the first ``MAX_SEARCH_CHARS`` characters
    (``capped``); [] when the text has no word (``!!!``)."""
    return _terms(text, MAX_WORDS)


def _pieces(text: str | None) -> list[tuple[str | None, str]]:
    """The search cut at its field names: ``(field or None, its text)``; a name before a colon
    that is no field stays in the text, and a field name with nothing after it is dropped."""
    out = []
    for name, rest in _TERM.findall(text or ""):
        if not name and rest.endswith(":") and rest[:-1].lower() in WORD_FIELDS:
            continue  # "answer:" before a space or at the end: the regex took it as plain text
        field = name.lower() if name.lower() in WORD_FIELDS else None
        out.append((field, rest if field or not name else f"{name}:{rest}"))
    return out


def fts_query(terms: Sequence[tuple[str | None, str] | str]) -> str:
    """An FTS5 MATCH expression for ``terms`` (from ``search_terms``, or plain words): every word
    as a prefix, in its field when it names one: ``answer : "elbrus"* AND "peak"*``. Words hold
    only letters and digits and fields are ``WORD_FIELDS`` names, so quoting is safe."""
    parts = []
    for term in terms:
        field, word = (None, term) if isinstance(term, str) else term
        parts.append(f'{field} : "{word}"*' if field in WORD_FIELDS else f'"{word}"*')
    return " AND ".join(parts)


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
        fields = {f for f, _ in search_terms(text) if f is not None} - {"question", "iri"}
        if fields:
            raise ValueError(f"this source searches only the question and the session IRI, not the "
                             f"{', '.join(sorted(fields))} (a local store searches every field: ingest or sync into one)")
        plain = " ".join(w for _, w in search_terms(text))
        words = search_words(plain) if self.kind == "regex" else _plain_words(_unfielded(text))
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


def _unfielded(text: str) -> str:
    """``text`` (``capped``) without its field names (``question:paris`` -> ``paris``)."""
    return " ".join(rest for _, rest in _pieces(capped(text)))


def matches(words: dict[str, str], terms: Sequence[tuple[str | None, str]]) -> bool:
    """Whether a session whose texts are ``words`` (``model.words.session_words``; fields
    missing are empty) holds every one of ``terms`` (``search_terms``) at the start of a word of
    its field (any field for None), as the index's FTS5 table finds them."""
    folded = {name: _WORD.findall(fold(text)) for name, text in words.items() if text}
    for field, word in terms:
        pools = [folded.get(field, [])] if field else list(folded.values())
        if not any(w.startswith(word) for pool in pools for w in pool):
            return False
    return True


def text_match(words: dict[str, str], terms: Sequence[tuple[str | None, str]],
               tokens: int = 16) -> dict[str, str] | None:
    """Where ``terms`` are found in ``words`` (as ``matches`` finds them), in the shape of the
    session index's matches (``index_words.match_rows``): ``{"field", "snippet"}``, the words
    found between ``MARKS`` (taken out of the texts first, so every mark is ours), about
    ``tokens`` words of text around the first; the field where the most of the words were found
    (the first of ``WORD_FIELDS`` on a tie, the question and the IRI last). None when nothing is
    found."""
    order = [f for f in WORD_FIELDS if f not in ("question", "iri")] + ["question", "iri"]
    best: tuple[int, str, list[tuple[int, int]]] | None = None
    for field in order:
        text = _unmarked(words.get(field))
        wanted = tuple(w for f, w in terms if f in (None, field))
        found, hits = _found(text, wanted)
        if found and (best is None or len(hits) > best[0]):
            best = (len(hits), field, found)
    if best is None:
        return None
    _, field, found = best
    text = _unmarked(words.get(field))
    at = found[0][0]
    before = [m.start() for m in _WORD.finditer(text, max(0, at - 40 * tokens), at)][-(tokens // 4):]
    start = before[0] if before else at
    after = [m.end() for m in _WORD.finditer(text, at, at + 40 * tokens)][:tokens - len(before)]
    end = after[-1] if after else found[0][1]
    end = len(text) if not _WORD.search(text, end) else end
    start = 0 if not _WORD.search(text[:start]) else start
    marked, position = [], start
    for s, e in found:
        if start <= s and e <= end:
            marked += [text[position:s], MARKS[0], text[s:e], MARKS[1]]
            position = e
    marked.append(text[position:end])
    return {"field": field, "snippet": ("…" if start else "") + "".join(marked) + ("…" if end < len(text) else "")}


def _found(text: str, wanted: Sequence[str]) -> tuple[list[tuple[int, int]], set[str]]:
    """The spans of the words of ``text`` that start with one of ``wanted`` (folded words), and
    which of ``wanted`` were found. Where folding keeps the text's length (ASCII, most Latin
    text) one regular expression on the folded text finds them; else word by word."""
    folded = fold(text)
    wanted = tuple(w for w in wanted if w in folded)  # a word found is in the folded text
    if not wanted:
        return [], set()
    if len(folded) == len(text):
        pattern = re.compile(r"(?<![^\W_])(?:" + "|".join(re.escape(w) for w in sorted(wanted, key=len, reverse=True))
                             + r")[^\W_]*")
        found = [m.span() for m in pattern.finditer(folded)]
        hits = {w for s, e in found for w in wanted if folded.startswith(w, s)}
        return found, hits
    found, hits = [], set()
    for m in _WORD.finditer(text):
        word = fold(m.group())
        hit = [w for w in wanted if word.startswith(w)]
        if hit:
            found.append(m.span())
            hits.update(hit)
    return found, hits


def _unmarked(text: str | None) -> str:
    """``text`` ("" for None) with the characters of ``MARKS`` made spaces."""
    return (text or "").replace(MARKS[0], " ").replace(MARKS[1], " ")


def _plain_words(text: str) -> list[str]:
    """The words of ``text`` (``capped``) lower-cased, accents kept (NFC), each once, at most
    ``MAX_WORDS``."""
    return _distinct((m.group() for m in _WORD.finditer(unicodedata.normalize("NFC", capped(text)).lower())), MAX_WORDS)


INDEX_SEARCH = TextSearch("index", "Words anywhere in a session: its question, answer, thoughts, tools and their "
                                   "arguments, observations, errors, findings, step results and IRI; in any order, "
                                   "ignoring case and accents; each word matches the start of a word (full-text "
                                   "index). Name a field to search only there: answer:, tool:, error:, question:, "
                                   "thought:, observation:, finding:, result:, iri:.")
GATEWAY_SEARCH = TextSearch("gateway", "Words in the question or the session IRI of every session, and anywhere "
                                       "(answer, thoughts, tools, observations, errors, …) in the sessions read so "
                                       "far; in any order, ignoring case and accents. Name a field to search only "
                                       "there: answer:, tool:, error:, question:. To search every word of every "
                                       "session, sync the deployment into a local store.")
REGEX_SEARCH = TextSearch("regex", "Words in the question or the session IRI, in any order, ignoring case and "
                                   "accents (SPARQL REGEX on the server: slower on large stores).")
CONTAINS_SEARCH = TextSearch("contains", "Words in the question or the session IRI, in any order, ignoring case "
                                         "(accents count on this source).")
NO_SEARCH = TextSearch("none", "This source cannot search the text of its sessions.")
