"""JSON read as a stream of events (``ijson``, its yajl2 C backend), built into Python values
under caps, so that no JSON file can make more objects than a trace needs.

- Depth: arrays and objects nest at most ``prescan.MAX_JSON_DEPTH`` deep.
- Values held at once: at most ``MAX_JSON_VALUES`` (a compressed ``[[],[],…]`` of 64 MiB would
  otherwise make 21 million lists). Wire triples do not count once read: each item of a wire
  array (the top-level array, ``triples``, ``response.triples``) is turned into a pyoxigraph
  Quad as soon as it ends (``wire.decode_quad``), so memory follows the quads, and a first item
  that is no wire triple stops the read at once.

Raises TraceLoadError past a cap or for an item that is no wire triple (naming its index), and
``JsonSyntax`` for JSON that does not parse (the caller places it: ``json_files``).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import ijson
import pyoxigraph as ox

from .errors import TraceLoadError
from .prescan import MAX_JSON_DEPTH
from .wire import WireFormatError, decode_quad

MAX_JSON_VALUES = 1_000_000  # values (arrays, objects, scalars) held at once, wire triples aside
WIRE_ARRAYS = frozenset({(), ("triples",), ("response", "triples")})  # paths of arrays of wire triples
JSON_LD_KEYS = frozenset({"@context", "@graph", "@id"})


class JsonSyntax(ValueError):
    """The text is not JSON (``str``: the streaming parser's words)."""


class LooksLikeJsonLd(Exception):
    """The value is JSON-LD (a top-level ``@context``, ``@graph`` or ``@id``, or a first item
    with ``@id``): to be read by an RDF parser instead."""


def json_events(stream) -> Iterable[tuple[str, Any]]:
    """``ijson.basic_parse`` of the binary ``stream``: (event, value) pairs; numbers as int or
    float, as ``json.loads`` gives them."""
    return ijson.basic_parse(stream, use_float=True)


def build_value(name: str, events: Iterable[tuple[str, Any]], *, wire: bool,
                max_values: int | None = MAX_JSON_VALUES, repeated: list[tuple[str, Any, Any]] | None = None) -> Any:
    """The JSON value of ``events``, under the caps (see the module; ``max_values`` None: no
    cap on the values held, for a local file read on its owner's behalf). ``wire``: turn the
    items of wire arrays into Quads, and raise LooksLikeJsonLd for JSON-LD. ``repeated``, when
    given, gets ``(key, value before, value now)`` each time a key of the top-level object is
    given again (the value kept is the last, as ``json.loads`` keeps it). Raises
    TraceLoadError, JsonSyntax or LooksLikeJsonLd."""
    cap = max_values if max_values is not None else float("inf")
    stack: list[list] = []  # [container, path, pending key, values held when it began]
    held = 0
    root: Any = None
    try:
        for event, value in events:
            if event == "map_key":
                stack[-1][2] = value
                if wire and len(stack) == 1 and value in JSON_LD_KEYS:
                    raise LooksLikeJsonLd()
                continue
            if event == "end_map" or event == "end_array":
                value, _, _, began = stack.pop()
            else:
                held += 1
                if held > cap:
                    raise TraceLoadError(name, f"JSON of at most {max_values:,} values held at once",
                                         found="it holds more (refused as it was read)")
                if event == "start_map" or event == "start_array":
                    if len(stack) >= MAX_JSON_DEPTH:
                        raise TraceLoadError(name, f"JSON arrays and objects nested at most {MAX_JSON_DEPTH} deep",
                                             found="they nest deeper (refused as it was read)")
                    stack.append([{} if event == "start_map" else [], _path(stack), None, held])
                    continue
                began = held
            if stack:
                parent = stack[-1]
                if isinstance(parent[0], list):
                    if wire and parent[1] in WIRE_ARRAYS:
                        value = _wire_item(name, value, len(parent[0]), parent[1])
                        held = began - 1  # the item and what it held are let go; its Quad is the file's
                    parent[0].append(value)
                else:
                    if repeated is not None and len(stack) == 1 and parent[2] in parent[0]:
                        repeated.append((parent[2], parent[0][parent[2]], value))
                    parent[0][parent[2]] = value
            else:
                root = value
    except ijson.common.JSONError as error:
        raise JsonSyntax(str(error)) from None
    return root


def _path(stack: list[list]) -> tuple:
    """The path of the value that begins now: the keys that lead to it, "item" for an array's."""
    if not stack:
        return ()
    parent = stack[-1]
    return parent[1] + ((parent[2],) if isinstance(parent[0], dict) else ("item",))


def _wire_item(name: str, item: Any, index: int, path: tuple) -> ox.Quad:
    if not path and index == 0 and isinstance(item, dict) and "@id" in item:
        raise LooksLikeJsonLd()
    try:
        return decode_quad(item)
    except (WireFormatError, AttributeError) as error:
        from .diagnosis import clip
        raise TraceLoadError(name, f"a TrustGraph wire triple ({{\"s\", \"p\", \"o\", \"g\"?}}) as item {index} "
                                   f"of the array", found=clip(f"it needs {error}")) from None
