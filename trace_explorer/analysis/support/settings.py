"""The thresholds of the support matcher (``matcher.Matcher``), chosen on the dev half of the
labelled set in ``benchmarks/data/support/``: ``benchmarks/answer_support.py`` prints what they
give on both halves, and what each part adds."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Settings:
    """The matcher's thresholds and switches.

    Backing a claim:

    - ``cover``: the share of a claim's weight its evidence must match;
    - ``anchored_cover``: the share that suffices when the claim has numbers in digits (or two
      names or more) and its evidence holds all of them: they are specific ("an increase of
      about 13 per cent" beside a calculator's 13.03);
    - ``context_credit``: the share of a word's weight the question or a goal is worth when it
      holds the word and no evidence does (names and numbers: all of it: a claim may name the
      company the question names where the plan's results give only its figures);
    - ``numbers``: every number written in digits must be in the claim's evidence;
    - ``claims``: cut sentences into claims (False: a sentence is one claim);
    - ``across``: evidence in another language backs a claim through its names, numbers, units
      and acronyms (``claim_rules.across``);
    - ``phrase`` / ``phrase_cover``: the cosine similarity of a claim's embedding and an evidence
      sentence's that backs a claim its evidence covers ``phrase_cover`` of (None: off);
    - ``joins``: a statement that adds only names to a claim's evidence marks it unbacked
      (``claim_rules.joins``);
    - ``degrees``: a claim that ranks ("the fastest", "the first", "cheaper") needs a cited text
      with that word (``claim_rules.unbacked_degree``);
    - ``light``: a claim with at most this many content words, no name or number, and none of
      them in the evidence does not make its sentence unbacked when another claim of it is backed
      ("On paper the two are close: ..."): it leaves the verdict undecided;
    - ``margin``: how close to ``cover`` a claim's coverage makes its verdict undecided (a judge,
      where one is configured, is asked).

    Matching a word: ``fuzzy`` the rapidfuzz ratio (0-100) that counts as the same word;
    ``similar`` the cosine similarity of two words' embeddings that counts as a synonym (None: no
    embedding), worth ``synonym_credit`` of the word's weight; ``idf`` weigh words by their rarity
    among the evidence, with ``floor`` the least document frequency a word is weighed with (1: a
    word no evidence holds weighs as one only a single piece holds).

    Citing: ``most`` how many pieces of evidence one claim may pick to back it; ``gain`` the share
    another piece must add to be picked; ``cite_share`` and ``cite_floor`` which other texts a
    backed claim cites too (``Matcher._also``)."""

    cover: float = 0.5
    anchored_cover: float = 0.3
    context_credit: float = 0.5
    numbers: bool = True
    claims: bool = True
    across: bool = True
    phrase: float | None = 0.8
    phrase_cover: float = 0.3
    joins: bool = True
    degrees: bool = True
    light: int = 3
    margin: float = 0.1
    fuzzy: float | None = 85.0
    similar: float | None = 0.6
    synonym_credit: float = 0.8
    idf: bool = True
    floor: int = 1
    most: int = 3
    gain: float = 0.05
    cite_share: float = 0.7
    cite_floor: float = 0.25
