"""Speed of the CLI's page and Markdown export, as a user runs it, against the target.

    python benchmarks/exports.py [--repeat 3] [--session 62c33a4f]

Times ``trace-explorer export --demo --session SESSION --html p.html --markdown m.md`` (the
demo's 26-step agent session by default) in a fresh process each time, so start-up and imports
count as they do for a user:

- "first": with an empty cache folder (``XDG_CACHE_HOME`` pointed at a new folder), so the page
  pays for making the Vega bundle (``export.page.vega_bundle``) once;
- "again": the median of ``--repeat`` runs with that bundle kept on disk; target 3 s.

Each row gives the wall time and the CPU time of the process (the machine may be shared: the
load average is printed at the end). Nothing is asserted.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from measuring import Row, print_rows, verdict  # noqa: E402 - beside this file
from run import REPO  # noqa: E402

TARGET_S = 3.0
SESSION = "62c33a4f"  # the demo's 26-step agent session (a unique part of its IRI)


def export_once(session: str, cache: Path, out: Path) -> tuple[float, float]:
    """Wall and CPU seconds of one ``export --html --markdown`` in a new process; raises
    RuntimeError when it fails."""
    command = [sys.executable, "-m", "trace_explorer.cli", "export", "--demo", "--session", session,
               "--html", str(out / "p.html"), "--markdown", str(out / "m.md")]
    env = dict(os.environ, XDG_CACHE_HOME=str(cache), PYTHONPATH=str(REPO))
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(command, cwd=REPO, env=env, capture_output=True, text=True, check=False)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise RuntimeError(f"export failed ({done.returncode}): {done.stderr.strip()[-500:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def measure(session: str, repeat: int) -> list[Row]:
    with tempfile.TemporaryDirectory(prefix="trace-explorer-exports-") as folder:
        cache, out = Path(folder) / "cache", Path(folder)
        first_wall, first_cpu = export_once(session, cache, out)
        runs = [export_once(session, cache, out) for _ in range(max(repeat, 1))]
        size = (out / "p.html").stat().st_size
    wall = statistics.median(w for w, _ in runs)
    cpu = statistics.median(c for _, c in runs)
    label = f"export --html --markdown ({session})"
    return [
        Row(f"{label}, first", f"{first_wall:,.2f} s", "", "",
            f"CPU {first_cpu:,.2f} s; makes the Vega bundle and keeps it"),
        Row(f"{label}, again", f"{wall:,.2f} s", f"< {TARGET_S:g} s", verdict(wall, TARGET_S),
            f"CPU {cpu:,.2f} s; median of {len(runs)}; page {size:,} bytes"),
    ]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=3, help="runs with the bundle kept (median reported)")
    parser.add_argument("--session", default=SESSION, help="the session (a unique part of its IRI)")
    args = parser.parse_args(argv)
    rows = measure(args.session, args.repeat)
    print_rows(rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())
