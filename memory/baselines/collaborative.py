"""Collaborative baseline: one store partitioned by access control; sharing grants a reader, never merges."""

from __future__ import annotations

import msgspec
import numpy as np

from pathlib import Path

from memory.baselines.base import BaselineSettings, RowState, RowStore
from memory.baselines.base import text_key
from memory.embedder import Embedder
from memory.records import Deposit
from memory.store import Judge, StoreStats
from memory.records import Holding, Record


class CollaborativeStore(RowStore):
    """Every witness writes its own row; a told claim also grants the listener read access to the
    speaker's row of it. Grants widen what recall may show, they never add an owner, so the
    paper's accounting keeps shared at 0."""

    backend = "collaborative"

    def __init__(self, embedder: Embedder | None = None, settings: BaselineSettings | None = None,
                 folder: Path | None = None, judge: Judge | None = None) -> None:
        super().__init__(embedder=embedder, settings=settings, folder=folder, judge=judge)
        self._readers: dict[int, dict[str, None]] = {}
        self._granted: dict[str, dict[int, None]] = {}
        self._by_owner_event: dict[tuple[str, str], list[int]] = {}

    def _load_extra(self, state: RowState) -> None:
        for rid, readers in state.readers.items():
            for reader in readers:
                self._grant(int(rid), reader)
        for record in self.table.records.values():
            self._index_event(record)

    def _save_extra(self, state: RowState) -> None:
        state.readers = {rid: list(readers) for rid, readers in self._readers.items() if readers}

    def _index_event(self, record: Record) -> None:
        if record.event_id is not None:
            for owner in record.owners:
                self._by_owner_event.setdefault((owner, record.event_id), []).append(record.id)

    def _grant(self, rid: int, reader: str) -> bool:
        if reader in self.table.records[rid].owners or reader in self._readers.get(rid, {}):
            return False
        self._readers.setdefault(rid, {})[reader] = None
        self._granted.setdefault(reader, {})[rid] = None
        return True

    def share(self, record_id: int, reader: str) -> bool:
        """Grant `reader` read access to a row (True when newly granted); the row keeps its one owner."""
        with self.table.lock:
            self._check_owner(reader, "reader")
            if record_id not in self.table.records:
                raise ValueError(f"share: {record_id!r} is not a record id")
            granted = self._grant(record_id, reader)
            self._counters["grants"] = self._counters.get("grants", 0) + int(granted)
            return granted

    def readers(self, record_id: int) -> list[str]:
        """Agents granted read access to a row besides its owner."""
        return sorted(self._readers.get(record_id, ()))

    def _after_batch(self, deposits: list[Deposit], results: list[list[int]]) -> None:
        for ids in results:
            for rid in ids:
                self._index_event(self.table.records[rid])
        if not self.settings.grant_told:
            return
        grants = 0
        for deposit in deposits:
            if deposit.via not in ("told", "read") or not deposit.source or deposit.event_id is None:
                continue
            for rid in self._by_owner_event.get((deposit.source, deposit.event_id), ()):
                grants += self._grant(rid, deposit.owner)
        self._counters["grants"] = self._counters.get("grants", 0) + grants

    def _candidates(self, owner: str) -> list[int]:
        return [*self.table.held.get(owner, ()), *self._granted.get(owner, ())]

    def _select(self, owner: str, ids: np.ndarray, sims: np.ndarray, scores: np.ndarray, k: int) -> list[tuple[int, float]]:
        """Top-k, one hit per text: the caller's own row wins over a granted copy of the same words."""
        order = sorted(range(len(ids)), key=lambda i: (-float(scores[i]), owner not in self.table.records[int(ids[i])].owners, int(ids[i])))
        seen: set[str] = set()
        out: list[tuple[int, float]] = []
        for i in order:
            key = text_key(self.table.records[int(ids[i])].text)
            if key in seen:
                continue
            seen.add(key)
            out.append((int(ids[i]), float(scores[i])))
            if len(out) == k:
                break
        return out

    def _view(self, owner: str, record: Record) -> Record:
        """A granted row as the reader sees it: held as told by the row's owner."""
        if owner in record.owners:
            return record
        writer = next(iter(record.owners))
        holding = Holding(via="told", source=writer, since_round=record.round, confidence=0.7)
        return msgspec.structs.replace(record, owners={**record.owners, owner: holding})

    def _extra_stats(self) -> StoreStats:
        return {
            "grants": sum(len(r) for r in self._readers.values()),
            "granted_rows": sum(1 for r in self._readers.values() if r),
        }
