"""``trace-explorer lint``: check every session of a source against the trace model and report
each problem by its rule id; the exit status makes it a gate for a CI job.

Exit status: 0 when nothing at or above ``--fail-on`` (default ``warning``) was found, 1 when
something was (or a file failed to load), 2 on bad usage or when the source failed.
"""

from __future__ import annotations

import json
import sys
from typing import TYPE_CHECKING

from ..analysis.health.rules import SEVERITIES, WARNING, at_or_above
from ..sources.source import TraceSource
from ..views.visible_text import visible_controls
from .sources import add_source_arguments

if TYPE_CHECKING:
    from ..analysis.health.finding import Finding


def add_parser(commands) -> None:
    """Add ``lint`` to the subcommands ``commands``."""
    lint = commands.add_parser("lint", help="check every session against the trace model",
                               description="Check every session (sub-sessions too) against the trace model and "
                                           "report each problem by its rule id, on its step and the triple behind "
                                           "it. Exit 1 when a problem at or above --fail-on is found.")
    add_source_arguments(lint)
    lint.add_argument("--format", choices=("text", "json"), default="text")
    lint.add_argument("--fail-on", choices=SEVERITIES, default=WARNING,
                      help="the least severity that makes the exit status 1 (default: warning)")
    lint.set_defaults(run=_lint)


def _lint(args, source: TraceSource) -> int:
    # the checks (and their language models) load for this command only
    from tqdm import tqdm

    from ..analysis.health.checks import all_roots, check_source
    from ..analysis.health.lint_workers import check_snapshot, in_workers
    from ..sources.trustgraph.source import TrustGraphSource, copy_of_all

    if isinstance(source, TrustGraphSource):  # its gateway answers no full SPARQL: check a copy
        source = copy_of_all(source)
    roots = all_roots(source)
    # a bar on a terminal only: a large store takes minutes, a log or a pipe needs none
    with tqdm(total=len(roots), unit="session", desc="lint", disable=not sys.stderr.isatty(), file=sys.stderr) as bar:
        # a large local store on every core; anything else here
        check = check_snapshot if in_workers(source, roots) else check_source
        findings = list(check(source, roots, progress=bar.update))
    if args.format == "json":
        print(json.dumps([f.as_json() for f in findings], ensure_ascii=False, indent=2))
    else:
        print(visible_controls(findings_text(findings)), end="")
    return 1 if any(at_or_above(f.severity, args.fail_on) for f in findings) else 0


def findings_text(findings: list[Finding]) -> str:
    """Findings for a terminal: one block per session (its findings by severity, each with its
    step and triple), then the totals."""
    lines: list[str] = []
    session = None
    for finding in findings:
        if finding.session != session:
            session = finding.session
            lines.append(("\n" if lines else "") + session)
        where = finding.step if finding.step and finding.step != session else "(session)"
        lines.append(f"  {finding.severity:<7} {finding.rule:<22} {where}: {finding.message}")
        if finding.triple:
            lines.append(f"          {finding.triple}")
    from ..analysis.health.checks import counts

    total = counts(findings)
    sessions = len({f.session for f in findings})
    summary = ", ".join(f"{total[s]:,} {s}{'' if total[s] == 1 else 's'}" for s in SEVERITIES)
    lines.append(("\n" if findings else "") + f"{summary} in {sessions:,} session{'' if sessions == 1 else 's'}")
    return "\n".join(lines) + "\n"
