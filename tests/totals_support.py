"""What a corpus session spent, counted from the trace file's own literals and the manifest's
parent links, apart from the reader: the expected values of the totals tests (docs/reading-traces.md, "Totals")."""

from __future__ import annotations

import pyoxigraph as ox

from tests.conftest import CORPUS, manifest_sessions
from trace_explorer.read.collection import load_collection

TG = "https://trustgraph.ai/ns/"
_COUNTED = {TG + "inToken": "tokens_in", TG + "outToken": "tokens_out", TG + "llmDurationMs": "llm_ms",
            TG + "toolDurationMs": "tool_ms"}


def _uuid(iri: str) -> str:
    """The id that every step IRI of a session holds (``…:agent:{id}/i1``, ``…:grounding:{id}``)."""
    return iri.rsplit(":", 1)[-1]


def own_figures(name: str) -> dict[str, dict[str, int]]:
    """Session IRI -> the sums of its steps' ``tg:inToken``, ``tg:outToken``, ``tg:llmDurationMs``
    and ``tg:toolDurationMs`` literals (only the keys some step records), for every manifest
    session of corpus file ``name``. A step belongs to the session whose id its IRI holds."""
    collection, errors = load_collection([CORPUS / name])
    assert not errors
    ids = {_uuid(s["session"]): s["session"] for s in manifest_sessions(name)}
    out: dict[str, dict[str, int]] = {s: {} for s in ids.values()}
    for quad in collection.store.quads_for_pattern(None, None, None, None):
        key = _COUNTED.get(quad.predicate.value)
        if key is None or not isinstance(quad.subject, ox.NamedNode):
            continue
        owner = next((root for uuid, root in ids.items() if uuid in quad.subject.value), None)
        if owner is not None and quad.subject.value != owner:
            out[owner][key] = out[owner].get(key, 0) + int(quad.object.value)
    return out


def family_of(name: str, root: str) -> list[str]:
    """``root`` and every manifest session below it (by the manifest's ``parent`` steps)."""
    sessions = manifest_sessions(name)
    found, wanted = [root], [root]
    while wanted:
        below = [s["session"] for s in sessions if s["parent"] and any(_uuid(w) in s["parent"] for w in wanted)]
        below = [b for b in below if b not in found]
        found += below
        wanted = below
    return found


def expected_totals(name: str, root: str, sub_sessions: bool = True) -> dict[str, int | None]:
    """``root``'s figures with its sub-sessions (without them: ``sub_sessions`` False), from
    ``own_figures``: tokens_in, tokens_out, tokens, llm_ms, tool_ms, duration_ms (None when
    nothing records it)."""
    figures = own_figures(name)
    members = family_of(name, root) if sub_sessions else [root]
    out: dict[str, int | None] = {}
    for key in ("tokens_in", "tokens_out", "llm_ms", "tool_ms"):
        values = [figures[m][key] for m in members if key in figures[m]]
        out[key] = sum(values) if values else None
    for key, parts in (("tokens", ("tokens_in", "tokens_out")), ("duration_ms", ("llm_ms", "tool_ms"))):
        values = [out[p] for p in parts if out[p] is not None]
        out[key] = sum(values) if values else None
    return out
