"""The memory budget for parsed uploads (``read.upload_budget``): an upload is counted at seven
times its size while what it parsed into lives, past the budget it waits and is then refused,
and the room comes back when the parse is let go."""

from __future__ import annotations

import gc
import threading

import pytest

from trace_explorer.read.upload_budget import HOLD_FACTOR, MemoryBudget, OverBudget, budget_from_environment


class Parse:
    """Stands for a parsed upload: anything a weak reference can follow."""


def test_a_parse_is_counted_while_it_lives_and_given_back_after():
    budget = MemoryBudget(1_000)
    with budget.reserve(100) as room:
        assert budget.held == 100 * HOLD_FACTOR
        parse = Parse()
        room.hold(parse, 120)  # a .gz: read, it is bigger than sent
    assert budget.held == 120 * HOLD_FACTOR
    del parse
    gc.collect()
    assert budget.held == 0
    with budget.reserve(100):
        pass  # nothing held: the room goes back when the block ends
    assert budget.held == 0


def test_past_the_budget_an_upload_waits_then_is_refused_with_a_message():
    budget = MemoryBudget(1_000)
    holder = [Parse()]  # a visitor's parse, held
    with budget.reserve(100) as room:
        room.hold(holder[0], 100)
    freed = []
    with pytest.raises(OverBudget, match=r"holding as many uploaded files as its memory allows \(1,000 bytes for everyone"):
        with budget.reserve(50, wait_s=0.2, free=lambda: freed.append(True)):
            pass
    assert freed == [True] and budget.held == 700
    with pytest.raises(OverBudget, match="more than this server gives to everyone's uploads together"):
        with budget.reserve(200, wait_s=0):
            pass
    # an upload that waits gets its room when the parse held is let go
    letting_go = threading.Timer(0.2, holder.clear)  # the visitor removes their files
    letting_go.start()
    with budget.reserve(50, wait_s=10) as room:
        assert budget.held == 350
    letting_go.join()


def test_a_gz_that_expands_past_the_room_left_is_refused():
    budget = MemoryBudget(1_000)
    with pytest.raises(OverBudget), budget.reserve(10) as room:
        room.hold(Parse(), 200)
    assert budget.held == 0


def test_the_budget_is_2_gib_unless_set():
    assert budget_from_environment({}).max_bytes == 2048 * 1024 * 1024
    assert budget_from_environment({"TRACE_EXPLORER_UPLOAD_MEMORY_MB": "64"}).max_bytes == 64 * 1024 * 1024
    assert budget_from_environment({"TRACE_EXPLORER_UPLOAD_MEMORY_MB": "-1"}).max_bytes == 2048 * 1024 * 1024
