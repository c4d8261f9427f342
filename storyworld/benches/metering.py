"""A store metered for a benchmark run, and the figures read off a store and its meter (paper Tables 1, 2, 5, 8)."""

from __future__ import annotations

import statistics
import time
from collections import Counter
from collections.abc import Iterable
from pathlib import Path
from typing import Literal, TypedDict

import msgspec
import numpy as np

from memory.embedder import Embedder
from memory.records import Deposit, Kind, RecallHit, Record, Via
from memory.store import MemoryStore, SameFact, StoreSettings, StoreStats
from storyworld.benches.table4 import RecallSample, sample
from storyworld.kernel.actions import Action

# One operation of the write/read stream, kept when a replay needs it: ("remember", round, deposits),
# ("affiliate", round, ids) or ("recall", round, owner, query, k).
Op = (tuple[Literal["remember"], int, list[Deposit]] | tuple[Literal["affiliate"], int, list[int]]
      | tuple[Literal["recall"], int, str, str, int | None])

ACTION_NAMES = ("say", "read_thread", "observe", "move", "act_on", "wait")
BIN = 5  # rounds per latency bin


class Metered:
    """Wraps a store for the kernel: times remember/recall per call and audits every recall hit for leaks."""

    def __init__(self, store: MemoryStore, start_round: int) -> None:
        self.store = store
        self.start_round = start_round
        self.remember_calls: list[tuple[int, float, int]] = []  # (round since start, ms, deposits)
        self.recall_calls: list[tuple[int, float, int, int]] = []  # (round since start, ms, hits, affiliated)
        self.leaks = 0
        self.round = 0
        self.affiliate_ms = 0.0
        self.ops: list[Op] | None = None  # the write/read stream, kept when a replay will need it
        self.samples: list[RecallSample] = []  # every recall's query, k and returned texts by route (Table 4)

    # The rest of MemoryStore, unmetered.
    @property
    def backend(self) -> str:
        """The store's kind."""
        return self.store.backend

    @property
    def merges(self) -> bool:
        """Whether the store merges."""
        return self.store.merges

    @property
    def current_round(self) -> int:
        """The store's clock."""
        return self.store.current_round

    @current_round.setter
    def current_round(self, value: int) -> None:
        self.store.current_round = value

    @property
    def notices(self) -> list[str]:
        """The store's notices."""
        return self.store.notices

    @notices.setter
    def notices(self, value: list[str]) -> None:
        self.store.notices = value

    @property
    def settings(self) -> StoreSettings:
        """The store's settings."""
        return self.store.settings

    @property
    def embedder(self) -> Embedder:
        """The store's embedder."""
        return self.store.embedder

    def embed(self, texts: list[str]) -> np.ndarray:
        """The store's vectors of texts."""
        return self.store.embed(texts)

    def same_fact(self) -> SameFact:
        """The store's rule for one fact."""
        return self.store.same_fact()

    def remember(self, owner: str, text: str | list[str] | tuple[str, ...], round: int = 0, event_id: str | None = None,
                 source: str | None = None, via: Via = "witnessed", place: str | None = None, kind: Kind = "event",
                 namespace: str = "shared", based_on: Iterable[int] = (), confidence: float | None = None,
                 expires_at: int | None = None, actors: Iterable[str] = ()) -> list[int]:
        """Unmetered remember (the kernel writes in batches)."""
        return self.store.remember(owner, text, round, event_id=event_id, source=source, via=via, place=place, kind=kind,
                                   namespace=namespace, based_on=based_on, confidence=confidence,
                                   expires_at=expires_at, actors=actors)

    def get(self, record_id: int) -> Record:
        """The store's record."""
        return self.store.get(record_id)

    def records(self) -> list[Record]:
        """The store's records."""
        return self.store.records()

    def held_by(self, owner: str) -> list[Record]:
        """The store's records an owner holds."""
        return self.store.held_by(owner)

    def owners(self) -> list[str]:
        """The store's owners."""
        return self.store.owners()

    def can_read(self, record_id: int, owner: str) -> bool:
        """The store's access rule."""
        return self.store.can_read(record_id, owner)

    def stats(self) -> StoreStats:
        """The store's metrics."""
        return self.store.stats()

    def dump(self) -> dict[str, bytes]:
        """The store's files."""
        return self.store.dump()

    def save(self, folder: str | Path | None = None) -> int:
        """Save the store."""
        return self.store.save(folder)

    def neighbours(self, record_id: int) -> list[int]:
        """The store's affiliation of one record."""
        return self.store.neighbours(record_id)

    def edges(self) -> list[tuple[int, int]]:
        """The store's affiliation edges."""
        return self.store.edges()

    def decay(self, round: int) -> int:
        """The store's decay."""
        return self.store.decay(round)

    def retract(self, record_id: int, by: str, round: int | None = None, owners: Iterable[str] | None = None,
                event_id: str | None = None) -> list[int]:
        """The store's retraction."""
        return self.store.retract(record_id, by, round=round, owners=owners, event_id=event_id)

    def retract_event(self, event_id: str, by: str, round: int | None = None) -> list[int]:
        """The store's retraction of an event."""
        return self.store.retract_event(event_id, by, round=round)

    def disputes(self, owner: str) -> list[tuple[int, int]]:
        """The store's disputes of one owner."""
        return self.store.disputes(owner)

    def cross_disputes(self, record_id: int | None = None) -> list[tuple[int, int]]:
        """The store's disputes across owners."""
        return self.store.cross_disputes(record_id)

    def unmerge(self, record_id: int, owner: str) -> int | None:
        """The store's unmerge."""
        return self.store.unmerge(record_id, owner)

    def affiliate(self, ids: list[int]) -> None:
        """Timed affiliate (the consensus store's second write step in the kernel)."""
        if self.ops is not None:
            self.ops.append(("affiliate", self.round, list(ids)))
        started = time.perf_counter()
        self.store.affiliate(ids)
        self.affiliate_ms += (time.perf_counter() - started) * 1000.0

    def remember_many(self, deposits: list[Deposit]) -> list[list[int]]:
        """Timed remember_many."""
        if self.ops is not None:
            self.ops.append(("remember", self.round, list(deposits)))
        started = time.perf_counter()
        ids = self.store.remember_many(deposits)
        self.remember_calls.append((self.round, (time.perf_counter() - started) * 1000.0, len(deposits)))
        return ids

    def recall(self, owner: str, query: str, k: int | None = None, round: int | None = None,
               include_archived: bool = False, expand: bool = True) -> list[RecallHit]:
        """Timed recall; a hit the owner may not read counts as a leak."""
        if self.ops is not None:
            self.ops.append(("recall", self.round, owner, query, k))
        started = time.perf_counter()
        hits = self.store.recall(owner, query, k=k, round=round, include_archived=include_archived, expand=expand)
        ms = (time.perf_counter() - started) * 1000.0
        for hit in hits:
            if not can_read(self.store, hit.record.id, owner):
                self.leaks += 1
        self.recall_calls.append((self.round, ms, len(hits), sum(1 for h in hits if h.via == "affiliated")))
        asked = k if k is not None else self.store.settings.k
        self.samples.append(sample(query, asked, hits))
        return hits


