"""Answer support for one session: its answer cut into sentences, and for each the texts of the
session that back it (``evidence.session_sources``, scored by ``matcher.Matcher``) or the verdict
that nothing in the trace does.

``support_record`` is the JSON contract of ``trace-explorer support --format json``::

    {"session": IRI, "answer": text,
     "sentences": [{"text": sentence, "start": offset, "end": offset, "supported": true|false,
                    "support": [{"step": IRI, "kind": "Observation"|"Chunk"|"Edge"|"Finding"|"StepResult",
                                 "score": 0..1, "chunk": IRI|null, "edge": [s, p, o]|null,
                                 "spans": [[start, end], ...]}]}]}

An answer over the cap on the check's work (``budget.over_budget``) has no sentences and
``"unchecked": "answer support not checked: …"`` (the key is there only then).

Offsets count characters (Python ``str`` indexes, not bytes): ``start``/``end`` in the answer,
``spans`` in the backing text (an Observation's, a chunk's, a Finding's or a StepResult's words,
or for an edge its labels joined by spaces, ``evidence.edge_text``). A sentence with no content
word to check ("Yes.") is supported with no support.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from ...model.session import Session
from .budget import over_budget
from .embedding import WordVectors, word_vectors
from .evidence import Source, session_context, session_sources, session_texts
from .matcher import Matcher
from .reading import Evidence
from .settings import Settings
from .sentences import split_sentences

# Bounds on untrusted text: the sentences of an answer past its first MAX_ANSWER_CHARS characters,
# and the texts of a session past its first MAX_SOURCES, are left out.
MAX_ANSWER_CHARS = 20_000
MAX_SOURCES = 2_000


@dataclass(frozen=True)
class Backing:
    """One text backing a sentence: ``source`` (its step, kind, text, chunk, edge), ``score``
    (0-1, the share of the sentence's weight it matches) and ``spans`` of its text that match."""

    source: Source
    score: float
    spans: list[list[int]]


@dataclass
class SentenceSupport:
    """One sentence of the answer: ``text``, ``start``/``end`` in the answer, ``supported``,
    ``support`` (strongest first), ``missing`` (terms of its unbacked claims that no text of the
    session holds, in any form the matcher accepts), ``undecided`` (True when the matcher's
    verdict stands close to its threshold: a judge, where one is configured, is asked about such
    a sentence) and ``unbacked`` (its claims nothing backs, as ``(start, end)`` offsets in the
    answer)."""

    text: str
    start: int
    end: int
    supported: bool
    support: list[Backing] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)
    undecided: bool = False
    unbacked: list[tuple[int, int]] = field(default_factory=list)

    def unbacked_claims(self, answer: str) -> list[str]:
        """The words of the claims nothing backs (``answer``: the answer the offsets count in)."""
        return [answer[a:b] for a, b in self.unbacked]


@dataclass
class AnswerSupport:
    """A session's answer with its support: ``session`` IRI, ``answer`` (None: no answer),
    ``sentences`` in order, ``sources`` every text of the session that could back it;
    ``unchecked``: why the answer was not checked (over ``budget.over_budget``'s cap, or past
    the app's deadline: ``bounded``), its sentences then left empty."""

    session: str
    answer: str | None
    sentences: list[SentenceSupport]
    sources: list[Source]
    unchecked: str | None = None

    @property
    def unsupported(self) -> list[SentenceSupport]:
        """The sentences nothing in the trace backs."""
        return [s for s in self.sentences if not s.supported]


def session_support(session: Session, chunk_texts: Mapping[str, str] | None = None,
                    settings: Settings = Settings(), vectors: WordVectors | None = None,
                    family: Mapping[str, Session] | None = None) -> AnswerSupport:
    """The support of ``session``'s answer (see the module for what it holds).

    ``chunk_texts``: chunk IRI -> text for a DocRAG Exploration's chunks (read from the source);
    ``family``: the session and its sub-sessions by IRI (``index.family.fetch_family``): the
    texts of its sub-sessions back its answer too (a tool that ran GraphRAG, a supervisor's
    sub-agents);
    ``vectors``: the word embeddings (default: ``embedding.word_vectors()``, loaded once per
    process, about 1 s). Raises nothing on odd input: a session without an answer has no
    sentences, one without texts has every sentence unsupported. Bounded for untrusted text: the
    first ``MAX_ANSWER_CHARS`` of the answer, ``MAX_SOURCES`` texts, ``reading.MAX_TEXT_CHARS``
    of each and ``reading.MAX_SENTENCE_CHARS`` of each sentence are read."""
    sources = session_sources(session, chunk_texts, family)[:MAX_SOURCES]
    answer = session.answer
    if not answer or not answer.strip():
        return AnswerSupport(session.id, answer, [], sources)
    if vectors is None and (settings.similar is not None or settings.phrase is not None):
        vectors = word_vectors()
    spans = split_sentences(answer[:MAX_ANSWER_CHARS])
    if why := over_budget(len(spans), len(sources)):
        return AnswerSupport(session.id, answer, [], sources, unchecked=why)

    def everything() -> list[Evidence]:
        return [Evidence.of(t) for t in session_texts(session, chunk_texts, family)[:MAX_SOURCES * 4]]

    context = [Evidence.of(t) for t in session_context(session, family)[:MAX_SOURCES]]
    matcher = Matcher([Evidence.of(s.text) for s in sources], settings, vectors, everything, context)
    sentences = []
    for start, end in spans:
        text = answer[start:end]
        match = matcher.match(text)
        backed = match.backed is not False
        support = [Backing(sources[i], score, spans) for i, score, spans in match.cited] if match.backed else []
        unbacked = [(start + c.start, start + c.end) for c in match.claims if not c.backed]
        sentences.append(SentenceSupport(text, start, end, backed, support, match.missing, match.undecided,
                                         unbacked))
    return AnswerSupport(session.id, answer, sentences, sources)


