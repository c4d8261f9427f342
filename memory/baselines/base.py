"""RowStore: the one-row-per-witness store the three baselines share (same interface as ConsensusStore).

Every deposit is atomized exactly as the consensus store atomizes it (memory.atomize, or the
ready statements as given), so entry counts compare at equal granularity. A row is never
merged with another agent's row and no two rows are linked: shared and linked stay 0.
"""

from __future__ import annotations

import logging
from pathlib import Path

import msgspec
import numpy as np

from memory.embedder import Embedder
from memory.persist import StoreFileError
from memory.records import Base, Frozen, Deposit, Holding, Kind, RecallHit, Record, normalise_text
from memory.store import Judge, StoreShell, StoreStats
from memory.trust import BASE_CONFIDENCE

log = logging.getLogger(__name__)

FORMAT_VERSION = 1
STATE_FILE = "memory.msgpack"
VECTORS_FILE = "memory.npy"
RULES = ("event_id", "text", "cosine", "judge")


class BaselineSettings(Frozen, frozen=True):
    """Tunables of the baseline stores (each backend reads the ones it uses)."""

    k: int = 5  # default recall size
    max_text_chars: int = 100_000
    max_atoms: int = 512
    # Generative Agents
    recency_decay: float = 0.99  # recency = decay ** (rounds since last access)
    reflection_threshold: float = 100.0  # summed importance of new rows that triggers a reflection
    reflections_per_pass: int = 2
    reflection_evidence: int = 5  # evidence pointers per reflection at most
    # G-Memory
    insight_min_rows: int = 4  # rows sharing an entity before an insight is distilled from them
    insight_evidence: int = 6  # evidence pointers per insight at most
    insight_hits: int = 2  # insight nodes per recall at most
    # Collaborative
    grant_told: bool = True  # a listener is granted read access to the speaker's row of a claim


class RowState(Base):
    """Everything a baseline store persists besides the vectors."""

    format: int
    backend: str
    dim: int
    next_id: int = 1
    next_deposit: int = 1
    current_round: int = 0
    generation: int = 0
    records: list[Record] = msgspec.field(default_factory=list)
    counters: dict[str, int] = msgspec.field(default_factory=dict)
    importance: dict[int, float] = msgspec.field(default_factory=dict)  # Generative Agents
    pending: dict[str, list[int]] = msgspec.field(default_factory=dict)  # GA rows since the last reflection
    entity_rows: dict[str, dict[str, list[int]]] = msgspec.field(default_factory=dict)  # G-Memory undistilled rows
    readers: dict[int, list[str]] = msgspec.field(default_factory=dict)  # Collaborative access grants


_encoder = msgspec.msgpack.Encoder()
_decoder = msgspec.msgpack.Decoder(RowState)


def vectors_to_bytes(matrix: np.ndarray) -> bytes:
    """A float32 matrix as raw bytes behind a (rows, dim) little-endian uint32 header."""
    matrix = np.ascontiguousarray(matrix, dtype="<f4")
    rows, dim = matrix.shape if matrix.ndim == 2 else (0, 0)
    return np.array([rows, dim], dtype="<u4").tobytes() + matrix.tobytes()


def vectors_from_bytes(data: bytes, name: str) -> np.ndarray:
    """Bytes from vectors_to_bytes -> float32 matrix; StoreFileError naming the file when damaged."""
    if len(data) < 8:
        raise StoreFileError(f"{name}: damaged vector file (no header)")
    rows, dim = (int(v) for v in np.frombuffer(data[:8], dtype="<u4"))
    if len(data) != 8 + rows * dim * 4:
        raise StoreFileError(f"{name}: damaged vector file ({len(data) - 8} bytes for {rows}x{dim} floats)")
    return np.frombuffer(data[8:], dtype="<f4").reshape(rows, dim).astype(np.float32)


