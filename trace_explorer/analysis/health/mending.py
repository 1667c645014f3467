"""What a later file may mend: the findings that depend on what else is loaded, and, for each,
the IRIs whose arrival would change it, so that an ingest checks again only the sessions it
may have mended rather than every session with such a finding (at 100,000 sessions, 91,000 of
them and five minutes for a file of six sessions).

A finding of ``CONTEXT_RULES`` names what it lacks (``wants``), each as ``kind:IRI``:

- ``d:`` (described): the target of a dangling derivation (``DANGLING_DERIVATION``), mended once
  something gives it a type, a ``tg:query``, or a derivation or generation of its own (the
  shape ``teh:DerivationTargets``: ``shape_checks``);
- ``t:`` (text): the ``tg:document`` IRI of a step or chunk without its text (``MISSING_TEXT``,
  ``MISSING_CHUNK_TEXT``), or a chunk the answer's support could not read
  (``UNSUPPORTED_SENTENCE``), mended once it has a ``tg:content`` (a content file's text).

A session whose every context finding names what it lacks keeps its health row through an
ingest unless one of those IRIs now has what it lacked (``mended``); an unsupported sentence
whose chunks were all read names nothing, and no other file can change it. A finding that
cannot name it (``TIME_BEFORE_PARENT``: the parent's start time may change; a target that is
a literal or a triple term) makes the session's wants unknown (None), and it is checked again
after every ingest, as every such session was before. So is a session whose row was written
before its wants were kept (``session_insights``: the column is NULL).
"""

from __future__ import annotations

from collections.abc import Collection, Iterable

import pyoxigraph as ox

from ...model.vocabulary import CONTENT, QUERY, RDF_TYPE, WAS_DERIVED_FROM, WAS_GENERATED_BY
from .rules import DANGLING_DERIVATION, MISSING_CHUNK_TEXT, MISSING_TEXT, TIME_BEFORE_PARENT, UNSUPPORTED_SENTENCE

# Findings that depend on what else is loaded: checked again after an ingest that may mend them.
CONTEXT_RULES = (DANGLING_DERIVATION, MISSING_TEXT, MISSING_CHUNK_TEXT, TIME_BEFORE_PARENT, UNSUPPORTED_SENTENCE)
DESCRIBED, TEXT = "d", "t"
_KIND = {DANGLING_DERIVATION: DESCRIBED, MISSING_TEXT: TEXT, MISSING_CHUNK_TEXT: TEXT}
_MENDING = {DESCRIBED: (RDF_TYPE, QUERY, WAS_DERIVED_FROM, WAS_GENERATED_BY), TEXT: (CONTENT,)}


def text_wants(iris: Iterable[str]) -> tuple[str, ...]:
    """The wants of a finding mended by the texts of ``iris`` (chunk or document IRIs)."""
    return tuple(f"{TEXT}:{iri}" for iri in iris)


def finding_wants(rule: str, triple: str | None, given: tuple[str, ...] | None) -> tuple[str, ...] | None:
    """What would mend one finding of ``rule``: ``given`` when its check said (an unsupported
    sentence: ``text_wants`` of its unread chunks); else, for a dangling derivation or a missing
    text, the object of its ``triple`` (``<s> <p> <o>``, as ``model.problems.triple_text`` writes
    it) when that is an IRI; None when it cannot be said; () for a rule no other file changes."""
    if rule not in CONTEXT_RULES:
        return ()
    if given is not None:
        return given
    kind = _KIND.get(rule)
    last = triple.rsplit(" ", 1)[-1] if triple else ""
    if kind is None or not (last.startswith("<") and last.endswith(">")):
        return None
    return (f"{kind}:{last[1:-1]}",)


def session_wants(wants: Iterable[tuple[str, ...] | None]) -> str | None:
    """A session's wants, from those of its findings (``finding_wants``): the IRIs joined by
    spaces, in order, each once ("" when nothing can mend it), or None when any is unknown."""
    out: dict[str, None] = {}
    for one in wants:
        if one is None:
            return None
        out.update(dict.fromkeys(one))
    return " ".join(out)


def mended(store: ox.Store, wants: Iterable[str], texts_given: Collection[str] | None = None,
           only_texts: bool = False) -> set[str]:
    """Those of ``wants`` (``kind:IRI``) that ``store`` now has what they lacked for: a triple
    in any graph with the IRI as subject and one of the kind's predicates (never for a key that
    is no IRI, which a store cannot hold; always for a kind this module does not know); about
    15 us a want on a store of 7 million quads whose pages are cached, 100 us on one of 9.3
    million read from disk.

    The ingest's hints, which spare the look-ups: ``texts_given``, the IRIs it gave a text to
    (``read.collection.LoadedSource.text_iris``, every file's): a text want is mended when its
    IRI is among them, with no look-up (an empty set: the ingest added no text, so none is; a
    content file into a store of 100,000 sessions asked 261,000 text wants of it, 28 s); None:
    each is looked up. ``only_texts``: the ingest brought nothing but texts (content files), so
    no description want is mended either."""
    out = set()
    for want in wants:
        kind, _, iri = want.partition(":")
        if kind not in _MENDING:  # not one this module wrote: checked again
            out.add(want)
            continue
        if kind == TEXT and texts_given is not None:
            if iri in texts_given:
                out.add(want)
            continue
        if kind == DESCRIBED and only_texts:
            continue
        try:
            subject = ox.NamedNode(iri)
        except ValueError:  # "chunk-id-1": no store holds a text or a description for it
            continue          # (``sources.store_source.StoreSource.document_texts`` skips it too)
        if any(next(iter(store.quads_for_pattern(subject, ox.NamedNode(p), None, None)), None) is not None
                 for p in _MENDING[kind]):
            out.add(want)
    return out
