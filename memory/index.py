"""Cosine vector index over record ids (usearch HNSW), with the exact vectors kept beside it."""

from __future__ import annotations

import logging

import numpy as np

log = logging.getLogger(__name__)


class IndexFileError(ValueError):
    """A serialised index could not be read."""


class VectorIndex:
    """usearch cosine index keyed by record id, plus a dense row matrix for exact scoring.

    The matrix lets owner-scoped recall take exact dot products over a few rows and lets the
    store re-score usearch candidates exactly, so both paths rank identically.
    """

    def __init__(self, dim: int, *, connectivity: int = 16, expansion_add: int = 128, expansion_search: int = 128):
        self.dim = int(dim)
        self._params = dict(connectivity=connectivity, expansion_add=expansion_add, expansion_search=expansion_search)
        self._index = self._new_index()
        self._matrix = np.zeros((1024, self.dim), dtype=np.float32)
        self._rows = 0
        self._row_of: dict[int, int] = {}
        self._key_of_row: list[int] = []

    def _new_index(self):
        """A fresh, empty usearch index with this wrapper's parameters."""
        from usearch.index import Index

        return Index(ndim=self.dim, metric="cos", dtype="f32", **self._params)

    def __len__(self) -> int:
        return len(self._row_of)

    def __contains__(self, key: int) -> bool:
        return key in self._row_of

    def keys(self) -> list[int]:
        """Every key in the index (insertion order)."""
        return list(self._row_of)

    def row(self, key: int) -> int:
        """Matrix row of a key."""
        return self._row_of[key]

    @property
    def matrix(self) -> np.ndarray:
        """The live rows (a view; rows of removed keys are left in place but never addressed)."""
        return self._matrix[: self._rows]

    def vector(self, key: int) -> np.ndarray:
        """The stored vector of one key."""
        return self._matrix[self._row_of[key]]

    def _grow(self, extra: int) -> None:
        need = self._rows + extra
        if need > len(self._matrix):
            size = max(need, 2 * len(self._matrix))
            bigger = np.zeros((size, self.dim), dtype=np.float32)
            bigger[: self._rows] = self._matrix[: self._rows]
            self._matrix = bigger

    def add(self, keys: list[int], vectors: np.ndarray) -> None:
        """Add keys with their (normalised) vectors; a key already present is replaced."""
        if not keys:
            return
        vectors = np.asarray(vectors, dtype=np.float32).reshape(len(keys), self.dim)
        for key in keys:
            if key in self._row_of:
                self.remove(key)
        self._grow(len(keys))
        start = self._rows
        self._matrix[start : start + len(keys)] = vectors
        for offset, key in enumerate(keys):
            self._row_of[key] = start + offset
            self._key_of_row.append(key)
        self._rows += len(keys)
        # One thread for the usual single add; all cores for bulk fills.
        self._index.add(np.asarray(keys, dtype=np.uint64), vectors, threads=1 if len(keys) < 64 else 0)

    def remove(self, key: int) -> None:
        """Forget a key (its matrix row becomes dead)."""
        if self._row_of.pop(key, None) is not None:
            self._index.remove(key)

    def search(self, vector: np.ndarray, count: int) -> tuple[np.ndarray, np.ndarray]:
        """Approximate nearest keys -> (keys uint64, cosine similarities), best first."""
        size = len(self._row_of)
        if size == 0 or count <= 0:
            return np.empty(0, dtype=np.uint64), np.empty(0, dtype=np.float32)
        matches = self._index.search(np.asarray(vector, dtype=np.float32), min(count, size), threads=1)
        return np.asarray(matches.keys, dtype=np.uint64), 1.0 - np.asarray(matches.distances, dtype=np.float32)

    def to_bytes(self) -> bytes:
        """The usearch index serialised (it holds the vectors too)."""
        return bytes(self._index.save())

    @classmethod
    def from_bytes(cls, data: bytes, dim: int, expected_keys: list[int]) -> "VectorIndex":
        """Restore from `to_bytes`; raises IndexFileError when unreadable or not matching expected_keys."""
        from usearch.index import Index

        made = cls(dim)
        try:
            restored = Index.restore(bytearray(data))
        except (RuntimeError, ValueError, TypeError) as exc:
            raise IndexFileError(f"unreadable usearch data ({exc})") from exc
        if restored is None or restored.ndim != dim:
            raise IndexFileError(f"usearch data has width {getattr(restored, 'ndim', None)}, expected {dim}")
        if len(restored) != len(expected_keys):
            raise IndexFileError(f"usearch data holds {len(restored)} keys, records need {len(expected_keys)}")
        keys = np.asarray(expected_keys, dtype=np.uint64)
        if len(keys):
            present = np.asarray(restored.contains(keys), dtype=bool)
            if not present.all():
                raise IndexFileError(f"usearch data lacks {int((~present).sum())} record keys")
            got = restored.get(keys, dtype=np.float32)
            vectors = np.vstack(got) if isinstance(got, tuple) else np.asarray(got, dtype=np.float32)
            vectors = vectors.astype(np.float32, copy=False).reshape(len(keys), dim)
        else:
            vectors = np.zeros((0, dim), dtype=np.float32)
        made._index = restored
        made._index.expansion_search = made._params["expansion_search"]
        made._grow(len(keys))
        made._matrix[: len(keys)] = vectors
        made._rows = len(keys)
        made._row_of = {int(k): i for i, k in enumerate(expected_keys)}
        made._key_of_row = [int(k) for k in expected_keys]
        return made

    @classmethod
    def build(cls, dim: int, keys: list[int], vectors: np.ndarray) -> "VectorIndex":
        """A new index holding these keys and vectors."""
        made = cls(dim)
        made.add(list(keys), vectors)
        return made
