"""RecordTable: the read accessors every store shares (records by id, who holds what, embedding width)."""

from __future__ import annotations

import threading
from collections.abc import Iterator

import numpy as np

from memory.embedder import Embedder
from memory.records import Holding, Record


class RecordTable:
    """Mixin over `_records` (id -> Record), `_held` (owner -> ids), `_lock`, `embedder` and `_dim`."""

    _records: dict[int, Record]
    _held: dict[str, dict[int, None]]
    _lock: threading.RLock
    _dim: int | None
    embedder: Embedder

    @property
    def dim(self) -> int:
        """Embedding width."""
        if self._dim is None:
            self._dim = int(self.embedder.dim)
        return self._dim

    def _encode(self, texts: list[str]) -> np.ndarray:
        vectors = np.asarray(self.embedder.encode(list(texts)), dtype=np.float32)
        if vectors.shape != (len(texts), self.dim):
            raise ValueError(f"embedder returned shape {vectors.shape}, expected ({len(texts)}, {self.dim})")
        return vectors

    def get(self, record_id: int) -> Record:
        """The record with this id (KeyError when unknown)."""
        return self._records[record_id]

    def records(self) -> list[Record]:
        """Every record, by id."""
        with self._lock:
            return list(self._records.values())

    def __len__(self) -> int:
        return len(self._records)

    def __iter__(self) -> Iterator[Record]:
        return iter(self.records())

    def held_by(self, owner: str) -> list[Record]:
        """Records an owner holds (archived included), by id."""
        with self._lock:
            return [self._records[r] for r in sorted(self._held.get(owner, ()))]

    def holding(self, record_id: int, owner: str) -> Holding | None:
        """How an owner holds a record, or None."""
        return self._records[record_id].owners.get(owner)

    def owners(self) -> list[str]:
        """Every agent holding at least one record."""
        return sorted(o for o, held in self._held.items() if held)
