"""Where reviews are kept, which labels they may carry and whose name they bear: the operator's
settings (docs/reviews.md, "Settings").

Each is read, first found wins, from the command line (``--reviews DIR``, ``--by NAME``), the
environment (``REVIEWS_VARIABLE``, ``LABELS_VARIABLE``, ``AUTHOR_VARIABLE``), then the
``[reviews]`` table of the sources file (``sources.configured``: ``folder``, ``labels``,
``author``), then the defaults: the folder ``REVIEWS_DIR`` inside the local store beside its
session index, or, for a source with no folder of its own (files, an endpoint, TrustGraph),
``$XDG_DATA_HOME/trace-explorer/reviews`` (else ``~/.local/share/trace-explorer/reviews``);
the labels ``DEFAULT_LABELS``; the author "local".
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from .review import MAX_AUTHOR, MAX_LABEL, ReviewError

REVIEWS_VARIABLE = "TRACE_EXPLORER_REVIEWS"  # a folder for the review store
LABELS_VARIABLE = "TRACE_EXPLORER_REVIEW_LABELS"  # labels, comma separated
AUTHOR_VARIABLE = "TRACE_EXPLORER_REVIEWER"  # the author's name without sign-in
REVIEWS_DIR = "trace-explorer-reviews"  # the review store's folder inside a local store
DEFAULT_LABELS = ("correct", "incorrect", "unsupported", "wrong-tool", "harmful", "needs-review")
LOCAL_AUTHOR = "local"
SETTINGS = frozenset({"folder", "labels", "author"})  # what a [reviews] table may set


@dataclass(frozen=True)
class ReviewSettings:
    """The operator's review settings: ``folder`` (None: the default for the source), ``labels``
    (in the order offered) and ``author`` (None: "local")."""

    folder: Path | None = None
    labels: tuple[str, ...] = DEFAULT_LABELS
    author: str | None = None

    def folder_for(self, store_dir: Path | str | None = None, explicit: Path | str | None = None,
                   environ: Mapping[str, str] | None = None) -> Path:
        """The review store's folder: ``explicit`` (``--reviews``), else this ``folder``, else
        ``store_dir/REVIEWS_DIR`` beside the local store's session index, else the user's data
        folder (``$XDG_DATA_HOME`` of ``environ``, default ``os.environ``)."""
        if explicit:
            return Path(explicit).expanduser()
        if self.folder is not None:
            return self.folder
        if store_dir is not None:
            return Path(store_dir).expanduser() / REVIEWS_DIR
        environ = environ if environ is not None else os.environ
        base = environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
        return Path(base) / "trace-explorer" / "reviews"

    def author_for(self, signed_in: str | None = None, given: str | None = None) -> str:
        """Who a review is by: the signed-in user's name (``signed_in``), else a name given on the
        command line (``given``), else the configured one, else "local" (issue 42)."""
        for name in (signed_in, given, self.author):
            if name and name.strip():
                return name.strip()[:MAX_AUTHOR]
        return LOCAL_AUTHOR


def parse_labels(value: str | Sequence[str]) -> tuple[str, ...]:
    """Labels from a comma-separated string or a list: stripped, empty ones and repeats dropped,
    order kept. Raises ReviewError when none is left or one is longer than ``MAX_LABEL``."""
    items = value.split(",") if isinstance(value, str) else list(value)
    labels: list[str] = []
    for item in items:
        if not isinstance(item, str):
            raise ReviewError(f"a label must be text, not {item!r}")
        label = item.strip()
        if len(label) > MAX_LABEL:
            raise ReviewError(f"the label {label[:80]!r} is longer than {MAX_LABEL} characters")
        if label and label not in labels:
            labels.append(label)
    if not labels:
        raise ReviewError("no labels are set")
    return tuple(labels)


def review_settings(table: Mapping | None = None, environ: Mapping[str, str] | None = None) -> ReviewSettings:
    """The settings from ``environ`` (default ``os.environ``) over the sources file's
    ``[reviews]`` table (``table``: ``folder`` a path, ``labels`` a list or comma-separated
    string, ``author`` a name). Raises ReviewError for a setting of the wrong shape."""
    environ = environ if environ is not None else os.environ
    table = table or {}
    unknown = sorted(set(table) - SETTINGS)
    if unknown:
        raise ReviewError(f"[reviews]: unknown setting {unknown[0]!r} (expected folder, labels, author)")
    folder = environ.get(REVIEWS_VARIABLE, "").strip() or table.get("folder")
    labels = environ.get(LABELS_VARIABLE, "").strip() or table.get("labels") or DEFAULT_LABELS
    author = environ.get(AUTHOR_VARIABLE, "").strip() or table.get("author")
    if folder is not None and not isinstance(folder, str):
        raise ReviewError("[reviews]: expected folder to be a path")
    if author is not None and not isinstance(author, str):
        raise ReviewError("[reviews]: expected author to be a name")
    return ReviewSettings(Path(folder).expanduser() if folder else None, parse_labels(labels), author or None)
