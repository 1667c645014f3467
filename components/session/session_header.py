"""The top of the session page: where the session sits (parent, sub-sessions), its question,
mechanism, pattern, time, status, the problems found in its trace, the totals that matter and
the answer.

Problems inside a loaded trace (a value that does not parse, ``tg:arguments`` that is not JSON,
a cycle in ``wasDerivedFrom``, a root without types, a step two sessions claim) are warnings on the session that holds
them: the rest of the session reads normally and the collection is not affected."""

from __future__ import annotations

from collections.abc import Callable

import streamlit as st

from trace_explorer.model.literals import format_time
from trace_explorer.model.session import Session
from trace_explorer.model.summary import status
from trace_explorer.model.totals import session_totals, totals_text

from ..collection import Collection
from ..navigation import list_address, page_params
from ..text import SESSION_PAGE, SESSIONS_PAGE, badge_escape, clip, format_ms, long_text, md_escape

MECHANISM_COLOURS = {"Agent": "blue", "GraphRAG": "violet", "DocRAG": "orange"}
QUESTION_LIMIT = 400  # characters of the question in the heading
WARNINGS_SHOWN = 8  # problems listed in the warning itself; all of them are in the table below it
ANSWER_LIMIT = 1500  # characters of the answer in the header (the whole text is a download away)


def _clip_lines(text: str, width: int) -> str:
    """``text`` cut to ``width`` characters with an ellipsis (line breaks kept)."""
    return text if len(text) <= width else text[: width - 1] + "…"


def session_link(target: str, collection: Collection, prefix: str = "", icon: str | None = None) -> None:
    """A link to the session page of ``target`` (an IRI), labelled with its question."""
    other = collection.by_id.get(target)
    text = clip(other.question, 70) if other and other.question else target
    kind = f"{other.mechanism} · " if other else ""
    st.page_link(SESSION_PAGE, label=md_escape(f"{prefix}{kind}{text}", one_line=True),
                 query_params=page_params({"session": target}), icon=icon, help=md_escape(target))


def session_header(session: Session, collection: Collection, actions: Callable[[], None] | None = None,
                   running: bool = False) -> None:
    """Draw the header of ``session``; ``actions`` draws the page's menus (the Export menu) at
    the right of its first row, at the top of the page, where a menu has the room to open
    downwards in view. ``running``: the session is followed as it grows (no answer yet): its
    status says "running", as the list's row does, not "unfinished"."""
    crumbs = st.container(horizontal=True, gap="medium", vertical_alignment="center")
    with crumbs:
        st.page_link(SESSIONS_PAGE, label="Sessions", icon=":material/arrow_back:", query_params=list_address())
        if session.parent_session:
            session_link(session.parent_session, collection, prefix="Parent: ",
                         icon=":material/subdirectory_arrow_left:")
        elif session.parent:
            st.caption(md_escape(f"Derives from {session.parent} (not loaded)"))
        if actions is not None:
            actions()

    question = session.question or "(no question recorded)"
    st.subheader(md_escape(_clip_lines(question, QUESTION_LIMIT)), anchor=False)
    if len(question) > QUESTION_LIMIT:
        with st.expander(f"The whole question ({len(question):,} characters)"):
            long_text(question, name="question", key="te_full_question")

    answered = status(session) == "answered"
    reason = session.nodes[session.answer_id].fields.get("termination_reason") if session.answer_id else None
    badges = [(badge_escape(session.mechanism), MECHANISM_COLOURS.get(session.mechanism, "gray"), ":material/hub:"),
              (badge_escape(session.pattern), "gray", ":material/alt_route:") if session.pattern else None,
              ("running" if running and not answered else status(session), "green" if answered else "orange",
               ":material/check_circle:" if answered else (":material/sync:" if running else ":material/pending:"))]
    if reason and reason not in ("final-answer", "plan-complete"):
        badges.append((badge_escape(f"stopped: {reason}"), "orange", ":material/block:"))
    if session.tool_errors:
        badges.append((f"{session.tool_errors} tool error" + ("s" if session.tool_errors > 1 else ""), "red",
                       ":material/error:"))
    if session.parse_errors:  # a failed LLM call, not a tool's
        badges.append((f"{session.parse_errors} model repl" + ("ies" if session.parse_errors > 1 else "y")
                       + " not parsed", "orange", ":material/error:"))
    if session.shape == "seed":
        badges.append(("seed shape", "gray", None))
    with st.container(horizontal=True, gap="small", vertical_alignment="center"):
        # one Markdown element for every badge (st.badge draws one each; the browser draws each
        # element of a first view in turn)
        st.markdown(" ".join(badge_markdown(*b) for b in badges if b), width="content")
        st.caption(md_escape(f"{format_time(session.time) or 'time unknown'} · {session.id}"), width="content")

    session_warnings(session)
    _totals(session, collection)

    with st.container(border=True):
        st.caption("Answer")
        if session.answer:
            long_text(session.answer, name="answer", limit=ANSWER_LIMIT, key="te_full_answer")
        elif session.answer_id:
            st.caption(md_escape(f"The answer's text is not in the loaded files ({session.answer_id}). "
                                 "Add the matching *.documents.json file to see it."))
        else:
            st.caption("No answer recorded: the session did not reach a Conclusion or Synthesis.")

    if session.children:
        with st.container(horizontal=True, gap="small", vertical_alignment="center"):
            st.caption(f"Sub-sessions ({len(session.children)}):", width="content")
            for child in session.children:
                session_link(child, collection, icon=":material/subdirectory_arrow_right:")


