"""OwnerRows: what each owner holds as (record id, index row) arrays, for owner-scoped vector search.

The consensus store keeps one vector per record in a shared index; recall and the write path
search only what one owner holds. These arrays grow as holdings come and are cut to the
unarchived ones (cached) when an owner has archived holdings.
"""

from __future__ import annotations

import numpy as np

from memory.index import VectorIndex
from memory.records import Record


class _HeldRows:
    """Growable (record id, index row) arrays of one owner's holdings."""

    __slots__ = ("ids", "rows", "n")

    def __init__(self) -> None:
        self.ids = np.empty(64, dtype=np.int64)
        self.rows = np.empty(64, dtype=np.int64)
        self.n = 0

    def _reserve(self, extra: int) -> None:
        if self.n + extra > len(self.ids):
            size = max(self.n + extra, 2 * len(self.ids))
            self.ids = np.resize(self.ids, size)
            self.rows = np.resize(self.rows, size)

    def append(self, rid: int, row: int) -> None:
        """Add one holding."""
        self._reserve(1)
        self.ids[self.n] = rid
        self.rows[self.n] = row
        self.n += 1

    def extend(self, rids: list[int], rows: list[int]) -> None:
        """Add many holdings."""
        self._reserve(len(rids))
        self.ids[self.n : self.n + len(rids)] = rids
        self.rows[self.n : self.n + len(rids)] = rows
        self.n += len(rids)

    def view(self) -> tuple[np.ndarray, np.ndarray]:
        """(ids, rows) of every holding so far."""
        return self.ids[: self.n], self.rows[: self.n]


def top(ids: np.ndarray, sims: np.ndarray, count: int) -> list[tuple[int, float]]:
    """Best `count` by similarity, ties broken by id, deterministic."""
    if len(ids) > count:
        part = np.argpartition(-sims, count - 1)[:count]
        threshold = sims[part].min()
        part = np.nonzero(sims >= threshold)[0]
    else:
        part = np.arange(len(ids))
    order = sorted(part.tolist(), key=lambda i: (-float(sims[i]), int(ids[i])))[:count]
    return [(int(ids[i]), float(sims[i])) for i in order]


class OwnerRows:
    """Per-owner holding arrays over one store's records, held-sets and index."""

    def __init__(self, records: dict[int, Record], held: dict[str, dict[int, None]]) -> None:
        self.records = records
        self.held = held
        self.rows: dict[str, _HeldRows] = {}  # every holding, appended as it comes
        self.unarchived: dict[str, tuple[np.ndarray, np.ndarray]] = {}  # filtered views, cached
        self.has_archived: set[str] = set()

    def reset(self) -> None:
        """Forget every array (the holdings were rebuilt)."""
        self.rows.clear()
        self.unarchived.clear()
        self.has_archived.clear()

    def added(self, owner: str, rid: int, index: VectorIndex | None, new: bool) -> None:
        """The owner holds `rid` (again): append its row when new, drop the filtered view."""
        rows = self.rows.get(owner)
        if new and rows is not None and index is not None:
            rows.append(rid, index.row(rid))
        self.unarchived.pop(owner, None)

    def dropped(self, owner: str) -> None:
        """The owner let a record go: its arrays are rebuilt on the next search."""
        self.rows.pop(owner, None)
        self.unarchived.pop(owner, None)

    def archive_changed(self) -> None:
        """Decay archived or revived holdings: recount who has archived ones."""
        self.unarchived.clear()
        self.has_archived = {o for r in self.records.values() for o, h in r.owners.items() if h.archived}

    def arrays(self, owner: str, index: VectorIndex, include_archived: bool) -> tuple[np.ndarray, np.ndarray]:
        """(record ids, index rows) of what an owner holds; kept incrementally, filtered views cached."""
        rows = self.rows.get(owner)
        if rows is None:
            held = list(self.held.get(owner, {}))
            rows = _HeldRows()
            rows.extend(held, [index.row(r) for r in held])
            self.rows[owner] = rows
        if include_archived or owner not in self.has_archived:
            return rows.view()
        cached = self.unarchived.get(owner)
        if cached is None:
            ids, row_ids = rows.view()
            keep = np.fromiter((not self.records[int(r)].owners[owner].archived for r in ids), dtype=bool, count=len(ids))
            cached = (ids[keep], row_ids[keep])
            self.unarchived[owner] = cached
        return cached

    def scan(self, owner: str, index: VectorIndex, vector: np.ndarray, count: int, include_archived: bool,
             exact_max_rows: int, oversample: int, force: str | None = None) -> list[tuple[int, float]]:
        """Top `count` records the owner holds by cosine: exact for few rows, usearch + filter for many."""
        ids, rows = self.arrays(owner, index, include_archived)
        if len(ids) == 0 or count <= 0:
            return []
        if force == "exact" or (force is None and len(ids) <= exact_max_rows):
            return top(ids, index.matrix[rows] @ vector, count)
        held = self.held[owner]
        fetch = count * oversample
        total = len(index)
        while True:
            keys, sims = index.search(vector, min(fetch, total))
            found: list[tuple[int, float]] = []
            for key, sim in zip(keys.tolist(), sims.tolist()):
                if key in held and (include_archived or not self.records[key].owners[owner].archived):
                    found.append((key, sim))
            if len(found) >= count or fetch >= total:
                break
            fetch *= 4
        if len(found) < count and len(found) < len(ids):
            return top(ids, index.matrix[rows] @ vector, count)
        # Re-score exactly so both paths agree to the last bit.
        exact = index.matrix[[index.row(k) for k, _ in found]] @ vector
        found_ids = np.fromiter((k for k, _ in found), dtype=np.int64, count=len(found))
        return top(found_ids, exact, count)
