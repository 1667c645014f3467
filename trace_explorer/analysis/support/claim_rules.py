"""The rules that hold a claim unbacked though its words are in the evidence, and the one that
backs it though they are not (``matcher.Matcher`` applies them to each claim):

* ``joins``: a statement that adds only names to a claim's evidence joins two facts the trace
  does not join;
* ``unbacked_degree``: a claim that ranks ("the fastest", "the first", "cheaper") needs a cited
  text that says so;
* ``across``: evidence in another language backs a claim through its numbers, names, units and
  acronyms (words of one language do not meet those of another; names, numbers and terms such as
  IBAN do);
* ``light``: a claim too thin to sink its sentence alone ("On paper the two are close: ...").
"""

from __future__ import annotations

from .reading import Evidence
from .words import Word, fold

# Content words a text needs to count as a statement of its own (``Matcher._joins``).
JOIN_WORDS = 4
# Words that rank or single out, beyond superlatives in -est: a claim holding one needs a cited
# text holding it too.
DEGREE_WORDS = frozenset("first only sole unique last best worst most least largest smallest biggest highest lowest "
                         "record".split())
# Comparatives: a claim with two numbers or more may compare them in its own words ("8, a touch
# lower than today's 9"); one with fewer needs a cited text with the word.
COMPARATIVES = frozenset("cheaper faster slower larger smaller higher lower older younger longer shorter bigger "
                         "better worse more less greater".split())
# Degree words that say the same.
_DEGREE_SYNONYMS = [{"tallest", "highest"}, {"largest", "biggest"}, {"first", "earliest"}, {"higher", "taller"},
                    {"larger", "bigger"}, {"only", "sole", "unique"}, {"most", "largest"}]
DEGREE_SYNONYMS = {w: frozenset(group) for group in _DEGREE_SYNONYMS for w in group}
# A superlative of size ("deepest", "tallest") is said by a text that names the maximum.
_LOW_END = frozenset("least smallest lowest fewest shortest youngest cheapest worst minimum slowest".split())
MAXIMUM_WORDS = frozenset("maximum max peak greatest highest largest biggest most record".split())


def joins(item: Evidence, added: list[Word]) -> bool:
    """True when ``item``, a statement of its own (``JOIN_WORDS`` content words or more), adds
    only names (``added``: the claim's words it backs that the claim's evidence so far did not)
    to a claim: it joins two facts the trace does not join ("Nordlicht Marine AS is based in
    Trondheim" from the edge naming the subsidiary and the one placing its parent). A short text,
    such as a calculator's result or a one-word observation, may add a number or a name."""
    if sum(1 for w in item.words if not w.stop) < JOIN_WORDS:
        return False
    return bool(added) and all(w.kind == "name" for w in added)


def unbacked_degree(sentence: str, claim: list[Word], cited: list[Evidence]) -> bool:
    """True when ``claim`` (its content words, in ``sentence``) ranks something ("the
    fastest-growing", "cheaper", "the first", "the only") and none of ``cited`` says so in those
    words, a word of the same sense, or, for a superlative of size ("deepest"), a word naming the
    maximum. A comparative is the claim's own when it compares two numbers it gives ("8, a touch
    lower than today's 9"); "at least" is a bound, not a rank."""
    compared = sum(1 for w in claim if w.in_digits) >= 2
    texts = [fold(e.text) for e in cited]
    for word in claim:
        form = fold(word.form)
        if form in ("least", "most") and sentence[:word.start].rstrip().casefold().endswith(" at"):
            continue
        ranks = form in DEGREE_WORDS or (len(form) > 5 and form.endswith("est") and word.kind == "word"
                                          and word.key != form)
        if ranks or (form in COMPARATIVES and not compared):
            wanted = DEGREE_SYNONYMS.get(form, frozenset()) | {form}
            if form.endswith("est") and form not in _LOW_END:
                wanted |= MAXIMUM_WORDS
            if not any(w in text for text in texts for w in wanted):
                return True
    return False


def across(language: str, claim: list[Word], found: list[bool], cited: list[Evidence]) -> bool:
    """True when ``cited`` (the claim's evidence) is in another language than the claim
    (``language``) and holds every number of the claim (at least one) and half its names, units
    and acronyms (or, in another script, where names are spelled otherwise, its numbers alone);
    or, with no number, every one of at least two such terms. ``found``: per word of ``claim``,
    whether its evidence holds it."""
    others = [e.language for e in cited if e.language != language]
    if not others:
        return False
    numbers = [f for w, f in zip(claim, found) if w.in_digits]
    anchors = [f for w, f in zip(claim, found) if w.kind == "name" or w.key.startswith("u:")
               or (w.form.isupper() and len(w.form) > 1)]
    if numbers:
        if not all(numbers):
            return False
        if _script(language) != _script(others[0]) or not anchors:
            return True
        return sum(anchors) * 2 >= len(anchors)
    return len(anchors) >= 2 and all(anchors)


def light(claim: list[Word], coverage: float, most: int) -> bool:
    """True for a claim too thin to sink its sentence alone: at most ``most`` content words, no
    name or number, and none of them in the evidence (``coverage`` under a fifth)."""
    return len(claim) <= most and coverage < 0.2 and not any(w.kind == "name" or w.in_digits for w in claim)


def _script(language: str) -> str:
    return {"ru": "cyrillic", "ja": "cjk", "zh": "cjk"}.get(language, "latin")
