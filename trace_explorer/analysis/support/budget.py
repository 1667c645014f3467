"""The cap on the work of one answer's support check, decided before the matcher starts: the
check matches each sentence of the answer against each text of the session that could back it,
so its work grows with sentences x texts. An answer over the cap is not checked, and the app and
``trace-explorer support`` say so instead of spending minutes on it.

Where the figures come from (``benchmarks/hostile_answers.py``, 2-core machine): the matcher
takes about 4 µs of CPU per (sentence, text) pair on short texts, and up to 40 µs on texts of
``matcher.MAX_TEXT_CHARS``; the longest answer of the corpus has 14 sentences and its largest
session about 2,000 texts (a 2,000-iteration agent run). ``MAX_PAIRS`` pairs cost at most a few
seconds; answers of runs of ``-.`` (10,000 "sentences" in 20,000 characters) and of hundreds of
sentences against thousands of Observations are over the cap.
"""

from __future__ import annotations

MAX_SENTENCES = 400  # sentences of one answer: a page of prose has about 40
MAX_PAIRS = 200_000  # sentences x texts: an answer of 100 sentences against 2,000 Observations


def over_budget(sentences: int, sources: int) -> str | None:
    """Why an answer of ``sentences`` sentences, checked against ``sources`` texts of its
    session, is not checked (a sentence for people, "answer support not checked: …"), or None
    when it is within ``MAX_SENTENCES`` and ``MAX_PAIRS``. Raises nothing."""
    if sentences > MAX_SENTENCES:
        return (f"answer support not checked: the answer has {sentences:,} sentences, more than the "
                f"{MAX_SENTENCES:,} the check reads")
    if sentences * sources > MAX_PAIRS:
        return (f"answer support not checked: {sentences:,} sentences against {sources:,} texts of the session "
                f"are {sentences * sources:,} pairs to match, more than the {MAX_PAIRS:,} the check takes on")
    return None