def can_read(store: MemoryStore, record_id: int, owner: str) -> bool:
    """Whether the store's own record (not the hit's copy) lets this owner read it."""
    return bool(store.can_read(record_id, owner))


def structure(store: MemoryStore) -> dict[str, int | float]:
    """Entries, sharing and linking of a store, over sim entries (the paper's Tables 2 and 8) and overall."""
    records = store.records()
    sim = [r for r in records if not r.sediment]
    linked_ids = {r.id for r in records if store.neighbours(r.id)}
    owners = [len(r.owners) for r in sim]
    shared = sum(1 for c in owners if c >= 2)
    linked = sum(1 for r in sim if r.id in linked_ids)
    total = len(records)
    return {
        "sediment": total - len(sim),
        "sim": len(sim),
        "total": total,
        "shared": shared,
        "shared_fraction": shared / len(sim) if sim else 0.0,
        "linked": linked,
        "linked_fraction": linked / len(sim) if sim else 0.0,
        "three_plus": sum(1 for c in owners if c >= 3),
        "max_owners": max(owners, default=0),
        "shared_all": sum(1 for r in records if len(r.owners) >= 2),
        "linked_all": len(linked_ids),
        "holdings": sum(len(r.owners) for r in records),
    }


def ownership_matrix(store: MemoryStore, agents: list[str]) -> list[list[int]]:
    """Cell (i, j): records owned by both agent i and agent j (diagonal: records agent i owns)."""
    index = {a: i for i, a in enumerate(agents)}
    matrix = [[0] * len(agents) for _ in agents]
    for record in store.records():
        held = sorted(index[o] for o in record.owners if o in index)
        for x in held:
            for y in held:
                matrix[x][y] += 1
    return matrix


