"""Consensus memory: records owned by everyone who holds them, recall scoped to what one knows."""

from memory.consensus import ConsensusStore, Deposit, normalise_text, provenance_tag
from memory.persist import StoreFileError
from memory.records import Holding, MergeLogEntry, RecallHit, Record
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
    "provenance_tag",
]
