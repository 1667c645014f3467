"""Whether the session index's rows carry their answers' previews, so that a page of the list
need not ask the store for them (``catalog.list_sessions``).

A row's summary holds its ``answer_preview`` when the answer's text was at hand as the row was
read: inline, in a content file given with the traces, or in the store's documents graph
(``index_words.GraphTexts``). A text that comes later (a content file ingested after its
traces) used to reach the list only by the page asking the store, four look-ups a row without a
preview on every page shown: half a page's time at 100,000 sessions (docs/performance.md, "Views at 100,000 sessions"),
although most such answers have no text anywhere. Now the index says, in its ``meta`` table
under ``COMPLETE_KEY``, that every row has the preview of any text the store holds for its
answer, and keeps that true as texts arrive:

- an index made empty, and one rebuilt (``session_index.build_index``, ``reindex``), is marked;
- a content file, or a file whose documents graph holds texts (read whole or a batch at a
  time), ingested after the traces fills the preview of each indexed session whose answer's
  text it brings (``fill``), as it adds their words.

An index without the mark (made before it existed) has its pages' previews looked
up from the store as before.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Mapping

import pyoxigraph as ox

from ..model.summary import answer_preview
from ..sources.store_source import StoreSource

COMPLETE_KEY = "answer_previews"  # meta: every row has its answer's preview when the store has the text


def is_complete(db: sqlite3.Connection) -> bool:
    """True when the index's rows carry every preview the store has a text for (the caller
    holds the index's lock)."""
    return db.execute("SELECT 1 FROM meta WHERE key = ?", (COMPLETE_KEY,)).fetchone() is not None


def mark(db: sqlite3.Connection, complete: bool) -> None:
    """Inside a transaction: set or clear the mark."""
    if complete:
        db.execute("INSERT OR REPLACE INTO meta VALUES (?, '1')", (COMPLETE_KEY,))
    else:
        db.execute("DELETE FROM meta WHERE key = ?", (COMPLETE_KEY,))


def fill(db: sqlite3.Connection, store: ox.Store, rows: Mapping[str, tuple]) -> int:
    """Inside a transaction, after a write that brought texts: give each of ``rows`` (root ->
    (row id, parent, summary dict): ``session_index._summaries_where``) whose summary has an
    answer but no preview the preview of the text ``store`` now holds for it
    (``StoreSource.entity_texts``: an inline answer, or the text behind its ``tg:document``;
    a few look-ups a row). Returns how many rows changed."""
    lacking = {summary["answer_id"]: (row_id, summary) for row_id, _, summary in rows.values()
               if summary.get("answer_id") and summary.get("answer_preview") is None}
    if not lacking:
        return 0
    updates = []
    for answer, text in StoreSource(store, label="store").entity_texts(lacking).items():
        row_id, summary = lacking[answer]
        summary["answer_preview"] = answer_preview(text)
        updates.append((json.dumps(summary, ensure_ascii=False, sort_keys=True), row_id))
    db.executemany("UPDATE summaries SET summary = ? WHERE id = ?", updates)
    return len(updates)
