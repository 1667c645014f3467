"""Collection insights: what the sessions a filter selects did, in numbers (the Insights page and
``trace-explorer stats`` print the same).

On a source with a session index (a local store, files read into memory) every number comes from
the index's tables (``sources.session_insights``) by a few queries that read no session: about
0.1 s at 10,000 sessions (``benchmarks/stats.py``). A SPARQL endpoint has no index: its sessions
are read a page at a time and counted the same way.

Percentiles are nearest-rank: p50 of n sorted values is the ceil(0.5 n)-th.
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from typing import Any

from ..sources.catalog import list_sessions
from ..sources.filter import SessionFilter
from ..sources.session_index import _where as index_where
from ..sources.session_insights import COMPLETE_KEY, NO_TERMINATION, insight_row
from ..sources.source import SourceError, TraceSource
from ..sources.store import StoreSource

_PAGE = 200  # sessions read per page from a source without an index


def collection_stats(source: TraceSource, filters: SessionFilter | None = None) -> dict[str, Any]:
    """The numbers of the sessions ``filters`` selects (``include_sub`` counts sub-sessions):

    ``sessions`` (n), ``by_mechanism`` and ``by_pattern`` ({name: sessions}), ``per_day``
    ([{"day": "YYYY-MM-DD" (UTC), "mechanism", "pattern", "sessions"}], undated sessions left
    out), ``steps_per_session`` ([{"steps", "sessions"}]) and ``steps`` ({"total", "p50", "p95",
    "max"}), ``tools`` ({tool: {"calls", "errors", "error_rate", "p50_ms", "p95_ms", "max_ms"}}),
    ``durations`` ({"llm"|"tool": {"calls", "p50_ms", "p95_ms", "max_ms"}}), ``tokens`` ({model:
    {"calls", "in", "out"}}; a call with no model under "unknown") and ``termination`` ({reason:
    sessions}; "none" for those that record none). Durations in ms; a figure with no value is
    None. Raises SourceError when the source fails, or when its index predates these tables."""
    filters = filters or SessionFilter()
    if _indexed(source):
        sessions, tools, llm = _from_index(source.index, filters)
    else:
        sessions, tools, llm = _from_sessions(source, filters)
    return summarize(sessions, tools, llm)


def summarize(sessions: Sequence[tuple], tools: Iterable[tuple], llm: Iterable[tuple]) -> dict[str, Any]:
    """The numbers from records: ``sessions`` (time ISO or None, mechanism, pattern, steps,
    termination), ``tools`` (tool, ms or None, error 0/1), ``llm`` (model, ms, tokens in, out)."""
    per_day: Counter = Counter()
    steps: list[int] = []
    for time, mechanism, pattern, count, _ in sessions:
        if time:
            per_day[(time[:10], mechanism, pattern)] += 1
        steps.append(count or 0)
    by_tool: dict[str, dict[str, Any]] = defaultdict(lambda: {"calls": 0, "errors": 0, "ms": []})
    tool_ms: list[int] = []
    for tool, ms, error in tools:
        row = by_tool[tool]
        row["calls"] += 1
        row["errors"] += int(error or 0)
        if ms is not None:
            row["ms"].append(ms)
            tool_ms.append(ms)
    tokens: dict[str, dict[str, int]] = defaultdict(lambda: {"calls": 0, "in": 0, "out": 0})
    llm_ms: list[int] = []
    for model, ms, tokens_in, tokens_out in llm:
        row = tokens[model or "unknown"]
        row["calls"] += 1
        row["in"] += tokens_in or 0
        row["out"] += tokens_out or 0
        if ms is not None:
            llm_ms.append(ms)
    steps.sort()
    return {
        "sessions": len(sessions),
        "by_mechanism": dict(sorted(Counter(s[1] for s in sessions).items())),
        "by_pattern": dict(sorted(Counter(s[2] for s in sessions if s[2]).items())),
        "per_day": [{"day": d, "mechanism": m, "pattern": p, "sessions": n}
                    for (d, m, p), n in sorted(per_day.items(), key=lambda item: (item[0][0], item[0][1], item[0][2] or ""))],
        "steps_per_session": [{"steps": k, "sessions": n} for k, n in sorted(Counter(steps).items())],
        "steps": {"total": sum(steps), "p50": percentile(steps, 50), "p95": percentile(steps, 95),
                  "max": steps[-1] if steps else None},
        "tools": {tool: {"calls": row["calls"], "errors": row["errors"],
                         "error_rate": round(row["errors"] / row["calls"], 4) if row["calls"] else None,
                         **_spread(row["ms"])} for tool, row in sorted(by_tool.items())},
        "durations": {"llm": {"calls": len(llm_ms), **_spread(llm_ms)}, "tool": {"calls": len(tool_ms), **_spread(tool_ms)}},
        "tokens": {model: dict(row) for model, row in sorted(tokens.items())},
        "termination": dict(sorted(Counter(s[4] or NO_TERMINATION for s in sessions).items())),
    }


def percentile(values: Sequence[float], p: float) -> float | None:
    """The nearest-rank ``p``-th percentile of ``values`` sorted ascending (None when empty)."""
    if not values:
        return None
    return values[max(0, math.ceil(p / 100 * len(values)) - 1)]


def _spread(values: list[int]) -> dict[str, int | None]:
    values.sort()
    return {"p50_ms": percentile(values, 50), "p95_ms": percentile(values, 95), "max_ms": values[-1] if values else None}


def _indexed(source: TraceSource) -> bool:
    return isinstance(source, StoreSource) and source.index is not None and source.index.usable


def _from_index(index, filters: SessionFilter) -> tuple[list[tuple], list[tuple], list[tuple]]:
    """The records of the chosen sessions, from the index's tables: three queries."""
    complete = index._query("SELECT value FROM meta WHERE key = ?", (COMPLETE_KEY,))
    if not complete:
        raise SourceError("this store's session index was made before it kept tool calls and LLM calls; "
                          "rebuild it with `trace-explorer reindex --store DIR`")
    where, params = index_where(filters)
    chosen = f"SELECT root FROM sessions {where}"
    sessions = index._query(f"SELECT s.time, s.mechanism, s.pattern, s.steps, i.termination FROM sessions s "
                            f"LEFT JOIN insight_sessions i ON i.root = s.root WHERE s.root IN ({chosen})", params)
    tools = index._query(f"SELECT tool, ms, error FROM insight_tools WHERE root IN ({chosen})", params)
    llm = index._query(f"SELECT model, ms, tokens_in, tokens_out FROM insight_llm WHERE root IN ({chosen})", params)
    return sessions, tools, llm


def _from_sessions(source: TraceSource, filters: SessionFilter) -> tuple[list[tuple], list[tuple], list[tuple]]:
    """The same records from the sessions themselves, read a page at a time."""
    sessions, tools, llm = [], [], []
    offset = 0
    while True:
        page = list_sessions(source, filters, limit=_PAGE, offset=offset, read=True)
        for row in page.rows:
            session = page.sessions.get(row["id"])
            if session is None:
                continue
            facts = insight_row(session)
            sessions.append((_utc_iso(session), row["type"], row["pattern"], row["step_count"], facts["termination"]))
            tools += [tuple(call) for call in facts["tools"]]
            llm += [tuple(call) for call in facts["llm"]]
        offset += len(page.rows)
        if not page.rows or offset >= page.total:
            return sessions, tools, llm


def _utc_iso(session) -> str | None:
    from datetime import timezone

    return session.time.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%fZ") if session.time else None