def _mean(values: list[float]) -> float:
    return statistics.fmean(values) if values else 0.0


class LatencyBin(TypedDict):
    """Write and read times over one bin of rounds."""

    rounds: str
    remember_ms_per_deposit: float
    remember_ms_per_round: float
    recall_ms_mean: float
    recall_calls: int


class Latency(TypedDict):
    """Write and read times of a metered run (Table 2's timing columns and Fig. 3)."""

    remember_ms_mean: float
    affiliate_ms: float
    write_ms_mean: float
    remember_ms_per_round: float
    recall_ms_mean: float
    recall_ms_p50: float
    deposits: int
    recall_calls: int
    expanded_calls: int
    linked_per_call: float
    latency_bins: list[LatencyBin]


def latency(meter: Metered) -> Latency:
    """Remember ms per deposit and recall ms per call, overall and per 5-round bin (rounds since start)."""
    bins: dict[int, dict[str, list[float]]] = {}
    for rnd, ms, n in meter.remember_calls:
        b = bins.setdefault(rnd // BIN, {"remember_ms": [], "deposits": [], "recall_ms": []})
        b["remember_ms"].append(ms)
        b["deposits"].append(n)
    for rnd, ms, _, _ in meter.recall_calls:
        bins.setdefault(rnd // BIN, {"remember_ms": [], "deposits": [], "recall_ms": []})["recall_ms"].append(ms)
    rows: list[LatencyBin] = []
    for number in sorted(bins):
        v = bins[number]
        in_bin = sum(v["deposits"])
        rows.append({
            "rounds": f"{number * BIN + 1}-{number * BIN + BIN}",
            "remember_ms_per_deposit": sum(v["remember_ms"]) / in_bin if in_bin else 0.0,
            "remember_ms_per_round": _mean(v["remember_ms"]),
            "recall_ms_mean": _mean(v["recall_ms"]),
            "recall_calls": len(v["recall_ms"]),
        })
    deposits = sum(n for _, _, n in meter.remember_calls)
    remember_total = sum(ms for _, ms, _ in meter.remember_calls)
    recall = sorted(ms for _, ms, _, _ in meter.recall_calls)
    expanding = [a for _, _, _, a in meter.recall_calls if a]
    return {
        "remember_ms_mean": remember_total / deposits if deposits else 0.0,
        "affiliate_ms": meter.affiliate_ms,
        # the consensus store writes in two steps (remember, then affiliate); baselines only remember
        "write_ms_mean": (remember_total + meter.affiliate_ms) / deposits if deposits else 0.0,
        "remember_ms_per_round": _mean([ms for _, ms, _ in meter.remember_calls]),
        "recall_ms_mean": _mean(recall),
        "recall_ms_p50": recall[len(recall) // 2] if recall else 0.0,
        "deposits": deposits,
        "recall_calls": len(recall),
        "expanded_calls": len(expanding),
        "linked_per_call": _mean([float(a) for a in expanding]),
        "latency_bins": rows,
    }


def action_counts(actions: list[Action]) -> dict[str, int]:
    """Resolved actions by name (Table 5), from the event log's action list."""
    counts = Counter(msgspec.to_builtins(a)["action"] for a in actions)
    return {name: counts.get(name, 0) for name in ACTION_NAMES}
