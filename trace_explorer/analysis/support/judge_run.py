"""A configured judge asked about an answer's sentences: which ones, at most how many, at once
on a few threads, each verdict kept so that the same question is not asked twice.

Asked about: the sentences whose matcher verdict is close to its threshold
(``SentenceSupport.undecided``), and with ``unsupported`` every unsupported one too; at most
``MAX_JUDGED`` an answer (the rest are counted as left out). Verdicts are kept by (session,
sentence, digest of the prompt, which holds the evidence) in a bounded cache, least recently
used out (and the last ``ANSWERS_KEPT`` answers whole, by identity); a failure is kept
``FAILURE_TTL_S`` seconds, so that a judge that is down costs one timeout, not one per page
view. When a request fails, the sentences not yet sent get the same failure without a request:
one answer costs about one timeout at most. The matcher's verdict
is never changed: the judge's is shown beside it.
"""

from __future__ import annotations

import threading
import time
import weakref
from collections import OrderedDict
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

from .judge import SYSTEM, JudgePrompt, Verdict, failed, judge_prompt, parse_verdict, source_words
from .judge_client import REQUESTS_AT_ONCE, Completion, JudgeError, completion
from .judge_config import judge_settings
from .support import AnswerSupport, SentenceSupport

MAX_JUDGED = 8  # sentences asked about per answer
WORKERS = REQUESTS_AT_ONCE  # requests at once
CACHE_ENTRIES = 4096
FAILURE_TTL_S = 60.0
ANSWERS_KEPT = 16  # as many as the app keeps supports


@dataclass(frozen=True)
class Judged:
    """One sentence the judge was asked about: its ``index`` in the answer, the ``prompt`` and
    the ``verdict``."""

    index: int
    prompt: JudgePrompt
    verdict: Verdict


@dataclass(frozen=True)
class Judgement:
    """What the judge said of an answer: ``endpoint`` (its label), ``sentences`` (index ->
    Judged, in the answer's order) and ``left_out`` (sentences it would have been asked about,
    past ``MAX_JUDGED``)."""

    endpoint: str
    sentences: dict[int, Judged]
    left_out: int = 0


class Judge:
    """A judge: ``completion`` (the endpoint, ``judge_client``), ``unsupported`` (ask about every
    unsupported sentence too), ``clock`` (``time.monotonic``, for the tests)."""

    def __init__(self, completion: Completion, *, unsupported: bool = False,
                 clock: Callable[[], float] = time.monotonic):
        self.completion, self.unsupported, self._clock = completion, unsupported, clock
        self._cache: OrderedDict[tuple[str, str, str], tuple[Verdict, float]] = OrderedDict()
        # the last answers judged, by identity: the app keeps each AnswerSupport and shows it again
        self._answers: OrderedDict[int, tuple[AnswerSupport, Judgement, float]] = OrderedDict()
        self._lock = threading.Lock()
        self.requests = 0  # sent to the endpoint (for the tests)
        # one pool for the judge's life: a TrustGraph gateway keeps a connection per thread
        self._pool = ThreadPoolExecutor(WORKERS, thread_name_prefix="judge")
        weakref.finalize(self, self._pool.shutdown, wait=False)

    @property
    def label(self) -> str:
        """The endpoint, for people."""
        return self.completion.label

    def wanted(self, support: AnswerSupport) -> list[int]:
        """The indexes of the sentences of ``support`` the judge is asked about (all of them,
        before the ``MAX_JUDGED`` cap)."""
        return [i for i, s in enumerate(support.sentences) if s.undecided or (self.unsupported and not s.supported)]

    def judge(self, support: AnswerSupport) -> Judgement:
        """Ask about the sentences of ``support`` that ``wanted`` names (the first
        ``MAX_JUDGED``), kept verdicts first. The same ``support`` object asked about again gets
        the same Judgement at once (its prompts are not made again). Raises nothing: a failure
        is each verdict's ``error``."""
        with self._lock:
            seen = self._answers.get(id(support))
        if seen is not None and seen[0] is support and seen[2] > self._clock():
            return seen[1]
        judgement = self._judge(support)
        failing = any(j.verdict.error for j in judgement.sentences.values())
        with self._lock:
            until = self._clock() + FAILURE_TTL_S if failing else float("inf")
            self._answers[id(support)] = (support, judgement, until)
            self._answers.move_to_end(id(support))
            while len(self._answers) > ANSWERS_KEPT:
                self._answers.popitem(last=False)
        return judgement

    def _judge(self, support: AnswerSupport) -> Judgement:
        wanted = self.wanted(support)
        asked = wanted[:MAX_JUDGED]
        words = source_words(support.sources) if asked else []
        prompts = {i: _prompt(support, support.sentences[i], words) for i in asked}
        out: dict[int, Judged] = {}
        missing = []
        for index in asked:
            kept = self._kept(self._key(support, index, prompts[index]))
            if kept is not None:
                out[index] = Judged(index, prompts[index], kept)
            else:
                missing.append(index)
        if missing:
            run = _Run(self, support, prompts)
            for index, verdict in zip(missing, self._pool.map(run.ask, missing)):
                out[index] = Judged(index, prompts[index], verdict)
        return Judgement(self.label, dict(sorted(out.items())), len(wanted) - len(asked))

    def _key(self, support: AnswerSupport, index: int, prompt: JudgePrompt) -> tuple[str, str, str]:
        return (support.session, support.sentences[index].text, prompt.digest)

    def _kept(self, key: tuple[str, str, str]) -> Verdict | None:
        with self._lock:
            entry = self._cache.get(key)
            if entry is None:
                return None
            if entry[1] <= self._clock():
                del self._cache[key]
                return None
            self._cache.move_to_end(key)
            return entry[0]

    def _keep(self, key: tuple[str, str, str], verdict: Verdict) -> None:
        until = self._clock() + FAILURE_TTL_S if verdict.error else float("inf")
        with self._lock:
            self._cache[key] = (verdict, until)
            self._cache.move_to_end(key)
            while len(self._cache) > CACHE_ENTRIES:
                self._cache.popitem(last=False)


