"""Speed of long sessions and of a silent endpoint, against the targets (timings live here, not
in the unit tests, which check what these calls produce).

    python benchmarks/long_sessions.py [--huge-iterations 50000] [--repeat 3]

ReAct runs made by ``benchmarks/synthetic.py`` and read by the project's reader, like any upload:

- the DAG page (``views.dag.network.dag_html``) of a 200-step session: target 0.5 s;
- its exported images (``export.images``: DAG as SVG and PNG, then the timeline as SVG): 5 s;
- the timeline (``views.timeline``: rows and the chart) of a 2,000-step session: 5 s;
- a 100,000-step session (``--huge-iterations`` 50,000 by default): reading it (no target; the
  app asks before it does), folding and drawing its DAG, and its timeline rows with one window:
  30 s each;
- a SPARQL endpoint that never answers, with a 0.5 s timeout: the error within 2.5 s.

Each measurement is the median of ``--repeat`` runs after a first one; the table gives the
target and the verdict. Nothing is asserted.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from measuring import Row, print_rows, verdict  # noqa: E402 - beside this file
import run  # noqa: E402,F401 - it puts the repository on the path


def react(iterations: int):
    """The ReAct session of ``iterations`` Analysis steps (``2 * iterations + 2`` steps), read
    from the quads and texts ``synthetic.make_react_session`` makes."""
    import synthetic

    from trace_explorer.model.reader import read_sessions
    from trace_explorer.read.collection import TraceStore

    root, quads, documents = synthetic.make_react_session(iterations)
    store = TraceStore()
    store.store.extend(quads)
    store.documents.update(documents)
    return {s.id: s for s in read_sessions(store)}[root]


def median_s(function, repeat: int) -> tuple[float, object]:
    """(median seconds of ``repeat`` runs after a first, the last result)."""
    result = function()
    times = []
    for _ in range(max(1, repeat)):
        start = time.perf_counter()
        result = function()
        times.append(time.perf_counter() - start)
    return statistics.median(times), result


def row(label: str, seconds: float, target_s: float | None, note: str = "") -> Row:
    if target_s is None:
        return Row(label, f"{seconds:,.2f} s", "", "", note)
    return Row(label, f"{seconds:,.2f} s", f"< {target_s:g} s", verdict(seconds, target_s), note)


def silent_endpoint_seconds(timeout_s: float) -> tuple[float, str]:
    """Seconds until a query to an endpoint that never answers fails, and the error's words."""
    from trace_explorer.sources.endpoint import EndpointSource
    from trace_explorer.sources.source import SourceError

    release = threading.Event()

    class Silent(BaseHTTPRequestHandler):
        def do_POST(self):
            release.wait(30)

        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Silent)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    start = time.perf_counter()
    try:
        EndpointSource(f"http://127.0.0.1:{server.server_address[1]}/sparql", timeout=timeout_s).select("SELECT ?n {}")
        message = "answered"
    except SourceError as error:
        message = str(error)
    seconds = time.perf_counter() - start
    release.set()
    server.shutdown()
    return seconds, message


def measure(huge_iterations: int, repeat: int) -> list[Row]:
    from trace_explorer.export.images import dag_image
    from trace_explorer.export.timeline_image import timeline_image
    from trace_explorer.views.dag.network import dag_html, fold_base, folded_layout
    from trace_explorer.views.timeline import timeline_chart, timeline_rows, window_bounds, window_of

    rows = []
    two_hundred = react(99)  # 200 steps
    seconds, html = median_s(lambda: dag_html(two_hundred, selected=two_hundred.steps[150].id), repeat)
    rows.append(row(f"DAG page, {len(two_hundred.steps):,} steps", seconds, 0.5, f"{len(html) / 1024:,.0f} KiB"))
    timeline_image(react(1), "svg")  # vl-convert's engine starts outside the timing

    def images():
        return dag_image(two_hundred, "svg"), dag_image(two_hundred, "png"), timeline_image(two_hundred, "svg")

    seconds, _ = median_s(images, repeat)
    rows.append(row(f"images (DAG svg+png, timeline svg), {len(two_hundred.steps):,} steps", seconds, 5.0))

    two_thousand = react(999)

    def timeline():
        frame = timeline_rows(two_thousand)
        return timeline_chart(frame, selected=frame["step"].iloc[1500]).to_dict()

    seconds, _ = median_s(timeline, repeat)
    rows.append(row(f"timeline rows + chart, {len(two_thousand.steps):,} steps", seconds, 5.0))

    start = time.perf_counter()
    huge = react(huge_iterations)
    rows.append(row(f"read a {len(huge.steps):,}-step session", time.perf_counter() - start, None,
                    "the app says its size and asks first"))
    selected = huge.steps[len(huge.steps) * 3 // 4].id

    def fold():
        return dag_html(huge, selected, layout=folded_layout(huge, selected, base=fold_base(huge)))

    seconds, _ = median_s(fold, max(1, repeat // 2))
    rows.append(row("  fold and draw its DAG", seconds, 30.0))

    def window():
        frame = timeline_rows(huge)
        at = len(frame) * 3 // 4
        start, end = window_bounds(len(frame), window_of(at))
        return timeline_chart(frame.iloc[start:end], selected=frame["step"].iloc[at]).to_dict()

    seconds, _ = median_s(window, max(1, repeat // 2))
    rows.append(row("  its timeline rows and one window", seconds, 30.0))

    seconds, message = silent_endpoint_seconds(0.5)
    rows.append(row("silent endpoint, timeout 0.5 s: error after", seconds, 2.5, message))
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--huge-iterations", type=int, default=50_000,
                        help="Analysis steps of the huge session (default 50,000: 100,002 steps)")
    parser.add_argument("--repeat", type=int, default=3, help="timed runs after the first (median reported)")
    args = parser.parse_args(argv)
    rows = measure(args.huge_iterations, args.repeat)
    print_rows(rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())
