"""Secrets kept out of messages: a server's words (an error body, a malformed term, a parser's
complaint) may echo the ``Authorization`` header, so every text quoted from a server passes
through ``SecretScrub.clean`` before it reaches an error message, a log or a page.

The order is the rule: the whole text is scrubbed first, then cut. A text cut first can end in
the first characters of a secret, which a replace of the whole secret no longer finds. A text
that was itself cut short (a capped read) is treated the same way: a tail that could be the
start of a secret is blanked too.
"""

from __future__ import annotations

import base64
import json
from urllib.parse import quote

MASK = "***"


class SecretScrub:
    """The secrets of one connection (``secrets``: tokens, passwords; empty ones ignored), in
    every form a server may echo them: as sent, inside a JSON string, URL-encoded, and for HTTP
    basic authentication the base64 of ``user:password`` (``basic``)."""

    def __init__(self, *secrets: str | None, basic: tuple[str, str] | None = None):
        forms: set[str] = set()
        for secret in filter(None, secrets):
            forms.update({secret, json.dumps(secret)[1:-1], quote(secret, safe="")})
        if basic is not None and basic[1]:
            forms.add(base64.b64encode(f"{basic[0]}:{basic[1]}".encode()).decode("ascii"))
        self._forms = sorted((f for f in forms if f), key=len, reverse=True)

    def __bool__(self) -> bool:
        return bool(self._forms)

    def clean(self, text: object, limit: int | None = None, *, cut_short: bool = False) -> str:
        """``str(text)`` (bytes or bytearray: decoded as UTF-8, U+FFFD for what is not) with every secret
        replaced by ``***``, then cut to ``limit`` characters (with " …" when cut).
        ``cut_short``: the text is the start of a longer one (a capped read), so a tail that is
        the start of a secret is blanked as well."""
        out = text.decode("utf-8", errors="replace") if isinstance(text, (bytes, bytearray)) else str(text)
        for form in self._forms:
            out = out.replace(form, MASK)
        if cut_short:
            out = self._blank_tail(out)
        if limit is not None and len(out) > limit:
            out = out[:limit] + " …"
        return out

    def _blank_tail(self, text: str) -> str:
        for form in self._forms:
            for size in range(min(len(form) - 1, len(text)), 0, -1):
                if text.endswith(form[:size]):
                    return text[:-size] + MASK
        return text
