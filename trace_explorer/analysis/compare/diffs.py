"""How one field differs between two steps, in a form every output draws the same way: a word
diff of two texts, the paths that differ between two JSON values, the items added to and removed
from a list, or a number's delta.

Libraries: texts and lists are diffed with the standard library's ``difflib`` (a word-level
``SequenceMatcher``; a long text falls back to lines, a huge one to "replaced", so a 1 MB
observation cannot stall a page). JSON arguments are diffed with DeepDiff (maintained, handles
nested objects, lists that grow or shrink and type changes), read as its "tree" view so each
change carries its path and both values.
"""

from __future__ import annotations

import difflib
import json
import re
from dataclasses import dataclass, field
from typing import Any

from deepdiff import DeepDiff
from deepdiff.helper import NotPresent

from .selections import score_delta

EQUAL, REMOVED, ADDED = "=", "-", "+"
NUMBER_FIELDS = frozenset({"in_tokens", "out_tokens", "llm_duration_ms", "tool_duration_ms", "edge_count",
                           "chunk_count", "score"})
TEXT_FIELDS = frozenset({"thought", "observation", "answer", "result", "finding", "text", "error", "reasoning",
                         "query"})
JSON_FIELDS = frozenset({"arguments"})
WORD_LIMIT = 4_000  # tokens a side before a text is diffed by lines
LINE_LIMIT = 4_000  # lines a side before a text is shown as replaced whole
_WORDS = re.compile(r"\S+\s*|\s+")
_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_-]*$")


class _Absent:
    """A value missing on one side (a key not in that JSON object, a field not recorded)."""

    def __repr__(self) -> str:
        return "ABSENT"


ABSENT = _Absent()


@dataclass
class JsonChange:
    """One path at which two JSON values differ: ``path`` like ``question``, ``tags[1]``,
    ``filter.year`` (``$`` for the whole value); ``a`` / ``b`` the values (ABSENT when the path
    exists on one side only)."""

    path: str
    a: Any
    b: Any

    @property
    def op(self) -> str:
        """ADDED (only in B), REMOVED (only in A) or "~" (in both, changed)."""
        return ADDED if self.a is ABSENT else REMOVED if self.b is ABSENT else "~"


@dataclass
class FieldDiff:
    """How field ``name`` differs. ``form``: "number" (``delta`` = b - a), "text" (``segments``:
    ``(EQUAL|REMOVED|ADDED, text)`` in order), "json" (``json``: JsonChange list), "list"
    (``items``: ``(EQUAL|REMOVED|ADDED, item)``) or "value" (just ``a`` and ``b``). ``a`` / ``b``
    are the values (None: not recorded on that side)."""

    name: str
    form: str
    a: Any
    b: Any
    delta: float | int | None = None
    segments: list[tuple[str, str]] = field(default_factory=list)
    json: list[JsonChange] = field(default_factory=list)
    items: list[tuple[str, Any]] = field(default_factory=list)


def describe(name: str, a: Any, b: Any) -> FieldDiff:
    """How field ``name`` went from ``a`` to ``b`` (None: not recorded): tokens, durations,
    counts and scores as deltas, texts as word diffs, arguments as a JSON diff (a text diff when
    one side is not JSON), lists item by item, anything else as the two values."""
    if name in NUMBER_FIELDS and _number(a) and _number(b):
        return FieldDiff(name, "number", a, b, delta=score_delta(a, b) if name == "score" else b - a)
    if name in JSON_FIELDS and a is not None and b is not None:
        if isinstance(a, str) or isinstance(b, str):
            return FieldDiff(name, "text", a, b, segments=text_segments(_as_text(a), _as_text(b)))
        changes = json_changes(a, b)
        if changes:
            return FieldDiff(name, "json", a, b, json=changes)
    if name in TEXT_FIELDS and isinstance(a, str) and isinstance(b, str):
        return FieldDiff(name, "text", a, b, segments=text_segments(a, b))
    if isinstance(a, list) and isinstance(b, list):
        return FieldDiff(name, "list", a, b, items=list_items(a, b))
    return FieldDiff(name, "value", a, b)


