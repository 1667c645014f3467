"""Where a page's main thread spends its time in Chromium, by who spends it: CDP's sampling
profiler (``Profiler.start`` / ``Profiler.stop``) around one page load, its samples summed by the
script they fell in.

Used by ``benchmarks/browser.py --where``. CPU time is steadier than wall time on a busy
machine (other processes' load stretches the wall clock, much less the work done), so it shows
what a change removes even when the wall times of two runs cannot be told apart.
"""

from __future__ import annotations

import collections
from collections.abc import Callable

STREAMLIT = "streamlit: Streamlit's front end (React, styles, Markdown, protobuf)"
OURS = "components: the app's st.components.v2 scripts"
ENGINE = "engine: parse, compile, style, layout, GC"
OTHER = "other: DOM calls, the probe's polls"
KINDS = (STREAMLIT, OURS, ENGINE, OTHER)
SHORT = {kind: kind.split(":")[0] for kind in KINDS}  # column heads
SAMPLING_US = 500


def kind_of(url: str, function: str) -> str | None:
    """Who a sample belongs to (one of ``KINDS``), from its call frame's script ``url`` and
    ``function`` name; None for idle time."""
    if function == "(idle)":
        return None
    if function in ("(program)", "(garbage collector)", "(root)"):
        return ENGINE
    if "/static/js/" in url:  # Streamlit's bundle, served by the server
        return STREAMLIT
    if url.startswith("blob:") or _is_blob_id(url.rsplit("/", 1)[-1]):  # st.components.v2 scripts
        return OURS
    return OTHER


def _is_blob_id(name: str) -> bool:
    return len(name) == 36 and name.count("-") == 4


def busy_ms(context: object, page: object, load: Callable[[], object]) -> dict[str, float]:
    """Run ``load()`` (a page load on ``page``, a Playwright page of browser ``context``) under
    the sampling profiler; the main thread's milliseconds by kind (``KINDS``) and ``"busy"``,
    their sum."""
    cdp = context.new_cdp_session(page)
    cdp.send("Profiler.enable")
    cdp.send("Profiler.setSamplingInterval", {"interval": SAMPLING_US})
    cdp.send("Profiler.start")
    try:
        load()
    finally:
        profile = cdp.send("Profiler.stop")["profile"]
        cdp.detach()
    frames = {node["id"]: node["callFrame"] for node in profile["nodes"]}
    spent: dict[str, float] = collections.Counter()
    for sample, delta_us in zip(profile["samples"], profile["timeDeltas"]):
        frame = frames[sample]
        kind = kind_of(frame["url"], frame["functionName"])
        if kind:
            spent[kind] += delta_us / 1000
    return {"busy": sum(spent.values()), **{kind: spent.get(kind, 0.0) for kind in KINDS}}
