"""What a session spent, on its own and with its sub-sessions (docs/reading-traces.md, "Totals").

One rule, used by the list, the session header, the sort, the comparison, ``stats`` and the
exports alike:

- ``tokens_in`` / ``tokens_out``: ``tg:inToken`` / ``tg:outToken`` summed over the steps;
- ``llm_ms``: ``tg:llmDurationMs`` summed over the steps;
- ``tool_ms``: ``tg:toolDurationMs``, counted once per tool call: on the Observation, or on an
  Analysis only when the call has no Observation of its own (the seed shape keeps the
  observation inline). TrustGraph 2.11.1 writes it on the Observation alone
  (``trustgraph.provenance.agent``); an Analysis that repeats it is not counted twice;
- ``tokens``: in + out; ``duration_ms``: LLM + tool time. A trace has no end time, only the
  Question's ``prov:startedAtTime`` (TRACE-MODEL.md, "Common step metadata"), so a duration is
  the time the steps record, not the time that elapsed.

A session's *own* figures count its own steps; its *total* adds the totals of its
sub-sessions, recursively: a tool call's GraphRAG run, a supervisor's sub-agents, a plan's
sub-sessions. Sub-sessions that ran side by side each add their own time, so a total duration
is the time worked, not the time elapsed (the waterfall shows when each one ran). A figure is
None when no step records it, on its own and, for a total, in any sub-session.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from .session import Session, Step

# the figures of a session, own and total (each an int of tokens or ms, or None)
FIGURES = ("tokens_in", "tokens_out", "tokens", "llm_ms", "tool_ms", "duration_ms")
TOTAL_PREFIX = "total_"  # a summary's key of a figure with its sub-sessions: "total_tokens"
_DEPTH_LIMIT = 64  # sub-sessions deeper than this are not followed (a loop in hostile data)


def step_duration_ms(step: Step) -> float | None:
    """The step's own duration in ms: ``tool_duration_ms`` for an Observation, else
    ``llm_duration_ms`` (falling back to the other one); None when missing or negative."""
    first, second = ("tool_duration_ms", "llm_duration_ms") if step.kind == "Observation" \
        else ("llm_duration_ms", "tool_duration_ms")
    for name in (first, second):
        value = step.fields.get(name)
        if _number(value) and value >= 0:
            return float(value)
    return None


def own_totals(session: Session) -> dict[str, int | None]:
    """The ``FIGURES`` of ``session``'s own steps (module docstring), each None when no step
    records it."""
    def total(name: str, steps: Iterable[Step]) -> int | None:
        values = [s.fields[name] for s in steps if _number(s.fields.get(name))]
        return int(sum(values)) if values else None
    tool_steps = [s for s in session.steps if not (s.kind == "Analysis" and s.fields.get("observation_id"))]
    figures = {"tokens_in": total("in_tokens", session.steps), "tokens_out": total("out_tokens", session.steps),
               "llm_ms": total("llm_duration_ms", session.steps), "tool_ms": total("tool_duration_ms", tool_steps)}
    return _with_sums(figures)


def add_totals(own: Mapping[str, Any], subs: Iterable[Mapping[str, Any]]) -> dict[str, int | None]:
    """``own`` figures plus each of ``subs`` (the sub-sessions' totals), figure by figure: a
    figure is None only when it is None everywhere. Keys are ``FIGURES``."""
    subs = list(subs)
    out: dict[str, int | None] = {}
    for name in FIGURES:
        values = [v for v in [own.get(name)] + [s.get(name) for s in subs] if _number(v)]
        out[name] = int(sum(values)) if values else None
    return out


def family(session: Session, sessions: Mapping[str, Session] | None = None) -> list[Session]:
    """``session`` and every sub-session of it found in ``sessions`` (IRI -> Session),
    recursively, each once, parents before children (a loop, a missing sub-session or one deeper
    than ``_DEPTH_LIMIT`` left out)."""
    sessions = sessions or {}
    out, seen, level = [session], {session.id}, [session]
    for _ in range(_DEPTH_LIMIT):
        below = []
        for current in level:
            for child in current.children:
                found = sessions.get(child)
                if found is not None and found.id not in seen:
                    seen.add(found.id)
                    below.append(found)
        if not below:
            break
        out += below
        level = below
    return out


def session_totals(session: Session, sessions: Mapping[str, Session] | None = None) -> dict[str, Any]:
    """``session``'s figures: ``own`` (``own_totals``), ``total`` (with every sub-session found
    in ``sessions``: ``family``) and ``sub_sessions`` (how many were counted)."""
    members = family(session, sessions)
    own = own_totals(session)
    return {"own": own, "total": add_totals(own, [own_totals(m) for m in members[1:]]),
            "sub_sessions": len(members) - 1}


def totals_text(own: Any, total: Any, unit: str = "", form=None) -> str:
    """A figure for people: "780 own · 13,333 with sub-sessions" when the total differs from the
    session's own figure, else the figure alone ("780"); "—" when neither is recorded. ``form``
    writes a number (default: thousands separated, then ``unit``)."""
    def text(value: Any) -> str:
        if not _number(value):
            return "—"
        return form(value) if form else f"{int(value):,}{unit}"
    if _number(total) and total != own:
        return f"{text(own)} own · {text(total)} with sub-sessions"
    return text(own if _number(own) else total)


def totals_lines(session: Session, sessions: Mapping[str, Session] | None = None) -> list[tuple[str, str]]:
    """``(label, text)`` of a session's tokens and duration for a header ("Tokens", "780 own ·
    13,333 with sub-sessions"; "Duration", "… ms (LLM + tool time)"), each left out when no step
    of the family records it (``session_totals`` with the sub-sessions in ``sessions``)."""
    figures = session_totals(session, sessions)
    own, total = figures["own"], figures["total"]
    out = []
    if total["tokens"] is not None:
        out.append(("Tokens", totals_text(own["tokens"], total["tokens"])))
    if total["duration_ms"] is not None:
        out.append(("Duration", totals_text(own["duration_ms"], total["duration_ms"], " ms") + " (LLM + tool time)"))
    return out


def _with_sums(figures: dict[str, int | None]) -> dict[str, int | None]:
    def plus(a: int | None, b: int | None) -> int | None:
        return None if a is None and b is None else (a or 0) + (b or 0)
    return {"tokens_in": figures["tokens_in"], "tokens_out": figures["tokens_out"],
            "tokens": plus(figures["tokens_in"], figures["tokens_out"]),
            "llm_ms": figures["llm_ms"], "tool_ms": figures["tool_ms"],
            "duration_ms": plus(figures["llm_ms"], figures["tool_ms"])}


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def format_ms(value: float | int | None) -> str:
    """Milliseconds for people: "850 ms", "7.9 s", "2 min 5 s"; "—" when missing."""
    if value is None:
        return "—"
    if value < 1000:
        return f"{value:,.0f} ms"
    seconds = value / 1000
    if seconds < 120:
        return f"{seconds:,.1f} s"
    minutes, rest = divmod(round(seconds), 60)
    return f"{minutes} min {rest} s"