class RowStore(StoreShell[BaselineSettings]):
    """A store of single-owner rows with owner-scoped cosine recall; subclasses add their structure."""

    backend = "rows"
    RULES = RULES

    def __init__(self, embedder: Embedder | None = None, settings: BaselineSettings | None = None,
                 folder: Path | None = None, judge: Judge | None = None) -> None:
        super().__init__(embedder=embedder, settings=settings, folder=folder, judge=judge)
        self._row: dict[int, int] = {}  # record id -> matrix row
        self._matrix = np.zeros((0, 0), dtype=np.float32)
        self._rows = 0

    @classmethod
    def _default_settings(cls) -> BaselineSettings:
        return BaselineSettings()

    # ------------------------------------------------------------------ opening and saving

    def _load(self, files: dict[str, bytes | None], names: dict[str, str]) -> None:
        """Fill this (empty) store from state + vector bytes."""
        name = names.get(STATE_FILE, STATE_FILE)
        try:
            state = _decoder.decode(files[STATE_FILE] or b"")
        except (msgspec.DecodeError, msgspec.ValidationError) as exc:
            raise StoreFileError(f"{name}: damaged or not a baseline memory file ({exc})") from exc
        if state.format != FORMAT_VERSION:
            raise StoreFileError(f"{name}: format {state.format}, this version reads {FORMAT_VERSION}")
        if state.backend != self.backend:
            raise StoreFileError(f"{name}: holds a {state.backend!r} store, not {self.backend!r}")
        self._dim = state.dim
        self.table.next_id = state.next_id
        self._next_deposit = state.next_deposit
        self.current_round = state.current_round
        self._generation = state.generation
        self._counters.update(state.counters)
        for record in state.records:
            self.table.records[record.id] = record
            for owner in record.owners:
                self.table.hold(owner, record.id)
        self._load_extra(state)
        keys = list(self.table.records)
        data = files.get(VECTORS_FILE)
        vectors_name = names.get(VECTORS_FILE, VECTORS_FILE)
        matrix = None
        if data is None:
            notice = f"{vectors_name}: missing; re-embedding {len(keys)} rows"
        else:
            matrix = vectors_from_bytes(data, vectors_name)
            notice = f"{vectors_name}: holds {matrix.shape[0]}x{matrix.shape[1]} vectors, rows need {len(keys)}x{state.dim}; re-embedding"
            if not keys and not matrix.size:
                matrix = np.zeros((0, state.dim), np.float32)
            elif matrix.shape != (len(keys), state.dim):
                matrix = None
        if matrix is None:
            log.warning(notice)
            self.notices.append(notice)
            matrix = self.embed([self.table.records[k].text for k in keys]) if keys else np.zeros((0, self.dim), np.float32)
        self._matrix = np.zeros((max(1024, len(keys)), self.dim), dtype=np.float32)
        self._matrix[: len(keys)] = matrix
        self._rows = len(keys)
        self._row = {k: i for i, k in enumerate(keys)}

    def _state(self) -> RowState:
        state = RowState(
            format=FORMAT_VERSION,
            backend=self.backend,
            dim=self.dim,
            next_id=self.table.next_id,
            next_deposit=self._next_deposit,
            current_round=self.current_round,
            generation=self._generation,
            records=list(self.table.records.values()),
            counters=dict(self._counters),
        )
        self._save_extra(state)
        return state

    def _load_extra(self, state: RowState) -> None:
        """Backend-specific state from the file (subclasses)."""

    def _save_extra(self, state: RowState) -> None:
        """Backend-specific state into the file (subclasses)."""

    def dump(self) -> dict[str, bytes]:
        """The store as files (`memory.msgpack`, `memory.npy`) for embedding in a game save."""
        with self.table.lock:
            keys = list(self.table.records)
            matrix = self._matrix[[self._row[k] for k in keys]] if keys else np.zeros((0, self.dim), np.float32)
            return {STATE_FILE: _encoder.encode(self._state()), VECTORS_FILE: vectors_to_bytes(matrix)}

    def _manifest_extra(self) -> dict[str, int | str]:
        return {"records": len(self.table.records), "backend": self.backend}

    # ------------------------------------------------------------------ basics

    def readers(self, record_id: int) -> list[str]:
        """Agents granted read access to a row besides its owner (only Collaborative grants any)."""
        return []

    def can_read(self, record_id: int, owner: str) -> bool:
        """True when recall may show this row to this owner (its owner, or a reader it was granted to)."""
        record = self.table.records.get(record_id)
        return record is not None and (owner in record.owners or owner in self.readers(record_id))

    # ------------------------------------------------------------------ write path

    def _write(self, deposits: list[Deposit], checked: list[list[str]]) -> list[list[int]]:
        """One new row per atom per witness, one embedding call for the batch."""
        unique = list(dict.fromkeys(t for atoms in checked for t in atoms))
        vectors = self.embed(unique) if unique else np.zeros((0, self.dim), np.float32)
        vector_of = {t: vectors[i] for i, t in enumerate(unique)}
        results: list[list[int]] = []
        for offset, (deposit, atoms) in enumerate(zip(deposits, checked)):
            deposit_id = f"d{self._next_deposit + offset}"
            results.append([self._insert_row(deposit, deposit_id, i, text, vector_of[text]) for i, text in enumerate(atoms)])
        self._after_batch(deposits, results)
        return results

    def _insert_row(self, d: Deposit, deposit_id: str | None, index: int, text: str, vector: np.ndarray,
                    *, sediment: bool | None = None) -> int:
        """Append one single-owner row with its vector."""
        confidence = float(d.confidence) if d.confidence is not None else BASE_CONFIDENCE[d.via]
        holding = Holding(via=d.via, source=d.source, since_round=d.round, confidence=confidence)
        record = self._new_record(d, deposit_id, index, text, holding,
                                  sediment=(d.via == "sediment") if sediment is None else sediment)
        self._add_vector(record.id, vector)
        self.table.hold(d.owner, record.id)
        return record.id

    def _insert_derived(self, owner: str, text: str, kind: Kind, round: int, based_on: list[int],
                        *, sediment: bool, vector: np.ndarray | None = None) -> int:
        """A by-product row (reflection, insight) held by `owner`, inferred from its evidence rows."""
        d = Deposit(owner=owner, statements=(text,), round=round, via="inferred", kind=kind, based_on=tuple(based_on))
        if vector is None:
            vector = self.embed([text])[0]
        return self._insert_row(d, None, 0, text, vector, sediment=sediment)

    def _add_vector(self, rid: int, vector: np.ndarray) -> None:
        if self._matrix.shape[1] != self.dim:
            self._matrix = np.zeros((1024, self.dim), dtype=np.float32)
        if self._rows >= len(self._matrix):
            bigger = np.zeros((2 * len(self._matrix), self.dim), dtype=np.float32)
            bigger[: self._rows] = self._matrix[: self._rows]
            self._matrix = bigger
        self._matrix[self._rows] = vector
        self._row[rid] = self._rows
        self._rows += 1

    def _after_batch(self, deposits: list[Deposit], results: list[list[int]]) -> None:
        """By-products of a batch: reflections, insights, grants (subclasses)."""

    # ------------------------------------------------------------------ read path

    def _candidates(self, owner: str) -> list[int]:
        """Row ids recall may show this owner (its own; Collaborative adds grants)."""
        return list(self.table.held.get(owner, ()))

    def _score(self, owner: str, ids: np.ndarray, sims: np.ndarray, when: int) -> np.ndarray:
        """Ranking score of candidate rows (plain cosine here)."""
        return sims

    def _select(self, owner: str, ids: np.ndarray, sims: np.ndarray, scores: np.ndarray, k: int) -> list[tuple[int, float]]:
        """Top-k (id, score), ties broken by id."""
        order = sorted(range(len(ids)), key=lambda i: (-float(scores[i]), int(ids[i])))
        return [(int(ids[i]), float(scores[i])) for i in order[:k]]

    def _view(self, owner: str, record: Record) -> Record:
        """The record as this owner sees it (Collaborative shows grants as held)."""
        return record

    def _recall(self, owner: str, vector: np.ndarray, k: int, when: int, include_archived: bool, expand: bool,
                force: str | None) -> list[RecallHit]:
        """The owner's top-k rows by this backend's score (baselines neither expand nor archive)."""
        ids = np.asarray(self._candidates(owner), dtype=np.int64)
        if not len(ids) or not k:
            return []
        rows = np.fromiter((self._row[int(r)] for r in ids), dtype=np.int64, count=len(ids))
        sims = self._matrix[rows] @ vector
        scores = self._score(owner, ids, sims, when)
        return [RecallHit(record=self.table.records[rid], via="semantic", score=score)
                for rid, score in self._select(owner, ids, sims, scores, k)]

    def _shown(self, owner: str, hits: list[RecallHit]) -> list[RecallHit]:
        return [RecallHit(record=self._view(owner, h.record), via=h.via, score=h.score) for h in hits]

    # ------------------------------------------------------------------ stats

    def _extra_stats(self) -> StoreStats:
        """Backend-specific figures (subclasses)."""
        return {}

    def stats(self) -> StoreStats:
        """Metrics with the consensus store's keys (DESIGN §3.6); shared and linked are 0 by construction."""
        with self.table.lock:
            return {"backend": self.backend, **super().stats(), **self._extra_stats()}


def text_key(text: str) -> str:
    """Normalised text (for de-duplicating recall hits)."""
    return normalise_text(text)
