"""Word embeddings for the support matcher: WordLlama's ``l2_supercat`` 256-dimension token
embeddings, which ship inside its wheel (``wordllama/weights``, ``wordllama/tokenizers``), so
nothing is fetched from a model hub. WordLlama's own ``WordLlama.load`` looks for the tokenizer
in a folder the wheel does not have and then downloads it; the files are opened here directly."""

from __future__ import annotations

import threading
from functools import lru_cache
from pathlib import Path

import numpy as np

from .text_cache import TextCache

WEIGHTS = "weights/l2_supercat_256.safetensors"
TOKENIZER = "tokenizers/l2_supercat_tokenizer_config.json"


# Entries the cache holds at most (about 1 KiB each): a long-running app sees ever new words.
CACHE_ENTRIES = 20_000


class WordVectors:
    """Embeddings of single words, cached (at most ``CACHE_ENTRIES``, emptied when full):
    ``best(word, others)`` is the highest cosine similarity (-1..1) between ``word`` and any of
    ``others``. The matrix of ``others``' embeddings is kept too (at most ``CACHE_ENTRIES`` rows
    in all, least recently used first out: ``text_cache``): the same list of words is searched
    for each word of a sentence. So is each ``best`` found (at most ``CACHE_ENTRIES``, emptied
    when full): an answer's words are asked against the same evidence sentence after sentence
    and session after session (at 10,000 sessions, 79,288 asks of 128 pairs)."""

    def __init__(self, model):
        self.model = model
        self.cache: dict[str, np.ndarray] = {}
        self.bests: dict[tuple[str, tuple[str, ...]], float] = {}
        self.matrices: TextCache[np.ndarray] = TextCache(CACHE_ENTRIES)  # by the rows (words) kept
        self.lock = threading.RLock()  # the app's sessions run in threads and share one model

    def vectors(self, words: list[str]) -> None:
        """Embed the ``words`` not embedded yet, in one batch."""
        with self.lock:
            new = [w for w in dict.fromkeys(words) if w not in self.cache]
            if len(self.cache) + len(new) > CACHE_ENTRIES:
                wanted = set(words)
                self.cache = {w: v for w, v in self.cache.items() if w in wanted}
            if new:
                for word, vector in zip(new, self.model.embed(new, norm=True)):
                    self.cache[word] = vector

    def matrix(self, words: tuple[str, ...]) -> np.ndarray:
        """The embeddings of ``words``, one row each in their order (kept for the next call;
        ``text_cache.clear_all`` forgets them, the embeddings of single words stay)."""
        return self.matrices.get(words, None, lambda: self._stacked(words))

    def _stacked(self, words: tuple[str, ...]) -> np.ndarray:
        with self.lock:
            self.vectors(list(words))
            return np.stack([self.cache[w] for w in words])

    def best(self, word: str, others: tuple[str, ...] | list[str]) -> float:
        """The highest cosine similarity between ``word`` and one of ``others`` (0.0 for none)."""
        if not others:
            return 0.0
        key = (word, others if type(others) is tuple else tuple(others))
        found = self.bests.get(key)
        if found is not None:
            return found
        matrix = self.matrix(key[1])
        with self.lock:
            if word not in self.cache:
                self.vectors([word])
            vector = self.cache[word]
        found = float((matrix @ vector).max())
        with self.lock:
            if len(self.bests) >= CACHE_ENTRIES:
                self.bests.clear()
            self.bests[key] = found
        return found

    def similarity(self, a: str, b: str) -> float:
        """The cosine similarity of two texts' embeddings (-1..1)."""
        with self.lock:
            self.vectors([a, b])
            first, second = self.cache[a], self.cache[b]
        return float(first @ second)


@lru_cache(maxsize=1)
def word_vectors() -> WordVectors:
    """The WordLlama model read from its wheel (about 1 s and 32 MB, once per process).

    Raises FileNotFoundError when the installed wordllama lacks its bundled files."""
    import wordllama
    from safetensors import safe_open
    from wordllama import WordLlama
    from wordllama.inference import WordLlamaInference

    root = Path(wordllama.__file__).parent
    weights, tokenizer = root / WEIGHTS, root / TOKENIZER
    for path in (weights, tokenizer):
        if not path.is_file():
            raise FileNotFoundError(f"{path}: wordllama's bundled model file is missing (reinstall wordllama)")
    with safe_open(str(weights), framework="np", device="cpu") as f:
        embedding = f.get_tensor("embedding.weight")
    return WordVectors(WordLlamaInference(embedding, WordLlama.load_tokenizer(tokenizer)))