class _Run:
    """One answer's requests: after a failure, the rest are not sent."""

    def __init__(self, judge: Judge, support: AnswerSupport, prompts: dict[int, JudgePrompt]):
        self.judge, self.support, self.prompts = judge, support, prompts
        self.failure: str | None = None

    def ask(self, index: int) -> Verdict:
        prompt = self.prompts[index]
        if self.failure is not None:
            return failed(f"not sent: an earlier request failed ({self.failure})")
        with self.judge._lock:
            self.judge.requests += 1
        try:
            verdict = parse_verdict(self.judge.completion.complete(prompt.system, prompt.prompt))
        except JudgeError as error:
            self.failure = str(error)
            verdict = failed(str(error))
        self.judge._keep(self.judge._key(self.support, index, prompt), verdict)
        return verdict


def _prompt(support: AnswerSupport, sentence: SentenceSupport, words: list[frozenset[str]]) -> JudgePrompt:
    return judge_prompt(sentence.text, support.sources, [b.source for b in sentence.support], words)


def judgement_record(judgement: Judgement, support: AnswerSupport) -> dict:
    """``judgement`` as JSON (``trace-explorer support --judge --format json``'s ``judge``)::

        {"endpoint": label, "system": the instructions, "left_out": n,
         "sentences": [{"index": i, "matcher": "supported"|"unsupported", "verdict":
                        "supported"|"unsupported"|"cannot tell", "reason": text,
                        "reply": text|null, "error": text|null, "prompt": text,
                        "evidence": [{"kind", "step"}]}]}
    """
    return {"endpoint": judgement.endpoint, "system": SYSTEM, "left_out": judgement.left_out,
            "sentences": [{"index": j.index, "matcher": _matcher(support.sentences[j.index]),
                           "verdict": j.verdict.verdict, "reason": j.verdict.reason, "reply": j.verdict.reply,
                           "error": j.verdict.error, "prompt": j.prompt.prompt,
                           "evidence": [{"kind": e.kind, "step": e.step} for e in j.prompt.evidence]}
                          for j in judgement.sentences.values()]}


def judgement_text(judgement: Judgement, support: AnswerSupport) -> str:
    """``judgement`` as lines of text, after the matcher's (``support_text``): each sentence
    asked about with the matcher's verdict beside the judge's, the reason, the reply that was
    not a verdict or the failure, and the prompt, indented."""
    count = len(judgement.sentences)
    lines = [f"judge: {judgement.endpoint}, asked about {count} sentence{'' if count == 1 else 's'}"
             + (f" ({judgement.left_out} more left out: at most {MAX_JUDGED} an answer)" if judgement.left_out else "")]
    for judged in judgement.sentences.values():
        sentence, verdict = support.sentences[judged.index], judged.verdict
        lines.append(f"{judged.index + 1}. {sentence.text}")
        lines.append(f"   matcher: {_matcher(sentence)}; judge: {verdict.verdict}"
                     + (f": {verdict.reason}" if verdict.reason else ""))
        if verdict.error:
            lines.append(f"   judge failed: {verdict.error}")
        if verdict.reply is not None:
            lines.append("   judge replied: " + " ".join(verdict.reply.split()))
        lines.append("   prompt:")
        lines += ["      | " + line for line in judged.prompt.prompt.splitlines()]
    return "\n".join(lines) + "\n"


def _matcher(sentence: SentenceSupport) -> str:
    return "supported" if sentence.supported else "unsupported"


def configured_judge(environ=None, cwd=None) -> Judge | None:
    """The judge the operator configured (``judge_config.judge_settings``: ``environ``, the
    secrets file under ``cwd``), or None when none is. Raises JudgeConfigError for a
    configuration that cannot be used, JudgeError for a URL the endpoint policy refuses."""
    settings = judge_settings(environ, cwd)
    if settings is None:
        return None
    return Judge(completion(settings), unsupported=settings.unsupported)
