"""RecordTable: a store's tables and their one lock; LinkedTable adds what the consensus store keeps beside them.

A store holds one table and lends it to the parts that work on its rows (memory/unmerge.py), so no
part reaches into another class's private fields. Only modules of `memory` import this one (an
import-linter contract in pyproject.toml says so): callers outside read a store through its
public methods.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator

from memory.holdings import OwnerRows
from memory.index import VectorIndex
from memory.records import Holding, Record, normalise_text

EventKey = tuple[str, str, str, int]  # (namespace, event id, kind, statement index)
TextKey = tuple[str, str]  # (namespace, normalised text)


class RecordTable:
    """Records by id, who holds what, the next free id, and the lock that guards them all."""

    def __init__(self) -> None:
        self.lock = threading.RLock()
        self.records: dict[int, Record] = {}
        self.held: dict[str, dict[int, None]] = {}  # owner -> ids, ordered like a set that keeps insertion
        self.next_id = 1

    def new_id(self) -> int:
        """The next record id (ids are never reused)."""
        rid = self.next_id
        self.next_id += 1
        return rid

    def get(self, record_id: int) -> Record:
        """The record with this id (KeyError when unknown)."""
        return self.records[record_id]

    def all(self) -> list[Record]:
        """Every record, by id."""
        with self.lock:
            return list(self.records.values())

    def __len__(self) -> int:
        return len(self.records)

    def __contains__(self, record_id: object) -> bool:
        return record_id in self.records

    def __iter__(self) -> Iterator[Record]:
        return iter(self.all())

    def held_by(self, owner: str) -> list[Record]:
        """Records an owner holds (archived included), by id."""
        with self.lock:
            return [self.records[r] for r in sorted(self.held.get(owner, ()))]

    def holding(self, record_id: int, owner: str) -> Holding | None:
        """How an owner holds a record, or None."""
        return self.records[record_id].owners.get(owner)

    def owners(self) -> list[str]:
        """Every agent holding at least one record."""
        return sorted(o for o, held in self.held.items() if held)

    def hold(self, owner: str, rid: int) -> bool:
        """The owner holds `rid`; True when it did not before."""
        held = self.held.setdefault(owner, {})
        new = rid not in held
        held[rid] = None
        return new

    def unhold(self, owner: str, rid: int) -> None:
        """The owner lets `rid` go."""
        self.held.get(owner, {}).pop(rid, None)


class LinkedTable(RecordTable):
    """The consensus store's tables: records, affiliation edges, the event and text keys, disputes, vectors."""

    def __init__(self) -> None:
        super().__init__()
        self.edges: dict[int, dict[int, int]] = {}  # a -> b -> how many deposits justify the edge
        self.by_event: dict[EventKey, int] = {}
        self.by_text: dict[TextKey, int] = {}
        self.disputes: dict[str, dict[int, set[int]]] = {}  # owner -> record -> records it contradicts
        self.index: VectorIndex | None = None
        self.owner_rows = OwnerRows(self.records, self.held)

    def hold(self, owner: str, rid: int) -> bool:
        """The owner holds `rid`; its row joins the owner's search arrays."""
        new = super().hold(owner, rid)
        self.owner_rows.added(owner, rid, self.index, new)
        return new

    def unhold(self, owner: str, rid: int) -> None:
        """The owner lets `rid` go; its search arrays are rebuilt when next read."""
        super().unhold(owner, rid)
        self.owner_rows.dropped(owner)

    def vectors(self) -> VectorIndex:
        """The vector index (made by the store before any record is inserted or loaded)."""
        if self.index is None:
            raise RuntimeError("the store's vector index is not made yet")
        return self.index

    def link(self, a: int, b: int, count: int = 1) -> None:
        """Add `count` justifications to the undirected edge a-b."""
        if a == b:
            return
        self.edges.setdefault(a, {})
        self.edges.setdefault(b, {})
        self.edges[a][b] = self.edges[a].get(b, 0) + count
        self.edges[b][a] = self.edges[a][b]

    def unlink(self, a: int, b: int) -> None:
        """Remove one justification of a-b; the edge goes when none is left."""
        left = self.edges.get(a, {}).get(b, 0) - 1
        if left > 0:
            self.edges[a][b] = left
            self.edges[b][a] = left
            return
        self.edges.get(a, {}).pop(b, None)
        self.edges.get(b, {}).pop(a, None)

    def map_record(self, record: Record) -> None:
        """Point the event and text keys of a record (and of texts merged into it) at it."""
        if record.event_id is not None:
            self.by_event.setdefault((record.namespace, record.event_id, record.kind, record.event_atom), record.id)
        for text in texts_of(record):
            self.by_text.setdefault((record.namespace, normalise_text(text)), record.id)


def texts_of(record: Record) -> list[str]:
    """Every text a record has stood for: its own, its first, and each one merged into it."""
    texts = [record.text]
    if record.origin_text:
        texts.append(record.origin_text)
    texts.extend(e.incoming_text for e in record.merge_log if e.incoming_text)
    return texts
