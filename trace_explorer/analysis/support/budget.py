"""The cap on the work of one answer's support check, decided before the matcher starts: the
check matches each sentence of the answer against each text of the session that could back it,
so its work grows with sentences x texts. An answer over the cap is not checked, and the app and
``trace-explorer support`` say so instead of spending minutes on it.

Where the figures come from (``tests/hostile_answers.py``'s cases checked in one process,
2026-12-06, a shared 2-core machine): the matcher takes about 4 µs of CPU per (sentence, text)
pair on short texts and about 50 µs on texts of ``matcher.MAX_TEXT_CHARS``, so ``MAX_PAIRS``
pairs cost from 1 s to 10 s (in the app, a visitor's answer is checked in a worker process under
a deadline: ``bounded``). The demo's answers have at most 3 sentences against 12 texts; a
2,000-iteration agent run has 2,000 Observations, which an answer of up to 100 sentences may
still be checked against. Answers of runs of ``-.`` (10,000 "sentences" in 20,000 characters)
and of hundreds of short sentences are over the cap.
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
