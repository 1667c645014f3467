"""Traces whose answer costs the support check the most: one agent session each (the seed shape,
every text inline, so one N-Triples file is the whole upload), in the sizes of the cases that
held the server's CPU before the check ran in a worker process with a cap on its work:

- ``dashes``: 110 KB, an answer of runs of ``-.`` (each a "sentence" to pysbd, the splitter
  before simplemma's, which cut such a line in time that grew with the square of its length: 10 s
  of CPU for the first 20,000 characters);
- ``wide``: 965 KB, an answer of 1,000 short sentences against 1,100 Observations;
- ``long_observations``: 1.2 MB, 50 Observations of 3,300 words and an answer of 1,000 short
  sentences.

- ``busy``: 95 short sentences against 1,000 Observations, just under the cap on the check's
  work: about 6 s of CPU, past a deadline of a second;

and, to compare with, ``control``: the 50 long Observations of ``long_observations`` with an answer
of three sentences, as an honest upload of that size.

``hostile_answer(case)`` gives ``(session IRI, N-Triples bytes)``; ``CASES`` names them. Seeded
by construction: the same case gives the same bytes.
"""

from __future__ import annotations

import json

CASES = ("dashes", "wide", "long_observations", "busy")
CONTROL = "control"
TG = "https://trustgraph.ai/ns/"
PROV = "http://www.w3.org/ns/prov#"
RDF_TYPE = "http://www.w3.org/1999/02/22-rdf-syntax-ns#type"
WORDS = ("alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india", "juliett", "kilo",
         "lima", "mike", "november", "oscar", "papa", "quebec", "romeo", "sierra", "tango", "uniform", "victor",
         "whiskey", "xray", "yankee", "zulu")


def hostile_answer(case: str) -> tuple[str, bytes]:
    """``(root IRI, N-Triples)`` of the hostile ``case`` (one of ``CASES``, or ``CONTROL``)."""
    if case == "dashes":
        return agent_session("0bad5e55-0000-4000-8000-0000000000d1", ["Result of the lookup: dots and dashes."],
                             "-." * 55_000)
    if case == "wide":
        observations = [_words(i, 25) for i in range(1_100)]
        return agent_session("0bad5e55-0000-4000-8000-0000000000d2", observations,
                             " ".join(_words(i * 7, 3).capitalize() + "." for i in range(1_000)))
    if case == "long_observations":
        observations = [_words(i, 3_300) for i in range(50)]
        return agent_session("0bad5e55-0000-4000-8000-0000000000d3", observations,
                             " ".join(_words(i * 13, 3).capitalize() + "." for i in range(1_000)))
    if case == "busy":
        observations = [_words(i, 25) for i in range(1_000)]
        return agent_session("0bad5e55-0000-4000-8000-0000000000d4", observations,
                             " ".join(_words(i * 7, 3).capitalize() + "." for i in range(95)))
    if case == "control":
        observations = [_words(i, 3_300) for i in range(50)]
        return agent_session("0bad5e55-0000-4000-8000-0000000000c0", observations,
                             " ".join(_words(i * 13, 12).capitalize() + "." for i in range(3)))
    raise ValueError(f"unknown hostile case {case!r}; expected one of {', '.join(CASES)}")


def _words(seed: int, count: int) -> str:
    """``count`` words, with numbers among them, that differ with ``seed``."""
    return " ".join(WORDS[(seed * 31 + n * 7) % len(WORDS)] + (str(seed + n) if n % 5 == 0 else "")
                    for n in range(count))


def agent_session(uuid: str, observations: list[str], answer: str) -> tuple[str, bytes]:
    """An agent session ``urn:trustgraph:agent:{uuid}`` with one Analysis per text of
    ``observations`` (inline ``tg:observation``) and a Conclusion whose ``tg:answer`` is
    ``answer``, as N-Triples bytes."""
    root = f"urn:trustgraph:agent:{uuid}"
    lines = [_triple(root, RDF_TYPE, TG + "Question", iri=True), _triple(root, TG + "query", "Which words?"),
             _triple(root, PROV + "startedAtTime", "2026-03-09T09:44:56Z")]
    previous = root
    for n, text in enumerate(observations, 1):
        step = f"{root}/i{n}"
        lines += [_triple(step, RDF_TYPE, TG + "Analysis", iri=True), _triple(step, TG + "action", "lookup"),
                  _triple(step, TG + "arguments", json.dumps({"question": f"word {n}"})),
                  _triple(step, TG + "observation", text), _triple(step, PROV + "wasDerivedFrom", previous, iri=True)]
        previous = step
    final = f"{root}/final"
    lines += [_triple(final, RDF_TYPE, TG + "Conclusion", iri=True), _triple(final, TG + "answer", answer),
              _triple(final, PROV + "wasDerivedFrom", previous, iri=True)]
    return root, ("\n".join(lines) + "\n").encode()


def _triple(subject: str, predicate: str, obj: str, iri: bool = False) -> str:
    value = f"<{obj}>" if iri else json.dumps(obj, ensure_ascii=False)  # a JSON string is an N-Triples literal
    return f"<{subject}> <{predicate}> {value} ."
