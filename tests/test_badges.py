"""Trace text in a badge (a termination reason, a pattern, a step's kind) shows as written:
``st.badge`` escapes square brackets itself, so they are not escaped twice (which showed the
backslashes: ``:red\\[RED\\]``), and nothing else in it acts as Markdown."""

from __future__ import annotations

from markdown_it import MarkdownIt
from streamlit.testing.v1 import AppTest


def badge_app():
    import streamlit as st

    from components.text import badge_escape

    st.badge(badge_escape("stopped: :red[RED] *bold* [link](javascript:alert(1)) `code`"), color="orange")


def test_a_badge_shows_trace_text_as_written():
    at = AppTest.from_function(badge_app).run()
    assert not at.exception
    body = at.main.markdown[0].value
    assert body.startswith(":orange-badge[") and body.endswith("]")
    label = body[len(":orange-badge["):-1]
    assert label == r"stopped\: \:red\[RED\] \*bold\* \[link\]\(javascript\:alert\(1\)\) \`code\`"
    shown = MarkdownIt("commonmark").render(label)  # what the label shows, once Markdown reads it
    assert shown == "<p>stopped: :red[RED] *bold* [link](javascript:alert(1)) `code`</p>\n"


def test_the_session_headers_badges_are_written_as_st_badge_writes_them():
    from components.session.session_header import badge_markdown
    from components.text import badge_escape

    hostile = "stopped: :red[RED] *bold* [link](javascript:alert(1)) `code`"
    at = AppTest.from_function(badge_app).run()
    assert badge_markdown(badge_escape(hostile), "orange") == at.main.markdown[0].value
    assert badge_markdown("answered", "green", ":material/check_circle:") == ":green-badge[:material/check_circle: answered]"
