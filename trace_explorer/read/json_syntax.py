"""A JSON syntax error in words: what was expected at the place Python's parser stopped, and
what stands there instead.

Python's parser (``json.JSONDecodeError``) gives a message that is cut at its place ("Expecting
',' delimiter", "Unterminated string starting at") and the place itself. ``syntax_error``
turns both into the project's message, ``file:line:col: expected …; found …`` (docs/reading-traces.md, "Bad files
and odd traces"), such as ``docs.documents.json:2:20: expected "," or "}" after the value of a key;
found '"http://a/3": "z"}'``. The messages are those of CPython's ``json.decoder`` and
``_json`` (3.8 to 3.13); any other is given in the parser's words.
"""

from __future__ import annotations

import json
import re

from .diagnosis import clip
from .errors import TraceLoadError

_FOUND_CHARACTERS = 40  # of the text at the place, quoted in the message
_TOKENS = re.compile(r'"(?:[^"\\]|\\.)*"?|[\[\]{}]', re.S)  # strings (cut short too) and brackets
_CLOSER = {"{": '"}"', "[": '"]"'}


def syntax_error(name: str, text: str, error: json.JSONDecodeError) -> TraceLoadError:
    """The TraceLoadError for ``error``, raised by ``json.loads(text)`` on the file ``name``:
    at its line and column (characters, as the parser counts), what was expected and what was
    found there (see the module)."""
    expected = _expected(error.msg, text, error.pos)
    if expected is None:
        return TraceLoadError(name, "JSON", error.lineno, error.colno, found=f"the parser says: {error.msg}")
    return TraceLoadError(name, expected, error.lineno, error.colno, found=_found(error.msg, text, error.pos))


def _expected(message: str, text: str, pos: int) -> str | None:
    """What the parser wanted at ``pos``, in words; None for a message not known here."""
    if message == "Expecting value":
        return "a JSON value (a string, number, object, array, true, false or null)"
    if message == "Expecting ',' delimiter":
        opener = _open_bracket(text, pos)
        after = "after the value of a key" if opener == "{" else "after an item of the array"
        return f'"," or {_CLOSER.get(opener, "the end")} {after}'
    if message == "Expecting ':' delimiter":
        return '":" after the key'
    if message == "Expecting property name enclosed in double quotes":
        return 'a key in double quotes, or "}" (JSON allows no "," before it)' if text[pos:pos + 1] == "}" \
            else "a key in double quotes"
    if message.startswith("Unterminated string"):
        return 'a " to end the string that begins here'
    if message.startswith("Invalid control character"):
        return r"no control character inside a string (a line break is written \n, a tab \t)"
    if message == "Invalid \\uXXXX escape":
        return r"\u and four hexadecimal digits"
    if message == "Invalid \\escape":
        return r'an escape such as \n, \t, \", \\ or \u and four hexadecimal digits'
    if message == "Extra data":
        return "the end of the file after its JSON value"
    return None


def _found(message: str, text: str, pos: int) -> str:
    """What stands at ``pos``: the text there, quoted, or the end of the file."""
    if message.startswith("Unterminated string"):
        return "found the end of the file (the file may be cut short)"
    if message.startswith("Invalid control character"):
        return f"found the character U+{ord(text[pos]):04X}" if pos < len(text) else "found the end of the file"
    if message == "Expecting value" and text[pos:pos + 1] == "]" and text[:pos].rstrip().endswith(","):
        return "found ']' (JSON allows no \",\" before it)"
    rest = text[pos:]
    if not rest.strip():
        return "found the end of the file (the file may be cut short)"
    return f"found '{clip(rest.split(chr(10), 1)[0].strip(), _FOUND_CHARACTERS)}'"


def _open_bracket(text: str, pos: int) -> str | None:
    """The innermost "{" or "[" still open at ``pos`` (strings skipped); None outside any."""
    stack: list[str] = []
    for match in _TOKENS.finditer(text, 0, pos):
        token = match.group()
        if token in "[{":
            stack.append(token)
        elif token in "]}" and stack:
            stack.pop()
    return stack[-1] if stack else None
