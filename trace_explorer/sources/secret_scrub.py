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
import re
from urllib.parse import quote

MASK = "***"


class SecretScrub:
    """The secrets of one connection (``secrets``: tokens, passwords; empty ones ignored), in
    every form a server may echo them: as sent, in any letter case, inside a JSON string
    (``\\uXXXX`` escapes too), URL-encoded in any way (``%2D`` for ``-``, ``+`` for a space),
    each character in any of these forms; and for HTTP basic authentication the base64 of
    ``user:password`` (``basic``)."""

    def __init__(self, *secrets: str | None, basic: tuple[str, str] | None = None):
        forms: set[str] = set()
        for secret in filter(None, secrets):
            forms.update({secret, secret.lower(), json.dumps(secret)[1:-1], quote(secret, safe="")})
        exact: list[str] = []
        if basic is not None and basic[1]:
            exact.append(base64.b64encode(f"{basic[0]}:{basic[1]}".encode()).decode("ascii"))
            forms.add(exact[-1])
        self._forms = sorted((f for f in forms if f), key=len, reverse=True)
        patterns = ["".join(_any_form(c) for c in secret) for secret in sorted(filter(None, secrets), key=len, reverse=True)]
        self._loose = re.compile("|".join(patterns), re.IGNORECASE) if patterns else None
        self._exact = exact

    def __bool__(self) -> bool:
        return bool(self._forms)

    def clean(self, text: object, limit: int | None = None, *, cut_short: bool = False) -> str:
        """``str(text)`` (bytes or bytearray: decoded as UTF-8, U+FFFD for what is not) with every secret
        replaced by ``***``, then cut to ``limit`` characters (with " …" when cut).
        ``cut_short``: the text is the start of a longer one (a capped read), so a tail that is
        the start of a secret is blanked as well."""
        out = text.decode("utf-8", errors="replace") if isinstance(text, (bytes, bytearray)) else str(text)
        for form in self._exact:
            out = out.replace(form, MASK)
        if self._loose is not None:
            out = self._loose.sub(MASK, out)
        if cut_short:
            out = self._blank_tail(out)
        if limit is not None and len(out) > limit:
            out = out[:limit] + " …"
        return out

    def _blank_tail(self, text: str) -> str:
        """``text`` with its longest tail that starts a secret's form (any case) blanked."""
        lower, longest = text.lower(), 0
        for form in self._forms:
            form = form.lower()
            for size in range(min(len(form) - 1, len(text)), longest, -1):
                if lower.endswith(form[:size]):
                    longest = size
                    break
        return text[:-longest] + MASK if longest else text


def _any_form(char: str) -> str:
    """A pattern for ``char`` as a server may echo it: itself, percent-encoded (its UTF-8 bytes),
    a ``+`` for a space, or a JSON escape (matched without regard to case by the caller)."""
    options = [re.escape(char), "".join(f"%{byte:02x}" for byte in char.encode("utf-8"))]
    if char == " ":
        options.append(r"\+")
    escaped = json.dumps(char)[1:-1]
    if escaped != char:
        options.append(re.escape(escaped))
    if ord(char) < 0x10000:
        options.append(rf"\\u{ord(char):04x}")
    return "(?:" + "|".join(options) + ")"
