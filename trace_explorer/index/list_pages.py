"""The session list's pages and counts on the index: the SQL of a filter and an order, and a
search's page either from the words' matches or by walking the list in its order."""

from __future__ import annotations

import dataclasses
import functools
import json
from typing import Any

from ..sources.filter import DEFAULT_ORDER, SessionFilter, SessionOrder
from ..sources.search import fts_query
from . import review_rows
from .insights import HEALTH_CHOICES, filter_clauses
from .review_filter import attach_reviews
from .schema import _SORT_COLUMNS
from .words import match_rows

# A search's page either starts from the words' matches (every one found and sorted) or walks
# the list in its order, keeping the rows among the matches (found once while the index is
# unchanged: ``SessionIndex._common``), whichever costs less: a page of ``wanted`` rows (offset
# + limit) among ``m`` matches in ``rows`` sessions walks about wanted * rows / m rows, and a row
# walked costs about half a match sorted or less (0.3 us of CPU, a match 0.4 us at 10,000
# sessions and 1.1 us at 100,000), so it walks when _WALK_COST * m * m >= wanted * rows (and
# for the first _WALK_PAGES pages). Either way a page costs at most about the work of
# sqrt(wanted * rows) rows, and a word in a given share of the sessions costs the same at any
# size once its pages walk. On an index of 100,000 sessions, a page of "bronze" (18,190
# matches) takes 0.12 ms walked against 9 ms sorted, of "sarbanes" (4,540) 0.6 against 5 ms; a
# word in 20 sessions 0.05 ms sorted, 35 ms walked.
_WALK_COST = 2
_WALK_PAGES = 10
_MATCHES_KEPT = 4  # searches whose matching row ids are kept between writes (about 60 bytes a match)


