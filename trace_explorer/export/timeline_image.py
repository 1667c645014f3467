"""A session's timeline as an image (SVG, PNG or PDF): the app's Vega-Lite timeline spec, every
row labelled, rendered offline by vl-convert."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from ..model.session import Session
from ..views.step_labels import clip
from .images import ImageExportError
from .suffixes import IMAGE_FORMATS

TIMELINE_WIDTH_PX = 760
IMAGE_ROW_PX = 13
TIMELINE_FONT = "DejaVu Sans, Verdana, sans-serif"


# -- the timeline -------------------------------------------------------------------------------
def timeline_spec(session: Session, sessions: Mapping[str, Session] | None = None) -> dict[str, Any]:
    """The Vega-Lite spec (a dict) of the session view's timeline, titled with the question,
    ``TIMELINE_WIDTH_PX`` wide, with a fixed chart name so the same session gives the same spec.
    The sub-sessions found in ``sessions`` (IRI -> Session) are drawn too, each from its own
    start time (``views.waterfall``)."""
    from ..views.timeline import timeline_chart, timeline_rows

    chart = timeline_chart(timeline_rows(session, sessions))
    title = {"text": clip(session.question or "(no question)", 90), "subtitle": session.id,
             "anchor": "start", "fontSize": 13, "subtitleFontSize": 10, "subtitleColor": "#64748b"}
    spec = chart.properties(width=TIMELINE_WIDTH_PX, title=title, padding=8).to_dict()
    # Text is measured with the font the image names: DejaVu here (as in the DAG), and a viewer
    # without it falls back to Verdana's similar widths, so an SVG's labels are not clipped.
    spec.setdefault("config", {})["font"] = TIMELINE_FONT
    return _rename_views(_label_every_row(spec))


def _label_every_row(spec: dict[str, Any]) -> dict[str, Any]:
    """A picture has no hover: when the chart hid its row labels (a long session), give every
    row ``IMAGE_ROW_PX`` and its label back, so the image grows instead of losing its words."""
    from ..views.timeline import LABEL_PADDING_PX

    y = spec.get("encoding", {}).get("y")
    if isinstance(y, dict) and y.get("axis", {}) is None:
        y["axis"] = {"title": None, "labelLimit": 260, "labelFontSize": 9, "ticks": False, "domain": False,
                     "labelPadding": LABEL_PADDING_PX}
        y["title"] = None
        spec["height"] = {"step": IMAGE_ROW_PX}
    return spec


def timeline_image(session: Session, fmt: str, sessions: Mapping[str, Session] | None = None) -> bytes:
    """The session's timeline (with the sub-sessions found in ``sessions``: ``timeline_spec``) as
    ``fmt`` ("svg", "png" at 2x or "pdf") bytes, drawn by vl-convert. Raises ValueError for
    another format, ImageExportError when vl-convert is missing."""
    if fmt not in IMAGE_FORMATS.values():
        raise ValueError(f"unknown image format {fmt!r}: use svg, png or pdf")
    try:
        import vl_convert as vlc
    except ImportError:
        raise ImageExportError("vl-convert-python is not installed (pip install -r requirements.txt)") from None
    spec = timeline_spec(session, sessions)
    if fmt == "svg":
        return vlc.vegalite_to_svg(spec).encode("utf-8")
    if fmt == "png":
        return vlc.vegalite_to_png(spec, scale=2)
    return vlc.vegalite_to_pdf(spec)


def _rename_views(spec: Any, names: dict[str, str] | None = None) -> Any:
    """Replace Altair's per-process view names ("view_7", in ``name`` and ``views``) with fixed
    ones ("timeline_1", ...) in the order met, so two exports of one session are equal."""
    names = {} if names is None else names

    def fixed(value: Any) -> Any:
        if isinstance(value, str) and re.fullmatch(r"view_\d+", value):
            return names.setdefault(value, f"timeline_{len(names) + 1}")
        return value

    if isinstance(spec, dict):
        out = {}
        for key, value in spec.items():
            if key == "name":
                out[key] = fixed(value)
            elif key == "views" and isinstance(value, list):
                out[key] = [fixed(v) for v in value]
            elif key in ("datasets", "data"):
                out[key] = value
            else:
                out[key] = _rename_views(value, names)
        return out
    if isinstance(spec, list):
        return [_rename_views(v, names) for v in spec]
    return spec
