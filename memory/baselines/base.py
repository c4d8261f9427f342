"""RowStore: the one-row-per-witness store the three baselines share (same interface as ConsensusStore).

Every deposit is atomized exactly as the consensus store atomizes it (memory.atomize, or the
ready statements as given), so entry counts compare at equal granularity. A row is never
merged with another agent's row and no two rows are linked: shared and linked stay 0.
"""

from __future__ import annotations

import logging
import re
import threading
import time
from collections import deque
from collections.abc import Iterable
from pathlib import Path

import msgspec
import numpy as np

from memory.atomize import atomize
from memory.consensus import BASE_CONFIDENCE, Deposit, _percentile, normalise_text
from memory.embedder import Embedder
from memory.persist import StoreFileError, folder_bytes, read_generation, read_manifest, write_generation
from memory.records import KINDS, VIAS, Base, Holding, Kind, RecallHit, Record, Via
from memory.table import RecordTable

log = logging.getLogger(__name__)

FORMAT_VERSION = 1
STATE_FILE = "memory.msgpack"
VECTORS_FILE = "memory.npy"
RULES = ("event_id", "text", "cosine", "judge")
LATENCY_SAMPLES = 200_000
_OWNER_ID = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.\-]{0,127}$")


class BaselineSettings(Base, frozen=True):
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