def verdict(sentence: SentenceSupport, answer: str, clip_at: int = 160) -> str:
    """What a view says of an unsupported sentence: "nothing in this trace supports it", or,
    when only some of its claims are unbacked, those claims ("nothing in this trace supports
    \"the film was shot partly at Eberbach Abbey\""), then the terms no step holds in any form
    (" (not found in any step: Abbey)"); each claim cut to ``clip_at`` characters."""
    claims = sentence.unbacked_claims(answer)
    whole = len(claims) == 1 and _letters(claims[0]) == _letters(sentence.text)
    if claims and not whole:
        said = "nothing in this trace supports " + "; ".join(
            '"' + (c if len(c) <= clip_at else c[:clip_at - 1] + "…") + '"' for c in claims)
    else:
        said = "nothing in this trace supports it"
    if sentence.missing:
        said += f" (not found in any step: {', '.join(dict.fromkeys(sentence.missing))})"
    return said


def _letters(text: str) -> str:
    return "".join(c for c in text if c.isalnum())


def support_record(support: AnswerSupport) -> dict:
    """``support`` as the JSON contract (see the module), with ``"unchecked": why`` when the
    answer was not checked (``AnswerSupport.unchecked``)."""
    return {"session": support.session, "answer": support.answer,
            **({"unchecked": support.unchecked} if support.unchecked else {}),
            "sentences": [{"text": s.text, "start": s.start, "end": s.end, "supported": s.supported,
                           "support": [_backing_record(b) for b in s.support]} for s in support.sentences]}


def _backing_record(backing: Backing) -> dict:
    source = backing.source
    return {"step": source.step, "kind": source.kind, "score": backing.score, "chunk": source.chunk,
            "edge": list(source.edge) if source.edge else None, "spans": [list(s) for s in backing.spans]}


def step_support(support: AnswerSupport) -> dict[str, dict]:
    """Per step, what it backs: step IRI -> ``{"score": best score 0-1, "sentences": [sentence
    indexes], "texts": [{"kind", "text", "chunk", "edge", "spans"}]}``: plain data for a view that
    marks the steps behind an answer (the DAG, the timeline)."""
    out: dict[str, dict] = {}
    for index, sentence in enumerate(support.sentences):
        for backing in sentence.support:
            source = backing.source
            entry = out.setdefault(source.step, {"score": 0.0, "sentences": [], "texts": []})
            entry["score"] = max(entry["score"], backing.score)
            if index not in entry["sentences"]:
                entry["sentences"].append(index)
            entry["texts"].append({"kind": source.kind, "text": source.text, "chunk": source.chunk,
                                   "edge": list(source.edge) if source.edge else None,
                                   "spans": [list(s) for s in backing.spans], "sentence": index})
    return out


def support_text(support: AnswerSupport) -> str:
    """``support`` as lines of text: each sentence, then its backing steps with their score and
    matching words, or ``verdict``."""
    lines = [f"session {support.session}"]
    if not support.answer:
        return "\n".join(lines + ["no answer"]) + "\n"
    if support.unchecked:
        return "\n".join(lines + [support.unchecked]) + "\n"
    for number, sentence in enumerate(support.sentences, 1):
        lines.append(f"{number}. {sentence.text}")
        if not sentence.supported:
            lines.append(f"   UNSUPPORTED: {verdict(sentence, support.answer)}")
        for backing in sentence.support:
            source = backing.source
            where = f" chunk {source.chunk}" if source.chunk else (" edge " + " ".join(source.edge) if source.edge else "")
            words = ", ".join(repr(w) for w in dict.fromkeys(source.text[a:b] for a, b in backing.spans))
            lines.append(f"   {backing.score:.2f} {source.kind} {source.step}{where}")
            if words:
                lines.append(f"        matching: {words}")
    unsupported = len(support.unsupported)
    count = len(support.sentences)
    lines.append(f"{count} sentence{'' if count == 1 else 's'}, {unsupported} unsupported")
    return "\n".join(lines) + "\n"
