"""A bounded cache of what was read from texts, for the support matcher: the same Observation,
chunk or edge text recurs in the steps of one session and across the sessions of a store (one
ingest checks thousands), and reading its words costs more than looking it up.

Bounded by the characters of the texts it keeps (what is read from a text grows with it), least
recently used first out, so a long-running app holds at most ``budget`` characters' worth; or by
another measure of what is kept (``size``: the rows of an embedding matrix, ``embedding``)."""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable, Sized
from typing import Generic, TypeVar
from weakref import WeakSet

Value = TypeVar("Value")
_CACHES: WeakSet[TextCache] = WeakSet()  # every cache made, for ``clear_all``


class TextCache(Generic[Value]):
    """``get(text, key, read)``: ``read()`` for ``text`` (``key``: what else the value depends
    on, such as a language), kept for the next call with the same text and key. Holds at most
    ``budget`` characters of texts (a text longer than that is read, never kept), or ``budget``
    of ``measure(text)`` (any sized, hashable ``text``, such as a tuple of words). Values must
    not be changed by their users: every caller gets the same object. ``len()``: the entries
    kept."""

    def __init__(self, budget: int, measure: Callable[[Sized], int] = len):
        self.budget, self.measure = budget, measure
        self.size = 0
        self.entries: OrderedDict[tuple[Hashable, Hashable], Value] = OrderedDict()
        self.lock = threading.Lock()  # the app's sessions run in threads and share the cache
        _CACHES.add(self)

    def get(self, text: Hashable, key: Hashable, read: Callable[[], Value]) -> Value:
        """The value read from ``text`` for ``key``: kept, or ``read()`` now and kept."""
        entry = (text, key)
        with self.lock:
            if entry in self.entries:
                self.entries.move_to_end(entry)
                return self.entries[entry]
        value = read()
        if self.measure(text) <= self.budget:
            with self.lock:
                if entry not in self.entries:
                    self.entries[entry] = value
                    self.size += self.measure(text)
                while self.size > self.budget:
                    (old, _), _ = self.entries.popitem(last=False)
                    self.size -= self.measure(old)
        return value

    def __len__(self) -> int:
        return len(self.entries)

    def clear(self) -> None:
        """Forget every entry."""
        with self.lock:
            self.entries.clear()
            self.size = 0


def clear_all() -> None:
    """Empty every ``TextCache``: what follows reads its texts anew (a benchmark's first reading)."""
    for cache in list(_CACHES):
        cache.clear()