class RowStore(RecordTable):
    """A store of single-owner rows with owner-scoped cosine recall; subclasses add their structure."""

    backend = "rows"

    def __init__(self, embedder: Embedder | None = None, settings: BaselineSettings | None = None,
                 folder: Path | None = None):
        if embedder is None:
            from memory.embedder import shared_embedder

            embedder = shared_embedder()
        self.embedder = embedder
        self.settings = settings or BaselineSettings()
        self.folder = folder
        self._lock = threading.RLock()
        self._dim: int | None = None
        self._records: dict[int, Record] = {}
        self._row: dict[int, int] = {}  # record id -> matrix row
        self._matrix = np.zeros((0, 0), dtype=np.float32)
        self._rows = 0
        self._held: dict[str, dict[int, None]] = {}
        self._next_id = 1
        self._next_deposit = 1
        self._generation = 0
        self.current_round = 0
        self._counters: dict[str, int] = {"deposits": 0}
        self._leaks = 0
        self._recall_calls = 0
        self._remember_ms: deque[tuple[int, float]] = deque(maxlen=LATENCY_SAMPLES)
        self._recall_ms: deque[tuple[int, float]] = deque(maxlen=LATENCY_SAMPLES)
        self._bytes = 0
        self.notices: list[str] = []

    # ------------------------------------------------------------------ opening and saving

    @classmethod
    def open(cls, folder: str | Path | None, embedder: Embedder | None = None,
             settings: BaselineSettings | None = None) -> "RowStore":
        """Open the store saved in `folder` (created when missing); None keeps it in memory only."""
        store = cls(embedder=embedder, settings=settings, folder=Path(folder) if folder else None)
        if store.folder is None:
            return store
        if store.folder.exists() and not store.folder.is_dir():
            raise StoreFileError(f"{store.folder}: not a folder")
        store.folder.mkdir(parents=True, exist_ok=True)
        manifest = read_manifest(store.folder)
        if manifest is None:
            return store
        files = read_generation(store.folder, manifest)
        store._load(files, names={k: str(store.folder / e["path"]) for k, e in manifest["files"].items()})
        store._bytes = folder_bytes(store.folder)
        return store

    @classmethod
    def from_files(cls, files: dict[str, bytes], embedder: Embedder | None = None,
                   settings: BaselineSettings | None = None) -> "RowStore":
        """Rebuild an in-memory store from `dump()` output (e.g. the files of a game save)."""
        if STATE_FILE not in files:
            raise StoreFileError(f"{STATE_FILE}: missing from the store files")
        store = cls(embedder=embedder, settings=settings)
        store._load(dict(files), names={k: k for k in files})
        return store

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
        self._next_id = state.next_id
        self._next_deposit = state.next_deposit
        self.current_round = state.current_round
        self._generation = state.generation
        self._counters.update(state.counters)
        for record in state.records:
            self._records[record.id] = record
            for owner in record.owners:
                self._held.setdefault(owner, {})[record.id] = None
        self._load_extra(state)
        keys = list(self._records)
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
            matrix = self._encode([self._records[k].text for k in keys]) if keys else np.zeros((0, self.dim), np.float32)
        self._matrix = np.zeros((max(1024, len(keys)), self.dim), dtype=np.float32)
        self._matrix[: len(keys)] = matrix
        self._rows = len(keys)
        self._row = {k: i for i, k in enumerate(keys)}

    def _state(self) -> RowState:
        state = RowState(
            format=FORMAT_VERSION,
            backend=self.backend,
            dim=self.dim,
            next_id=self._next_id,
            next_deposit=self._next_deposit,
            current_round=self.current_round,
            generation=self._generation,
            records=list(self._records.values()),
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
        with self._lock:
            keys = list(self._records)
            matrix = self._matrix[[self._row[k] for k in keys]] if keys else np.zeros((0, self.dim), np.float32)
            return {STATE_FILE: _encoder.encode(self._state()), VECTORS_FILE: vectors_to_bytes(matrix)}

    def save(self, folder: str | Path | None = None) -> int:
        """Write the store to its folder crash-safely (manifest commit); returns bytes on disk."""
        with self._lock:
            if folder is not None:
                self.folder = Path(folder)
            if self.folder is None:
                raise ValueError("save: this store has no folder (open it with a folder or pass one)")
            existing = read_manifest(self.folder) if self.folder.is_dir() else None
            self._generation = max(self._generation, int(existing["generation"]) if existing else 0) + 1
            files = self.dump()
            self._bytes = write_generation(self.folder, self._generation, files,
                                           {"records": len(self._records), "backend": self.backend})
            return self._bytes

    # ------------------------------------------------------------------ basics

    def readers(self, record_id: int) -> list[str]:
        """Agents granted read access to a row besides its owner (only Collaborative grants any)."""
        return []

    def can_read(self, record_id: int, owner: str) -> bool:
        """True when recall may show this row to this owner."""
        record = self._records.get(record_id)
        return record is not None and (owner in record.owners or owner in self.readers(record_id))

    def neighbours(self, record_id: int) -> list[int]:
        """Baselines never link rows: always empty."""
        if record_id not in self._records:
            raise KeyError(record_id)
        return []

    def edges(self) -> list[tuple[int, int]]:
        """Baselines never link rows: always empty."""
        return []

    def decay(self, round: int) -> int:
        """Advance the store's clock (recency reads it); baselines archive nothing."""
        with self._lock:
            self.current_round = max(self.current_round, int(round))
        return 0

    # ------------------------------------------------------------------ validation

    def _check_owner(self, owner: object, what: str = "owner") -> str:
        if not isinstance(owner, str) or not _OWNER_ID.match(owner):
            raise ValueError(f"{what}: {owner!r} is not a valid agent id")
        return owner

    def _check_text(self, text: object, what: str) -> str:
        if not isinstance(text, str):
            raise ValueError(f"{what}: expected text (str), got {type(text).__name__}")
        if not text.strip():
            raise ValueError(f"{what}: empty text")
        if len(text) > self.settings.max_text_chars:
            raise ValueError(f"{what}: text of {len(text)} characters exceeds the limit of {self.settings.max_text_chars}")
        if "\x00" in text:
            raise ValueError(f"{what}: text contains a NUL character")
        return text

    def _check_deposit(self, deposit: Deposit, where: str) -> list[str]:
        """Validate one deposit; returns its atoms (the consensus store's atomization). Raises ValueError."""
        if not isinstance(deposit, Deposit):
            raise ValueError(f"{where}: expected a Deposit, got {type(deposit).__name__}")
        owner = self._check_owner(deposit.owner, f"{where}.owner")
        if isinstance(deposit.round, bool) or not isinstance(deposit.round, int):
            raise ValueError(f"{where}.round: must be an integer, got {deposit.round!r}")
        if deposit.via not in VIAS:
            raise ValueError(f"{where}.via: {deposit.via!r} is not one of {', '.join(VIAS)}")
        if deposit.kind not in KINDS:
            raise ValueError(f"{where}.kind: {deposit.kind!r} is not one of {', '.join(KINDS)}")
        if deposit.namespace != "shared" and deposit.namespace != f"private:{owner}":
            raise ValueError(f"{where}.namespace: {deposit.namespace!r} must be 'shared' or 'private:{owner}'")
        for name in ("event_id", "source", "place"):
            value = getattr(deposit, name)
            if value is not None:
                self._check_text(value, f"{where}.{name}")
        for rid in deposit.based_on:
            if isinstance(rid, bool) or not isinstance(rid, int) or rid not in self._records:
                raise ValueError(f"{where}.based_on: {rid!r} is not a record id")
        if (deposit.text is None) == (deposit.statements is None):
            raise ValueError(f"{where}: give exactly one of text or statements")
        if deposit.text is not None:
            atoms = atomize(self._check_text(deposit.text, f"{where}.text"))
        else:
            if isinstance(deposit.statements, str) or not isinstance(deposit.statements, (list, tuple)):
                raise ValueError(f"{where}.statements: expected a list of texts")
            if not deposit.statements:
                raise ValueError(f"{where}.statements: empty list")
            atoms = [" ".join(self._check_text(s, f"{where}.statements[{i}]").split())
                     for i, s in enumerate(deposit.statements)]
        if not atoms:
            raise ValueError(f"{where}.text: no statement found in the text")
        if len(atoms) > self.settings.max_atoms:
            raise ValueError(f"{where}: {len(atoms)} statements exceed the limit of {self.settings.max_atoms}")
        return atoms

    # ------------------------------------------------------------------ write path

    def remember(self, owner: str, text: str | list[str] | tuple[str, ...], round: int = 0,
                 event_id: str | None = None, source: str | None = None, via: Via = "witnessed",
                 place: str | None = None, kind: Kind = "event", namespace: str = "shared",
                 based_on: Iterable[int] = (), confidence: float | None = None) -> list[int]:
        """Deposit what `owner` learned; returns one new row id per atom."""
        common = dict(owner=owner, round=round, event_id=event_id, source=source, via=via, place=place,
                      kind=kind, namespace=namespace, based_on=tuple(based_on), confidence=confidence)
        if isinstance(text, (list, tuple)):
            deposit = Deposit(statements=tuple(text), **common)
        else:
            deposit = Deposit(text=text, **common)
        return self.remember_many([deposit])[0]

    def remember_many(self, deposits: list[Deposit]) -> list[list[int]]:
        """Deposit a batch: one new row per atom per witness, one embedding call for the batch."""
        started = time.perf_counter()
        with self._lock:
            if isinstance(deposits, Deposit):
                raise ValueError("remember_many: expected a list of Deposit")
            deposits = list(deposits)
            checked = [self._check_deposit(d, f"deposits[{i}]") for i, d in enumerate(deposits)]
            unique = list(dict.fromkeys(t for atoms in checked for t in atoms))
            vectors = self._encode(unique) if unique else np.zeros((0, self.dim), np.float32)
            vector_of = {t: vectors[i] for i, t in enumerate(unique)}
            results: list[list[int]] = []
            for offset, (deposit, atoms) in enumerate(zip(deposits, checked)):
                deposit_id = f"d{self._next_deposit + offset}"
                ids = [self._insert_row(deposit, deposit_id, i, text, vector_of[text]) for i, text in enumerate(atoms)]
                results.append(ids)
            self._next_deposit += len(deposits)
            self._counters["deposits"] = self._counters.get("deposits", 0) + len(deposits)
            self._after_batch(deposits, results)
            per = (time.perf_counter() - started) * 1000.0 / max(1, len(deposits))
            for deposit in deposits:
                self._remember_ms.append((deposit.round, per))
            return results

    def _insert_row(self, d: Deposit, deposit_id: str | None, index: int, text: str, vector: np.ndarray,
                    *, sediment: bool | None = None) -> int:
        """Append one single-owner row with its vector."""
        rid = self._next_id
        self._next_id += 1
        confidence = float(d.confidence) if d.confidence is not None else BASE_CONFIDENCE[d.via]
        record = Record(
            id=rid,
            text=text,
            kind=d.kind,
            round=d.round,
            place=d.place,
            event_id=d.event_id,
            event_atom=index,
            deposit_id=deposit_id,
            namespace=d.namespace,
            owners={d.owner: Holding(via=d.via, source=d.source, since_round=d.round, confidence=confidence)},
            based_on=sorted(set(d.based_on)),
            sediment=(d.via == "sediment") if sediment is None else sediment,
        )
        self._records[rid] = record
        self._add_vector(rid, vector)
        self._held.setdefault(d.owner, {})[rid] = None
        self.current_round = max(self.current_round, d.round)
        return rid

    def _insert_derived(self, owner: str, text: str, kind: Kind, round: int, based_on: list[int],
                        *, sediment: bool, vector: np.ndarray | None = None) -> int:
        """A by-product row (reflection, insight) held by `owner`, inferred from its evidence rows."""
        d = Deposit(owner=owner, statements=(text,), round=round, via="inferred", kind=kind, based_on=tuple(based_on))
        if vector is None:
            vector = self._encode([text])[0]
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

    def _set_vector(self, rid: int, vector: np.ndarray) -> None:
        self._matrix[self._row[rid]] = vector

    def _after_batch(self, deposits: list[Deposit], results: list[list[int]]) -> None:
        """By-products of a batch: reflections, insights, grants (subclasses)."""

    # ------------------------------------------------------------------ read path

    def _candidates(self, owner: str) -> list[int]:
        """Row ids recall may show this owner (its own; Collaborative adds grants)."""
        return list(self._held.get(owner, ()))

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

    def recall(self, owner: str, query: str, k: int | None = None, round: int | None = None,
               include_archived: bool = False, expand: bool = True) -> list[RecallHit]:
        """The owner's top-k rows for a query; never a row the owner may not read."""
        started = time.perf_counter()
        self._check_owner(owner)
        self._check_text(query, "query")
        k = self.settings.k if k is None else k
        if isinstance(k, bool) or not isinstance(k, int) or k < 0:
            raise ValueError(f"k: must be a non-negative integer, got {k!r}")
        vector = self._encode([query])[0]
        with self._lock:
            when = self.current_round if round is None else round
            ids = np.asarray(self._candidates(owner), dtype=np.int64)
            hits: list[RecallHit] = []
            if len(ids) and k:
                rows = np.fromiter((self._row[int(r)] for r in ids), dtype=np.int64, count=len(ids))
                sims = self._matrix[rows] @ vector
                scores = self._score(owner, ids, sims, when)
                for rid, score in self._select(owner, ids, sims, scores, k):
                    record = self._records[rid]
                    record.access_count += 1
                    record.last_access_round = max(record.last_access_round, when)
                    if not self.can_read(rid, owner):
                        self._leaks += 1
                    hits.append(RecallHit(record=self._view(owner, record), via="semantic", score=score))
            self._recall_calls += 1
            self._recall_ms.append((when, (time.perf_counter() - started) * 1000.0))
            return hits

    # ------------------------------------------------------------------ stats

    def _extra_stats(self) -> dict:
        """Backend-specific figures (subclasses)."""
        return {}

    def stats(self) -> dict:
        """Metrics with the consensus store's keys (DESIGN §3.6); shared and linked are 0 by construction."""
        with self._lock:
            records = list(self._records.values())
            total = len(records)
            owner_counts = [len(r.owners) for r in records]
            sediment = sum(1 for r in records if r.sediment)
            holdings = [h for r in records for h in r.owners.values()]
            remember = [ms for _, ms in self._remember_ms]
            recall = [ms for _, ms in self._recall_ms]
            bins: dict[str, dict[str, float]] = {}
            for name, samples in (("remember", self._remember_ms), ("recall", self._recall_ms)):
                grouped: dict[int, list[float]] = {}
                for rnd, ms in samples:
                    grouped.setdefault(rnd // 5, []).append(ms)
                for b, values in sorted(grouped.items()):
                    row = bins.setdefault(f"{b * 5}-{b * 5 + 4}", {})
                    row[f"{name}_mean_ms"] = sum(values) / len(values)
                    row[f"{name}_p50_ms"] = _percentile(values, 0.5)
                    row[f"{name}_p95_ms"] = _percentile(values, 0.95)
                    row[f"{name}_calls"] = len(values)
            shared = sum(1 for c in owner_counts if c >= 2)
            out = {
                "backend": self.backend,
                "records": total,
                "sediment": sediment,
                "sim": total - sediment,
                "holdings": len(holdings),
                "owners": len(self.owners()),
                "shared": shared,
                "shared_fraction": shared / total if total else 0.0,
                "three_plus": sum(1 for c in owner_counts if c >= 3),
                "max_owners": max(owner_counts, default=0),
                "linked": 0,
                "linked_fraction": 0.0,
                "edges": 0,
                "recall_calls": self._recall_calls,
                "expansion_rate": 0.0,
                "linked_per_expanding_call": 0.0,
                "leaks": self._leaks,
                "merges_by_rule": {rule: 0 for rule in RULES},
                "judge_calls": 0,
                "judge_errors": 0,
                "unmerges": 0,
                "deposits": self._counters.get("deposits", 0),
                "index_rebuilds": 0,
                "disputed": 0,
                "cross_owner_disputes": 0,
                "doubted": 0,
                "retracted": 0,
                "contaminated": 0,
                "archived": 0,
                "mean_confidence": sum(h.confidence for h in holdings) / len(holdings) if holdings else 0.0,
                "remember_calls": len(remember),
                "remember_mean_ms": sum(remember) / len(remember) if remember else 0.0,
                "remember_p50_ms": _percentile(remember, 0.5),
                "remember_p95_ms": _percentile(remember, 0.95),
                "recall_mean_ms": sum(recall) / len(recall) if recall else 0.0,
                "recall_p50_ms": _percentile(recall, 0.5),
                "recall_p95_ms": _percentile(recall, 0.95),
                "latency_bins": bins,
                "bytes": self._bytes,
                "generation": self._generation,
                "settings": msgspec.to_builtins(self.settings),
            }
            out.update(self._extra_stats())
            return out


def text_key(text: str) -> str:
    """Normalised text (for de-duplicating recall hits)."""
    return normalise_text(text)
