"""simplemma's dictionaries as tries on disk (trace_explorer/analysis/support/lemmas.py): the same
lemmas as simplemma's own dictionaries, built once into the cache folder, opened from there
afterwards, and still given when the folder cannot be written."""

from __future__ import annotations

import os
import random
import subprocess
import sys

import pytest
import simplemma
from simplemma.strategies.dictionaries.dictionary_factory import DefaultDictionaryFactory

from trace_explorer.analysis.support import lemmas


@pytest.fixture
def lemma_cache(tmp_path, monkeypatch):
    """A cache folder of the test's own, with this process's lemmatiser made again for it."""
    folder = tmp_path / "tries"
    monkeypatch.setenv(lemmas.CACHE_ENV, str(folder))
    lemmas._dictionaries.cache_clear()
    lemmas._lemmatizer.cache_clear()
    yield folder
    lemmas._dictionaries.cache_clear()
    lemmas._lemmatizer.cache_clear()


def test_the_tries_give_simplemmas_own_lemmas(lemma_cache):
    words = list(DefaultDictionaryFactory().get_dictionary("en"))
    sample = random.Random(7).sample(words, 2000) + ["went", "Mice", "running", "better", "Trappists"]
    assert [lemmas.lemma(w, "en") for w in sample] == [simplemma.lemmatize(w, lang="en") for w in sample]
    assert lemmas.lemma("went", "en") == "go" and lemmas.lemma("mice", "en") == "mouse"
    assert sorted(p.name for p in lemma_cache.iterdir()) == ["en.dic"]  # no half-written file left
    mask = os.umask(0)
    os.umask(mask)
    assert (lemma_cache / "en.dic").stat().st_mode & 0o777 == 0o666 & ~mask  # readable by whom the umask lets


def test_a_trie_is_built_once_and_opened_from_disk_by_the_next_process(lemma_cache):
    lemmas.build(("en",))
    made = (lemma_cache / "en.dic").stat()
    script = ("import time; from trace_explorer.analysis.support import lemmas; t = time.perf_counter(); "
              "lemmas.build(('en',)); print(lemmas.lemma('houses', 'en'), time.perf_counter() - t)")
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True,
                         env={**os.environ, lemmas.CACHE_ENV: str(lemma_cache)}).stdout.split()
    assert out[0] == "house"
    assert float(out[1]) < 0.1  # opened, where building English takes about 0.5 s
    assert (lemma_cache / "en.dic").stat().st_mtime_ns == made.st_mtime_ns


def test_an_unwritable_folder_costs_speed_only(lemma_cache, tmp_path, monkeypatch):
    blocked = tmp_path / "a-file"
    blocked.write_text("not a folder")
    monkeypatch.setenv(lemmas.CACHE_ENV, str(blocked / "tries"))
    lemmas._dictionaries.cache_clear()
    lemmas._lemmatizer.cache_clear()
    assert lemmas.lemma("geese", "en") == "goose"
    assert blocked.read_text() == "not a folder"


def test_a_language_without_a_dictionary_is_a_value_error(lemma_cache):
    with pytest.raises(ValueError):
        lemmas.lemma("word", "xx")
