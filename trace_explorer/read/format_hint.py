"""Which format a file's text looks like, when its parser (chosen by its name: ``formats``)
refused it: a hint added to the one error line, such as ``trace.nq:1:1: expected valid N-Quads;
the parser says: …  (this looks like Turtle; name the file trace.ttl)``.

Only plain signs at the start of the text count (its first 8 KiB, ``streams.HEAD``; a byte
order mark, blank lines and ``#`` comments skipped):

- ``@prefix``, ``PREFIX``, ``@base`` or ``BASE``: Turtle, or TriG when a line opens a named
  graph (``<g> {``, ``GRAPH tg:g {``);
- ``{"`` or ``[`` and a value: JSON-LD when it names ``@context``, ``@graph`` or ``@id``, a
  content file when its first value is a string, else TrustGraph wire JSON; another ``{``:
  TriG's default graph;
- ``<?xml`` or ``<rdf:RDF``: RDF/XML;
- a first line of four terms and a dot: N-Quads.

Nothing is said where the signs are those of the format the name gives, or of none.
"""

from __future__ import annotations

import re
from pathlib import Path

import pyoxigraph as ox

_SKIPPED = re.compile(r"(?:\ufeff)?(?:\s+|#[^\n]*)*")
_DIRECTIVE = re.compile(r"(?i)(?:@prefix|@base|prefix|base)\s")
_GRAPH_OPENED = re.compile(r"(?im)^[ \t]*(?:graph\s+)?(?:<[^>\s]*>|[\w-]*:[\w.-]*)[ \t]*\{")  # a named graph
_JSON_START = re.compile(r'\{\s*["}]|\[\s*(?:[\[{"\d-]|true\b|false\b|null\b|\]\s*$)')
_IRI = r"<[^>\s]*>"
_TERM = rf'(?:{_IRI}|_:\S+|"(?:[^"\\]|\\.)*"(?:\^\^{_IRI}|@[\w-]+)?)'
_QUAD_LINE = re.compile(rf"(?:{_IRI}|_:\S+)\s+{_IRI}\s+{_TERM}\s+(?:{_IRI}|_:\S+)\s*\.[ \t]*(?:#[^\n]*)?(?:\n|$)")
_JSON_LD_KEYS = re.compile(r'"@(?:context|graph|id)"\s*:')

# what each look is named and the suffix it takes
_LOOKS = {
    ox.RdfFormat.TURTLE: ("Turtle", ".ttl"),
    ox.RdfFormat.TRIG: ("TriG", ".trig"),
    ox.RdfFormat.N_QUADS: ("N-Quads", ".nq"),
    ox.RdfFormat.JSON_LD: ("JSON-LD", ".jsonld"),
    ox.RdfFormat.RDF_XML: ("RDF/XML", ".rdf"),
}
_WIRE = ("TrustGraph wire JSON", ".json")
_CONTENT = ("a content file", ".documents.json")
_TEXT_MEMBER = re.compile(r'\{\s*"(?:[^"\\]|\\.)*"\s*:\s*"')  # {"key": "a string


def format_hint(name: str, fmt: ox.RdfFormat, head: bytes) -> str:
    """`` (this looks like FORMAT; name the file NEW-NAME)`` when the text that begins with
    ``head`` looks like another format than ``fmt`` (see the module), else ""."""
    text = head.decode("utf-8", errors="replace")
    text = text[_SKIPPED.match(text).end():]
    look = _look(text)
    if look is None or look[0] == _LOOKS.get(fmt, ("",))[0]:
        return ""
    if fmt in (ox.RdfFormat.TRIG, ox.RdfFormat.N3) and look[0] == "Turtle":
        return ""  # text those parsers read too; what they refused is elsewhere
    label, suffix = look
    return f" (this looks like {label}; name the file {_renamed(name, suffix)})"


def _look(text: str) -> tuple[str, str] | None:
    if _DIRECTIVE.match(text):
        return _LOOKS[ox.RdfFormat.TRIG] if _GRAPH_OPENED.search(text) else _LOOKS[ox.RdfFormat.TURTLE]
    if _JSON_START.match(text):
        if _JSON_LD_KEYS.search(text):
            return _LOOKS[ox.RdfFormat.JSON_LD]
        return _CONTENT if _TEXT_MEMBER.match(text) else _WIRE
    if text.startswith("{"):  # TriG's default graph
        return _LOOKS[ox.RdfFormat.TRIG]
    if text.startswith(("<?xml", "<rdf:RDF")):
        return _LOOKS[ox.RdfFormat.RDF_XML]
    if _QUAD_LINE.match(text):
        return _LOOKS[ox.RdfFormat.N_QUADS]
    return None


def _renamed(name: str, suffix: str) -> str:
    """``name``'s last part with ``suffix`` for its format's suffix (a ``.gz`` kept)."""
    path = Path(Path(name).name)
    gz = path.suffix.lower() == ".gz"
    if gz:
        path = path.with_suffix("")
    return path.with_suffix(suffix).name + (".gz" if gz else "")
