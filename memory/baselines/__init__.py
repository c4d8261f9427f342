"""The three baseline memories the benchmark compares the consensus store with (DESIGN §3.5)."""

from __future__ import annotations

from memory.baselines.base import BaselineSettings, RowStore
from memory.baselines.collaborative import CollaborativeStore
from memory.baselines.generative import GenerativeStore, Rater, Reflector, rule_importance
from memory.embedder import Embedder
from memory.baselines.gmemory import GMemoryStore

STORES: dict[str, type[RowStore]] = {
    "generative": GenerativeStore,
    "gmemory": GMemoryStore,
    "collaborative": CollaborativeStore,
}


def _store_class(backend: str) -> type[RowStore]:
    try:
        return STORES[backend]
    except KeyError:
        raise ValueError(f"unknown baseline {backend!r}; choose one of {', '.join(STORES)}") from None


def make(backend: str, embedder: Embedder | None = None, settings: BaselineSettings | None = None, *,
         rate: Rater | None = None, reflect: Reflector | None = None) -> RowStore:
    """A fresh in-memory baseline store (`rate` and `reflect` are Generative Agents' model calls)."""
    if backend == "generative":
        return GenerativeStore(embedder=embedder, settings=settings, rate=rate, reflect=reflect)
    return _store_class(backend)(embedder=embedder, settings=settings)


def from_files(backend: str, files: dict[str, bytes], embedder: Embedder | None = None,
               settings: BaselineSettings | None = None) -> RowStore:
    """Rebuild a baseline store from its `dump()` files."""
    return _store_class(backend).from_files(files, embedder=embedder, settings=settings)


__all__ = [
    "BaselineSettings", "CollaborativeStore", "GMemoryStore", "GenerativeStore", "RowStore", "STORES",
    "from_files", "make", "rule_importance",
]
