"""What a search costs as it grows: the adversary's 5k / 10k / 20k / 40k different words.

    python benchmarks/search_cost.py [--words 5000,10000,20000,40000]

For each size, a search of that many different made-up words (``w0x w1x …``, 309 KB at 40,000)
is read as the list reads it (``SessionFilter``: its words, fields and the note that says it was
cut) and then answered on the demo corpus in memory with its session index (the full-text table
the app searches). Before the cut (``search.MAX_SEARCH_CHARS`` characters, ``search.MAX_WORDS``
different words) each word was compared with every word before it: 0.6 / 2.0 / 6.3 / 18.3 s. The
target is under 0.5 s at 40,000 words. Numbers only, nothing asserted.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from run import REPO  # noqa: E402 - beside this file; it puts the repository on the path too

from trace_explorer.read.collection import load_collection  # noqa: E402
from trace_explorer.index.catalog import SessionFilter, list_sessions  # noqa: E402
from trace_explorer.index.build import build_index  # noqa: E402
from trace_explorer.sources.store_source import StoreSource  # noqa: E402

TARGET_S = 0.5


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--words", default="5000,10000,20000,40000", help="sizes, comma-separated")
    args = parser.parse_args()
    collection, _ = load_collection([REPO / "trace_explorer" / "demo_data"])
    source = StoreSource(collection.store, documents=collection.documents, index=build_index(collection.store))
    list_sessions(source, SessionFilter(text="warm up"))
    print(f"{'words':>7} {'KB':>6} {'read s':>8} {'listed s':>9} {'rows':>5}  note")
    for n in (int(w) for w in args.words.split(",")):
        text = " ".join(f"w{i}x" for i in range(n))
        started = time.perf_counter()
        filters = SessionFilter(text=text)
        note = filters.capped_note
        read = time.perf_counter() - started
        rows = list_sessions(source, filters).rows
        listed = time.perf_counter() - started
        print(f"{n:>7,} {len(text) / 1000:>6.0f} {read:>8.4f} {listed:>9.4f} {len(rows):>5}  {note}")
    print(f"target: under {TARGET_S} s at 40,000 words")


if __name__ == "__main__":
    main()
