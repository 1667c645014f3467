"""A session as one self-contained HTML page: the interactive DAG, the timeline and every step's
details, opening from disk in a browser with no network at all.

- The DAG is the session view's own pyvis page (``views.dag.network.dag_html``, vis-network inlined) in an
  ``<iframe srcdoc>`` with ``sandbox="allow-scripts"``; the page's HTML is attribute-escaped, so
  nothing in it can leave the attribute. A click on a node opens that step's details below
  (``postMessage`` from the frame, checked to come from it).
- The timeline is the session view's Altair chart (``views.timeline.timeline_chart``) drawn by Vega,
  Vega-Lite and vega-embed inlined from ``vl-convert``'s JavaScript bundle; a click on a bar opens
  that step's details. The chart's data travels in a ``<script>`` as JSON with ``<``, ``>``,
  ``&`` and the JavaScript line separators escaped, so trace text cannot close the element.
- Every step (and every sub-session's step, unless left out) is a ``<details>`` element whose
  fields are HTML-escaped text: trace text is untrusted LLM and tool output. Invisible control
  and bidi characters are shown (``views.visible_text.visible_controls``), so an ESC or a
  right-to-left override cannot hide or reorder what the reader sees.
- A Content-Security-Policy meta tag allows no network request of any kind (``default-src
  'none'``, no ``connect-src``), so even a value that looked like a URL fetches nothing.

No clock time goes into the page: the same session gives the same bytes.
"""

from __future__ import annotations

import contextlib
import functools
import html
import json
import os
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from ..analysis.evidence.evidence import SessionEvidence
from ..analysis.support.support import AnswerSupport, session_support
from ..model.literals import format_time
from ..model.session import Session
from ..model.summary import status
from ..model.totals import totals_lines
from ..reviews import Review
from ..read.upload_cache import default_folder
from ..views.report import step_record
from ..views.step_labels import step_tag
from ..views.visible_text import visible_controls
from .evidence_section import CSS as EVIDENCE_CSS
from .evidence_section import evidence_section
from .quads import subjects_sessions
from .reviews_section import CSS as REVIEWS_CSS
from .reviews_section import reviews_html
from .support_section import CSS as SUPPORT_CSS
from .support_section import support_html

DAG_HEIGHT_PX = 560
# A text longer than this is cut in the page (a browser takes minutes to lay out a 1 MB
# unbroken string); the cut says how much is left out and the data export keeps it all.
PAGE_TEXT_CHARS = 20_000
CSP = ("default-src 'none'; script-src 'unsafe-inline' 'unsafe-eval'; style-src 'unsafe-inline'; "
       "img-src data: blob:; font-src data:; frame-src 'self' about:; base-uri 'none'; form-action 'none'")
_SKIP = {"id", "kind", "label"}


@functools.lru_cache(maxsize=1)
def vega_bundle() -> str:
    """Vega, Vega-Lite and vega-embed as one script (from ``vl_convert.javascript_bundle``) that
    sets ``window.vegaEmbed``; safe to inline in a ``<script>`` element.

    Making the bundle takes vl-convert ~2 s of CPU, most of a page export, so it is kept: in the
    process, and on disk as ``bundle_path()`` (one file per vl-convert version, written whole or
    not at all). A folder that cannot be written only costs the next export the 2 s again.

    Raises ImportError when vl-convert-python is not installed."""
    import vl_convert as vlc

    path = bundle_path(getattr(vlc, "__version__", "unknown"))
    with contextlib.suppress(OSError, UnicodeError):
        kept = path.read_text(encoding="utf-8")
        if kept:
            return kept
    bundle = vlc.javascript_bundle().replace("</script", "<\\/script").replace("<!--", "<\\!--")
    partial = path.with_name(f"{path.name}.{os.getpid()}.partial")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        partial.write_text(bundle, encoding="utf-8")
        os.replace(partial, path)
    except OSError:
        with contextlib.suppress(OSError):
            partial.unlink()
    return bundle


def bundle_path(version: str, environ: Mapping[str, str] | None = None) -> Path:
    """Where ``vega_bundle`` keeps the bundle of vl-convert ``version``: beside the upload cache
    (``$XDG_CACHE_HOME/trace-explorer``, else ``~/.cache/trace-explorer``), as
    ``vega-bundle-VERSION.js``."""
    folder = default_folder(dict(os.environ if environ is None else environ)).parent
    return folder / f"vega-bundle-{re.sub(r'[^0-9A-Za-z.]', '_', version)}.js"


