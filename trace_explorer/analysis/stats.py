"""Collection insights: what the sessions a filter selects did, in numbers (the Insights page and
``trace-explorer stats`` print the same).

On a source with a session index (a local store, files read into memory) every number comes from
the index's tables (``index.insights``) by a few queries that read no session: about
60-80 ms at 10,000 sessions (``benchmarks/stats.py``); the numbers of every session
(``stats --all``) and of every top-level session (the default view) from the groups the index
keeps as rows are written (``index.aggregates``): 1.0-1.4 ms of CPU at 100,000 sessions
against 0.8-0.9 ms at 1,000 (docs/performance.md, "Statistics at 100,000 sessions"). Sessions over time are
counted by day, week, month or year, whichever keeps the series within ``periods.MAX_PERIODS``
periods: the answer, and its cost, does not grow with the days the sessions span. A SPARQL
endpoint has no index: its sessions are read a page at a time and counted the same way.

Percentiles are nearest-rank: p50 of n sorted values is the ceil(n / 2)-th (``rank``).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import timezone
from typing import Any

from ..model.periods import period_of, period_unit
from ..model.totals import family
from ..index import aggregates as index_aggregates, reach as index_reach
from ..index.catalog import indexed, list_sessions
from ..sources.filter import SessionFilter
from ..index.list_pages import _where as index_where
from ..index.insights import COMPLETE_KEY, NO_TERMINATION, insight_row
from ..index.review_filter import attach_reviews
from ..sources.source import SourceError, TraceSource

_PAGE = 200  # sessions read per page from a source without an index


def collection_stats(source: TraceSource, filters: SessionFilter | None = None) -> dict[str, Any]:
    """The numbers of the sessions ``filters`` selects (``include_sub`` counts sub-sessions):

    ``sessions`` (n), ``by_mechanism`` and ``by_pattern`` ({name: sessions}), ``period`` (the
    unit of the series over time: "day", "week", "month" or "year", ``periods.period_unit`` of
    the first and last day), ``per_period`` ([{"period": its name (``periods.period_of``: UTC),
    "mechanism", "pattern", "sessions"}] in that order, undated sessions left out), ``undated``
    (the sessions with no ``prov:startedAtTime``, so in no period),
    ``steps_per_session`` ([{"steps", "sessions"}]) and ``steps`` ({"total", "p50", "p95",
    "max"}), ``tools`` ({tool: {"calls", "errors", "error_rate", "p50_ms", "p95_ms", "max_ms"}}),
    ``durations`` ({"llm"|"tool": {"calls", "p50_ms", "p95_ms", "max_ms"}}), ``tokens`` ({model:
    {"calls", "in", "out"}}; a call with no model under "unknown"), ``termination`` ({reason:
    sessions}; "none" for those that record none) and ``parse_errors`` (replies of the model
    that the agent could not parse, ``tg:action "__parse_error__"``: LLM calls, never counted
    among ``tools``). Durations in ms; a figure with no value is None. Sessions, steps and
    termination count the chosen sessions; the calls (tools, durations, tokens, parse errors)
    count theirs and their sub-sessions', each session once (docs/reading-traces.md, "Totals"): a supervisor's
    figures hold its sub-agents' calls. Raises SourceError when the source fails, or when its
    index predates these tables."""
    filters = filters or SessionFilter()
    groups = _from_index(source.index, filters) if indexed(source) else _from_sessions(source, filters)
    return summarize(groups)


@dataclass
class Groups:
    """The chosen sessions' numbers, grouped (what both an index and read sessions give):
    ``sessions`` [(day or None, mechanism, pattern, n)], ``steps`` [(steps, n)], ``termination``
    [(reason or None, n)], ``tools`` [(tool, calls, errors)], ``tool_spread`` {tool: (calls with a
    duration, p50, p95, max)}, ``spread`` {"llm"|"tool": (calls, p50, p95, max)}, ``tokens``
    [(model or None, calls, in, out)], ``parse_errors`` (replies of the model not parsed);
    ``period`` and ``per_period``: ``collection_stats``' series over time when the source gives
    it ready (a row a period, mechanism and pattern, in their order), the day of every
    ``sessions`` group then None; else None, and it is counted from ``sessions``."""

    sessions: list[tuple] = field(default_factory=list)
    steps: list[tuple] = field(default_factory=list)
    termination: list[tuple] = field(default_factory=list)
    tools: list[tuple] = field(default_factory=list)
    tool_spread: dict[str, tuple] = field(default_factory=dict)
    spread: dict[str, tuple] = field(default_factory=dict)
    tokens: list[tuple] = field(default_factory=list)
    parse_errors: int = 0
    period: str | None = None
    per_period: list[dict] | None = None


def summarize(groups: Groups) -> dict[str, Any]:
    """The numbers (``collection_stats``'s dict) from grouped counts."""
    by_mechanism: Counter = Counter()
    by_pattern: Counter = Counter()
    for _, mechanism, pattern, n in groups.sessions:
        by_mechanism[mechanism] += n
        if pattern:
            by_pattern[pattern] += n
    steps = sorted((k or 0, n) for k, n in groups.steps)
    expanded_total = sum(n for _, n in steps)
    termination: Counter = Counter()
    for reason, n in groups.termination:
        termination[reason or NO_TERMINATION] += n
    empty = (0, None, None, None)
    unit, series = (groups.period, groups.per_period) if groups.per_period is not None else _series(groups.sessions)
    sessions = sum(by_mechanism.values())
    return {
        "sessions": sessions,
        "by_mechanism": dict(sorted(by_mechanism.items())),
        "by_pattern": dict(sorted(by_pattern.items())),
        "period": unit,
        "per_period": series,
        "undated": sessions - sum(d["sessions"] for d in series),
        "steps_per_session": [{"steps": k, "sessions": n} for k, n in steps],
        "steps": {"total": sum(k * n for k, n in steps), "p50": _ranked(steps, 50, expanded_total),
                  "p95": _ranked(steps, 95, expanded_total), "max": steps[-1][0] if steps else None},
        "tools": {tool: {"calls": calls, "errors": errors, "error_rate": round(errors / calls, 4) if calls else None,
                         **_ms(groups.tool_spread.get(tool, empty))} for tool, calls, errors in sorted(groups.tools)},
        "durations": {kind: {"calls": groups.spread.get(kind, empty)[0], **_ms(groups.spread.get(kind, empty))}
                      for kind in ("llm", "tool")},
        "tokens": {model: {"calls": calls, "in": tokens_in, "out": tokens_out}
                   for model, calls, tokens_in, tokens_out in _by_model(groups.tokens)},
        "termination": dict(sorted(termination.items())),
        "parse_errors": groups.parse_errors,
    }


def _series(sessions: list[tuple]) -> tuple[str, list[dict]]:
    """The unit and the rows of the series over time of the ``Groups.sessions`` groups (dated
    ones only)."""
    dated = [group for group in sessions if group[0]]
    unit = period_unit(min(d for d, *_ in dated), max(d for d, *_ in dated)) if dated else "day"
    counted: Counter = Counter()
    for day, mechanism, pattern, n in dated:
        counted[(period_of(day, unit), mechanism, pattern)] += n
    return unit, [{"period": d, "mechanism": m, "pattern": p, "sessions": n}
                  for (d, m, p), n in sorted(counted.items(), key=lambda item: (item[0][0], item[0][1], item[0][2] or ""))]


def rank(p: int, n: int) -> int:
    """The 1-based nearest rank of the ``p``-th percentile (an int) among ``n`` values: ceil(p n / 100)."""
    return max(1, (p * n + 99) // 100)


def percentile(values: Sequence[float], p: int) -> float | None:
    """The nearest-rank ``p``-th percentile of ``values`` sorted ascending (None when empty)."""
    return values[rank(p, len(values)) - 1] if values else None


def spread(values: list) -> tuple:
    """``(count, p50, p95, max)`` of ``values`` (sorted here)."""
    values.sort()
    return (len(values), percentile(values, 50), percentile(values, 95), values[-1] if values else None)


def _ranked(counted: list[tuple[int, int]], p: int, total: int) -> int | None:
    """The nearest-rank percentile of a sorted [(value, how many)] list."""
    if not total:
        return None
    wanted, seen = rank(p, total), 0
    for value, n in counted:
        seen += n
        if seen >= wanted:
            return value
    return counted[-1][0]


def _ms(found: tuple) -> dict[str, Any]:
    return {"p50_ms": found[1], "p95_ms": found[2], "max_ms": found[3]}


def _by_model(rows: list[tuple]) -> list[tuple]:
    merged: dict[str, list[int]] = {}
    for model, calls, tokens_in, tokens_out in rows:
        row = merged.setdefault(model or "unknown", [0, 0, 0])
        row[0] += calls
        row[1] += tokens_in or 0
        row[2] += tokens_out or 0
    return [(m, *v) for m, v in sorted(merged.items())]


def _from_index(index, filters: SessionFilter) -> Groups:
    """The chosen sessions' numbers from the index's tables: three queries that read no session
    (the sessions grouped by day, mechanism, pattern, steps and termination; their tool calls;
    their LLM calls); every session's, or every top-level session's, from the counts the index
    keeps (``_from_aggregates``)."""
    complete = index._query("SELECT value FROM meta WHERE key = ?", (COMPLETE_KEY,))
    if not complete:
        raise SourceError("this store's session index was made before it kept tool calls and LLM calls; "
                          "rebuild it with `trace-explorer reindex --store DIR`")
    if index.aggregates and filters.unfiltered and index_aggregates.present(index._query, index_aggregates.PERIOD_TABLES):
        return _from_aggregates(index, top_only=not filters.include_sub)
    attach_reviews(index, filters)  # the review rows a review filter reads
    where, params = index_where(filters)  # FROM ... WHERE ...
    rows = index._query(f"SELECT substr(time, 1, 10), mechanism, pattern, steps, (SELECT termination FROM "
                        f"insight_sessions i WHERE i.root = sessions.root), COUNT(*) {where} "
                        f"GROUP BY 1, 2, 3, 4, 5", params)
    groups = _family_calls(index, where, params)
    sessions: Counter = Counter()
    steps: Counter = Counter()
    termination: Counter = Counter()
    for day, mechanism, pattern, count, reason, n in rows:
        sessions[(day, mechanism, pattern)] += n
        steps[count] += n
        termination[reason] += n
    groups.sessions = [(*k, n) for k, n in sessions.items()]
    groups.steps, groups.termination = list(steps.items()), list(termination.items())
    return groups


def _family_calls(index, where: str, params: list) -> Groups:
    """The calls (tools, LLM, parse errors) of the sessions ``where`` (``session_index._where``'s
    FROM … WHERE …) chooses and of every session below them, each once (docs/reading-traces.md, "Totals"). One
    query, so that the sessions below are found once (SQLite keeps a WITH table named twice):
    at 100,000 sessions, the 50,000 Agent sessions' calls in 0.65 s of CPU, 1.05 s as three."""
    rows = index._query(
        f"WITH RECURSIVE chosen(root) AS (SELECT root {where} UNION "
        f"SELECT s.root FROM sessions s JOIN chosen c ON s.parent = c.root), "
        f"picked(root) AS (SELECT root FROM chosen) "
        f"SELECT 0, tool, ms, error, NULL FROM insight_tools WHERE root IN picked "
        f"UNION ALL SELECT 1, model, ms, tokens_in, tokens_out FROM insight_llm WHERE root IN picked "
        f"UNION ALL SELECT 2, COALESCE(SUM(parse_errors), 0), NULL, NULL, NULL FROM insight_sessions "
        f"WHERE root IN picked", params)
    groups = _calls((r[1:4] for r in rows if r[0] == 0), (r[1:] for r in rows if r[0] == 1))
    groups.parse_errors = next(r[1] for r in rows if r[0] == 2)
    return groups


def _from_aggregates(index, top_only: bool) -> Groups:
    """The numbers of every session (sub-sessions too), or of every top-level session
    (``top_only``), from the counts the index keeps (``index_aggregates``): a few small tables,
    whatever the number of sessions, and the series over time in the unit that keeps it within
    ``periods.MAX_PERIODS`` periods, read in its order and given as it is (``Groups.per_period``).
    The calls of the top-level sessions are those of every session when every session is below
    a top-level one (``index_reach.unreached`` 0); else they are read as ``_from_index``
    reads them. The same numbers as ``_from_index`` gives for that filter."""
    query = index._query

    def kept(table: str) -> list[tuple]:
        return index_aggregates.counts_of(table, query)

    scope = "top" if top_only else "all"
    span = index_aggregates.day_span(query, scope)
    unit = period_unit(*span) if span else "day"
    kinds = index_aggregates.kinds_of_top(query) if top_only else index_aggregates.kinds(query)
    groups = Groups(sessions=[(None, mechanism, pattern or None, n) for mechanism, pattern, n in kinds],
                    steps=kept("stats_top_steps" if top_only else "stats_steps"), period=unit,
                    per_period=[{"period": period, "mechanism": mechanism, "pattern": pattern or None, "sessions": n}
                                for period, mechanism, pattern, n in index_aggregates.periods(query, unit, scope)])
    every = kept("stats_termination")
    ended = kept("stats_top_termination") if top_only else [(reason, n) for reason, n, _ in every]
    unrecorded = sum(n for *_, n in groups.sessions) - sum(n for _, n in ended)  # sessions with no insight row
    groups.termination = [(reason or None, n) for reason, n in ended] + ([(None, unrecorded)] if unrecorded else [])
    if top_only and index_reach.unreached(query) != 0:
        where, params = index_where(SessionFilter())
        calls = _family_calls(index, where, params)
        groups.tools, groups.tool_spread, groups.spread = calls.tools, calls.tool_spread, calls.spread
        groups.tokens, groups.parse_errors = calls.tokens, calls.parse_errors
        return groups
    groups.parse_errors = sum(p for *_, p in every)
    groups.tools = kept("stats_tools")
    groups.tool_spread = {tool: index_aggregates.spread(query, "tool", rank, tool) for tool, _, _ in groups.tools}
    groups.spread = {"tool": index_aggregates.spread(query, "tool", rank), "llm": index_aggregates.spread(query, "llm", rank)}
    groups.tokens = [(model or None, calls, tokens_in, tokens_out) for model, calls, tokens_in, tokens_out in kept("stats_llm")]
    return groups


def _calls(tool_rows: Iterable[Sequence], llm_rows: Iterable[Sequence]) -> Groups:
    """Groups of tool calls (tool, ms, error) and LLM calls (model, ms, tokens in, out)."""
    tools: dict[str, list[int]] = {}
    tool_ms: dict[str, list[int]] = {}
    for tool, ms, error in tool_rows:
        counted = tools.get(tool)
        if counted is None:
            counted = tools[tool] = [0, 0]
        counted[0] += 1
        counted[1] += error or 0
        if ms is not None:
            tool_ms.setdefault(tool, []).append(ms)
    tokens: dict[str | None, list[int]] = {}
    llm_ms: list[int] = []
    for model, ms, tokens_in, tokens_out in llm_rows:
        counted = tokens.get(model)
        if counted is None:
            counted = tokens[model] = [0, 0, 0]
        counted[0] += 1
        counted[1] += tokens_in or 0
        counted[2] += tokens_out or 0
        if ms is not None:
            llm_ms.append(ms)
    every_tool_ms = [m for values in tool_ms.values() for m in values]
    return Groups(tools=[(t, c, e) for t, (c, e) in tools.items()], tool_spread={t: spread(v) for t, v in tool_ms.items()},
                  spread={"tool": spread(every_tool_ms), "llm": spread(llm_ms)}, tokens=[(m, *v) for m, v in tokens.items()])


def _from_sessions(source: TraceSource, filters: SessionFilter) -> Groups:
    """The same numbers from the sessions themselves, read a page at a time."""
    sessions: Counter = Counter()
    steps: Counter = Counter()
    termination: Counter = Counter()
    tool_rows: list[list] = []
    llm_rows: list[list] = []
    parse_errors = 0
    counted: set[str] = set()  # sessions whose calls are counted (a sub-session once)
    offset = 0
    while True:
        page = list_sessions(source, filters, limit=_PAGE, offset=offset, read=True)
        for row in page.rows:
            session = page.sessions.get(row["id"])
            if session is None:
                continue
            facts = insight_row(session)
            sessions[(_utc_day(session), row["type"], row["pattern"])] += 1
            steps[row["step_count"]] += 1
            termination[facts["termination"]] += 1
            for member in family(session, page.sessions):  # its calls and its sub-sessions'
                if member.id not in counted:
                    counted.add(member.id)
                    calls = facts if member is session else insight_row(member)
                    tool_rows += calls["tools"]
                    llm_rows += calls["llm"]
                    parse_errors += calls["parse_errors"]
        offset += len(page.rows)
        if not page.rows or offset >= page.total:
            break
    groups = _calls(tool_rows, llm_rows)
    groups.sessions = [(*k, n) for k, n in sessions.items()]
    groups.steps, groups.termination = list(steps.items()), list(termination.items())
    groups.parse_errors = parse_errors
    return groups


def _utc_day(session) -> str | None:
    return session.time.astimezone(timezone.utc).strftime("%Y-%m-%d") if session.time else None