class ListPages:
    """A page of the session list, for ``SessionIndex`` (which it is a part of: it reads the
    index through ``_query``, ``_lock``, ``_db``, ``_kept_count``, ``_unchanged``, ``_matched``
    and ``aggregates``): one query for most pages; a common word searched walks the list in its
    order against the rows it matches; a page past the middle reads from the list's end."""

    def page(self, filters: SessionFilter, limit: int = 50, offset: int = 0,
             order: SessionOrder = DEFAULT_ORDER) -> list[dict]:
        """The ``session_summary`` dicts of one page of matching sessions in ``order`` (sessions
        without a value for its key last, ties newest first, then by IRI); ``limit`` 0 means all.
        Under a search each also has ``match``: where its words were found
        (``index_words.match_rows``: ``{"field", "snippet"}``)."""
        matches = self._common(filters, offset + limit) if limit and offset < limit * _WALK_PAGES else None
        reviewed = attach_reviews(self, filters)
        # a review filter whose reviewed rows keep the list's order walks them in it, through
        # their own index, as the type filter walks the list's: alone, or testing each one
        # against the other filters, until the page is full
        in_order = reviewed and _reviewed_in_order(filters, order)
        few = reviewed and (in_order or _few_reviewed(self, filters, offset + limit))
        where, params = _where(filters, counting=few)
        order_by = functools.partial(_order_by, time="kept.kept_time", root="kept.kept_root") if in_order else _order_by
        total = self._kept_count(filters) if limit and offset > limit else None
        if in_order and dataclasses.replace(filters, reviews=None).unfiltered:  # the reviewed rows alone
            tail = " LIMIT ? OFFSET ?" if limit else (" LIMIT -1 OFFSET ?" if offset else "")
            params = [int(limit), int(offset)] if limit else ([int(offset)] if offset else [])
            kept = review_rows.ids_table(filters.reviews)
            ids = [i for (i,) in self._query(
                f"SELECT kept.id FROM temp.{kept} AS kept" + ("" if filters.include_sub else " WHERE listed_top = 1")
                + f" {order_by(order)}{tail}", params)]
        elif matches is not None:
            ids = self._walk(filters, matches, limit, offset, order)
        elif total is not None and offset > total // 2:
            # a page past the middle: read from the list's end, in the opposite order, so that a
            # page near the end (the last) walks a page of the index, not the whole list before it
            start = max(0, total - offset - limit)
            ids = [i for (i,) in self._query(f"SELECT sessions.id {where} {order_by(order, reverse=True)} LIMIT ? OFFSET ?",
                                             params + [max(0, total - offset - start), start])[::-1]]
        else:
            tail = " LIMIT ? OFFSET ?" if limit else (" LIMIT -1 OFFSET ?" if offset else "")
            params += [int(limit), int(offset)] if limit else ([int(offset)] if offset else [])
            ids = [i for (i,) in self._query(f"SELECT sessions.id {where} {order_by(order)}{tail}", params)]
        summaries: dict[int, str] = {}
        for start in range(0, len(ids), 500):
            chunk = ids[start:start + 500]
            summaries.update(self._query(f"SELECT id, summary FROM summaries WHERE id IN ({','.join('?' * len(chunk))})", chunk))
        out = {i: json.loads(summaries[i]) for i in ids if i in summaries}
        if filters.needle and out:
            matched = list(out)
            for start in range(0, len(matched), 500):
                with self._lock:
                    for i, found_match in match_rows(self._db, filters.terms, matched[start:start + 500]).items():
                        out[i]["match"] = found_match
        return [out[i] for i in ids if i in out]

    def _common(self, filters: SessionFilter, wanted: int = 50) -> frozenset[int] | None:
        """The row ids the words searched are found in, when they are common enough that a page
        of ``wanted`` rows costs less walked than sorted (``_WALK_COST``); else (or in an index
        without kept counts) None. A page then walks the list in its order (``_walk``) and stops
        once it is full. The matches are read once while the index is unchanged (``_unchanged``),
        for ``_MATCHES_KEPT`` searches."""
        if not (filters.needle and self.aggregates):
            return None
        query = fts_query(filters.terms)
        with self._lock:
            matches = self._unchanged(self._matched, query, _MATCHES_KEPT, lambda: frozenset(
                i for (i,) in self._db.execute("SELECT rowid FROM search WHERE search MATCH ?", (query,))))
        return matches if _WALK_COST * len(matches) ** 2 >= wanted * self._rows() > 0 else None

    def _rows(self) -> int:
        """How many sessions the index holds, sub-sessions too, from its kept counts."""
        return self._query("SELECT COALESCE(SUM(n), 0) FROM list_counts")[0][0]

    def _walk(self, filters: SessionFilter, matches: frozenset[int], limit: int, offset: int,
              order: SessionOrder) -> list[int]:
        """The row ids of one page (``limit`` > 0 rows from ``offset``) of a search whose
        ``matches`` (``_common``) are common: the list under the other filters read in ``order``
        a batch at a time, each row kept when it is among the matches, until the page is full.
        Where one session in ``k`` matches, the first batch is about the ``k * (offset + limit)``
        rows that hold the page, and each further one twice the one before, however many match."""
        where, params = _where(filters, walk=True)
        wanted = offset + limit
        batch = wanted * self._rows() * 5 // (4 * max(1, len(matches))) + limit
        found: list[int] = []
        with self._lock:
            cursor = self._db.execute(f"SELECT sessions.id {where} {_order_by(order)}", params)
            try:
                while len(found) < wanted:
                    read = cursor.fetchmany(batch)
                    if not read:
                        break
                    found += [i for (i,) in read if i in matches]
                    batch *= 2
            finally:
                cursor.close()
        return found[offset:wanted]


def _kept_count_query(filters: SessionFilter) -> tuple[str, list[Any]] | None:
    """The query of ``list_counts`` (``index_aggregates``) that counts ``filters``, with its
    parameters, or None when the kept counts cannot answer it."""
    if (filters.needle or filters.tool or filters.failed_tool or filters.model or filters.termination
            or (filters.health and filters.health not in HEALTH_CHOICES) or (filters.reviews and filters.reviews.active)):
        return None
    clauses, params = [], []
    if not filters.include_sub:
        clauses.append("top = 1")
    for column, values in (("mechanism", filters.mechanisms), ("pattern", filters.patterns)):
        if values:
            clauses.append(f"{column} IN ({','.join('?' * len(values))})")
            params += values
    for column, value in (("status", filters.status), ("health", filters.health)):
        if value:
            clauses.append(f"{column} = ?")
            params.append(value)
    where = (" WHERE " + " AND ".join(clauses)) if clauses else ""
    return f"SELECT COALESCE(SUM(n), 0) FROM list_counts{where}", params