def session_page(session: Session, sessions: Mapping[str, Session] | None = None, *,
                 include_children: bool = True, dag_height_px: int = DAG_HEIGHT_PX,
                 evidence: SessionEvidence | None = None, support: AnswerSupport | None = None,
                 reviews: Sequence[Review] = ()) -> str:
    """The whole page as a string (UTF-8 when written). ``sessions`` (IRI -> Session) gives the
    sub-sessions, shown with their steps unless ``include_children`` is False, and their
    questions on the DAG; ``dag_height_px`` is the DAG frame's height in CSS pixels;
    ``evidence`` (``analysis.evidence.session_evidence``) adds an "Evidence" section; the
    "Answer support" section shows ``support`` (``analysis.support.support.session_support``,
    worked out here from the session alone when not given); ``reviews`` (the session's, e.g.
    ``ReviewStore.reviews_of(session=...)``) adds a "Reviews" section after the header.

    Raises ImportError when pyvis or vl-convert-python is missing."""
    from ..views.dag.network import dag_html
    from ..views.timeline import timeline_chart, timeline_rows

    sessions = sessions or {}
    support = support if support is not None else session_support(session)
    children = [sessions[c] for c in subjects_sessions(session, sessions)] if include_children else []
    numbers: dict[str, str] = {}
    for s_index, current in enumerate([session] + children):
        for index, step in enumerate(current.steps, 1):
            numbers.setdefault(step.id, f"step-{s_index}-{index}")
    dag = dag_html(session, None, dag_height_px, sessions=sessions)
    dag = dag.replace("</body>", _FRAME_SCRIPT + "</body>", 1) if "</body>" in dag else dag + _FRAME_SCRIPT
    spec = timeline_chart(timeline_rows(session, sessions if include_children else None)).properties(
        width="container").to_dict()
    spec.pop("$schema", None)
    parts = [
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n",
        f'<meta http-equiv="Content-Security-Policy" content="{_attr(CSP)}">\n',
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n',
        f"<title>{_text(session.question or session.id)} — Trace Explorer</title>\n",
        f"<style>{_CSS}{EVIDENCE_CSS if evidence else ''}{SUPPORT_CSS}{REVIEWS_CSS if reviews else ''}</style>\n"
        "</head>\n<body>\n<main>\n",
        _header(session, sessions),
        reviews_html(reviews),
        support_html(support),
        '<section id="dag"><h2>Provenance graph</h2>\n',
        '<p class="hint">Drag to pan, Ctrl + wheel to zoom, hover for a step\'s words, click to open its details.</p>\n',
        f'<iframe id="dag-frame" title="Provenance graph" sandbox="allow-scripts" '
        f'style="height:{int(dag_height_px) + 24}px" srcdoc="{_attr(dag)}"></iframe>\n</section>\n',
        '<section id="timeline-section"><h2>Timeline</h2>\n'
        '<div id="timeline" role="img" aria-label="Timeline of the steps"></div>\n</section>\n',
        evidence_section(evidence) if evidence else "",
        _steps_section(session, "Steps", numbers, sessions, 0),
    ]
    for s_index, child in enumerate(children, 1):
        parts.append(_steps_section(child, "Sub-session", numbers, sessions, s_index))
    parts += [
        "</main>\n",
        f"<script>{vega_bundle()}</script>\n",
        f'<script id="timeline-spec" type="application/json">{script_json(spec)}</script>\n',
        f"<script>{_PAGE_SCRIPT}</script>\n",
        "</body>\n</html>\n",
    ]
    return "".join(parts)


def script_json(value: Any) -> str:
    """``value`` as JSON that is safe inside a ``<script>`` element: ``<``, ``>``, ``&`` and
    U+2028/U+2029 are written as ``\\uXXXX`` escapes (same value for a JSON reader)."""
    text = json.dumps(value, ensure_ascii=False, sort_keys=True, default=str)
    for char in "<>&\u2028\u2029":
        text = text.replace(char, f"\\u{ord(char):04x}")
    return text


def _text(value: Any) -> str:
    """Escaped text with its control characters shown, cut at ``PAGE_TEXT_CHARS``."""
    text = str(value)
    if len(text) > PAGE_TEXT_CHARS:
        rest = len(text) - PAGE_TEXT_CHARS
        text = text[:PAGE_TEXT_CHARS] + f" … [{rest:,} more characters not shown; the data export keeps the whole text]"
    return html.escape(visible_controls(text), quote=False)


