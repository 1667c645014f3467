"""Lemmas from simplemma's dictionaries, held as MARISA tries kept on disk.

simplemma's default dictionaries are Python dicts decoded from its wheel in every process that
lemmatises: 3.4 s and 440 MB for English, German, French, Spanish, Russian and Italian, paid again
by each app server, CLI run and worker process. Its ``TrieDictionaryFactory`` builds each
language's trie once (0.4–3 s), keeps it on disk, and opens it afterwards in about a millisecond,
in 41 MB for the same six. The lemmas are the same: the trie holds the dict's pairs.

The tries' folder is ``TRACE_EXPLORER_LEMMA_CACHE``, else simplemma's own (the user's cache
folder, ``simplemma/marisa_trie/<version>``). A folder that cannot be written costs speed only:
the trie is then built in memory in each process. ``scripts/setup.sh`` builds every language
``LANGUAGES`` names (``python -m trace_explorer.analysis.support.lemmas``), so a first page does
not wait for it.
"""

from __future__ import annotations

import os
import sys
import tempfile
from functools import lru_cache
from pathlib import Path

from simplemma import Lemmatizer
from simplemma.strategies import DefaultStrategy
from simplemma.strategies.dictionaries.trie_dictionary_factory import TrieDictionaryFactory

# Languages the support matcher lemmatises (words.text_words; simplemma has a dictionary of each).
LANGUAGES = ("en", "de", "fr", "es", "it", "pt", "nl", "ru", "sv", "da", "tr")
CACHE_ENV = "TRACE_EXPLORER_LEMMA_CACHE"


class _AtomicTrieFactory(TrieDictionaryFactory):
    """simplemma's trie factory, writing each trie under a temporary name and renaming it into
    place: processes that build the same language at once never open a half-written file."""

    def _write_trie_to_disk(self, lang, trie) -> None:
        folder = Path(self._cache_dir)
        folder.mkdir(parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(prefix=f".{lang}.", suffix=".part", dir=folder)
        os.close(handle)
        try:
            trie.save(temporary)
            os.chmod(temporary, 0o666 & ~_umask())  # as a file opened for writing would be: others may read it
            os.replace(temporary, folder / f"{lang}.dic")
        except BaseException:
            Path(temporary).unlink(missing_ok=True)
            raise


def _umask() -> int:
    """This process's umask, read without setting it (``os.umask`` sets it for every thread a
    moment); 0o022 where /proc does not tell."""
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError):
        pass
    return 0o022


@lru_cache(maxsize=1)
def _dictionaries() -> TrieDictionaryFactory:
    return _AtomicTrieFactory(cache_max_size=len(LANGUAGES), disk_cache_dir=os.environ.get(CACHE_ENV) or None)


@lru_cache(maxsize=1)
def _lemmatizer() -> Lemmatizer:
    return Lemmatizer(lemmatization_strategy=DefaultStrategy(dictionary_factory=_dictionaries()))


def lemma(form: str, language: str) -> str:
    """The lemma of the word ``form`` in ``language`` (a code in ``LANGUAGES``; simplemma's
    default strategy: its dictionary, then its rules), or ``form`` when neither knows one.
    Raises ValueError for a language simplemma has no dictionary of."""
    return _lemmatizer().lemmatize(form, lang=language)


def build(languages: tuple[str, ...] = LANGUAGES) -> None:
    """Make sure each language's trie is on disk, building those missing (0.4–3 s each).
    Raises ValueError for a language simplemma has no dictionary of."""
    for language in languages:
        _dictionaries().get_dictionary(language)


if __name__ == "__main__":
    build(tuple(sys.argv[1:]) or LANGUAGES)
