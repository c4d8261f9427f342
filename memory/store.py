"""MemoryStore: the interface every memory store keeps, and StoreShell, the code they share.

The consensus store (memory/consensus.py) and the three baselines (memory/baselines/) differ
in where a statement goes and how recall ranks; validation, opening and saving, the write and
read timing and the common metrics are the same, so they live here once. The trust hooks
(decay, retraction, affiliation, disputes, unmerge) are part of the interface: a store that has
no such structure implements them as documented no-ops, so callers never probe for them.
"""

from __future__ import annotations

import math
import re
import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import ClassVar, Generic, Protocol, Self, TypedDict, TypeVar, runtime_checkable

import msgspec
import numpy as np

from memory.atomize import atomize
from memory.embedder import Embedder
from memory.persist import StoreFileError, folder_bytes, gc_paused, read_generation, read_manifest, write_generation
from memory.records import KINDS, VIAS, Deposit, Holding, Kind, RecallHit, Record, Via
from memory.settings import MemorySettings
from memory.table import RecordTable

OWNER_ID = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.\-]{0,127}$")
LATENCY_SAMPLES = 200_000
LATENCY_BIN = 5  # rounds per latency bin in stats()
MAX_KEY_CHARS = 512  # event ids, sources and places


def percentile(values: Iterable[float], q: float) -> float:
    """The q-quantile of values by linear interpolation (0.0 for none)."""
    data = sorted(values)
    if not data:
        return 0.0
    pos = (len(data) - 1) * q
    lo, hi = math.floor(pos), math.ceil(pos)
    return data[lo] + (data[hi] - data[lo]) * (pos - lo)


class StoreSettings(Protocol):
    """What every store's settings say (each kind of store adds its own)."""

    @property
    def k(self) -> int:
        """Default recall size."""

    @property
    def max_text_chars(self) -> int:
        """Longest text a deposit or query may have."""

    @property
    def max_atoms(self) -> int:
        """Most statements one deposit may split into."""


class StoreStats(TypedDict, total=False):
    """Metrics with the same keys for every store (DESIGN §3.6); the last group only some stores have."""

    backend: str
    records: int
    sediment: int
    sim: int
    holdings: int
    owners: int
    shared: int
    shared_fraction: float
    three_plus: int
    max_owners: int
    linked: int
    linked_fraction: float
    edges: int
    recall_calls: int
    expansion_rate: float
    linked_per_expanding_call: float
    leaks: int
    merges_by_rule: dict[str, int]
    judge_calls: int
    judge_errors: int
    unmerges: int
    deposits: int
    index_rebuilds: int
    disputed: int
    cross_owner_disputes: int
    doubted: int
    retracted: int
    contaminated: int
    archived: int
    mean_confidence: float
    remember_calls: int
    remember_mean_ms: float
    remember_p50_ms: float
    remember_p95_ms: float
    recall_mean_ms: float
    recall_p50_ms: float
    recall_p95_ms: float
    latency_bins: dict[str, dict[str, float]]
    bytes: int
    generation: int
    settings: dict[str, object]
    # only some stores
    reflections: int
    reflection_passes: int
    mean_importance: float
    insights: int
    grants: int
    granted_rows: int


class SameFact(msgspec.Struct, frozen=True, kw_only=True):
    """A store's rule for when two statements are one fact: a guarded neighbour at `merge_high` cosine,
    or at `frame_cosine_min` with normalised frames overlapping by `frame_min` (memory/consensus.py)."""

    merge_high: float
    frame_cosine_min: float
    frame_min: float


