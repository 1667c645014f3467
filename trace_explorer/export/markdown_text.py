"""Trace text as Markdown that shows literally wherever it is pasted (CommonMark and GitHub
Flavored Markdown): inline text with every metacharacter escaped, code spans and fenced code
blocks whose fences no backtick run inside can close. Used by every Markdown export (a
session, its answer support, a comparison)."""

from __future__ import annotations

import re
from typing import Any

from ..views.visible_text import visible_controls

# Characters with a meaning anywhere in CommonMark/GFM inline text: escapes, code spans,
# emphasis, links and images ("[", "]"; "!" and "(" mean nothing without them), raw HTML and
# autolinks ("<", ">"), entities ("&"), tables ("|") and strikethrough ("~").
_INLINE = re.compile(r"([\\`*_\[\]<>|~&])")
# At the start of a line: a heading, block quote, list item or rule, setext underline, the number
# of an ordered list item; at the end: a heading's closing "#"s.
_LINE_START = re.compile(r"^([-=+#>])|^(\d+)(?=[.)])")
_CLOSING_HASHES = re.compile(r"(\s)(#+)$")
_BACKTICKS = re.compile(r"`+")


def escape_markdown(text: Any) -> str:
    """``text`` as Markdown that renders as exactly these characters: inline metacharacters
    backslash-escaped, block markers at a line start escaped, leading spaces dropped (they would
    start a code block), each line break kept as a hard break (two trailing spaces), control
    characters made visible (``visible_controls``)."""
    lines = []
    for line in visible_controls(str(text)).replace("\r\n", "\n").replace("\r", "\n").split("\n"):
        line = _INLINE.sub(r"\\\1", line.strip())
        line = _LINE_START.sub(lambda m: "\\" + m.group(1) if m.group(1) else m.group(2) + "\\", line)
        line = _CLOSING_HASHES.sub(lambda m: m.group(1) + "\\" + m.group(2), line)
        lines.append(line)
    paragraphs: list[list[str]] = [[]]
    for line in lines:
        if line:
            paragraphs[-1].append(line)
        elif paragraphs[-1]:
            paragraphs.append([])
    return "\n\n".join("  \n".join(p) for p in paragraphs if p)


def code_span(text: Any) -> str:
    """``text`` as an inline code span whose backtick fence is longer than any run inside it."""
    value = " ".join(visible_controls(str(text)).split())
    longest = max((len(m) for m in _BACKTICKS.findall(value)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if value.startswith("`") or value.endswith("`") or not value.strip() else ""
    return f"{fence}{pad}{value}{pad}{fence}"


def code_block(text: str, info: str = "") -> str:
    """``text`` in a fenced code block whose fence (at least three backticks) is longer than any
    run of backticks inside it, so the text cannot close it. ``info`` is the language tag.
    Control characters are made visible (``visible_controls``)."""
    text = visible_controls(text)
    longest = max((len(m) for m in _BACKTICKS.findall(text)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}{info}\n{text.rstrip()}\n{fence}"
