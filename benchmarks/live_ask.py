"""Ask and watch: how long from an ``explain`` event leaving the gateway to its step on screen.

The stand-in gateway (``tests/trustgraph_server.py`` with its websocket, ``tests/trustgraph_socket.py``)
replays what TrustGraph 2.11.1's own services sent for an agent question (10 frames, 4 explain
events), one frame every ``--pace`` seconds. Measured, over ``--repeat`` runs:

1. ``ask`` (the CLI's path, in-process): from the frame sent to the event in the caller's hands
   (TrustGraph's ``SocketClient`` in its thread, handed over by ``trace_explorer.ask.client``),
   and to the step read into the session (``LiveTrace.session``, what the CLI prints from);
2. the app's Ask page in Chromium: from the frame sent to the step's row in the workspace's
   timeline (the page looks for new rows every 20 ms, inside the component's shadow root, and
   notes when each first appears; the browser and the server share this machine's clock).

    python benchmarks/live_ask.py [--pace 0.5] [--repeat 3] [--only cli|app]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.trustgraph_server import COLLECTION, FLOW, TOKEN, FakeGateway  # noqa: E402
from tests.trustgraph_socket import recorded_deployment, run_question, run_steps  # noqa: E402
from trace_explorer.ask.client import Question, ask  # noqa: E402
from trace_explorer.ask.events import STEP  # noqa: E402
from trace_explorer.ask.live_trace import LiveTrace  # noqa: E402
from trace_explorer.read.wire import decode_quad  # noqa: E402

QUADS, DOCUMENTS, RUNS = recorded_deployment()
AGENT = next(r for r in RUNS if r["name"] == "agent")
EARLIER = [decode_quad(t) for r in RUNS if r["name"] == "graph-rag" for f in r["frames"]
           for t in f["response"].get("explain_triples", [])]
ROW_TIMES = """() => {
  window.__rows = {};
  const rows = (root) => {
    const found = [...root.querySelectorAll('.te-wf-row[data-step]')];
    root.querySelectorAll('*').forEach((el) => { if (el.shadowRoot) { found.push(...rows(el.shadowRoot)); } });
    return found;
  };
  setInterval(() => rows(document).forEach((r) => {
    const id = r.getAttribute('data-step');
    if (!(id in window.__rows)) { window.__rows[id] = Date.now() / 1000; }
  }), 20);
}"""


def figures(values: list[float]) -> str:
    ms = sorted(v * 1000 for v in values)
    return f"median {statistics.median(ms):.0f} ms, max {ms[-1]:.0f} ms (n={len(ms)})"


def cli(pace: float, repeat: int) -> None:
    handed, read = [], []
    for _ in range(repeat):
        server = FakeGateway(QUADS, DOCUMENTS, socket_runs=RUNS)
        server.start()
        server.socket.pace = pace
        trace = LiveTrace()
        for event in ask(Question(server.url, run_question(AGENT), token=TOKEN, flow=FLOW, collection=COLLECTION)):
            trace.add(event)
            if event.kind == STEP:
                trace.session()
                now = time.monotonic()
                handed.append(event.at - server.socket.sent_at[event.step])
                read.append(now - server.socket.sent_at[event.step])
        server.stop()
    print(f"ask, explain event sent -> in hand:        {figures(handed)}")
    print(f"ask, explain event sent -> step read:      {figures(read)}")


def app(pace: float, repeat: int) -> None:
    from tests.browser_support import chromium_page, streamlit_server

    server = FakeGateway(QUADS + EARLIER, DOCUMENTS, socket_runs=RUNS)
    server.start()
    server.socket.pace = pace
    env = {"TRUSTGRAPH_URL": server.url, "TRUSTGRAPH_TOKEN": TOKEN, "TRUSTGRAPH_FLOW": FLOW,
           "TRUSTGRAPH_COLLECTION": COLLECTION, "TRACE_EXPLORER_ENDPOINT_ALLOW": ""}
    shown = []
    steps = run_steps(AGENT)[1:]
    with streamlit_server(env=env) as url, chromium_page() as page:
        for _ in range(repeat):
            page.goto(url + "/ask")
            page.get_by_label("Question").wait_for(timeout=120000)
            page.evaluate(ROW_TIMES)
            page.get_by_label("Question").fill(run_question(AGENT))
            page.get_by_role("button", name="Ask").click()
            page.get_by_text("Done: 4 steps came.").wait_for(timeout=120000)
            rows = page.evaluate("() => window.__rows")
            shown += [rows[s] - server.socket.sent_wall[s] for s in steps if s in rows]
    server.stop()
    print(f"app, explain event sent -> row on screen:  {figures(shown)}  (the page asks every 0.5 s)")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--pace", type=float, default=0.5, help="seconds between the gateway's frames")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--only", choices=("cli", "app"))
    args = parser.parse_args()
    if args.only in (None, "cli"):
        cli(args.pace, args.repeat)
    if args.only in (None, "app"):
        app(args.pace, args.repeat)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