@runtime_checkable
class MemoryStore(Protocol):
    """What the simulation, the benches and the UI may ask of any memory store."""

    current_round: int
    notices: list[str]

    @property
    def backend(self) -> str:
        """Which kind of store: consensus, generative, gmemory, collaborative."""

    @property
    def merges(self) -> bool:
        """Whether equivalent statements become one record (only then is there a merge to undo)."""

    @property
    def settings(self) -> StoreSettings:
        """The store's tunables."""

    @property
    def embedder(self) -> Embedder:
        """The sentence embedder the store's vectors come from."""

    def embed(self, texts: list[str]) -> np.ndarray:
        """Vectors of texts as the store makes them (unit rows, the store's width)."""

    def same_fact(self) -> SameFact:
        """When two statements are one fact by this store's rule (the consensus store's defaults for one that never merges)."""

    def remember(self, owner: str, text: str | list[str] | tuple[str, ...], round: int = 0, event_id: str | None = None,
                 source: str | None = None, via: Via = "witnessed", place: str | None = None, kind: Kind = "event",
                 namespace: str = "shared", based_on: Iterable[int] = (), confidence: float | None = None,
                 expires_at: int | None = None, actors: Iterable[str] = ()) -> list[int]:
        """Deposit what `owner` learned; one record id per statement."""

    def remember_many(self, deposits: list[Deposit]) -> list[list[int]]:
        """Deposit a batch; one id list per deposit."""

    def recall(self, owner: str, query: str, k: int | None = None, round: int | None = None,
               include_archived: bool = False, expand: bool = True) -> list[RecallHit]:
        """The owner's best records for a query; never one the owner may not read."""

    def get(self, record_id: int) -> Record:
        """The record with this id (KeyError when unknown)."""

    def records(self) -> list[Record]:
        """Every record, by id."""

    def held_by(self, owner: str) -> list[Record]:
        """Records an owner holds."""

    def owners(self) -> list[str]:
        """Every agent holding a record."""

    def can_read(self, record_id: int, owner: str) -> bool:
        """Whether recall may show this record to this owner."""

    def stats(self) -> StoreStats:
        """Metrics with the same keys for every store (DESIGN §3.6)."""

    def dump(self) -> dict[str, bytes]:
        """The store as files, for a game save."""

    def save(self, folder: str | Path | None = None) -> int:
        """Write the store to its folder; bytes on disk."""

    def neighbours(self, record_id: int) -> list[int]:
        """Records affiliated with this one."""

    def edges(self) -> list[tuple[int, int]]:
        """Every affiliation edge once."""

    def affiliate(self, record_ids: list[int]) -> None:
        """Link records that belong together."""

    def decay(self, round: int) -> int:
        """Advance the clock to `round`; holdings archived by this call."""

    def retract(self, record_id: int, by: str, round: int | None = None, owners: Iterable[str] | None = None,
                event_id: str | None = None) -> list[int]:
        """Expose a record as false; affected record ids."""

    def retract_event(self, event_id: str, by: str, round: int | None = None) -> list[int]:
        """Expose an event's statements as false wherever they went; affected record ids."""

    def disputes(self, owner: str) -> list[tuple[int, int]]:
        """Contradicting pairs one owner holds."""

    def cross_disputes(self, record_id: int | None = None) -> list[tuple[int, int]]:
        """Contradicting pairs held by different owners."""

    def unmerge(self, record_id: int, owner: str) -> int | None:
        """Undo the owner's latest merge into a record."""


Settings = TypeVar("Settings", bound=StoreSettings)
Judge = Callable[[str, str], "bool | None"]  # the equivalence judge: are these two statements one fact? (None: cannot say)


