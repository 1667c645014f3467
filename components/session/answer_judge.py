"""The judge in the Answer support panel, when the operator configured one
(``trace_explorer.analysis.support.judge_config``: the environment or ``.streamlit/secrets.toml``;
a visitor can neither name nor change it).

The judge is asked where the matcher runs, when a session's support is shown, about the
sentences the matcher cannot decide (``judge_run.Judge``): its verdicts are kept by session,
sentence and evidence, so a page shown again asks nothing. Its verdict is shown under each
sentence it was asked about, beside the matcher's; the selected sentence shows the reason, the
reply that was not a verdict or why there was none, and the prompt. Every text from the trace
or the judge is escaped (``md_escape``) or shown as code.
"""

from __future__ import annotations

import logging
from pathlib import Path

import streamlit as st

from trace_explorer.analysis.support.judge import CANNOT_TELL, SUPPORTED
from trace_explorer.analysis.support.judge_client import JudgeError
from trace_explorer.analysis.support.judge_config import SECRETS_PATH, JudgeConfigError
from trace_explorer.analysis.support.judge_run import Judge, Judged, Judgement, configured_judge
from trace_explorer.analysis.support.support import AnswerSupport

from ..sidebar.configured_sources import config_key
from ..text import md_escape

_log = logging.getLogger(__name__)


def app_judge() -> Judge | None:
    """The configured judge (one per change of the secrets file or the environment), or None."""
    return _judge(*config_key(Path.cwd() / SECRETS_PATH))


@st.cache_resource(show_spinner=False, max_entries=2)
def _judge(path: str, stamp: int | None, environment: int) -> Judge | None:
    try:
        return configured_judge()
    except (JudgeConfigError, JudgeError) as error:
        _log.warning("answer support judge: %s", error)
        return None


def answer_judgement(support: AnswerSupport) -> Judgement | None:
    """What the configured judge says of ``support``'s undecided sentences (asked now, or kept
    from before); None without a judge or without a sentence to ask about."""
    judge = app_judge()
    if judge is None or not judge.wanted(support):
        return None
    with st.spinner("Asking the judge about the sentences the matcher cannot decide…"):
        return judge.judge(support)


def judge_caption(judged: Judged) -> None:
    """The judge's verdict under a sentence's button."""
    verdict = judged.verdict
    colour = {SUPPORTED: "green", CANNOT_TELL: "gray"}.get(verdict.verdict, "orange")
    words = f"Judge: {verdict.verdict}" + (f" ({verdict.reason})" if verdict.reason else "")
    st.caption(f":{colour}[:material/gavel: {md_escape(words, one_line=True)}]")


def judge_details(judged: Judged, endpoint: str) -> None:
    """The selected sentence's verdict in full: reason, the reply that was not a verdict or why
    no reply came, and what the judge was asked."""
    verdict = judged.verdict
    st.markdown(md_escape(f"Judge ({endpoint}): {verdict.verdict}" + (f". {verdict.reason}" if verdict.reason else ""),
                          one_line=True))
    if verdict.error:
        st.warning(md_escape(f"The judge gave no reply: {verdict.error}", one_line=True), icon=":material/gavel:")
    if verdict.reply is not None:
        st.caption("The judge replied (not the JSON verdict asked for):")
        st.code(verdict.reply, language=None, wrap_lines=True)
    with st.expander("What the judge was asked", icon=":material/gavel:"):
        st.code(f"{judged.prompt.system}\n\n{judged.prompt.prompt}", language=None, wrap_lines=True)