def _order_by(order: SessionOrder, reverse: bool = False, time: str = "time", root: str = "root") -> str:
    """The ORDER BY of ``order`` (``SessionIndex.page``); ``reverse``: the same order backwards
    (every term the other way, so that an index that serves the order serves it read backwards).
    ``time`` and ``root``: the names those columns have where the rows are read (the reviewed
    rows' table: ``review_rows.ReviewedIds``)."""
    column = _SORT_COLUMNS.get(order.key, "time")

    def term(expression: str, descending: bool) -> str:
        return f"{expression} DESC" if descending != reverse else expression

    if column == "root":
        return "ORDER BY " + term(root, order.descending)
    # missing values last, ties newest first, then by IRI
    terms = [] if column == "time" else [term(f"{column} IS NULL", False), term(column, order.descending)]
    terms += [term(f"{time} IS NULL", False), term(time, order.descending if column == "time" else True),
              term(root, False)]
    return "ORDER BY " + ", ".join(terms)


def _where(filters: SessionFilter, walk: bool = False, counting: bool = False,
           alone: bool = False) -> tuple[str, list[Any]]:
    """``FROM ... WHERE ...`` of the sessions matching ``filters``, and its parameters. A search
    starts from the full-text table (its matches, then each one's row by id): far fewer rows
    than the whole list when the words are rare, and no worse when they are common. ``walk``:
    the words searched are left out, for a caller that walks the list in its order and keeps
    the rows among their matches itself (``SessionIndex._walk``: a page of common words then
    stops after its rows, instead of sorting every match). ``counting``: a review filter
    (``review_rows``) starts from its reviewed rows (a count, or a page of few:
    ``_few_reviewed``); ``alone``: for a count, which a review filter with no other answers from
    its reviewed rows alone."""
    clauses, params, tables = [], [], "sessions"
    reviews = filters.reviews if filters.reviews and filters.reviews.active else None
    if counting and reviews and not reviews.not_reviewed and not filters.needle:
        kept = review_rows.ids_table(reviews)
        if alone and dataclasses.replace(filters, reviews=None).unfiltered:  # the reviewed rows alone
            return f"FROM temp.{kept}" + ("" if filters.include_sub else " WHERE listed_top = 1"), []
        tables, reviews = f"temp.{kept} AS kept CROSS JOIN sessions ON sessions.id = kept.id", None
    if filters.needle:
        if not walk:
            tables = "search CROSS JOIN sessions ON sessions.id = search.rowid"
            clauses.append("search MATCH ?")
            params.append(fts_query(filters.terms))
    if not filters.include_sub:
        clauses.append("top = 1")
    if filters.mechanisms:
        clauses.append(f"mechanism IN ({','.join('?' * len(filters.mechanisms))})")
        params += filters.mechanisms
    if filters.patterns:  # only an agent's row has a pattern
        clauses.append(f"pattern IN ({','.join('?' * len(filters.patterns))})")
        params += filters.patterns
    if filters.status:
        clauses.append("status = ?")
        params.append(filters.status)
    more = filter_clauses(filters)
    clauses, params = clauses + more[0], params + more[1]
    if reviews:  # on the ids ``attach_reviews`` kept
        clauses.append(review_rows.clause(reviews))
    return f"FROM {tables}" + ((" WHERE " + " AND ".join(clauses)) if clauses else ""), params


def _few_reviewed(index, filters: SessionFilter, wanted: int) -> bool:
    """Whether a page of ``wanted`` rows under a review filter costs less sorted from its
    reviewed rows (``m`` of them, kept by ``attach_reviews``) than walked in the list's order
    testing each row (about ``wanted * rows / m`` rows): the search's rule (``_WALK_COST``).
    ``index``: a ``SessionIndex``."""
    reviews = filters.reviews
    if reviews.not_reviewed or filters.needle or not wanted or not index.aggregates:
        return False
    with index._lock:
        m = index._db.execute(f"SELECT COUNT(*) FROM temp.{review_rows.ids_table(reviews)}").fetchone()[0]
    return _WALK_COST * m * m < wanted * index._rows()


def _reviewed_in_order(filters: SessionFilter, order: SessionOrder) -> bool:
    """Whether a page of ``filters`` walks its reviewed rows in an order they keep: a review
    filter (not "not reviewed"), no search, sorted by time or IRI (``review_rows.ReviewedIds``
    keeps both; another sort reads the sessions)."""
    reviews = filters.reviews
    return (not reviews.not_reviewed and not filters.needle
            and _SORT_COLUMNS.get(order.key, "time") in ("time", "root"))