class StoreShell(Generic[Settings]):
    """The shell every store shares: validation, open/save, timed remember/recall, common metrics.

    The rows live in `self.table` (memory/table.py), which the store lends to the parts that work
    on them. Subclasses give `_new_table()` when they keep more than records and holdings, and `_load(files, names)`, `dump()`, `_write(deposits, atoms)`,
    `_recall(owner, vector, k, when, include_archived, expand, force)` and `_store_stats()`.
    """

    backend: ClassVar[str] = "store"
    merges: ClassVar[bool] = False
    RULES: ClassVar[tuple[str, ...]] = ()

    def __init__(self, embedder: Embedder | None = None, settings: Settings | None = None, folder: Path | None = None,
                 judge: Judge | None = None) -> None:
        if embedder is None:
            from memory.embedder import shared_embedder

            embedder = shared_embedder()
        self.embedder = embedder
        self.settings = settings if settings is not None else self._default_settings()
        self.folder = folder
        self.judge = judge  # asked only by stores whose rules include the judge's (the consensus store)
        self.table = self._new_table()
        self._dim: int | None = None
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

    @classmethod
    def _default_settings(cls) -> Settings:
        raise NotImplementedError

    def _new_table(self) -> RecordTable:
        """The table this kind of store keeps its rows in."""
        return RecordTable()

    # ------------------------------------------------------------------ reading the table

    @property
    def dim(self) -> int:
        """Embedding width."""
        if self._dim is None:
            self._dim = int(self.embedder.dim)
        return self._dim

    def embed(self, texts: list[str]) -> np.ndarray:
        """Vectors of texts as the store makes them (unit rows, the store's width); ValueError on a bad embedder."""
        vectors = np.asarray(self.embedder.encode(list(texts)), dtype=np.float32)
        if vectors.shape != (len(texts), self.dim):
            raise ValueError(f"embedder returned shape {vectors.shape}, expected ({len(texts)}, {self.dim})")
        return vectors

    def same_fact(self) -> SameFact:
        """When two statements are one fact; a store that never merges answers with the consensus store's defaults."""
        defaults = MemorySettings()
        return SameFact(merge_high=defaults.merge_high, frame_cosine_min=defaults.frame_cosine_min,
                        frame_min=defaults.frame_min)

    def get(self, record_id: int) -> Record:
        """The record with this id (KeyError when unknown)."""
        return self.table.get(record_id)

    def records(self) -> list[Record]:
        """Every record, by id."""
        return self.table.all()

    def __len__(self) -> int:
        return len(self.table)

    def __iter__(self) -> Iterator[Record]:
        return iter(self.table)

    def held_by(self, owner: str) -> list[Record]:
        """Records an owner holds (archived included), by id."""
        return self.table.held_by(owner)

    def holding(self, record_id: int, owner: str) -> Holding | None:
        """How an owner holds a record, or None."""
        return self.table.holding(record_id, owner)

    def owners(self) -> list[str]:
        """Every agent holding at least one record."""
        return self.table.owners()

    # ------------------------------------------------------------------ opening and saving

    @classmethod
    def open(cls, folder: str | Path | None, embedder: Embedder | None = None, settings: Settings | None = None,
             judge: Judge | None = None) -> Self:
        """Open the store saved in `folder` (created when missing); None keeps it in memory only."""
        store = cls(embedder=embedder, settings=settings, folder=Path(folder) if folder else None, judge=judge)
        if store.folder is None:
            return store
        if store.folder.exists() and not store.folder.is_dir():
            raise StoreFileError(f"{store.folder}: not a folder")
        store.folder.mkdir(parents=True, exist_ok=True)
        manifest = read_manifest(store.folder)
        if manifest is None:
            return store
        with gc_paused():
            files = read_generation(store.folder, manifest)
            store._load(files, names={k: str(store.folder / e["path"]) for k, e in manifest["files"].items()})
        store._bytes = folder_bytes(store.folder)
        return store

    @classmethod
    def from_files(cls, files: dict[str, bytes], embedder: Embedder | None = None, settings: Settings | None = None,
                   judge: Judge | None = None) -> Self:
        """Rebuild an in-memory store from `dump()` output (e.g. the files of a game save)."""
        state_file = cls._state_file()
        if state_file not in files:
            raise StoreFileError(f"{state_file}: missing from the store files")
        store = cls(embedder=embedder, settings=settings, judge=judge)
        with gc_paused():
            store._load(dict(files), names={k: k for k in files})
        return store

    @classmethod
    def _state_file(cls) -> str:
        from memory.persist import STATE_FILE

        return STATE_FILE

    def _load(self, files: dict[str, bytes | None], names: dict[str, str]) -> None:
        raise NotImplementedError

    def dump(self) -> dict[str, bytes]:
        """The store as files for embedding in a game save."""
        raise NotImplementedError

    def _manifest_extra(self) -> dict[str, int | str]:
        return {"records": len(self.table.records)}

    def save(self, folder: str | Path | None = None) -> int:
        """Write the store to its folder crash-safely (manifest commit); returns bytes on disk."""
        with self.table.lock:
            if folder is not None:
                self.folder = Path(folder)
            if self.folder is None:
                raise ValueError("save: this store has no folder (open it with a folder or pass one)")
            existing = read_manifest(self.folder) if self.folder.is_dir() else None
            self._generation = max(self._generation, int(existing["generation"]) if existing else 0) + 1
            files = self.dump()
            self._bytes = write_generation(self.folder, self._generation, files, self._manifest_extra())
            return self._bytes

    @property
    def generation(self) -> int:
        """How many saves this store's folder has committed."""
        return self._generation

    # ------------------------------------------------------------------ validation

    def _check_owner(self, owner: object, what: str = "owner") -> str:
        if not isinstance(owner, str) or not OWNER_ID.match(owner):
            raise ValueError(
                f"{what}: {owner!r} is not a valid agent id (1-128 of letters, digits, '_', '-', '.', not starting with '-' or '.')"
            )
        return owner

    def _check_text(self, text: object, what: str) -> str:
        if not isinstance(text, str):
            raise ValueError(f"{what}: expected text (str), got {type(text).__name__}")
        if not text.strip():
            raise ValueError(f"{what}: empty text")
        if len(text) > self.settings.max_text_chars:
            raise ValueError(f"{what}: text of {len(text)} characters exceeds the limit of {self.settings.max_text_chars}")
        try:
            text.encode("utf-8")
        except UnicodeEncodeError as exc:
            raise ValueError(f"{what}: text is not valid Unicode (lone surrogate at {exc.start})") from None
        if "\x00" in text:
            raise ValueError(f"{what}: text contains a NUL character")
        return text

    def _check_deposit(self, deposit: Deposit, where: str) -> list[str]:
        """Validate one deposit completely; returns its atoms. Raises ValueError, changing nothing."""
        if not isinstance(deposit, Deposit):
            raise ValueError(f"{where}: expected a Deposit, got {type(deposit).__name__}")
        owner = self._check_owner(deposit.owner, f"{where}.owner")
        # Rounds are story time: canon before a start point (sediment) has negative rounds (DESIGN §4.1).
        for name in ("round", "expires_at"):
            value = getattr(deposit, name)  # the fields checked alike, by name (the message names the field)
            if (value is not None or name == "round") and (isinstance(value, bool) or not isinstance(value, int)):
                raise ValueError(f"{where}.{name}: must be an integer{' round or None' if name != 'round' else ''}, got {value!r}")
        if deposit.via not in VIAS:
            raise ValueError(f"{where}.via: {deposit.via!r} is not one of {', '.join(VIAS)}")
        if deposit.kind not in KINDS:
            raise ValueError(f"{where}.kind: {deposit.kind!r} is not one of {', '.join(KINDS)}")
        if deposit.namespace != "shared" and deposit.namespace != f"private:{owner}":
            raise ValueError(f"{where}.namespace: {deposit.namespace!r} must be 'shared' or 'private:{owner}'")
        for name in ("event_id", "source", "place", "group"):
            value = getattr(deposit, name)  # the fields checked alike, by name (the message names the field)
            if value is not None:
                self._check_text(value, f"{where}.{name}")
                if len(value) > MAX_KEY_CHARS:
                    raise ValueError(f"{where}.{name}: longer than {MAX_KEY_CHARS} characters")
        for rid in deposit.based_on:
            if isinstance(rid, bool) or not isinstance(rid, int) or rid not in self.table.records:
                raise ValueError(f"{where}.based_on: {rid!r} is not a record id")
        if deposit.record is not None and (isinstance(deposit.record, bool) or not isinstance(deposit.record, int)):
            raise ValueError(f"{where}.record: must be a record id, got {deposit.record!r}")
        if deposit.confidence is not None:
            c = deposit.confidence
            if isinstance(c, bool) or not isinstance(c, (int, float)) or not (0.0 <= float(c) <= 1.0):
                raise ValueError(f"{where}.confidence: must be a number in 0..1, got {c!r}")
        if (deposit.text is None) == (deposit.statements is None):
            raise ValueError(f"{where}: give exactly one of text or statements")
        if deposit.text is not None:
            atoms = atomize(self._check_text(deposit.text, f"{where}.text"))
        else:
            if isinstance(deposit.statements, str) or not isinstance(deposit.statements, (list, tuple)):
                raise ValueError(f"{where}.statements: expected a list of texts")
            if not deposit.statements:
                raise ValueError(f"{where}.statements: empty list")
            atoms = [" ".join(self._check_text(s, f"{where}.statements[{i}]").split()) for i, s in enumerate(deposit.statements)]
        if not atoms:
            raise ValueError(f"{where}.text: no statement found in the text")
        if len(atoms) > self.settings.max_atoms:
            raise ValueError(f"{where}: {len(atoms)} statements exceed the limit of {self.settings.max_atoms}")
        total = sum(len(a) for a in atoms)
        if total > self.settings.max_text_chars:
            raise ValueError(f"{where}: {total} characters exceed the limit of {self.settings.max_text_chars}")
        return atoms

    # ------------------------------------------------------------------ write path

    def remember(
        self,
        owner: str,
        text: str | list[str] | tuple[str, ...],
        round: int = 0,
        event_id: str | None = None,
        source: str | None = None,
        via: Via = "witnessed",
        place: str | None = None,
        kind: Kind = "event",
        namespace: str = "shared",
        based_on: Iterable[int] = (),
        confidence: float | None = None,
        expires_at: int | None = None,
        actors: Iterable[str] = (),
    ) -> list[int]:
        """Deposit what `owner` learned; returns one record id per atom (merged or new).

        `text` is atomized by the rule-based splitter; a list is taken as ready statements.
        Raises ValueError (store unchanged) on bad input.
        """
        statements = tuple(text) if isinstance(text, (list, tuple)) else None
        single = text if not isinstance(text, (list, tuple)) else None  # not a str when a caller passes junk: checked below
        deposit = Deposit(owner=owner, text=single, statements=statements, round=round,
                          event_id=event_id, source=source, via=via, place=place, kind=kind, namespace=namespace,
                          based_on=tuple(based_on), confidence=confidence, expires_at=expires_at, actors=tuple(actors))
        return self.remember_many([deposit])[0]

    def remember_many(self, deposits: list[Deposit]) -> list[list[int]]:
        """Deposit a batch (one round's writes) with one embedding call for all new atoms."""
        started = time.perf_counter()
        with self.table.lock:
            if isinstance(deposits, Deposit):
                raise ValueError("remember_many: expected a list of Deposit")
            deposits = list(deposits)
            checked = [self._check_deposit(d, f"deposits[{i}]") for i, d in enumerate(deposits)]
            results = self._write(deposits, checked)
            self._next_deposit += len(deposits)
            self._counters["deposits"] = self._counters.get("deposits", 0) + len(deposits)
            per = (time.perf_counter() - started) * 1000.0 / max(1, len(deposits))
            for deposit in deposits:
                self._remember_ms.append((deposit.round, per))
            return results

    def _new_record(self, d: Deposit, deposit_id: str | None, index: int, text: str, holding: Holding, *,
                    expires_at: int | None = None, speaker: str | None = None, sediment: bool | None = None) -> Record:
        """A new record of one statement of a deposit, held by its owner, stored under the next id."""
        rid = self.table.new_id()
        record = Record(
            id=rid, text=text, kind=d.kind, round=d.round, place=d.place, event_id=d.event_id, event_atom=index,
            deposit_id=deposit_id, namespace=d.namespace, owners={d.owner: holding}, based_on=sorted(set(d.based_on)),
            actors=tuple(d.actors), sediment=d.via == "sediment" if sediment is None else sediment,
            expires_at=expires_at, speaker=speaker,
        )
        self.table.records[rid] = record
        self.current_round = max(self.current_round, d.round)
        return record

    def _write(self, deposits: list[Deposit], atoms: list[list[str]]) -> list[list[int]]:
        """Place validated deposits (deposit ids start at `_next_deposit`); one id list per deposit."""
        raise NotImplementedError

    # ------------------------------------------------------------------ read path

    def recall(
        self,
        owner: str,
        query: str,
        k: int | None = None,
        round: int | None = None,
        include_archived: bool = False,
        expand: bool = True,
        _force: str | None = None,
    ) -> list[RecallHit]:
        """The owner's top-k records for a query (plus, where the store links, affiliated ones it holds)."""
        started = time.perf_counter()
        self._check_owner(owner)
        self._check_text(query, "query")
        k = self.settings.k if k is None else k
        if isinstance(k, bool) or not isinstance(k, int) or k < 0:
            raise ValueError(f"k: must be a non-negative integer, got {k!r}")
        vector = self.embed([query])[0]
        with self.table.lock:
            when = self.current_round if round is None else round
            hits = self._recall(owner, vector, k, when, include_archived, expand, _force)
            for hit in hits:
                record = self.table.records[hit.record.id]
                record.access_count += 1
                record.last_access_round = max(record.last_access_round, when)
                if not self.can_read(record.id, owner):
                    self._leaks += 1
            hits = self._shown(owner, hits)
            self._recall_calls += 1
            self._recall_ms.append((when, (time.perf_counter() - started) * 1000.0))
            return hits

    def _recall(self, owner: str, vector: np.ndarray, k: int, when: int, include_archived: bool, expand: bool,
                force: str | None) -> list[RecallHit]:
        raise NotImplementedError

    def _shown(self, owner: str, hits: list[RecallHit]) -> list[RecallHit]:
        """The hits as this owner sees them (a store with access grants shows a granted row as held)."""
        return hits

    def can_read(self, record_id: int, owner: str) -> bool:
        """True when recall may show this record to this owner (it holds it, in a namespace it may read)."""
        record = self.table.records.get(record_id)
        if record is None or owner not in record.owners:
            return False
        return record.namespace == "shared" or record.namespace == f"private:{owner}"

    # ------------------------------------------------------------------ trust hooks (no-ops for stores without them)

    def neighbours(self, record_id: int) -> list[int]:
        """Records affiliated with this one; a store that never links rows has none."""
        if record_id not in self.table.records:
            raise KeyError(record_id)
        return []

    def edges(self) -> list[tuple[int, int]]:
        """Every affiliation edge once; none in a store that never links rows."""
        return []

    def affiliate(self, record_ids: list[int]) -> None:
        """A store that never links rows keeps no affiliation: nothing to do."""

    def decay(self, round: int) -> int:
        """Advance the store's clock (recency reads it); a store without decay archives nothing."""
        with self.table.lock:
            self.current_round = max(self.current_round, int(round))
        return 0

    def retract(self, record_id: int, by: str, round: int | None = None, owners: Iterable[str] | None = None,
                event_id: str | None = None) -> list[int]:
        """A store without trust keeps no retraction: nothing changes, nothing is affected."""
        return []

    def retract_event(self, event_id: str, by: str, round: int | None = None) -> list[int]:
        """A store without trust keeps no retraction: nothing changes, nothing is affected."""
        return []

    def disputes(self, owner: str) -> list[tuple[int, int]]:
        """A store without trust records no disputes."""
        return []

    def cross_disputes(self, record_id: int | None = None) -> list[tuple[int, int]]:
        """A store without trust records no disputes."""
        return []

    def unmerge(self, record_id: int, owner: str) -> int | None:
        """A store that never merges has nothing to undo: ValueError, as for a record never merged into."""
        raise ValueError(f"unmerge: this {self.backend} store never merges records")

    # ------------------------------------------------------------------ stats

    def _store_stats(self) -> StoreStats:
        """Figures only this kind of store knows (links, merges, trust); overrides the zero defaults."""
        return {}

    def stats(self) -> StoreStats:
        """Metrics with the same keys for every store (DESIGN §3.6): sizes, sharing, linking, trust, latency."""
        with self.table.lock:
            records = list(self.table.records.values())
            total = len(records)
            owner_counts = [len(r.owners) for r in records]
            sediment = sum(1 for r in records if r.sediment)
            holdings: list[Holding] = [h for r in records for h in r.owners.values()]
            shared = sum(1 for c in owner_counts if c >= 2)
            out: StoreStats = {
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
                "merges_by_rule": {rule: self._counters.get(f"merges_{rule}", 0) for rule in self.RULES},
                "judge_calls": self._counters.get("judge_calls", 0),
                "judge_errors": self._counters.get("judge_errors", 0),
                "unmerges": self._counters.get("unmerges", 0),
                "deposits": self._counters.get("deposits", 0),
                "index_rebuilds": self._counters.get("index_rebuilds", 0),
                "disputed": sum(1 for h in holdings if h.status == "disputed"),
                "cross_owner_disputes": 0,
                "doubted": sum(1 for h in holdings if h.status == "doubted"),
                "retracted": sum(1 for h in holdings if h.status == "retracted"),
                "contaminated": sum(1 for h in holdings if "contaminated" in h.flags),
                "archived": sum(1 for h in holdings if h.archived),
                "mean_confidence": sum(h.confidence for h in holdings) / len(holdings) if holdings else 0.0,
                **self._latency_stats(),
                "bytes": self._bytes,
                "generation": self._generation,
                "settings": msgspec.to_builtins(self.settings),
            }
            out.update(self._store_stats())
            return out

    def _latency_stats(self) -> StoreStats:
        """Remember and recall latency overall and per bin of rounds."""
        remember = [ms for _, ms in self._remember_ms]
        recall = [ms for _, ms in self._recall_ms]
        bins: dict[str, dict[str, float]] = {}
        for name, samples in (("remember", self._remember_ms), ("recall", self._recall_ms)):
            grouped: dict[int, list[float]] = {}
            for rnd, ms in samples:
                grouped.setdefault(rnd // LATENCY_BIN, []).append(ms)
            for b, values in sorted(grouped.items()):
                row = bins.setdefault(f"{b * LATENCY_BIN}-{b * LATENCY_BIN + LATENCY_BIN - 1}", {})
                row[f"{name}_mean_ms"] = sum(values) / len(values)
                row[f"{name}_p50_ms"] = percentile(values, 0.5)
                row[f"{name}_p95_ms"] = percentile(values, 0.95)
                row[f"{name}_calls"] = len(values)
        return {
            "remember_calls": len(remember),
            "remember_mean_ms": sum(remember) / len(remember) if remember else 0.0,
            "remember_p50_ms": percentile(remember, 0.5),
            "remember_p95_ms": percentile(remember, 0.95),
            "recall_mean_ms": sum(recall) / len(recall) if recall else 0.0,
            "recall_p50_ms": percentile(recall, 0.5),
            "recall_p95_ms": percentile(recall, 0.95),
            "latency_bins": bins,
        }