def badge_markdown(label: str, color: str, icon: str | None = None) -> str:
    """The Markdown of one badge, as ``st.badge(label, color=color, icon=icon)`` writes it
    (Streamlit's ``:color-badge[icon label]`` directive, the label's square brackets escaped);
    ``label`` as ``badge_escape`` gives it."""
    escaped = label.replace("[", "\\[").replace("]", "\\]")
    return f":{color}-badge[{icon + ' ' if icon else ''}{escaped}]"


def problems(session: Session) -> list[str]:
    """What is wrong in ``session``'s trace, in words: the reader's warnings (each step's values
    that do not parse, a root with no ``rdf:type``, a step two sessions claim, a cycle)."""
    return list(session.warnings)


def session_warnings(session: Session) -> None:
    """One warning listing the problems in ``session``'s trace (the first WARNINGS_SHOWN), and a
    table of all of them when there are more. Nothing when the trace is clean."""
    found = problems(session)
    if not found:
        return
    count = len(found)
    lines = [f"This session's trace has {count} problem{'s' if count != 1 else ''}; "
             "the values concerned are shown as missing or as they were recorded:"]
    lines += [f"• {_short(problem, session)}" for problem in found[:WARNINGS_SHOWN]]
    if count > WARNINGS_SHOWN:
        lines.append(f"… and {count - WARNINGS_SHOWN:,} more (all of them below).")
    st.warning(md_escape("\n".join(lines)), icon=":material/warning:")
    if count > WARNINGS_SHOWN:
        with st.expander(f"All {count:,} problems", icon=":material/warning:"):
            st.dataframe([{"Problem": _short(problem, session)} for problem in found], hide_index=True,
                         width="stretch")


def _short(problem: str, session: Session) -> str:
    """A problem with the session's own IRI shortened: "…/i1: …" for a step IRI that extends it."""
    text = clip(problem, 600)
    return "…" + text[len(session.id):] if text.startswith(session.id + "/") else text


def _totals(session: Session, collection: Collection) -> None:
    """The figures that matter, each the session's own and, when its sub-sessions add to it,
    with them: "780 own · 13,333 with sub-sessions" (docs/reading-traces.md, "Totals"; ``model.totals``)."""
    figures = session_totals(session, collection.by_id)
    own, total = figures["own"], figures["total"]

    def shown(name: str, form=None) -> str | None:
        return totals_text(own[name], total[name], form=form) if total[name] is not None else None

    subs = len(session.children)
    values = [
        ("Steps", f"{len(session.steps):,}", None),
        ("Tool calls", f"{len(session.actions):,}" if session.actions else None, None),
        ("Duration", shown("duration_ms", format_ms), "LLM time + tool time recorded by the steps (a trace has "
                                                        "no end time); sub-sessions that ran side by side each add theirs"),
        ("LLM time", shown("llm_ms", format_ms), "tg:llmDurationMs of the steps"),
        ("Tool time", shown("tool_ms", format_ms), "tg:toolDurationMs, once per tool call"),
        ("Tokens", shown("tokens"), f"in: {totals_text(own['tokens_in'], total['tokens_in'])}; "
                                    f"out: {totals_text(own['tokens_out'], total['tokens_out'])}"),
        ("Sub-sessions", f"{subs:,}" + (f" ({figures['sub_sessions']:,} in all)" if figures["sub_sessions"] > subs else "")
         if subs else None, "counted in the figures: every sub-session below this one that is loaded"),
    ]
    row = st.container(horizontal=True, gap="small")
    with row:
        for label, value, help_text in values:
            if value is not None:
                st.metric(label, value, border=True, width="content", help=help_text)
