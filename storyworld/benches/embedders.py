"""Embedders for benchmark runs: a fresh bundled model per run (no shared encode cache), or a hashed bag of words."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from memory.embedder import Embedder


def fresh_embedder(kind: str) -> Embedder:
    """A new embedder per run, so no run inherits another's encode cache; warmed so loading is not timed."""
    if kind == "hash":
        return WordHashEmbedder()
    from memory.embedder import SentenceEmbedder, shared_embedder

    base = shared_embedder()
    base.encode(["warm up"])  # loads the model once per process
    fresh = SentenceEmbedder(base.folder)
    fresh._model, fresh._dim = base._model, base._dim  # same loaded weights, empty cache
    return fresh


class WordHashEmbedder:
    """Hashed bag of words, L2-normalised: a torch-free stand-in for smoke runs (never the default)."""

    dim = 256

    def encode(self, texts: list[str]) -> np.ndarray:
        """Embed texts -> float32 (n, 256), rows L2-normalised."""
        import hashlib
        import re

        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for row, text in enumerate(texts):
            for word in re.findall(r"[a-z0-9']+", text.lower()):
                bucket = int.from_bytes(hashlib.blake2b(word.encode(), digest_size=4).digest(), "big")
                out[row, bucket % self.dim] += 1.0
            norm = float(np.linalg.norm(out[row]))
            if norm:
                out[row] /= norm
            else:
                out[row, 0] = 1.0
        return out
