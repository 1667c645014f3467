"""A step change on a session whose steps hold long single-line fields, in a real browser.

    python benchmarks/long_fields.py [--repeat 3] [--kb 200] [--steps 20] [--keep DIR]

The adversary's session: a synthetic ReAct session (``benchmarks/synthetic.py``) of ``--steps``
steps whose every ``tg:action`` is one line of ``--kb`` KB (``long_line``: mixed scripts). It froze the tab
5.6-5.8 s on each step change while the inspector wrote the whole line (and the tool filter
listed it). The app serves it from a local store (``streamlit run`` on a free loopback port);
headless Chromium (``CHROMIUM_PATH`` overrides Debian's) opens it from its link, then times a
"j" key press and a click on a graph node until the next step's words are in the inspector and
painted (``browser_session.interaction_timed``), eight "j" presses from the first Analysis on
(their median and the slowest), and a click on "Show all" until the whole
action is on screen. Target: a step change <= 100 ms. Medians of ``--repeat``; nothing asserted.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import statistics
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from browser_session import (ARM, WORKSPACE, _DEEP, _took,  # noqa: E402
                             chromium_missing, interaction_timed, launched_chromium, settled_page)

from tests.browser_session_support import session_url  # noqa: E402
from tests.browser_support import streamlit_server  # noqa: E402

TG_ACTION = "https://trustgraph.ai/ns/action"
TARGET_S = 0.1


def long_line(kb: int) -> str:
    """One line of ``kb`` thousand characters: a tool name, then words of mixed scripts (Latin,
    Greek, Cyrillic, Arabic, CJK, emoji), as an LLM's runaway output may hold; seeded."""
    import random

    rng = random.Random(kb)
    pieces = ["calculator", "λόγος", "данные", "نتيجة", "結果を", "🙂🚀", "x" * 40, "{\"a\":[1,2,3]}"]
    words = []
    while sum(map(len, words)) + len(words) < kb * 1000:
        words.append(rng.choice(pieces) + str(rng.randint(0, 999)))
    return " ".join(words)[: kb * 1000]


def long_field_store(folder: Path, steps: int, kb: int) -> tuple[Path, str, str]:
    """A local store in ``folder`` holding one ReAct session of about ``steps`` steps whose
    actions are each one line of ``kb`` thousand characters (``long_line``); returns (store
    directory, session IRI, the action)."""
    import pyoxigraph as ox
    from synthetic import make_react_session

    from trace_explorer.store.ingest import ingest_file
    from trace_explorer.store.local_store import open_local_store

    root, quads, documents = make_react_session(max(1, (steps - 2) // 2), question="Long single-line actions")
    action = long_line(kb)
    quads = [ox.Quad(q.subject, q.predicate, ox.Literal(action), q.graph_name) if q.predicate.value == TG_ACTION else q
             for q in quads]
    (folder / "long-fields.nq").write_bytes(ox.serialize(quads, format=ox.RdfFormat.N_QUADS))
    (folder / "long-fields.documents.json").write_text(json.dumps(documents), encoding="utf-8")
    store_dir = folder / "store"
    store = open_local_store(store_dir)
    for name in ("long-fields.nq", "long-fields.documents.json"):
        ingest_file(store, str(folder / name))
    del store
    return store_dir, root, action


SHOW_ALL = "() => {" + _DEEP + """
  const button = deep('.te-ins .te-clip-more');
  if (!button) return null;
  const box = deep('.te-ins');
  window.__teTook = null;
  const start = performance.now();
  button.click();
  requestAnimationFrame(() => setTimeout(() => { window.__teTook = performance.now() - start; }, 0));
  return box.textContent.length;
}"""


@contextlib.contextmanager
def _on_first_analysis(browser, url: str):
    """A page of a fresh context on ``url``, settled, its first Analysis selected."""
    with settled_page(browser, url) as page:
        page.locator('[data-testid="stMain"] h3').first.click()
        page.evaluate(WORKSPACE, ["w => w.select(w.steps.findIndex(s => s.tool))", None])
        yield page


def step_changes_timed(browser, url: str, presses: int = 8) -> list[float]:
    """Seconds of each of ``presses`` "j" key presses from the first Analysis on (Analysis,
    Observation, Analysis, …), each until the next step's words are in the inspector, painted."""
    out = []
    with _on_first_analysis(browser, url) as page:
        for _ in range(presses):
            words = page.evaluate(WORKSPACE, ["w => w.steps[w.waterfall.neighbour(w.selected, 1)].label", None])
            page.evaluate(ARM, ["keydown", words])
            page.keyboard.press("j")
            out.append(_took(page))
    return out


def show_all_timed(browser, url: str) -> float:
    """Seconds from a click on the first "Show all" of the inspector until painted."""
    with _on_first_analysis(browser, url) as page:
        if page.evaluate(SHOW_ALL) is None:
            return float("nan")
        return _took(page)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--kb", type=int, default=200, help="KB of each action (default 200)")
    parser.add_argument("--steps", type=int, default=20, help="steps of the session (default 20)")
    parser.add_argument("--keep", help="build the store in DIR and leave it there")
    args = parser.parse_args(argv)
    if chromium_missing():
        return 2
    with contextlib.ExitStack() as stack:
        folder = Path(args.keep) if args.keep else Path(stack.enter_context(
            tempfile.TemporaryDirectory(prefix="trace-explorer-long-fields-")))
        folder.mkdir(parents=True, exist_ok=True)
        store_dir, root, _ = long_field_store(folder, args.steps, args.kb)
        server = stack.enter_context(streamlit_server(env={"TRACE_EXPLORER_STORE": str(store_dir)}))
        browser = launched_chromium(stack)
        url = session_url(server, root)
        interaction_timed(browser, url, (1400, 1000), "warm-up")
        rows: dict[str, list[float]] = {}
        for _ in range(args.repeat):
            for label, seconds in interaction_timed(browser, url, (1400, 1000), f"{args.kb} KB actions").items():
                rows.setdefault(label, []).append(seconds)
            changes = step_changes_timed(browser, url)
            rows.setdefault(f"{args.kb} KB actions: j through the steps, median of 8", []).append(
                statistics.median(changes))
            rows.setdefault(f"{args.kb} KB actions: j through the steps, slowest of 8", []).append(max(changes))
            rows.setdefault(f"{args.kb} KB actions: Show all, the whole action painted", []).append(
                show_all_timed(browser, url))
    print(f"{args.steps} steps, each action one line of {args.kb} KB; medians of {args.repeat}")
    for name, values in rows.items():
        value = statistics.median(values)
        step_change = "Show all" not in name
        verdict = ("PASS" if value <= TARGET_S else "MISS") if step_change else ""
        print(f"{name:<62} {value * 1000:>8.0f} ms   runs {', '.join(f'{v * 1000:.0f}' for v in values):<24}"
              f" {'target <= 100 ms' if step_change else '':<17} {verdict}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
