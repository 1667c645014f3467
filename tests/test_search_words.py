"""The search's words and fields (``search.search_terms``), and where a match is shown
(``search.text_match``): the same rules as the session index's FTS5 table."""

from __future__ import annotations

import time

from trace_explorer.sources.filter import SessionFilter
from trace_explorer.sources.search import (MARKS, MAX_SEARCH_CHARS, capped_note, fts_query, matches, search_terms,
                                           search_words, text_match)


def test_field_names_limit_a_word_and_other_colons_are_words():
    assert search_terms('answer:Elbrus tool:"mcp weather" peak') == [
        ("answer", "elbrus"), ("tool", "mcp"), ("tool", "weather"), (None, "peak")]
    assert search_terms("mcp:weather ERROR:Timed") == [(None, "mcp"), (None, "weather"), ("error", "timed")]
    assert search_terms("urn:trustgraph:agent:62c33a4f") == [(None, w) for w in ("urn", "trustgraph", "agent", "62c33a4f")]
    assert fts_query(search_terms("answer:elbrus peak")) == 'answer : "elbrus"* AND "peak"*'


def test_a_field_name_with_no_word_after_it_is_left_out():
    # a half-typed field narrows nothing: "dogs answer:" searches dogs, anywhere
    assert search_terms("dogs answer:") == [(None, "dogs")] == search_terms("answer: dogs") == search_terms("dogs ERROR:")
    assert search_terms("answer:") == [] == search_terms("!!!") == search_terms("--")
    assert search_terms("dogs mcp:") == [(None, "dogs"), (None, "mcp")]  # no field: a word
    assert SessionFilter(text="answer:").needle is None and SessionFilter(text="dogs answer:").needle == "dogs answer:"
    assert SessionFilter(text=" !!! ").wordless_note == \
        "the search '!!!' has no word to look for (letters or digits), so the list is not searched"
    assert SessionFilter(text="dogs").wordless_note is None is SessionFilter(text="  ").wordless_note


def test_a_match_marks_the_words_where_most_of_them_are():
    words = {"question": "¿Cuál es la montaña más alta de Europa?", "answer": "Mount Elbrus is Europe's highest peak.",
             "observation": "facts about Elbrus", "iri": "urn:trustgraph:agent:62c33a4f"}
    found = text_match(words, search_terms("elbrus highest"))
    assert found == {"field": "answer", "snippet": f"Mount {MARKS[0]}Elbrus{MARKS[1]} is Europe's "
                                                   f"{MARKS[0]}highest{MARKS[1]} peak."}
    assert text_match(words, search_terms("MONTANA"))["snippet"].count(MARKS[0] + "montaña" + MARKS[1]) == 1
    assert text_match(words, search_terms("observation:elbrus"))["field"] == "observation"
    assert text_match(words, search_terms("answer:facts")) is None
    assert matches(words, search_terms("montana elbrus")) and not matches(words, search_terms("question:elbrus"))


def test_marks_in_the_text_are_never_taken_for_ours():
    found = text_match({"answer": f"a {MARKS[0]}fake{MARKS[1]} mark and a real word"}, search_terms("real"))
    assert found["snippet"].count(MARKS[0]) == 1 and f"{MARKS[0]}real{MARKS[1]}" in found["snippet"]


def test_a_search_is_cut_to_its_first_characters_and_words_before_any_work():
    # the adversary's search: 40,000 different words (309 KB) took 18 s where each word was
    # compared with every word before it; now it is cut first and read once
    words = [f"w{i}x" for i in range(40_000)]
    text = " ".join(words)
    started = time.perf_counter()
    terms, note = search_terms(text), SessionFilter(text=text).capped_note
    assert time.perf_counter() - started < 2.0  # about 1 ms; 18 s before
    assert terms == [(None, w) for w in words[:16]] and search_words(text) == words[:16]
    assert note == "the search was cut to its first 1,000 characters and its first 16 different words; the rest was not searched"
    # a word cut in two at the character cap is searched as its start (a prefix, as typed)
    assert search_terms("a" * (MAX_SEARCH_CHARS - 2) + " elbrus") == [(None, "a" * (MAX_SEARCH_CHARS - 2)), (None, "e")]
    assert capped_note(" ".join("abcdefghijklmnopq")) == "the search was cut to its first 16 different words; the rest was not searched"
    assert capped_note(" ".join("abcdefghijklmnop") + " a b") is None is SessionFilter(text="!!!" * 400).capped_note