def _attr(value: Any) -> str:
    return html.escape(str(value), quote=True)


def _header(session: Session, sessions: Mapping[str, Session] | None = None) -> str:
    kind = session.mechanism + (f" · {session.pattern}" if session.pattern else "")
    rows = [("Session", f"<code>{_text(session.id)}</code>"), ("Type", _text(kind)),
            ("Started", _text(format_time(session.time) or "unknown")), ("Status", _text(status(session))),
            ("Steps", str(len(session.steps)))]
    rows += [(label, _text(text)) for label, text in totals_lines(session, sessions)]
    if session.parent:
        rows.append(("Parent step", f"<code>{_text(session.parent)}</code>"))
    out = [f'<header><p class="kicker">TrustGraph session</p><h1>{_text(session.question or "(no question)")}</h1>\n<dl class="meta">']
    out += [f"<dt>{name}</dt><dd>{value}</dd>" for name, value in rows]
    out.append("</dl>\n")
    if session.answer_id:
        answer = session.answer if session.answer is not None else f"(text not loaded: {session.answer_id})"
        out.append(f'<h2>Answer</h2>\n<div class="answer">{_text(answer)}</div>\n')
    out.append("</header>\n")
    return "".join(out)


def _steps_section(session: Session, heading: str, numbers: dict[str, str],
                   sessions: Mapping[str, Session], s_index: int) -> str:
    out = [f'<section class="steps" id="session-{s_index}" data-session="{_attr(session.id)}">']
    if s_index:
        out.append(f"<h2>{heading}: {_text(session.question or session.id)}</h2>\n"
                   f'<p class="hint"><code>{_text(session.id)}</code> · {_text(session.mechanism)}'
                   f"{' · ' + _text(session.pattern) if session.pattern else ''} · {_text(status(session))}</p>\n")
        if session.answer:
            out.append(f'<div class="answer">{_text(session.answer)}</div>\n')
    else:
        out.append(f"<h2>{heading}</h2>\n")
    for index, step in enumerate(session.steps, 1):
        record = step_record(step)
        tag = step_tag(step.id)
        title = f"{index}. {step.kind}" + (f" {tag}" if tag else "")
        if step.label and step.label != step.kind:
            title += f" — {step.label}"
        out.append(f'<details id="{numbers.get(step.id, "")}" data-step="{_attr(step.id)}">'
                   f"<summary>{_text(title)}</summary>\n<dl>")
        out.append(f"<dt>IRI</dt><dd><code>{_text(step.id)}</code></dd>")
        for name, value in record.items():
            if name in _SKIP or value is None or value == [] or value == "":
                continue
            out.append(f"<dt>{_text(name.replace('_', ' '))}</dt><dd>{_value(name, value)}</dd>")
        for child in session.children:
            if session.graph.has_edge(child, step.id):
                target = sessions.get(child)
                label = target.question if target and target.question else child
                out.append(f"<dt>sub-session</dt><dd>{_text(label)} <code>{_text(child)}</code></dd>")
        out.append("</dl></details>\n")
    out.append("</section>\n")
    return "".join(out)


def _value(name: str, value: Any) -> str:
    if name == "edges" and isinstance(value, list):
        rows = "".join(
            "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>".format(
                *(_text(e.get(k + "_label") or e.get(k) or e.get("raw") or "") for k in ("s", "p", "o")),
                _text(e.get("concept") or ""), _text("" if e.get("score") is None else e["score"]))
            for e in value if isinstance(e, dict))
        return f"<table><tr><th>subject</th><th>predicate</th><th>object</th><th>concept</th><th>score</th></tr>{rows}</table>"
    if isinstance(value, str):
        return f'<div class="text">{_text(value)}</div>' if "\n" in value or len(value) > 80 else _text(value)
    if isinstance(value, list) and all(isinstance(v, (str, int, float)) for v in value):
        return "<ul>" + "".join(f"<li>{_text(v)}</li>" for v in value) + "</ul>"
    if isinstance(value, (dict, list)):
        return f"<pre>{_text(json.dumps(value, ensure_ascii=False, indent=2, default=str))}</pre>"
    return _text(value)


