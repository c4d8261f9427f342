"""Consensus memory: records owned by everyone who holds them, recall scoped to what one knows.

The data (memory.records) imports without numpy; the stores load on first use, so the kernel can
build deposits without pulling in the vector machinery.
"""

from typing import TYPE_CHECKING

from memory.records import Deposit, Holding, MergeLogEntry, RecallHit, Record, normalise_text

if TYPE_CHECKING:
    from memory.consensus import ConsensusStore
    from memory.persist import StoreFileError
    from memory.settings import MemorySettings

# The stores that share one interface (DESIGN §3.5): the consensus store, then the baselines in memory.baselines.
BACKENDS = ("consensus", "generative", "gmemory", "collaborative")

_LAZY = {"ConsensusStore": "memory.consensus", "StoreFileError": "memory.persist", "MemorySettings": "memory.settings"}


def __getattr__(name: str) -> object:
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'memory' has no attribute {name!r}")


__all__ = [
    "BACKENDS",
    "ConsensusStore",
    "Deposit",
    "Holding",
    "MemorySettings",
    "MergeLogEntry",
    "RecallHit",
    "Record",
    "StoreFileError",
    "normalise_text",
]
