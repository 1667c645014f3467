"""The review store's journal: new reviews saved in a few milliseconds, folded into the
annotation store later.

Opening the pyoxigraph (RocksDB) store, writing and closing it takes about a hundred
milliseconds, most of it the opening and closing, which every change paid so that other
processes could take the store. A new review (``ReviewStore.add``) instead appends one line to
``JOURNAL_FILE`` beside the store, holding the store's lock::

    {"base": 7}                                                  # the store's generation when begun
    {"generation": 8, "review": "<urn:uuid:A> a oa:Annotation ... (N-Triples)"}
    {"generation": 9, "review": "..."}

Each line is a review as the same triples the store keeps (``rdf.triples``), so it reads back
exactly as from the store. Readers (``ReviewStore.get``, ``reviews_of``, ``history``) read the
store and add the journal's reviews of a higher generation than the store's; the next change
that opens the store anyway (an edit, a delete, an import, or the add that finds ``FOLD_AT``
lines) first writes the journal's reviews into it as adds (``fold``) and begins the journal
again. A fold is idempotent: the store's generation says which lines it already holds, so a
process killed between the fold and the journal's new beginning loses and doubles nothing.

A line is written with one ``write`` on a file opened to append, then ``fsync``'d, so a review
saved survives the process and the machine. A line cut short (a process killed in the middle)
is ignored by readers and cut off by the next writer.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path

import pyoxigraph as ox

from .rdf import reviews_from, triples
from .review import Review

JOURNAL_FILE = "journal.jsonl"
FOLD_AT = 200  # lines after which an add folds the journal into the store (keeps reads quick)


@dataclass(frozen=True)
class Journal:
    """A journal as read: ``base`` the store's generation when it began, ``generation`` the one
    after its last review (``base`` when none), ``lines`` how many reviews it holds, ``reviews``
    the ``(generation, review)`` of each (empty when read without them), ``whole_bytes`` the
    length of its whole lines (less than ``size``, the file's, when the last was cut short)."""

    base: int
    generation: int
    lines: int = 0
    reviews: list[tuple[int, Review]] = field(default_factory=list)
    whole_bytes: int = 0
    size: int = 0

    def after(self, generation: int) -> list[Review]:
        """Its reviews of a generation above ``generation`` (the store's): those not yet folded."""
        return [review for number, review in self.reviews if number > generation]


def journal_path(folder: Path) -> Path:
    """The journal file of the review store in ``folder``."""
    return Path(folder) / JOURNAL_FILE


def read(folder: Path, reviews: bool = True) -> Journal | None:
    """The journal in ``folder``, or None when there is none (a store made before journals, or
    none yet); without its ``reviews`` (only its generation and length, for a writer) when not
    ``reviews``. Raises OSError when it cannot be read, ReviewError for a line that is no review."""
    try:
        data = journal_path(folder).read_bytes()
    except FileNotFoundError:
        return None
    lines = data.split(b"\n")
    whole = lines[:-1]  # the part after the last newline is empty or a line cut short
    if not whole:
        return None
    try:
        base = int(json.loads(whole[0])["base"])
    except (ValueError, KeyError, TypeError):
        return None  # a header cut short: the writer begins again (``begin``)
    kept = []
    for line in whole[1:] if reviews else ():
        record = json.loads(line)
        parsed = reviews_from(ox.parse(record["review"], format=ox.RdfFormat.N_TRIPLES))
        kept.append((int(record["generation"]), parsed[0]))
    last = int(json.loads(whole[-1])["generation"]) if len(whole) > 1 else base
    return Journal(base, last, len(whole) - 1, kept, len(data) - len(lines[-1]), len(data))


def append(folder: Path, journal: Journal, review: Review) -> int:
    """Append ``review`` to ``journal`` (as ``read`` just now, under the store's lock), as the
    generation after its last, written and fsync'd; returns that generation. A line cut short
    at its end is cut off first. Raises OSError when the file cannot be written."""
    generation = journal.generation + 1
    text = ox.serialize([t for t in triples(review)], format=ox.RdfFormat.N_TRIPLES).decode("utf-8")
    line = json.dumps({"generation": generation, "review": text}, ensure_ascii=False) + "\n"
    descriptor = os.open(journal_path(folder), os.O_WRONLY | os.O_APPEND)
    try:
        if journal.size != journal.whole_bytes:
            os.ftruncate(descriptor, journal.whole_bytes)
        os.write(descriptor, line.encode("utf-8"))
        os.fsync(descriptor)
    finally:
        os.close(descriptor)
    return generation


def begin(folder: Path, base: int) -> None:
    """Begin the journal again, empty, at the store's generation ``base`` (after a fold): a new
    file put in place of the old in one rename, fsync'd. Raises OSError."""
    path = journal_path(folder)
    fresh = path.with_name(path.name + ".new")
    with open(fresh, "wb") as handle:
        handle.write(json.dumps({"base": base}).encode("utf-8") + b"\n")
        handle.flush()
        os.fsync(handle.fileno())
    os.replace(fresh, path)
