"""components/hosting/heap.py: the objects of imported modules leave the full collection once, not per run."""

from __future__ import annotations

import gc
import importlib
import sys

from components.hosting.heap import freeze_new_imports


def test_the_heap_is_frozen_once_per_new_import():
    try:
        freeze_new_imports()  # whatever the test session imported before
        assert gc.get_freeze_count() > 0
        assert freeze_new_imports() is False  # no module imported since: nothing done
        frozen = gc.get_freeze_count()
        fresh = next(name for name in ("colorsys", "sndhdr", "tabnanny", "wave", "chunk") if name not in sys.modules)
        importlib.import_module(fresh)
        assert freeze_new_imports() is True and gc.get_freeze_count() >= frozen
        # a later collection walks only what was made after the freeze
        assert sum(gc.get_count()) < frozen
    finally:
        gc.unfreeze()