def text_segments(a: str, b: str) -> list[tuple[str, str]]:
    """A word diff of ``a`` and ``b``: ``(EQUAL|REMOVED|ADDED, text)`` runs whose EQUAL and
    REMOVED parts spell ``a`` and whose EQUAL and ADDED parts spell ``b``. Over ``WORD_LIMIT``
    words a side it diffs lines; over ``LINE_LIMIT`` lines, ``a`` is removed and ``b`` added."""
    if a == b:
        return [(EQUAL, a)] if a else []
    tokens_a, tokens_b = _WORDS.findall(a), _WORDS.findall(b)
    if max(len(tokens_a), len(tokens_b)) > WORD_LIMIT:
        tokens_a, tokens_b = a.splitlines(keepends=True), b.splitlines(keepends=True)
        if max(len(tokens_a), len(tokens_b)) > LINE_LIMIT:
            return [(op, text) for op, text in ((REMOVED, a), (ADDED, b)) if text]
    segments: list[tuple[str, str]] = []
    matcher = difflib.SequenceMatcher(None, tokens_a, tokens_b, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            _append(segments, EQUAL, "".join(tokens_a[i1:i2]))
            continue
        _append(segments, REMOVED, "".join(tokens_a[i1:i2]))
        _append(segments, ADDED, "".join(tokens_b[j1:j2]))
    return segments


def json_changes(a: Any, b: Any) -> list[JsonChange]:
    """The paths at which JSON values ``a`` and ``b`` differ, in path order (DeepDiff)."""
    found = DeepDiff(a, b, view="tree", threshold_to_diff_deeper=0, verbose_level=2)
    changes = []
    for levels in found.values():
        for level in levels:
            path = level.path(output_format="list")
            changes.append((path, JsonChange(_path_text(path), _value(level.t1), _value(level.t2))))
    changes.sort(key=lambda c: [str(p) for p in c[0]])
    return [c for _, c in changes]


def list_items(a: list, b: list) -> list[tuple[str, Any]]:
    """The items of lists ``a`` and ``b`` in order, each EQUAL, REMOVED (only in ``a``) or
    ADDED (only in ``b``), by ``difflib`` on their JSON text (so a reordering shows as moves)."""
    keys_a = [json.dumps(x, sort_keys=True, default=str) for x in a]
    keys_b = [json.dumps(x, sort_keys=True, default=str) for x in b]
    out: list[tuple[str, Any]] = []
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, keys_a, keys_b, autojunk=False).get_opcodes():
        if tag == "equal":
            out += [(EQUAL, x) for x in a[i1:i2]]
        else:
            out += [(REMOVED, x) for x in a[i1:i2]] + [(ADDED, x) for x in b[j1:j2]]
    return out


def value_text(value: Any) -> str:
    """A value on one line of text: strings as they are, None and ABSENT as "—", numbers with
    thousands separators, JSON compact."""
    if value is None or value is ABSENT:
        return "—"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return f"{value:,}"
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False, sort_keys=True, default=str)


def delta_text(name: str, delta: float | int | None) -> str:
    """A delta for people: "+300 ms" for durations, "+1,200" for tokens, "-0.05" for scores."""
    if delta is None:
        return ""
    sign = "+" if delta > 0 else "−" if delta < 0 else "±"
    size = abs(delta)
    number = f"{size:,}" if isinstance(size, int) else f"{size:g}"
    return f"{sign}{number}" + (" ms" if name.endswith("_ms") else "")


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _as_text(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, indent=2, sort_keys=True)


def _append(segments: list[tuple[str, str]], op: str, text: str) -> None:
    if not text:
        return
    if segments and segments[-1][0] == op:
        segments[-1] = (op, segments[-1][1] + text)
    else:
        segments.append((op, text))


def _value(value: Any) -> Any:
    return ABSENT if isinstance(value, NotPresent) else value


def _path_text(path: list) -> str:
    if not path:
        return "$"
    out = ""
    for part in path:
        if isinstance(part, int):
            out += f"[{part}]"
        elif isinstance(part, str) and _IDENTIFIER.match(part):
            out += ("." if out else "") + part
        else:
            out += "[" + json.dumps(str(part), ensure_ascii=False) + "]"
    return out
