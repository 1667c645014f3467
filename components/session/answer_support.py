"""The answer's support on the session page: the answer sentence by sentence, each a button;
unsupported sentences marked. A click on a sentence selects its best supporting step in the
session workspace (``workspace.select_step``: the timeline, graph, inspector and the URL's
``&step=`` follow) and shows that step's text, and any other backing text, with the words that
match the sentence marked.

Where the operator configured a judge (``answer_judge``), its verdict on each sentence the
matcher cannot decide is shown under that sentence, and its prompt with the selected one.

The support of a visitor's trace is checked in a worker process under a deadline
(``analysis.support.bounded``; the bundled demo's in the server): past it, or over the cap on the
check's work (``analysis.support.budget``), the panel says why instead. The chosen sentence's
matching words are marked in the workspace's inspector too (``workspace.select_step``'s
``matching``).

``step_support_state`` keeps, per session, the plain dict ``analysis.support.support.step_support``
(step IRI -> score, sentence indexes, backing texts with their spans) in ``st.session_state``
under ``SUPPORT_STATE_KEY``: a view that marks the steps behind the answer reads it there.
"""

from __future__ import annotations

import html

import streamlit as st

from trace_explorer.analysis.support.bounded import supports_in_worker, supports_trusted
from trace_explorer.analysis.support.evidence import members, unread_chunks
from trace_explorer.analysis.support.support import AnswerSupport, step_support, verdict
from trace_explorer.model.session import Session
from trace_explorer.views.marked_text import marked_html

from .answer_judge import answer_judgement, judge_caption, judge_details
from ..collection import Collection
from ..reviews.on_page import page_reviews, review_here
from ..reviews.targets import sentence_target
from ..text import clip, md_escape
from .workspace import select_step

SENTENCE_KEY = "te_support_sentence"  # (session IRI, index of the sentence clicked)
SUPPORT_STATE_KEY = "te_answer_support"  # session IRI -> step_support(...)
TEXT_CHARS = 3000  # of one backing text shown
MATCH_CHARS = 20_000  # of one backing text whose matching words the inspector marks (the matcher reads as many)
# its own text colour on its own background: in the dark theme the page's light text on this light
# background could not be read
_TEXT_STYLE = ("white-space: pre-wrap; background: #f8fafc; color: #0f172a; border-left: 3px solid #94a3b8; "
               "padding: 4px 8px; font-size: 0.9em; max-height: 16em; overflow-y: auto")
# The chosen sentence is a primary button (the theme's blue, white words); an unsupported one is
# red there instead: red words on that blue could not be read (light or dark theme alike).
_CHOSEN_UNSUPPORTED = ("<style>.st-key-te_support_{n} [data-testid='stBaseButton-primary'] "
                       "{{ background-color: #b91c1c; border-color: #b91c1c; color: #ffffff; }}</style>")


@st.cache_resource(show_spinner=False, max_entries=16)
def _support(collection_key: tuple, session_id: str, answer: str | None, trusted: bool, family_ids: tuple[str, ...],
             _session: Session, _chunks: dict[str, str], _family: dict[str, Session]) -> AnswerSupport:
    """The support of a session's answer (shared, never changed): checked in this process for
    the demo (``trusted``), else in a worker process under a deadline, which past it gives an
    AnswerSupport whose ``unchecked`` says so (``analysis.support.bounded``)."""
    return (supports_trusted if trusted else supports_in_worker)([(_session, _chunks, _family)])[0]


def answer_support(session: Session, collection: Collection) -> AnswerSupport:
    """The support of ``session``'s answer, from its texts and its sub-sessions' (those the
    collection read with it), the chosen chunks' texts read from the collection."""
    family = {m.id: m for m in members(session, collection.by_id)}
    wanted = unread_chunks(session, family)
    chunks = collection.texts(wanted) if wanted else {}
    return _support(collection.key, session.id, session.answer, collection.trusted, tuple(family), session, chunks,
                    family)


def step_support_state(session: Session, support: AnswerSupport) -> dict[str, dict]:
    """``step_support(support)``, kept in ``st.session_state[SUPPORT_STATE_KEY][session.id]``."""
    per_step = step_support(support)
    st.session_state.setdefault(SUPPORT_STATE_KEY, {})[session.id] = per_step
    return per_step


def _choose(session_id: str, index: int, steps: list[str], matching: dict[str, list[dict]]) -> None:
    """Sentence ``index`` was clicked: select its best step (``steps``: those backing it, best
    first), mark them all in the workspace and, in its inspector, their words that match
    (``matching``: ``sentence_matching``)."""
    st.session_state[SENTENCE_KEY] = (session_id, index)
    select_step(steps[0] if steps else None, steps, matching)


