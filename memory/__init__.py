"""Consensus memory: records owned by everyone who holds them, recall scoped to what one knows."""

from memory.consensus import ConsensusStore
from memory.persist import StoreFileError
from memory.records import Deposit, Holding, MergeLogEntry, RecallHit, Record, normalise_text
from memory.settings import MemorySettings

__all__ = [
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
