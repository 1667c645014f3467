"""Untrusted text made safe to look at: its invisible control characters shown.

Trace text may hold C0 controls (ESC recolours or retitles a terminal, BEL rings it, NUL and
backspace hide what follows), DEL, and the bidi embedding/override/isolate marks (U+202E makes
"evil" read "live"). Wherever trace text reaches a person (the app, the CLI's text and tables,
Markdown) it goes through ``visible_controls`` first. Tab and line breaks stay.
"""

from __future__ import annotations

import re

_INVISIBLE = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def visible_controls(text: str) -> str:
    """``text`` with its invisible control characters shown: C0 controls as Unicode's control
    pictures (ESC -> "␛"), DEL as "␡", C1 controls and bidi controls as "⟨U+202E⟩". Other text
    is unchanged."""
    def show(match: re.Match) -> str:
        code = ord(match.group())
        return chr(0x2400 + code) if code < 0x20 else "\u2421" if code == 0x7F else f"⟨U+{code:04X}⟩"
    return _INVISIBLE.sub(show, text)