def sentence_matching(per_step: dict[str, dict], index: int) -> dict[str, list[dict]]:
    """Of ``step_support``'s ``per_step``, what backs sentence ``index``: step IRI ->
    ``[{"text", "spans"}]`` (each text clipped to ``MATCH_CHARS`` characters, its spans with it)."""
    out: dict[str, list[dict]] = {}
    for step, entry in per_step.items():
        for text in entry["texts"]:
            if text["sentence"] == index:
                clipped = text["text"][:MATCH_CHARS]
                out.setdefault(step, []).append({"text": clipped, "spans": [[a, min(b, len(clipped))] for a, b in
                                                                            text["spans"] if a < len(clipped)]})
    return out


def answer_support_panel(session: Session, collection: Collection) -> None:
    """The answer sentence by sentence (an open expander); nothing when the session has no
    answer text."""
    if not session.answer:
        return
    with st.spinner("Checking the answer's support…"):
        support = answer_support(session, collection)
    per_step = step_support_state(session, support)
    if support.unchecked:
        with st.expander("Answer support: not checked", expanded=True, icon=":material/hourglass_disabled:"):
            st.warning(md_escape(support.unchecked[:1].upper() + support.unchecked[1:] + "."),
                       icon=":material/hourglass_disabled:")
        return
    if not support.sentences:
        return
    unsupported = len(support.unsupported)
    judgement = answer_judgement(support)
    judged = judgement.sentences if judgement else {}
    chosen = st.session_state.get(SENTENCE_KEY)
    index = chosen[1] if isinstance(chosen, tuple) and chosen[0] == session.id else None
    title = (f"Answer support: {len(support.sentences)} sentence{'s' if len(support.sentences) != 1 else ''}"
             + (f", {unsupported} that nothing in this trace supports" if unsupported else ", each backed by a step"))
    with st.expander(title, expanded=True,
                     icon=":material/report:" if unsupported else ":material/fact_check:"):
        st.caption("Click a sentence to select the step that backs it best; its matching words are marked below.")
        for number, sentence in enumerate(support.sentences):
            best = sentence.support[0].source.step if sentence.support else None
            label = md_escape(clip(sentence.text, 400), one_line=True)
            picked = number == index
            if picked and not sentence.supported:
                st.html(_CHOSEN_UNSUPPORTED.format(n=number))
            st.button(label if sentence.supported or picked else f":red[{label}]", key=f"te_support_{number}",
                      icon=":material/check_circle:" if sentence.supported else ":material/report:",
                      type="primary" if picked else "tertiary",
                      help=(_sentence_case(verdict(sentence, support.answer)) if not sentence.supported
                            else f"Backed by {len(sentence.support)} step text(s); best: {best}"),
                      on_click=_choose, args=(session.id, number,
                                              list(dict.fromkeys(b.source.step for b in sentence.support)),
                                              sentence_matching(per_step, number)))
            if number in judged:
                judge_caption(judged[number])
        if index is not None and index < len(support.sentences):
            _review_sentence(session, collection, support, index)
            if index in judged:
                judge_details(judged[index], judgement.endpoint)
            _backings(support, index)


def _review_sentence(session: Session, collection: Collection, support: AnswerSupport, index: int) -> None:
    """The chosen sentence's Review button (a span of the answer: its words and offsets)."""
    sentence = support.sentences[index]
    answer = session.answer or ""
    if not session.answer_id or answer[sentence.start:sentence.end] == "":
        return
    target = sentence_target(session, index, answer[sentence.start:sentence.end], sentence.start, sentence.end)
    review_here(target, page_reviews(session, collection), f"sentence_{index}", label=f"Review sentence {index + 1}")


def _backings(support: AnswerSupport, index: int) -> None:
    sentence = support.sentences[index]
    if not sentence.supported:
        st.warning(md_escape(f"Sentence {index + 1}: {verdict(sentence, support.answer)}."),
                   icon=":material/report:")
        return
    for backing in sentence.support:
        source = backing.source
        where = f" · chunk {source.chunk}" if source.chunk else (" · edge " + " ".join(source.edge) if source.edge else "")
        st.caption(md_escape(f"{source.kind} {source.step}{where} · score {backing.score:.2f}", one_line=True))
        text = source.text[:TEXT_CHARS]
        spans = [(a, min(b, len(text))) for a, b in backing.spans if a < len(text)]
        st.html(f'<div class="te-support-text" data-step="{_attr(source.step)}" style="{_TEXT_STYLE}">'
                f"{marked_html(text, spans)}</div>")


def _sentence_case(text: str) -> str:
    return text[:1].upper() + text[1:]


def _attr(value: str) -> str:
    return html.escape(value, quote=True)
