"""What the benchmark scripts share: a measured row and its verdict against a target, timing a
call (wall and CPU, ms), the peak resident memory (MiB), the machine's description, and the
table the rows are printed in."""

from __future__ import annotations

import os
import platform
import resource
import statistics
import sys
import time
from dataclasses import dataclass
from pathlib import Path

MB = 1024 * 1024


@dataclass
class Row:
    label: str
    result: str
    target: str = ""
    verdict: str = ""
    note: str = ""


def peak_rss_mb() -> float:
    """Peak resident set size of this process image, in MiB.

    Linux: ``VmHWM`` from /proc/self/status. Not ``ru_maxrss``: Linux carries a parent's peak over
    fork and exec into the child's ``ru_maxrss``, so a child started by a big parent would report
    the parent's peak. Elsewhere ``ru_maxrss`` (KiB on Linux, bytes on macOS)."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    except (OSError, ValueError, IndexError):
        pass
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak / MB if sys.platform == "darwin" else peak / 1024


def machine_info() -> dict[str, str]:
    import pyoxigraph
    info = {
        "cores": str(os.cpu_count()),
        "cpu": platform.processor() or platform.machine(),
        "python": platform.python_version() + f" ({platform.python_implementation()})",
        "pyoxigraph": pyoxigraph.__version__,
        "os": platform.platform(terse=True),
    }
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                info["cpu"] = line.split(":", 1)[1].strip()
                break
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal"):
                info["memory"] = f"{int(line.split()[1]) / MB:.1f} GiB"
                break
    except OSError:
        pass
    try:
        import rdflib
        info["rdflib"] = rdflib.__version__
    except ImportError:
        info["rdflib"] = "not installed"
    return info


def timed(function, repeat: int, budget_s: float = float("inf")) -> tuple[float, float, object]:
    """(first call ms, median ms of ``repeat`` more calls, last result). A first call slower than
    ``budget_s`` is not repeated: its time is the median too."""
    start = time.perf_counter()
    result = function()
    first = (time.perf_counter() - start) * 1000
    runs = []
    for _ in range(repeat if first <= budget_s * 1000 else 0):
        start = time.perf_counter()
        result = function()
        runs.append((time.perf_counter() - start) * 1000)
    return first, statistics.median(runs) if runs else first, result


def cpu_ms(function, repeat: int) -> float:
    """The median CPU milliseconds of ``repeat`` more calls of ``function`` (at least one): what
    a call costs this process, whatever else the machine runs."""
    runs = []
    for _ in range(max(1, repeat)):
        start = time.process_time()
        function()
        runs.append((time.process_time() - start) * 1000)
    return statistics.median(runs)


def verdict(value: float, target: float, *, higher_is_better: bool = False) -> str:
    ok = value >= target if higher_is_better else value <= target
    ratio = value / target if target else float("inf")
    return f"{'PASS' if ok else 'MISS'} ({ratio:.2f}x of target)"


def ms_row(label: str, first: float, median: float, target: float | None, note: str = "",
           budget_s: float = float("inf")) -> Row:
    result = f"{median:,.1f} ms"
    if first > budget_s * 1000:
        note = f"one run (over the {budget_s:g} s budget, not repeated); " + note
    elif abs(first - median) > 0.2 * median:
        note = f"first (cold) {first:,.1f} ms; " + note
    if target is None:
        return Row(label, result, "", "", note.rstrip("; "))
    return Row(label, result, f"< {target:,.0f} ms", verdict(median, target), note.rstrip("; "))


def print_rows(rows: list[Row]) -> None:
    """The rows as an aligned table (label, result, target, verdict, note), then the load
    average: the short report of the scripts that time one thing."""
    widths = [max(len(getattr(r, f)) for r in rows) for f in ("label", "result", "target", "verdict")]
    for r in rows:
        print("  ".join(v.ljust(w) for v, w in zip((r.label, r.result, r.target, r.verdict), widths))
              + ("  " + r.note if r.note else ""))
    print(f"load average at the end: {' '.join(f'{x:.1f}' for x in os.getloadavg())} ({os.cpu_count()} cores)")
