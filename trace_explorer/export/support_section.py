"""A session's answer with its support (``analysis.support``) as a section of the exports: each
sentence of the answer, marked supported or not, with the steps that back it, their score and
the words of theirs that match.

Every sentence, text and IRI is trace text: in HTML each piece is escaped (``html.escape``) after
its control characters are made visible, and the matching words are marked by
``views.marked_text.marked_html`` (which writes no markup but ``<mark>``); in Markdown it goes
through ``markdown_text.escape_markdown`` / ``code_span`` so nothing in it renders as markup.
"""

from __future__ import annotations

import html

from ..analysis.support.support import AnswerSupport, Backing, verdict
from ..views.marked_text import marked_html
from ..views.visible_text import visible_controls
from .markdown_text import code_span, escape_markdown

TEXT_CHARS = 2000  # of one backing text in the page

CSS = """
#answer-support li.unsupported > .sentence { background: #fef2f2; border-left: 3px solid #dc2626; padding: 2px 6px; }
#answer-support li.supported > .sentence { border-left: 3px solid #16a34a; padding: 2px 6px; }
#answer-support .verdict { font-size: 0.85em; color: #991b1b; font-weight: 600; }
#answer-support .backing { margin: 4px 0 4px 12px; font-size: 0.9em; }
#answer-support .backing-text { white-space: pre-wrap; background: #f8fafc; padding: 2px 6px; }
#answer-support mark { background: #fde68a; padding: 0 1px; border-radius: 2px; }
"""


def support_html(support: AnswerSupport) -> str:
    """``<section id="answer-support">``: the answer's sentences in order, each with its backing
    steps (kind, IRI, score, their text with the matching words marked) or the verdict; for an
    answer that was not checked, why (``AnswerSupport.unchecked``)."""
    if support.unchecked:
        return f'<section id="answer-support"><h2>Answer support</h2>\n<p class="hint">{_t(support.unchecked)}</p>\n</section>\n'
    if not support.sentences:
        return ""
    out = ['<section id="answer-support"><h2>Answer support</h2>\n',
           f'<p class="hint">{len(support.sentences)} sentence(s), {len(support.unsupported)} that nothing in '
           f"this trace supports</p>\n<ol>\n"]
    for sentence in support.sentences:
        css = "supported" if sentence.supported else "unsupported"
        out.append(f'<li class="{css}"><div class="sentence">{_t(sentence.text)}</div>')
        if not sentence.supported:
            out.append(f'<div class="verdict">Unsupported: {_t(verdict(sentence, support.answer))}</div>')
        out.extend(_backing_html(b) for b in sentence.support)
        out.append("</li>\n")
    out.append("</ol>\n</section>\n")
    return "".join(out)


def _backing_html(backing: Backing) -> str:
    source = backing.source
    where = f" · chunk <code>{_t(source.chunk)}</code>" if source.chunk else ""
    if source.edge:
        where += " · edge <code>" + _t(" ".join(source.edge)) + "</code>"
    text = source.text[:TEXT_CHARS]
    spans = [(a, min(b, len(text))) for a, b in backing.spans if a < len(text)]
    return (f'<div class="backing">{_t(source.kind)} <code>{_t(source.step)}</code>{where} · score '
            f'{backing.score:.2f}<div class="backing-text">{marked_html(text, spans)}</div></div>')


def support_markdown(support: AnswerSupport, hashes: str = "##") -> str:
    """The same as Markdown: a heading, then each sentence in a paragraph of its own ("**Sentence
    2 (supported):** ..." or "(unsupported, nothing in this trace supports it)"), followed by a
    list of its backing steps (kind, IRI as a code span, score, the matching words). "" when the
    answer has no sentence; for an answer that was not checked, why."""
    if support.unchecked:
        return f"{hashes} Answer support\n\n{escape_markdown(support.unchecked)}"
    if not support.sentences:
        return ""
    lines = [f"{hashes} Answer support", "",
             f"{len(support.sentences)} sentence(s), {len(support.unsupported)} that nothing in this trace supports"]
    for number, sentence in enumerate(support.sentences, 1):
        mark = "supported" if sentence.supported else "unsupported, " + verdict(sentence, support.answer)
        lines += ["", f"**Sentence {number} ({mark}):** {_one_line(escape_markdown(sentence.text))}"]
        if sentence.support:
            lines.append("")
        for backing in sentence.support:
            source = backing.source
            words = [source.text[a:b] for a, b in backing.spans]
            matching = ", ".join(_one_line(escape_markdown(w)) for w in dict.fromkeys(words) if w.strip())
            where = f" chunk {code_span(source.chunk)}" if source.chunk else ""
            where += f" edge {code_span(' '.join(source.edge))}" if source.edge else ""
            lines.append(f"- {escape_markdown(source.kind)} {code_span(source.step)}{where}, score "
                         f"{backing.score:.2f}" + (f": {matching}" if matching else ""))
    return "\n".join(lines)


def _one_line(text: str) -> str:
    return " ".join(text.split())


def _t(value) -> str:
    return html.escape(visible_controls(str(value)), quote=True)
