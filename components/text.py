"""Showing untrusted trace text safely, and the app's page paths.

Trace text (questions, thoughts, observations, answers, tool errors, IRIs) is LLM and tool
output. Streamlit renders ``st.markdown``, ``st.error``, ``st.caption``, ``st.subheader`` and
``st.page_link`` labels as Markdown, so text that goes there passes through ``md_escape``; text
shown as is goes to ``st.text`` / ``st.code`` / ``st.dataframe``. No HTML is ever allowed.
"""

from __future__ import annotations

import re
import string

import streamlit as st

from trace_explorer.model.totals import format_ms  # noqa: F401 - the pages format durations from here
from trace_explorer.views.visible_text import visible_controls

SESSIONS_PAGE = "app_pages/sessions.py"
SESSION_PAGE = "app_pages/session.py"
DOCUMENTS_PAGE = "app_pages/documents.py"
COMPARE_PAGE = "app_pages/compare.py"
INSIGHTS_PAGE = "app_pages/insights.py"
ASK_PAGE = "app_pages/ask.py"

_PUNCTUATION = frozenset(string.punctuation)
WORD_JOINER = "\u2060"
_AUTOLINK = re.compile(r"(?:https?|ftp|www|mailto|xmpp)(?=[:.])|@", re.IGNORECASE)


def md_escape(text: object, *, one_line: bool = False) -> str:
    """``text`` as Markdown that shows it literally: every ASCII punctuation character is
    backslash-escaped (CommonMark lets any of them be escaped), so no emphasis, link, image,
    HTML, math or directive can start. ``one_line`` folds whitespace runs into single spaces.

    Escapes cannot stop GFM's *autolink literals* (Streamlit's Markdown turns any "http://...",
    "www." or e-mail address in the text into a link after parsing), so an invisible WORD JOINER
    (U+2060) goes after "http", "https", "ftp", "www", "mailto", "xmpp" and "@": the text reads
    the same and is no link.
    """
    value = "" if text is None else visible_controls(str(text))
    if one_line:
        value = " ".join(value.split())
    value = _AUTOLINK.sub(lambda m: m.group(0) + WORD_JOINER, value)
    out = []
    for char in value:
        if char in _PUNCTUATION:
            out.append("\\" + char)
        elif char == "\n":
            out.append("  \n")  # a Markdown hard line break keeps the text's lines
        else:
            out.append(char)
    return "".join(out)


def badge_escape(text: object) -> str:
    """``text`` for ``st.badge``'s label, shown literally on one line: ``md_escape`` but for the
    square brackets, which ``st.badge`` escapes itself (escaped twice, they would show their
    backslashes: ``:red\\[RED\\]``)."""
    return md_escape(text, one_line=True).replace("\\[", "[").replace("\\]", "]")


def counted(number: int, one: str, many: str | None = None) -> str:
    """``number`` with its noun: "1 top-level session", "2,345 top-level sessions" (``many``
    defaults to ``one`` + "s")."""
    return f"{number:,} {one if number == 1 else many or one + 's'}"


def clip(text: object, width: int) -> str:
    """``text`` on one line, cut to ``width`` characters with an ellipsis."""
    flat = " ".join(("" if text is None else str(text)).split())
    return flat if len(flat) <= width else flat[: max(1, width - 1)] + "…"


PROSE_LIMIT = 4000  # characters of one text shown in the page; the rest is a download away


def long_text(text: object, *, name: str = "text", limit: int = PROSE_LIMIT, key: str | None = None) -> None:
    """Show trace text with ``st.text``: all of it up to ``limit`` characters, else its start, a
    note of its length and a button to download the whole text (a 1 MB observation must not
    become a 1 MB page)."""
    value = "" if text is None else str(text)
    if len(value) <= limit:
        st.text(visible_controls(value))
        return
    st.text(visible_controls(value[:limit]) + " …")
    st.caption(f"Showing the first {limit:,} of {len(value):,} characters.")
    st.download_button("Download the full text", value.encode("utf-8"), file_name=f"{name}.txt",
                       mime="text/plain", icon=":material/download:", key=key)
