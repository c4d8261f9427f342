"""Test helpers for memory: a deterministic hashed bag-of-words embedder (no torch)."""

from __future__ import annotations

import hashlib
import re

import numpy as np

_WORD = re.compile(r"[a-z0-9']+")


class HashEmbedder:
    """Hashed bag of words (plus bigrams), L2-normalised: same words -> cosine 1, fast and seeded."""

    def __init__(self, dim: int = 64):
        self.dim = dim
        self.calls = 0

    def _bucket(self, token: str) -> tuple[int, float]:
        h = hashlib.blake2b(token.encode(), digest_size=8).digest()
        return int.from_bytes(h[:4], "little") % self.dim, 1.0 if h[4] & 1 else -1.0

    def encode(self, texts: list[str]) -> np.ndarray:
        """Embed texts; each row L2-normalised float32."""
        self.calls += 1
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for i, text in enumerate(texts):
            words = _WORD.findall(text.lower())
            for token in words + [a + " " + b for a, b in zip(words, words[1:])]:
                j, sign = self._bucket(token)
                out[i, j] += sign
            norm = np.linalg.norm(out[i])
            if norm == 0:
                out[i, 0] = 1.0
            else:
                out[i] /= norm
        return out


def save_loop(folder: str, seed_records: int = 200) -> None:
    """Child process of the fault test: add one record and save, forever, printing each generation.

    Invariant of every completed save: the store holds exactly `generation + seed_records - 1`
    records (the first save carries the seed records).
    """
    import sys

    from memory import ConsensusStore, Deposit, MemorySettings

    store = ConsensusStore.open(folder, embedder=HashEmbedder(), settings=MemorySettings(merge=False))
    if store.generation == 0:
        store.remember_many(
            [Deposit(owner=f"agent{i % 7}", text=f"Seed statement {i} about the castle.", round=i // 50) for i in range(seed_records)]
        )
        store.save()
        print(store.generation, len(store), flush=True)
    while True:
        n = len(store) + 1
        store.remember(f"agent{n % 7}", f"Entry {n}: someone walked the hall.", round=n // 50)
        store.save()
        sys.stdout.write(f"{store.generation} {len(store)}\n")
        sys.stdout.flush()