_CSS = """
:root { color-scheme: light; --ink: #111827; --muted: #64748b; --line: #e5e7eb; }
* { box-sizing: border-box; }
body { margin: 0; font: 14px/1.5 system-ui, -apple-system, 'Segoe UI', 'DejaVu Sans', sans-serif; color: var(--ink); background: #f8fafc; }
main { max-width: 1100px; margin: 0 auto; padding: 24px 20px 60px; }
header, section { background: #fff; border: 1px solid var(--line); border-radius: 10px; padding: 16px 20px; margin: 0 0 18px; }
h1 { font-size: 22px; margin: 0 0 10px; } h2 { font-size: 17px; margin: 0 0 10px; }
.kicker { margin: 0; color: var(--muted); font-size: 12px; text-transform: uppercase; letter-spacing: .05em; }
.hint { color: var(--muted); font-size: 12px; margin: -4px 0 10px; }
dl.meta { display: grid; grid-template-columns: max-content 1fr; gap: 2px 14px; margin: 0 0 10px; }
dl.meta dt { color: var(--muted); } dl.meta dd { margin: 0; }
.answer { white-space: pre-wrap; background: #f0fdf4; border-left: 4px solid #16a34a; padding: 8px 12px; border-radius: 4px; }
iframe { width: 100%; border: 0; display: block; }
#timeline { width: 100%; min-height: 60px; }
details { border-top: 1px solid var(--line); padding: 6px 0; }
details[open] { background: #fcfcfd; }
summary { cursor: pointer; font-weight: 600; }
details dl { display: grid; grid-template-columns: 10em 1fr; gap: 4px 12px; margin: 8px 0 4px 18px; }
details dt { color: var(--muted); } details dd { margin: 0; min-width: 0; overflow-wrap: anywhere; }
.text { white-space: pre-wrap; } pre { white-space: pre-wrap; margin: 0; background: #f1f5f9; padding: 6px 8px; border-radius: 4px; }
code { font-size: 12px; overflow-wrap: anywhere; }
table { border-collapse: collapse; font-size: 13px; } td, th { border: 1px solid var(--line); padding: 2px 6px; text-align: left; vertical-align: top; }
details.flash > summary { background: #fef9c3; }
"""

# In the DAG frame: a click on a node tells the page which step it was; the frame's height is
# told to the page, which makes the frame that tall, so the frame never scrolls on its own (a
# wheel over the graph would scroll the frame's last pixels instead of the page; the legend's
# rows, which wrap with the width, decide the height)
_FRAME_SCRIPT = """<script>
(function () {
  document.documentElement.style.overflow = "hidden";
  function tell() {
    parent.postMessage({traceExplorerHeight: Math.ceil(document.body.getBoundingClientRect().height)}, "*");
  }
  tell();
  if (typeof ResizeObserver === "function") { new ResizeObserver(tell).observe(document.body); }
  if (typeof network === "undefined" || !network) { return; }
  network.on("click", function (params) {
    if (params.nodes && params.nodes.length) { parent.postMessage({traceExplorerStep: String(params.nodes[0])}, "*"); }
  });
})();
</script>
"""

_PAGE_SCRIPT = """
(function () {
  function openStep(iri) {
    var found = null;
    document.querySelectorAll("details[data-step]").forEach(function (el) {
      if (!found && el.getAttribute("data-step") === iri) { found = el; }
    });
    if (!found) { return; }
    found.open = true;
    found.classList.add("flash");
    setTimeout(function () { found.classList.remove("flash"); }, 1500);
    found.scrollIntoView({block: "center"});
  }
  var frame = document.getElementById("dag-frame");
  window.addEventListener("message", function (event) {
    if (!frame || event.source !== frame.contentWindow) { return; }
    var data = event.data;
    if (data && typeof data.traceExplorerStep === "string") { openStep(data.traceExplorerStep); }
    if (data && typeof data.traceExplorerHeight === "number" && data.traceExplorerHeight > 0) {
      frame.style.height = Math.min(4000, Math.ceil(data.traceExplorerHeight)) + "px";
    }
  });
  var spec = JSON.parse(document.getElementById("timeline-spec").textContent);
  var target = document.getElementById("timeline");
  if (typeof vegaEmbed !== "function") { target.textContent = "The timeline could not be drawn."; return; }
  vegaEmbed(target, spec, {mode: "vega-lite", actions: false, renderer: "svg"}).then(function (result) {
    target.setAttribute("data-rendered", "true");
    result.view.addEventListener("click", function (event, item) {
      if (item && item.datum && typeof item.datum.step === "string") { openStep(item.datum.step); }
    });
  }).catch(function (error) { target.textContent = "The timeline could not be drawn: " + error; });
})();
"""
