"""Answer support reads each text once (``text_cache``): what it keeps must not change what it
finds. The demo's supports with nothing kept, then with every text kept and asked for again,
are the same records, and find the unsupported sentences read by hand."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import pytest

from tests.answer_support_truth import UNSUPPORTED
from trace_explorer.analysis.support import embedding, evidence, reading, words
from trace_explorer.analysis.support.embedding import WordVectors, word_vectors
from trace_explorer.analysis.support.reading import Evidence
from trace_explorer.analysis.support.support import session_support, support_record
from trace_explorer.analysis.support.text_cache import TextCache
from trace_explorer.model.reader import read_sessions
from trace_explorer.read.collection import load_collection
from trace_explorer.sources.demo import demo_paths

ELBRUS_HEIGHT = "Mount Elbrus is 5,642 metres high."


def test_a_text_is_read_once_and_the_least_recently_used_leaves_first():
    cache = TextCache(budget=10)
    reads = []

    def read(text):
        return lambda: reads.append(text) or text.upper()

    assert cache.get("abcd", "en", read("abcd")) == "ABCD"
    assert cache.get("abcd", "en", read("abcd")) == "ABCD"
    assert cache.get("abcd", "de", read("abcd")) == "ABCD"  # another key: read again
    assert reads == ["abcd", "abcd"] and cache.size == 8
    cache.get("abcd", "en", read("abcd"))  # now the most recently used
    cache.get("xyz", "en", read("xyz"))  # 11 characters: the oldest, ("abcd", "de"), leaves
    assert list(cache.entries) == [("abcd", "en"), ("xyz", "en")] and cache.size == 7
    assert cache.get("0123456789a", "en", read("0123456789a")) == "0123456789A"  # over budget: not kept
    assert ("0123456789a", "en") not in cache.entries and cache.size == 7
    assert reads == ["abcd", "abcd", "xyz", "0123456789a"]


def test_evidence_read_once_is_the_same_as_read_anew(monkeypatch):
    monkeypatch.setattr(reading, "_EVIDENCE", TextCache(reading.EVIDENCE_CACHE_CHARS))
    first, again = Evidence.of(ELBRUS_HEIGHT), Evidence.of(ELBRUS_HEIGHT)
    assert again.words is first.words  # read once
    monkeypatch.setattr(reading, "_EVIDENCE", TextCache(0))
    fresh = Evidence.of(ELBRUS_HEIGHT)
    assert fresh.words is not first.words and fresh == first
    assert [(w.form, w.key, w.kind) for w in fresh.words if not w.stop] == [
        ("Mount", "mount", "word"), ("Elbrus", "elbrus", "name"), ("5,642 metres", "#5642", "number"),
        ("high", "high", "word")]
    assert fresh.forms == ("elbrus", "high", "mount")


@pytest.fixture(scope="module")
def demo():
    collection, errors = load_collection(list(demo_paths()))
    assert errors == []
    return collection, list(read_sessions(collection))


def _records(collection, sessions, vectors, family=None) -> dict[str, dict]:
    family = family if family is not None else {s.id: s for s in sessions}
    out = {}
    for session in sessions:
        support = session_support(session, collection.documents, vectors=vectors(session), family=family)
        out[session.id] = {**support_record(support), "missing": [s.missing for s in support.sentences]}
    return out


def test_demo_support_is_the_same_with_texts_kept_or_read_anew(demo, monkeypatch):
    collection, sessions = demo
    model = word_vectors().model
    caches = [(reading, "_EVIDENCE", reading.EVIDENCE_CACHE_CHARS),
              (reading, "_SENTENCES", reading.SENTENCE_CACHE_CHARS)]
    for module, name, _ in caches:
        monkeypatch.setattr(module, name, TextCache(0))
    words._reading.cache_clear()
    words._key.cache_clear()
    evidence._local_name.cache_clear()
    anew = _records(collection, sessions, lambda _: WordVectors(model))  # no embedding matrix kept either
    for module, name, budget in caches:
        monkeypatch.setattr(module, name, TextCache(budget))
    kept = WordVectors(model)
    filling = _records(collection, sessions, lambda _: kept)
    assert all(getattr(module, name).size > 0 for module, name, _ in caches) and kept.matrices
    again = _records(collection, sessions, lambda _: kept)
    assert anew == filling == again
    unsupported = {iri: n for iri, record in anew.items()
                   if (n := sum(not s["supported"] for s in record["sentences"]))}
    assert unsupported == UNSUPPORTED


def test_sessions_checked_in_threads_share_the_kept_texts(demo, monkeypatch):
    """The app's sessions run in threads: small caches, emptied and filled by four at once,
    give each the supports found one by one."""
    collection, sessions = demo
    one_by_one = _records(collection, sessions, lambda _: word_vectors())
    monkeypatch.setattr(reading, "_EVIDENCE", TextCache(300))
    monkeypatch.setattr(reading, "_SENTENCES", TextCache(100))
    monkeypatch.setattr(embedding, "CACHE_ENTRIES", 50)
    shared = WordVectors(word_vectors().model)
    with ThreadPoolExecutor(4) as pool:
        parts = list(pool.map(lambda part: _records(collection, part, lambda _: shared, {s.id: s for s in sessions}),
                              [sessions[i::4] for i in range(4)] * 3))
    assert all(records == {iri: one_by_one[iri] for iri in records} for records in parts)
