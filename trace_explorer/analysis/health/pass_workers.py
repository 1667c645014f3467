"""How many worker processes an ingest's health pass (``in_pass``) starts beside itself, apart
from the pass, so that the command line can say it in its help without loading the checks."""

from __future__ import annotations

import os


def workers_for(cores: int | None = None) -> int:
    """Worker processes beside this one: one a further core, at most 3 (each holds 200 to 500 MB).
    ``cores``: the cores this process may run on (by default as the OS says)."""
    cores = cores if cores is not None else (len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity")
                                             else os.cpu_count() or 1)
    return max(0, min(cores - 1, 3))
