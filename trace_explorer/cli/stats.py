"""``trace-explorer stats``: what the sessions a filter selects did, in numbers (the same as the
app's Insights page): sessions per mechanism, pattern and day (or week, month, year: ``model.periods``), steps per session, tool calls and
errors per tool, LLM and tool durations, tokens per model, termination reasons."""

from __future__ import annotations

import json

from ..model.periods import unit_label
from ..analysis.stats import collection_stats
from ..sources.source import TraceSource
from ..views.visible_text import visible_controls
from .list_filters import add_filter_arguments, check_health, filters_of
from .sessions import format_table
from .sources import add_source_arguments


def add_parser(commands) -> None:
    """Add ``stats`` to the subcommands ``commands``."""
    stats = commands.add_parser("stats", help="numbers over the sessions: tools, errors, durations, tokens",
                                description="Count what the chosen sessions did (top-level sessions unless --all).")
    add_source_arguments(stats)
    stats.add_argument("--all", action="store_true", help="count sub-sessions too")
    add_filter_arguments(stats)
    stats.add_argument("--format", choices=("text", "json"), default="text")
    stats.set_defaults(run=_stats)


def _stats(args, source: TraceSource) -> int:
    check_health(args, source)
    numbers = collection_stats(source, filters_of(args))
    if args.format == "json":
        print(json.dumps(numbers, ensure_ascii=False, indent=2))
    else:
        print(visible_controls(stats_text(numbers)), end="")
    return 0


def stats_text(numbers: dict) -> str:
    """The numbers as tables for a terminal."""
    def ms(value) -> str:
        return "" if value is None else f"{value:,}"

    out = [f"{numbers['sessions']:,} sessions"]
    if not numbers["sessions"]:
        return out[0] + "\n"  # nothing to break down
    out.append("\nby mechanism: " + ", ".join(f"{k} {v:,}" for k, v in numbers["by_mechanism"].items()))
    if numbers["by_pattern"]:
        out.append("by pattern: " + ", ".join(f"{k} {v:,}" for k, v in numbers["by_pattern"].items()))
    steps = numbers["steps"]
    out.append(f"steps per session: p50 {ms(steps['p50'])}, p95 {ms(steps['p95'])}, max {ms(steps['max'])} "
               f"({steps['total']:,} steps)")
    if numbers["tools"]:
        rows = [(tool, f"{t['calls']:,}", f"{t['errors']:,}", f"{100 * t['error_rate']:.1f}%", ms(t["p50_ms"]),
                 ms(t["p95_ms"]), ms(t["max_ms"])) for tool, t in numbers["tools"].items()]
        out.append("\n" + format_table(("Tool", "Calls", "Errors", "Error rate", "p50 ms", "p95 ms", "max ms"), rows))
        out.append(f"Calls: every tool call (an Analysis with tg:action), {sum(t['calls'] for t in numbers['tools'].values()):,} "
                   "in all; the times are those of the calls that record one.")
    if numbers["parse_errors"]:
        out.append(f"model replies the agent could not parse (no tool call): {numbers['parse_errors']:,}")
    rows = [(kind.upper() if kind == "llm" else "Tool", f"{d['calls']:,}", ms(d["p50_ms"]), ms(d["p95_ms"]), ms(d["max_ms"]))
            for kind, d in numbers["durations"].items()]
    out.append("\n" + format_table(("Durations", "Timed calls", "p50 ms", "p95 ms", "max ms"), rows))
    out.append("Timed calls: the LLM and tool calls that record their duration (tg:llmDurationMs, "
               "tg:toolDurationMs); the other calls count in the tables above and below.")
    if numbers["tokens"]:
        rows = [(model, f"{t['calls']:,}", f"{t['in']:,}", f"{t['out']:,}") for model, t in numbers["tokens"].items()]
        out.append("\n" + format_table(("Model", "LLM calls", "Tokens in", "Tokens out"), rows))
        out.append("LLM calls: every step that records an LLM call (a model, tokens or an LLM duration), "
                   f"{sum(t['calls'] for t in numbers['tokens'].values()):,} in all; \"unknown\": those naming no model.")
    if numbers["termination"]:
        out.append("\ntermination: " + ", ".join(f"{k} {v:,}" for k, v in numbers["termination"].items()))
    series = [(d["period"], d["mechanism"], d["pattern"] or "", f"{d['sessions']:,}") for d in numbers["per_period"]]
    if series:
        out.append("\n" + format_table((unit_label(numbers["period"]), "Mechanism", "Pattern", "Sessions"), series))
    if numbers["undated"]:
        out.append(f"{numbers['undated']:,} {'session has' if numbers['undated'] == 1 else 'sessions have'} no start "
                   "time (prov:startedAtTime), so no period.")
    return "\n".join(out) + "\n"
