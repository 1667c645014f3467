"""Aligning two sequences of steps (or of sub-sessions) in order, as a diff aligns lines.

Each item is ``(kind, key, fingerprint)``. Two items may pair only when their kinds are equal.
Among the order-keeping alignments the one chosen has, in this order of importance:

1. the most pairs (two steps of the same kind pair before they fall to "only in A/B");
2. the most pairs whose keys agree (the same tool, plan step or goal);
3. the most pairs that are identical (equal fingerprints).

That is a weighted longest-common-subsequence, solved by dynamic programming. Why not
``difflib.SequenceMatcher``: it aligns equal items only, and greedily by the longest equal run,
so a tool swapped in one iteration would leave two steps of the same kind unpaired, and a plan
carried out in another order would pair fewer steps than it could. The dynamic programme is
exact, and kept fast for long sessions three ways: a common head and tail of identical items are
paired before it runs (the usual before/after pair differs in a few places); two middles whose
kinds agree item by item pair position by position (no other alignment has as many pairs); and
otherwise the table is kept to a band around the diagonal of at most ``CELL_BUDGET`` cells,
which is exact whenever the best alignment stays within the band (two runs of one agent drift
apart by a few iterations, not by thousands).
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence

Item = tuple[Hashable, Hashable, Hashable]
Pair = tuple[int | None, int | None]

CELL_BUDGET = 400_000  # table cells the dynamic programme may fill (about 0.4 s of Python)
_DIAG, _UP, _LEFT = 0, 1, 2


def align(a: Sequence[Item], b: Sequence[Item]) -> list[Pair]:
    """Rows of an order-keeping alignment of ``a`` and ``b`` (see the module docstring): ``(i,
    j)`` pairs item ``a[i]`` with ``b[j]`` (same kind), ``(i, None)`` is only in ``a``, ``(None,
    j)`` only in ``b``. Every index of each side appears exactly once, in increasing order; within
    a run of unpaired items those of ``a`` come first."""
    n, m = len(a), len(b)
    head = 0
    while head < n and head < m and a[head] == b[head]:
        head += 1
    tail = 0
    while tail < n - head and tail < m - head and a[n - 1 - tail] == b[m - 1 - tail]:
        tail += 1
    middle_a, middle_b = a[head:n - tail], b[head:m - tail]
    if [x[0] for x in middle_a] == [y[0] for y in middle_b]:
        middle = [(i, i) for i in range(len(middle_a))]
    elif len(middle_a) >= len(middle_b):
        middle = _weighted_lcs(middle_a, middle_b)
    else:
        middle = [(i, j) for j, i in _weighted_lcs(middle_b, middle_a)]
    rows: list[Pair] = [(i, i) for i in range(head)]
    rows += [(None if i is None else i + head, None if j is None else j + head) for i, j in _ordered(middle)]
    rows += [(n - tail + k, m - tail + k) for k in range(tail)]
    return rows


def _weighted_lcs(a: Sequence[Item], b: Sequence[Item]) -> list[Pair]:
    """The dynamic programme on ``a`` (the longer, ``len(a) >= len(b)``) and ``b``: rows of the
    alignment in order, unpaired runs as the path left them."""
    n, m = len(a), len(b)
    if n == 0 or m == 0:
        return [(i, None) for i in range(n)] + [(None, j) for j in range(m)]
    # a pair is worth more than any number of key agreements, a key more than any identities
    unit = n + m + 1
    pair_weight, key_weight = unit * unit, unit
    kinds_b = [y[0] for y in b]
    keys_b = [y[1] for y in b]
    prints_b = [y[2] for y in b]
    width = max(1, (CELL_BUDGET // (n + 1) - 1) // 2)
    full = width >= m
    lows, backs = [0], [bytearray([_LEFT]) * (m + 1 if full else min(m, width) + 1)]
    previous = [0] * len(backs[0])
    for i in range(1, n + 1):
        if full:
            low, high = 0, m
        else:
            centre = i * m // n
            low, high = max(0, centre - width), min(m, centre + width)
        kind, key, print_ = a[i - 1]
        prev_low = lows[-1]
        prev_high = prev_low + len(previous) - 1
        current = [0] * (high - low + 1)
        back = bytearray(high - low + 1)
        for j in range(low, high + 1):
            if prev_low <= j <= prev_high:
                best, move = previous[j - prev_low], _UP
            else:
                best, move = -1, _UP
            if j > low and current[j - 1 - low] >= best:
                best, move = current[j - 1 - low], _LEFT
            if j > 0 and prev_low <= j - 1 <= prev_high and kinds_b[j - 1] == kind:
                value = previous[j - 1 - prev_low] + pair_weight
                if keys_b[j - 1] == key:
                    value += key_weight + (prints_b[j - 1] == print_)
                if value > best:
                    best, move = value, _DIAG
            current[j - low] = best
            back[j - low] = move
        lows.append(low)
        backs.append(back)
        previous = current
    rows: list[Pair] = []
    i, j = n, m
    while i > 0 or j > 0:
        move = backs[i][j - lows[i]] if i > 0 else _LEFT
        if move == _DIAG:
            rows.append((i - 1, j - 1))
            i, j = i - 1, j - 1
        elif move == _UP:
            rows.append((i - 1, None))
            i -= 1
        else:
            rows.append((None, j - 1))
            j -= 1
    rows.reverse()
    return rows


def _ordered(rows: list[Pair]) -> list[Pair]:
    """``rows`` with each run of unpaired items ordered: those only in ``a`` first."""
    out: list[Pair] = []
    run_a: list[Pair] = []
    run_b: list[Pair] = []
    for row in rows:
        if row[0] is not None and row[1] is not None:
            out += run_a + run_b + [row]
            run_a, run_b = [], []
        elif row[0] is not None:
            run_a.append(row)
        else:
            run_b.append(row)
    return out + run_a + run_b
