"""Secrets kept out of messages: a server's words (an error body, a malformed term, a parser's
complaint) may echo the ``Authorization`` header, so every text quoted from a server passes
through ``SecretScrub.clean`` before it reaches an error message, a log or a page.

The order is the rule: the whole text is scrubbed first, then cut. A text cut first can end in
the first characters of a secret, which a replace of the whole secret no longer finds. A text
that was itself cut short (a capped read) is treated the same way: a tail that could be the
start of a secret is blanked too.

A server may echo a secret partly or encoded, so each secret is also looked for as any start of
it of ``MIN_PREFIX`` characters or more (a server that quotes the first seven characters of a
token has given those away), and as its base64 (standard and URL-safe alphabets, at each of the
three alignments it can have inside a longer base64 text, such as a dumped header), again with
any start of ``MIN_PREFIX`` characters or more.
"""

from __future__ import annotations

import base64
import json
import re
from urllib.parse import quote

MASK = "***"
MIN_PREFIX = 4  # the shortest start of a secret (or of its base64) that is masked: three characters tell little


class SecretScrub:
    """The secrets of one connection (``secrets``: tokens, passwords; empty ones ignored), in
    every form a server may echo them: as sent, in any letter case, inside a JSON string
    (``\\uXXXX`` escapes too), URL-encoded in any way (``%2D`` for ``-``, ``+`` for a space),
    each character in any of these forms, in whole or any start of ``MIN_PREFIX`` characters or
    more; their base64 (``base64_forms``); and for HTTP basic authentication the base64 of
    ``user:password`` (``basic``)."""

    def __init__(self, *secrets: str | None, basic: tuple[str, str] | None = None):
        forms: set[str] = set()
        for secret in filter(None, secrets):
            forms.update({secret, secret.lower(), json.dumps(secret)[1:-1], quote(secret, safe="")})
        encoded = [s for s in secrets if s] + ([f"{basic[0]}:{basic[1]}"] if basic is not None and basic[1] else [])
        exact = sorted({form for secret in encoded for form in base64_forms(secret)}, key=len, reverse=True)
        forms.update(exact)
        self._forms = sorted((f for f in forms if f), key=len, reverse=True)
        self._found = [_Starts([_any_form(c) for c in secret], re.IGNORECASE) for secret in filter(None, secrets)]
        self._found += [_Starts([re.escape(c) for c in form]) for form in exact]

    def __bool__(self) -> bool:
        return bool(self._forms)

    def clean(self, text: object, limit: int | None = None, *, cut_short: bool = False) -> str:
        """``str(text)`` (bytes or bytearray: decoded as UTF-8, U+FFFD for what is not) with every secret
        replaced by ``***``, then cut to ``limit`` characters (with " …" when cut).
        ``cut_short``: the text is the start of a longer one (a capped read), so a tail that is
        the start of a secret is blanked as well."""
        out = text.decode("utf-8", errors="replace") if isinstance(text, (bytes, bytearray)) else str(text)
        spans = sorted(span for starts in self._found for span in starts.spans(out))
        if spans:
            kept, end = [], 0
            for start, stop in spans:
                if stop <= end:
                    continue
                kept.append(out[end:start] + MASK if start >= end else "")
                end = stop
            out = "".join(kept) + out[end:]
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


def base64_forms(secret: str) -> list[str]:
    """The base64 of ``secret`` (UTF-8) as it shows inside any longer base64 text: for each of
    the three alignments (the secret starting 0, 1 or 2 bytes into a 3-byte group), the
    characters that depend on the secret's bytes alone; and its whole encoding, with padding; in
    the standard and the URL-safe alphabet. ("ab" at alignment 0 is "YW" and "Jp": only "YW" is
    sure inside a longer text.)"""
    data = secret.encode("utf-8")
    whole = base64.b64encode(data).decode("ascii")  # the secret encoded on its own, padding and all
    found = [whole, whole.replace("+", "-").replace("/", "_")]
    for shift in range(3):
        text = base64.b64encode(bytes(shift) + data).decode("ascii").rstrip("=")
        start, end = -(-8 * shift // 6), 8 * (shift + len(data)) // 6  # the characters of the secret's bits only
        for form in (text[start:end], text[start:end].replace("+", "-").replace("/", "_")):
            if form:
                found.append(form)
    return list(dict.fromkeys(found))


class _Starts:
    """Where a text holds a start of a secret: ``chars`` is a pattern per character of the
    secret (or of one of its forms); a match is its first ``MIN_PREFIX`` characters (all of a
    shorter one) followed by as many more of its characters, in order, as the text has."""

    def __init__(self, chars: list[str], flags: int = 0):
        self._first = re.compile("".join(chars[:MIN_PREFIX]), flags)
        self._rest = [re.compile(c, flags) for c in chars[MIN_PREFIX:]]

    def spans(self, text: str) -> list[tuple[int, int]]:
        """``(start, end)`` of each longest start of the secret in ``text``."""
        found, match = [], self._first.search(text)
        while match is not None:
            end = match.end()
            for char in self._rest:
                more = char.match(text, end)
                if more is None:
                    break
                end = more.end()
            found.append((match.start(), end))
            match = self._first.search(text, max(end, match.start() + 1))  # a span is searched once
        return found


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
