"""The table ``scale.py`` prints: one column a size of collection, one row a measured figure
(each label once), and the ratio of the largest size's figure to the smallest's, of CPU time
where a figure gives it."""

from __future__ import annotations

from measuring import MB


def rows_of(result: dict) -> list[tuple[str, str]]:
    """(label, value) rows for one size (each label once: the table is keyed by them)."""
    if "ingest" not in result:  # --sparql-only
        return [("quads (lines written)", f"{result['info']['quads_written']:,}")] + endpoint_rows(result)
    info, bulk, ingest, bare = result["info"], result["bulk"], result["ingest"], result["no_health"]
    rows = [("quads (lines written)", f"{info['quads_written']:,}"),
            ("N-Quads file, MB", f"{info['nquads_bytes'] / MB:,.0f}"),
            ("bulk_load: wall s / CPU s", f"{bulk['wall']:.1f} / {bulk['cpu']:.1f}"),
            ("bulk_load: peak RSS MB", f"{bulk['rss_mb']:,.0f}"),
            ("bulk_load: store on disk MB", f"{bulk['store_mb']:,.0f}"),
            ("ingest with health: wall s / CPU s", f"{ingest['wall']:.1f} / {ingest['cpu']:.1f}"),
            ("  ratio to bulk_load: wall / CPU", f"{ingest['wall'] / bulk['wall']:.1f}x / {ingest['cpu'] / bulk['cpu']:.1f}x"),
            ("  peak RSS MB", f"{ingest['rss_mb']:,.0f}"),
            ("  peak RSS MB, with its worker processes", f"{ingest.get('rss_tree_mb', ingest['rss_mb']):,.0f}"),
            ("  store on disk MB (index included)", f"{ingest['store_mb']:,.0f}")]
    if bare is not None:
        rows += [("ingest --no-health: wall s / CPU s", f"{bare['wall']:.1f} / {bare['cpu']:.1f}"),
                 ("  --no-health, ratio to bulk_load: wall / CPU",
                  f"{bare['wall'] / bulk['wall']:.1f}x / {bare['cpu'] / bulk['cpu']:.1f}x"),
                 ("  --no-health, peak RSS MB", f"{bare['rss_mb']:,.0f}")]
    rows += [(f"{label}: ms (CPU ms)", f"{wall:,.1f} ({cpu:,.1f})") for label, (wall, cpu) in result["views"].items()]
    rows += [(f"{label}: ms", f"{ms:,.0f}") for label, ms in result["cli"].items()]
    if result["browser"]:
        rows += [(f"{label}: ms", f"{ms:,.0f}") for label, ms in result["browser"].items()]
    return rows + endpoint_rows(result)


def endpoint_rows(result: dict) -> list[tuple[str, str]]:
    """The SPARQL endpoint's rows of one size (none without ``--sparql``)."""
    return [(label if label.endswith(", s") else f"{label}: ms", f"{value:,.1f}" if label.endswith(", s") else f"{value:,.0f}")
            for label, value in (result.get("endpoint") or {}).items()]


def ratio(first: str, last: str) -> str:
    """last / first of two printed figures: of their CPU figures where they give one (the last
    number: "wall / CPU", "ms (CPU ms)"), as wall time on a shared machine is mostly others' load."""
    try:
        a, b = (float(v.split()[-1].strip("()x").replace(",", "")) for v in (first, last))
    except (ValueError, IndexError):
        return ""
    return f"{b / a:.2f}x" if a else ""


def print_table(sizes: list[int], results: list[dict]) -> None:
    columns = [dict(rows_of(r)) for r in results]
    labels = list(dict.fromkeys(label for r in results for label, _ in rows_of(r)))
    header = ["", *(f"{n:,} sessions" for n in sizes)] + ([f"{sizes[-1]:,} / {sizes[0]:,}"] if len(sizes) > 1 else [])
    table = [header]
    for label in labels:
        values = [c.get(label, "") for c in columns]
        table.append([label, *values] + ([ratio(values[0], values[-1])] if len(sizes) > 1 else []))
    widths = [max(len(row[i]) for row in table) for i in range(len(header))]
    for n, row in enumerate(table):
        print("  ".join(v.ljust(w) if i == 0 else v.rjust(w) for i, (v, w) in enumerate(zip(row, widths))))
        if n == 0:
            print("-" * (sum(widths) + 2 * (len(widths) - 1)))
    for size, result in zip(sizes, results):
        if "ingest" in result:
            print(f"phases at {size:,}: {result['ingest']['phases']}")
