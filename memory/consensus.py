"""The consensus store: one record per statement, owned by everyone who holds it (DESIGN §3)."""

from __future__ import annotations

import logging
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

import msgspec
import numpy as np

from memory import disputes, equivalence, frames, guard
from memory.embedder import Embedder
from memory.index import IndexFileError, VectorIndex
from memory.persist import (
    FORMAT_VERSION,
    INDEX_FILE,
    STATE_FILE,
    VECTORS_FILE,
    Retraction,
    StoreFileError,
    StoreState,
    decode_state,
    encode_state,
    gc_paused,
)
from memory.records import Deposit, Holding, MergeLogEntry, RecallHit, Record, Validation, normalise_text
from memory.settings import MemorySettings
from memory.store import StoreShell
from memory.trust import BASE_CONFIDENCE, FACT_KINDS, FIRST_HAND, NEVER, STATUS_WEIGHT, VIA_STRENGTH

log = logging.getLogger(__name__)

Judge = Callable[[str, str], "bool | None"]

RULES = ("event_id", "text", "cosine", "frame", "judge")


@dataclass(slots=True)
class _Atom:
    """One statement on its way into the store."""

    deposit: Deposit
    deposit_id: str
    index: int
    text: str
    norm: str
    vector: np.ndarray | None = None
    record_id: int = 0
    log_position: int | None = None  # index of this atom's merge-log entry in its record
    extra: dict = field(default_factory=dict)


def provenance_tag(holding: Holding, names: dict[str, str] | None = None) -> str:
    """Prompt tag(s) for how an owner holds a record, e.g. "[heard from Horatio] [disputed]"."""

    def display(agent: str) -> str:
        """A display name: from `names`, else the id title-cased ("old-hamlet" -> "Old Hamlet")."""
        if names and agent in names:
            return names[agent]
        return " ".join(part.capitalize() for part in re.split(r"[-_]+", agent) if part)

    tags: list[str] = []
    if holding.via in ("witnessed", "sediment", "authored"):
        tags.append("[witnessed]")
    elif holding.via == "told":
        tags.append(f"[heard from {display(holding.source)}]" if holding.source else "[hearsay]")
    elif holding.via == "read":
        tags.append(f"[read in {display(holding.source)}]" if holding.source else "[read]")
    else:
        tags.append("[unverified]")
    if holding.status == "disputed":
        tags.append("[disputed]")
    elif holding.status == "retracted" or "retracted" in holding.flags:
        tags.append("[exposed as false]")
    elif "contaminated" in holding.flags:
        tags.append("[source discredited]")
    elif holding.status == "doubted":
        tags.append("[doubted]")
    if holding.via not in ("witnessed", "sediment", "authored", "inferred") and holding.confidence < 0.5:
        tags.append("[unverified]")
    return " ".join(tags)


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


class ConsensusStore(StoreShell):
    """Shared long-term memory: equivalent statements merge into one record owned by all holders.

    Write path: atomize, then same event id, same normalised text, guarded usearch neighbours,
    optional judge, else insert. Read path: owner-scoped top-k plus one-hop affiliation
    expansion restricted to what the owner holds; no model call.
    """

    backend = "consensus"
    RULES = RULES

    def __init__(
        self,
        embedder: Embedder | None = None,
        settings: MemorySettings | None = None,
        judge: Judge | None = None,
        folder: Path | None = None,
    ):
        super().__init__(embedder=embedder, settings=settings, folder=folder)
        self.judge = judge
        self._index: VectorIndex | None = None
        self._last_decay_round = NEVER
        self._edges: dict[int, dict[int, int]] = {}
        self._by_event: dict[tuple[str, str, str, int], int] = {}
        self._by_text: dict[tuple[str, str], int] = {}
        self._held_rows: dict[str, _HeldRows] = {}  # every holding, appended as it comes
        self._unarchived_rows: dict[str, tuple[np.ndarray, np.ndarray]] = {}  # filtered views, cached
        self._has_archived: set[str] = set()
        self._reliability: dict[str, dict[str, float]] = {}
        self._disputes: dict[str, dict[int, set[int]]] = {}
        self._cross: dict[int, set[int]] = {}  # records of different owners that contradict each other
        self._retractions: list[Retraction] = []
        self._counters.update({f"merges_{r}": 0 for r in RULES})
        self._counters.update(judge_calls=0, judge_errors=0, unmerges=0, index_rebuilds=0, deposits=0)
        self._expanding_calls = 0
        self._affiliated_hits = 0

    @classmethod
    def _default_settings(cls) -> MemorySettings:
        return MemorySettings()

    # ------------------------------------------------------------------ opening and saving

    def _load(self, files: dict[str, bytes | None], names: dict[str, str]) -> None:
        """Fill this (empty) store from state + index bytes."""
        state = decode_state(files[STATE_FILE] or b"", names.get(STATE_FILE, STATE_FILE))
        width = int(self.embedder.dim)
        if state.dim != width:
            raise StoreFileError(
                f"{names.get(STATE_FILE, STATE_FILE)}: vectors are {state.dim} wide but the embedder gives {width}"
            )
        self._dim = state.dim
        self._generation = state.generation
        self._next_id = state.next_id
        self._next_deposit = state.next_deposit
        self.current_round = state.current_round
        self._last_decay_round = state.last_decay_round
        for record in state.records:
            self._records[record.id] = record
        for a, b, count in state.edges:
            self._edges.setdefault(a, {})[b] = count
            self._edges.setdefault(b, {})[a] = count
        self._reliability = state.reliability
        for owner, a, b in state.disputes:
            self._disputes.setdefault(owner, {}).setdefault(a, set()).add(b)
            self._disputes[owner].setdefault(b, set()).add(a)
        self._retractions = list(state.retractions)
        for a, b in state.cross_disputes:
            self._cross.setdefault(a, set()).add(b)
            self._cross.setdefault(b, set()).add(a)
        self._counters.update(state.counters)
        self._reindex_maps(keys_saved=state.text_keys is not None and state.event_keys is not None)
        if state.text_keys is not None and state.event_keys is not None:
            self._by_text = {(ns, norm): rid for ns, norm, rid in state.text_keys}
            self._by_event = {(ns, ev, kind, atom): rid for ns, ev, kind, atom, rid in state.event_keys}
        keys = list(self._records)
        try:
            self._index, notice = VectorIndex.from_files(files.get(INDEX_FILE), files.get(VECTORS_FILE), state.dim, keys)
        except IndexFileError as exc:
            name = names.get(VECTORS_FILE, VECTORS_FILE)
            self._rebuild_index(f"{name}: {exc}; re-embedding {len(keys)} records")
            return
        if notice is not None:
            notice = f"{names.get(INDEX_FILE, INDEX_FILE)}: {notice}; rebuilt the graph from the saved vectors"
            log.warning(notice)
            self.notices.append(notice)
            self._counters["index_rebuilds"] = self._counters.get("index_rebuilds", 0) + 1

    def _rebuild_index(self, notice: str) -> None:
        """Re-embed every record's anchor text into a fresh index (a logged notice says why)."""
        log.warning(notice)
        self.notices.append(notice)
        self._counters["index_rebuilds"] = self._counters.get("index_rebuilds", 0) + 1
        keys = list(self._records)
        index = VectorIndex(self.dim)
        if keys:
            texts = [self._records[k].origin_text or self._records[k].text for k in keys]
            index.add(keys, self._encode(texts))
        self._index = index

    def _reindex_maps(self, keys_saved: bool = False) -> None:
        """Derived lookups (event keys, text keys, holdings per owner) from the records."""
        self._by_event.clear()
        self._by_text.clear()
        self._held.clear()
        self._held_rows.clear()
        self._unarchived_rows.clear()
        self._has_archived.clear()
        for record in self._records.values():
            if not keys_saved:
                self._map_record(record)
            for owner, holding in record.owners.items():
                self._held.setdefault(owner, {})[record.id] = None
                if holding.archived:
                    self._has_archived.add(owner)

    def _map_record(self, record: Record) -> None:
        """Point the event and text keys of a record (and of texts merged into it) at it."""
        if record.event_id is not None:
            self._by_event.setdefault((record.namespace, record.event_id, record.kind, record.event_atom), record.id)
        for text in self._texts_of(record):
            self._by_text.setdefault((record.namespace, normalise_text(text)), record.id)

    @staticmethod
    def _texts_of(record: Record) -> list[str]:
        texts = [record.text]
        if record.origin_text:
            texts.append(record.origin_text)
        texts.extend(e.incoming_text for e in record.merge_log if e.incoming_text)
        return texts

    def dump(self) -> dict[str, bytes]:
        """The store as files (`memory.msgpack`, `memory.usearch`) for embedding in a game save."""
        with self._lock:
            with gc_paused():
                graph, rows = self._ensure_index().to_files(list(self._records))
                state = encode_state(self._state())
            return {STATE_FILE: state, VECTORS_FILE: rows, INDEX_FILE: graph}

    def _state(self) -> StoreState:
        edges = [(a, b, c) for a, nbrs in self._edges.items() for b, c in nbrs.items() if a < b]
        disputes = sorted(
            (owner, a, b) for owner, pairs in self._disputes.items() for a, others in pairs.items() for b in others if a < b
        )
        return StoreState(
            format=FORMAT_VERSION,
            dim=self.dim,
            generation=self._generation,
            next_id=self._next_id,
            next_deposit=self._next_deposit,
            current_round=self.current_round,
            last_decay_round=self._last_decay_round,
            records=list(self._records.values()),
            edges=sorted(edges),
            reliability=self._reliability,
            disputes=disputes,
            retractions=list(self._retractions),
            counters=dict(self._counters),
            cross_disputes=sorted((a, b) for a, others in self._cross.items() for b in others if a < b),
            # Insertion order is deterministic already; sorting 40k keys would only cost time.
            text_keys=[(ns, norm, rid) for (ns, norm), rid in self._by_text.items() if rid in self._records],
            event_keys=[
                (ns, ev, kind, atom, rid) for (ns, ev, kind, atom), rid in self._by_event.items() if rid in self._records
            ],
        )

    # ------------------------------------------------------------------ basics

    def _ensure_index(self) -> VectorIndex:
        if self._index is None:
            self._index = VectorIndex(self.dim)
        return self._index

    def neighbours(self, record_id: int) -> list[int]:
        """Records affiliated with this one (one hop), by id."""
        return sorted(self._edges.get(record_id, ()))

    def edges(self) -> list[tuple[int, int]]:
        """Every affiliation edge once, (a, b) with a < b."""
        return sorted((a, b) for a, nbrs in self._edges.items() for b in nbrs if a < b)

    def disputes(self, owner: str) -> list[tuple[int, int]]:
        """Pairs of records an owner holds that contradict each other (unsettled)."""
        pairs = self._disputes.get(owner, {})
        return sorted((a, b) for a, others in pairs.items() for b in others if a < b)

    def cross_disputes(self, record_id: int | None = None) -> list[tuple[int, int]]:
        """Pairs of contradicting records held by different owners (all, or those involving one record)."""
        pairs = sorted((a, b) for a, others in self._cross.items() for b in others if a < b)
        if record_id is None:
            return pairs
        return [p for p in pairs if record_id in p]

    def reliability(self, listener: str, speaker: str) -> float:
        """How far a listener trusts what a speaker says (default from settings)."""
        return self._reliability.get(listener, {}).get(speaker, self.settings.default_reliability)

    def set_reliability(self, listener: str, speaker: str, value: float) -> None:
        """Set a listener's trust in a speaker (0-1); scales later `told`/`read` confidence."""
        self._check_owner(listener, "listener")
        self._check_owner(speaker, "speaker")
        if not (isinstance(value, (int, float)) and 0.0 <= float(value) <= 1.0):
            raise ValueError(f"reliability: must be a number in 0..1, got {value!r}")
        with self._lock:
            self._reliability.setdefault(listener, {})[speaker] = float(value)

    # ------------------------------------------------------------------ write path

    def _write(self, deposits: list[Deposit], checked: list[list[str]]) -> list[list[int]]:
        """Atoms of each deposit, one embedding call for those no cheap rule places, then placement."""
        atoms: list[list[_Atom]] = []
        for deposit, texts in zip(deposits, checked):
            deposit_id = f"d{self._next_deposit + len(atoms)}"
            atoms.append([_Atom(deposit, deposit_id, i, t, normalise_text(t)) for i, t in enumerate(texts)])
        self._embed_needed([a for group in atoms for a in group])
        # Validation and embedding are done: from here on nothing raises on user input.
        return [self._deposit(group) for group in atoms]

    def _embed_needed(self, atoms: list[_Atom]) -> None:
        """Embed, in one call, every atom the event-id and text rules cannot place."""
        seen_events: set[tuple] = set()
        seen_texts: set[tuple] = set()
        need: list[_Atom] = []
        for atom in atoms:
            d = atom.deposit
            ns = d.namespace
            if not self.settings.merge:
                need.append(atom)
                continue
            if d.event_id is not None:
                key = (ns, d.event_id, d.kind, atom.index)
                if key in seen_events or key in self._by_event:
                    continue
                seen_events.add(key)
            tkey = (ns, atom.norm)
            if self._text_match(tkey, d) is not None:
                continue
            skey = (*tkey, d.kind, equivalence.deposit_speaker(d) if d.kind in equivalence.SPOKEN else "", d.event_id if d.kind == "utterance" else "")
            if skey in seen_texts:
                continue
            seen_texts.add(skey)
            need.append(atom)
        if need:
            vectors = self._encode([a.text for a in need])
            for atom, vector in zip(need, vectors):
                atom.vector = vector

    def _text_match(self, key: tuple[str, str], deposit: Deposit | None = None) -> int | None:
        """The record a normalised text belongs to (unmerge keeps this map exact), if it can be the same fact."""
        rid = self._by_text.get(key)
        if rid is None or rid not in self._records:
            return None
        if deposit is not None and not equivalence.same_kind(deposit, self._records[rid]):
            return None
        return rid

    def _deposit(self, atoms: list[_Atom]) -> list[int]:
        """Place each atom of one deposit, then link them and finish their merge-log entries."""
        ids: list[int] = []
        for atom in atoms:
            atom.record_id = self._place(atom)
            ids.append(atom.record_id)
        distinct = list(dict.fromkeys(ids))
        for i, a in enumerate(distinct):
            for b in distinct[i + 1 :]:
                self._link(a, b)
        linked: set[int] = set()
        for atom in atoms:
            # One justification per record per deposit: a repeated atom's entry links nothing,
            # nor does a merge into a record this same deposit inserted.
            if atom.log_position is None:
                linked.add(atom.record_id)
            elif atom.log_position is not None and len(distinct) > 1 and atom.record_id not in linked:
                linked.add(atom.record_id)
                record = self._records[atom.record_id]
                entry = record.merge_log[atom.log_position]
                others = tuple(r for r in distinct if r != atom.record_id)
                record.merge_log[atom.log_position] = msgspec.structs.replace(entry, added_edges=others)
        return ids

    def _link(self, a: int, b: int, count: int = 1) -> None:
        """Add `count` justifications to the undirected edge a-b."""
        if a == b:
            return
        self._edges.setdefault(a, {})
        self._edges.setdefault(b, {})
        self._edges[a][b] = self._edges[a].get(b, 0) + count
        self._edges[b][a] = self._edges[a][b]

    def _unlink(self, a: int, b: int) -> None:
        """Remove one justification of a-b; the edge goes when none is left."""
        left = self._edges.get(a, {}).get(b, 0) - 1
        if left > 0:
            self._edges[a][b] = left
            self._edges[b][a] = left
            return
        self._edges.get(a, {}).pop(b, None)
        self._edges.get(b, {}).pop(a, None)

    def affiliate(self, record_ids: list[int]) -> None:
        """Link records that belong together (e.g. statements of one event deposited separately)."""
        with self._lock:
            ids = list(dict.fromkeys(record_ids))
            for rid in ids:
                if rid not in self._records:
                    raise ValueError(f"affiliate: {rid!r} is not a record id")
            for i, a in enumerate(ids):
                for b in ids[i + 1 :]:
                    if b not in self._edges.get(a, {}):
                        self._link(a, b)

    def _place(self, atom: _Atom) -> int:
        """Find the record this atom joins (cheapest rule first) or insert it; returns its id."""
        d = atom.deposit
        ns = d.namespace
        if self.settings.merge:
            if d.event_id is not None:
                rid = self._by_event.get((ns, d.event_id, d.kind, atom.index))
                if rid is not None and rid in self._records:
                    self._merge(rid, atom, "event_id", None)
                    return rid
            rid = self._text_match((ns, atom.norm), d)
            if rid is not None:
                self._merge(rid, atom, "text", None)
                return rid
            if atom.vector is None:  # placed by a rule during embedding's dry run, but not now
                atom.vector = self._encode([atom.text])[0]
            found = self._cosine_match(atom)
            if found is not None:
                rid, rule, score = found
                self._merge(rid, atom, rule, score)
                atom.record_id = rid
                self._check_disputes(atom)
                return rid
        if atom.vector is None:
            atom.vector = self._encode([atom.text])[0]
        rid = self._insert(atom)
        atom.record_id = rid
        self._check_disputes(atom)
        for other in disputes.candidates(self, rid, atom.vector, self.settings.cross_dispute_min):
            self._cross.setdefault(rid, set()).add(other)
            self._cross.setdefault(other, set()).add(rid)
        return rid

    def _cosine_match(self, atom: _Atom) -> tuple[int, str, float] | None:
        """Guarded usearch neighbour at or above merge_high, else a judge-approved one in the band."""
        d = atom.deposit
        s = self.settings
        index = self._ensure_index()
        if d.namespace == "shared":
            keys, sims = index.search(atom.vector, s.write_neighbours)
            pairs = [(int(k), float(c)) for k, c in zip(keys, sims)]
        else:  # a private namespace only ever holds its owner's records
            pairs = self._owner_scan(d.owner, atom.vector, s.write_neighbours, include_archived=True)
        band: list[tuple[int, float]] = []
        floor = min(s.merge_low, s.frame_cosine_min)
        framed: tuple[int, str, float] | None = None
        for rid, sim in pairs:
            record = self._records.get(rid)
            if record is None or record.namespace != d.namespace or sim < floor:
                continue
            if not equivalence.same_kind(d, record):
                continue
            if not guard.check(atom.text, record.text, d.place, record.place).ok:
                continue
            if sim >= s.merge_high:
                return rid, "cosine", sim
            if framed is None and sim >= s.frame_cosine_min and frames.similarity(atom.text, record.text) >= s.frame_min:
                framed = (rid, "frame", sim)
            if sim >= s.merge_low:
                band.append((rid, sim))
        if framed is not None:
            return framed
        if band and self.judge is not None and s.judge_enabled:
            for rid, sim in band[: s.judge_max_calls]:
                self._counters["judge_calls"] += 1
                try:
                    same = self.judge(atom.text, self._records[rid].text)
                except Exception as exc:  # a failing judge must not lose the deposit: count it, insert
                    self._counters["judge_errors"] += 1
                    log.warning("merge judge failed (%s); not merging", exc)
                    same = None
                if same is True:
                    return rid, "judge", sim
        return None

    def _fresh_confidence(self, owner: str, d: Deposit) -> float:
        if d.confidence is not None:
            return float(d.confidence)
        base = BASE_CONFIDENCE[d.via]
        if d.via in ("told", "read") and d.source:
            base *= self.reliability(owner, d.source)
        return base

    def _admitted(self, d: Deposit, holding: Holding) -> Holding:
        """Below its kind's write floor a statement is still kept (every atom gets a record id) but doubted."""
        if self.admits(d.owner, d):
            return holding
        return msgspec.structs.replace(holding, status="doubted", flags=holding.flags + ("below-write-floor",))

    def admits(self, owner: str, deposit: Deposit) -> bool:
        """The write policy: a statement is kept only at or above its kind's confidence floor (stricter for facts)."""
        floor = self.settings.write_floors.get(deposit.kind, 0.0)
        return self._fresh_confidence(owner, deposit) >= floor

    def _insert(self, atom: _Atom) -> int:
        d = atom.deposit
        rid = self._next_id
        self._next_id += 1
        holding = self._admitted(d, Holding(via=d.via, source=d.source, since_round=d.round,
                                            confidence=self._fresh_confidence(d.owner, d)))
        record = Record(
            id=rid,
            text=atom.text,
            kind=d.kind,
            round=d.round,
            place=d.place,
            event_id=d.event_id,
            event_atom=atom.index,
            deposit_id=atom.deposit_id,
            namespace=d.namespace,
            owners={d.owner: holding},
            based_on=sorted(set(d.based_on)),
            sediment=d.via == "sediment",
            speaker=equivalence.deposit_speaker(d) if d.kind in equivalence.SPOKEN else None,
            expires_at=d.expires_at,
        )
        self._records[rid] = record
        self._ensure_index().add([rid], atom.vector.reshape(1, -1))
        if d.event_id is not None and self.settings.merge:
            self._by_event.setdefault((d.namespace, d.event_id, d.kind, atom.index), rid)
        if self.settings.merge:
            self._by_text.setdefault((d.namespace, atom.norm), rid)
        self._hold(d.owner, rid)
        self.current_round = max(self.current_round, d.round)
        return rid

    def _hold(self, owner: str, rid: int) -> None:
        held = self._held.setdefault(owner, {})
        if rid not in held:
            held[rid] = None
            rows = self._held_rows.get(owner)
            if rows is not None and self._index is not None:
                rows.append(rid, self._index.row(rid))
        self._unarchived_rows.pop(owner, None)

    def _unhold(self, owner: str, rid: int) -> None:
        self._held.get(owner, {}).pop(rid, None)
        self._held_rows.pop(owner, None)
        self._unarchived_rows.pop(owner, None)

    def _merge(self, rid: int, atom: _Atom, rule: str, score: float | None) -> None:
        """Join an atom to a record: owner union, keep-shorter text, corroboration, logged."""
        d = atom.deposit
        s = self.settings
        record = self._records[rid]
        owner = d.owner
        previous = record.owners.get(owner)
        fresh = self._admitted(d, Holding(via=d.via, source=d.source, since_round=d.round,
                                          confidence=self._fresh_confidence(owner, d),
                                          place=d.place if d.place != record.place else None))
        if previous is not None:
            holding = self._combine(previous, fresh)
        else:
            holding = fresh
        incoming_confidence = fresh.confidence
        raised: list[str] = []
        became_first_hand = d.via in FIRST_HAND and (previous is None or previous.via not in FIRST_HAND)
        if became_first_hand:
            others = [o for o, h in record.owners.items() if o != owner and h.via in FIRST_HAND]
            if others:
                gain = s.corroboration_gain
                boost = 1.0 - (1.0 - gain) ** len(others)
                if holding.confidence < s.confidence_cap:
                    holding = msgspec.structs.replace(
                        holding, confidence=holding.confidence + (s.confidence_cap - holding.confidence) * boost
                    )
                for other, h in record.owners.items():
                    if other != owner and h.confidence < s.confidence_cap:
                        record.owners[other] = msgspec.structs.replace(
                            h, confidence=h.confidence + (s.confidence_cap - h.confidence) * gain
                        )
                        raised.append(other)
                record.validations += 1
                record.validation_log.append(
                    Validation(validator=owner, result="confirmed", evidence=f"{d.via}:{atom.deposit_id}", round=d.round)
                )
                self._revalidate(record, owner)
        kept = self._choose_text(record.text, atom.text)
        previous_text = record.text
        if kept != record.text:
            if record.origin_text is None:
                record.origin_text = record.text
            record.text = kept
        discarded = atom.text if kept == previous_text else previous_text
        added_based_on = tuple(sorted(b for b in set(d.based_on) if b != rid and b not in record.based_on))
        if added_based_on:
            record.based_on = sorted(set(record.based_on) | set(added_based_on))
        record.owners[owner] = holding
        entry = MergeLogEntry(
            owner=owner,
            round=d.round,
            rule=rule,
            discarded_text=discarded,
            kept_text=kept,
            previous_text=previous_text,
            previous_holding=previous,
            score=score,
            incoming_text=atom.text,
            added_based_on=added_based_on,
            raised=tuple(raised),
            deposit_id=atom.deposit_id,
            event_id=d.event_id,
            event_atom=atom.index,
            previous_confidences={owner: incoming_confidence},
        )
        record.merge_log.append(entry)
        atom.log_position = len(record.merge_log) - 1
        self._by_text.setdefault((record.namespace, atom.norm), rid)
        if d.event_id is not None:
            self._by_event.setdefault((d.namespace, d.event_id, d.kind, atom.index), rid)
        self._counters[f"merges_{rule}"] = self._counters.get(f"merges_{rule}", 0) + 1
        self._hold(owner, rid)
        self.current_round = max(self.current_round, d.round)
        if d.via in FIRST_HAND:
            settled = self._settle(owner, rid)
            if settled:
                record.merge_log[-1] = msgspec.structs.replace(record.merge_log[-1], settled=tuple(settled))

    def _revalidate(self, record: Record, witness: str) -> None:
        """An independent witness confirmed the record: contamination from a retracted source is lifted.

        Independent: the witness saw it first-hand and is not the one whose lie contaminated it.
        """
        liars = {r.by for r in self._retractions} | {
            self._records[r.record_id].speaker for r in self._retractions if r.record_id in self._records
        }
        if witness in liars:
            return
        for owner, h in list(record.owners.items()):
            if "contaminated" not in h.flags:
                continue
            flags = tuple(f for f in h.flags if f != "contaminated" and not f.startswith("contaminated-by:")) + ("revalidated",)
            status = "believed" if h.status == "doubted" else h.status
            record.owners[owner] = msgspec.structs.replace(h, flags=flags, status=status)

    @staticmethod
    def _combine(previous: Holding, fresh: Holding) -> Holding:
        """One owner learning a record again: the stronger way of knowing wins, confidence never drops."""
        if VIA_STRENGTH[fresh.via] > VIA_STRENGTH[previous.via]:
            status = "believed" if fresh.via in FIRST_HAND else previous.status
            return msgspec.structs.replace(
                previous,
                via=fresh.via,
                source=fresh.source,
                confidence=max(previous.confidence, fresh.confidence),
                status=status,
                archived=False,
            )
        return msgspec.structs.replace(previous, confidence=max(previous.confidence, fresh.confidence), archived=False)

    @staticmethod
    def _choose_text(current: str, incoming: str) -> str:
        """Keep the shorter text unless it would drop a name, place, number or time the longer has."""
        if current == incoming or normalise_text(current) == normalise_text(incoming):
            return current
        shorter, longer = (incoming, current) if len(incoming) < len(current) else (current, incoming)
        if len(shorter) == len(longer):
            return current
        words = guard.features(shorter).words
        if any(name not in words for name in guard.named(longer)):
            return longer
        return shorter

    # ------------------------------------------------------------------ trust: disputes

    def _check_disputes(self, atom: _Atom) -> None:
        """Mark contradictions between this atom and what its owner already holds."""
        d = atom.deposit
        owner = d.owner
        rid = atom.record_id
        s = self.settings
        held = self._held.get(owner)
        if not held or len(held) < 2 or atom.vector is None:
            return
        for other, sim in self._owner_scan(owner, atom.vector, 6, include_archived=False):
            if other == rid or sim < s.dispute_min:
                continue
            record = self._records[other]
            if record.namespace != d.namespace:
                continue
            verdict = guard.check(atom.text, record.text)
            if not verdict.contradiction:
                continue
            mine = self._records[rid].owners[owner]
            theirs = record.owners[owner]
            if mine.via in FIRST_HAND and theirs.via in FIRST_HAND:
                # Two things one saw oneself that differ in a slot are two occasions, not a dispute
                # (Hamlet meets Ophelia in the lobby one day and in the garden the next).
                continue
            if mine.via in FIRST_HAND and theirs.via not in FIRST_HAND:
                self._set_status(other, owner, "doubted", halve=True, flag=f"contradicted-by:{rid}")
            elif theirs.via in FIRST_HAND and mine.via not in FIRST_HAND:
                self._set_status(rid, owner, "doubted", halve=True, flag=f"contradicts:{other}")
            else:
                self._set_status(rid, owner, "disputed")
                self._set_status(other, owner, "disputed")
                pairs = self._disputes.setdefault(owner, {})
                pairs.setdefault(rid, set()).add(other)
                pairs.setdefault(other, set()).add(rid)

    def _set_status(self, rid: int, owner: str, status: str, *, halve: bool = False, flag: str | None = None) -> None:
        record = self._records[rid]
        h = record.owners[owner]
        flags = h.flags + (flag,) if flag and flag not in h.flags else h.flags
        record.owners[owner] = msgspec.structs.replace(
            h, status=status, confidence=h.confidence * 0.5 if halve else h.confidence, flags=flags
        )

    def _settle(self, owner: str, rid: int) -> list[tuple[int, Holding]]:
        """The owner witnessed `rid`: it is believed, what it contradicted becomes doubted.

        Returns the (record, holding before) of every dispute it settled, so an unmerge can restore them.
        """
        pairs = self._disputes.get(owner)
        if not pairs or rid not in pairs:
            return []
        settled: list[tuple[int, Holding]] = []
        for other in pairs.pop(rid):
            pairs.get(other, set()).discard(rid)
            if not pairs.get(other):
                pairs.pop(other, None)
            other_holding = self._records[other].owners.get(owner)
            if other_holding is None:
                continue
            settled.append((other, other_holding))
            if other_holding.via in FIRST_HAND:
                # Both seen with one's own eyes: still a dispute.
                pairs.setdefault(rid, set()).add(other)
                pairs.setdefault(other, set()).add(rid)
                continue
            self._set_status(other, owner, "doubted", halve=True, flag=f"contradicted-by:{rid}")
        if rid not in pairs:
            h = self._records[rid].owners[owner]
            if h.status == "disputed":
                self._set_status(rid, owner, "believed")
        return settled

    # ------------------------------------------------------------------ unmerge

    def unmerge(self, record_id: int, owner: str) -> int | None:
        """Undo the owner's latest merge into a record.

        The owner's previous holding comes back if it had one; otherwise the owner leaves the
        record and gets a new record with the statement it deposited (returned). The record's
        text, edges, derivations and corroborated confidences are restored from the merge log.
        """
        with self._lock:
            self._check_owner(owner)
            if record_id not in self._records:
                raise ValueError(f"unmerge: {record_id!r} is not a record id")
            record = self._records[record_id]
            positions = [i for i, e in enumerate(record.merge_log) if e.owner == owner]
            if not positions:
                raise ValueError(f"unmerge: {owner!r} never merged into record {record_id}")
            entry = record.merge_log.pop(positions[-1])
            s = self.settings
            # Corroboration this merge gave others, inverted.
            gain = s.corroboration_gain
            for other in entry.raised:
                h = record.owners.get(other)
                if h is not None and gain < 1.0:
                    restored = (h.confidence - s.confidence_cap * gain) / (1.0 - gain)
                    record.owners[other] = msgspec.structs.replace(h, confidence=min(1.0, max(0.0, restored)))
            if entry.raised:
                record.validations = max(0, record.validations - 1)
            for b in entry.added_based_on:
                if not any(b in e.added_based_on for e in record.merge_log):
                    if b in record.based_on:
                        record.based_on.remove(b)
            for other in entry.added_edges:
                self._unlink(record_id, other)
            # The text as if this merge had never happened.
            text = record.origin_text or record.text  # origin_text is None: the text never changed
            for e in record.merge_log:
                text = self._choose_text(text, e.incoming_text or e.discarded_text)
            record.text = text
            if record.origin_text is not None and record.origin_text == text:
                record.origin_text = None
            current = record.owners.get(owner)
            new_id = None
            if entry.previous_holding is not None:
                record.owners[owner] = entry.previous_holding
            else:
                record.owners.pop(owner, None)
                self._unhold(owner, record_id)
                if current is not None and owner in entry.previous_confidences:
                    # the confidence the statement had on its own, before corroboration raised it
                    current = msgspec.structs.replace(current, confidence=entry.previous_confidences[owner])
                new_id = self._split(record, entry, current)
            self._repoint_siblings(record_id, entry, new_id)
            self._drop_text_key(record, entry, new_id)
            self._restore_settled(owner, record_id if new_id is None else new_id, entry)
            self._counters["unmerges"] = self._counters.get("unmerges", 0) + 1
            return new_id

    def _restore_settled(self, owner: str, rid: int, entry: MergeLogEntry) -> None:
        """Disputes the undone merge settled are open again, with the holdings they had."""
        if not entry.settled:
            return
        pairs = self._disputes.setdefault(owner, {})
        for other, holding in entry.settled:
            if other not in self._records or owner not in self._records[other].owners:
                continue
            self._records[other].owners[owner] = holding
            pairs.setdefault(rid, set()).add(other)
            pairs.setdefault(other, set()).add(rid)
        h = self._records[rid].owners.get(owner)
        if h is not None and h.status == "believed":
            self._set_status(rid, owner, "disputed")

    def _split(self, record: Record, entry: MergeLogEntry, holding: Holding | None) -> int:
        """A new record holding what the owner deposited, linked where the owner's deposit linked."""
        text = entry.incoming_text or entry.discarded_text
        rid = self._next_id
        self._next_id += 1
        holding = holding or Holding(via="witnessed", since_round=entry.round)
        split = Record(
            id=rid,
            text=text,
            kind=record.kind,
            round=entry.round,
            place=record.place,
            event_id=entry.event_id if entry.event_id != record.event_id else None,  # its own event, back
            event_atom=entry.event_atom,
            deposit_id=None,
            namespace=record.namespace,
            owners={entry.owner: holding},
            based_on=sorted(entry.added_based_on),
            speaker=record.speaker,
        )
        self._records[rid] = split
        if split.event_id is not None:
            key = (split.namespace, split.event_id, split.kind, split.event_atom)
            if self._by_event.get(key) == record.id:
                self._by_event[key] = rid  # later statements of that event join the split record
        self._ensure_index().add([rid], self._encode([text]))
        for other in entry.added_edges:
            if other in self._records:
                self._link(rid, other)
        self._hold(entry.owner, rid)
        return rid

    def _repoint_siblings(self, record_id: int, entry: MergeLogEntry, new_id: int | None) -> None:
        """The deposit's other merged atoms now link to the split record (or to nothing).

        Without this, undoing two merges of one deposit would remove its edge justification twice.
        """
        if not entry.deposit_id:
            return
        for other in entry.added_edges:
            sibling = self._records.get(other)
            if sibling is None:
                continue
            for i, e in enumerate(sibling.merge_log):
                if e.deposit_id == entry.deposit_id and e.owner == entry.owner and record_id in e.added_edges:
                    edges = tuple(new_id if x == record_id else x for x in e.added_edges if new_id is not None or x != record_id)
                    sibling.merge_log[i] = msgspec.structs.replace(e, added_edges=edges)

    def _drop_text_key(self, record: Record, entry: MergeLogEntry, new_id: int | None) -> None:
        """The undone statement's text now leads to the split record, unless the record still has it."""
        key = (record.namespace, normalise_text(entry.incoming_text or entry.discarded_text))
        if self._by_text.get(key) == record.id and not any(normalise_text(t) == key[1] for t in self._texts_of(record)):
            del self._by_text[key]
            if new_id is not None:
                self._by_text[key] = new_id
        self._map_record(record)

    # ------------------------------------------------------------------ read path

    def _held_arrays(self, owner: str, include_archived: bool) -> tuple[np.ndarray, np.ndarray]:
        """(record ids, index rows) of what an owner holds; kept incrementally, filtered views cached."""
        index = self._ensure_index()
        rows = self._held_rows.get(owner)
        if rows is None:
            held = list(self._held.get(owner, {}))
            rows = _HeldRows()
            rows.extend(held, [index.row(r) for r in held])
            self._held_rows[owner] = rows
        if include_archived or owner not in self._has_archived:
            return rows.view()
        cached = self._unarchived_rows.get(owner)
        if cached is None:
            ids, row_ids = rows.view()
            keep = np.fromiter(
                (not self._records[int(r)].owners[owner].archived for r in ids), dtype=bool, count=len(ids)
            )
            cached = (ids[keep], row_ids[keep])
            self._unarchived_rows[owner] = cached
        return cached

    def _owner_scan(
        self, owner: str, vector: np.ndarray, count: int, include_archived: bool, force: str | None = None
    ) -> list[tuple[int, float]]:
        """Top `count` records the owner holds by cosine: exact for few rows, usearch + filter for many."""
        ids, rows = self._held_arrays(owner, include_archived)
        if len(ids) == 0 or count <= 0:
            return []
        index = self._ensure_index()
        if force == "exact" or (force is None and len(ids) <= self.settings.exact_max_rows):
            sims = index.matrix[rows] @ vector
            return self._top(ids, sims, count)
        held = self._held[owner]
        fetch = count * self.settings.oversample
        total = len(index)
        while True:
            keys, sims = index.search(vector, min(fetch, total))
            found: list[tuple[int, float]] = []
            for key, sim in zip(keys.tolist(), sims.tolist()):
                if key in held and (include_archived or not self._records[key].owners[owner].archived):
                    found.append((key, sim))
            if len(found) >= count or fetch >= total:
                break
            fetch *= 4
        if len(found) < count and len(found) < len(ids):
            return self._top(ids, index.matrix[rows] @ vector, count)
        # Re-score exactly so both paths agree to the last bit.
        exact = index.matrix[[index.row(k) for k, _ in found]] @ vector
        found_ids = np.fromiter((k for k, _ in found), dtype=np.int64, count=len(found))
        return self._top(found_ids, exact, count)

    @staticmethod
    def _top(ids: np.ndarray, sims: np.ndarray, count: int) -> list[tuple[int, float]]:
        """Best `count` by similarity, ties broken by id, deterministic."""
        if len(ids) > count:
            part = np.argpartition(-sims, count - 1)[:count]
            threshold = sims[part].min()
            part = np.nonzero(sims >= threshold)[0]
        else:
            part = np.arange(len(ids))
        order = sorted(part.tolist(), key=lambda i: (-float(sims[i]), int(ids[i])))[:count]
        return [(int(ids[i]), float(sims[i])) for i in order]

    def _rank_score(self, sim: float, holding: Holding) -> float:
        """Similarity weighed by how sure the owner is and whether the holding is contested."""
        return sim * (0.7 + 0.3 * holding.confidence) * STATUS_WEIGHT.get(holding.status, 1.0)

    def _recall(self, owner: str, vector: np.ndarray, k: int, when: int, include_archived: bool, expand: bool,
                force: str | None) -> list[RecallHit]:
        """The owner's top-k records for a query plus one-hop affiliated records it also holds."""
        pool = self._owner_scan(owner, vector, k * self.settings.candidate_factor, include_archived, force=force)
        scored = []
        floor = self.settings.min_recall_confidence
        for rid, sim in pool:
            if sim <= 0.0:  # unrelated: not worth a prompt line
                continue
            record = self._records[rid]
            if record.owners[owner].confidence < floor:
                continue
            if record.expires_at is not None and when > record.expires_at:
                continue  # a time-bound fact that no longer holds
            scored.append((self._rank_score(sim, record.owners[owner]), rid))
        scored.sort(key=lambda t: (-t[0], t[1]))
        hits = [RecallHit(record=self._records[rid], via="semantic", score=score) for score, rid in scored[:k]]
        if expand and hits:
            hits.extend(self._expand(owner, vector, hits, include_archived))
        affiliated = sum(1 for h in hits if h.via == "affiliated")
        if affiliated:
            self._expanding_calls += 1
            self._affiliated_hits += affiliated
        return hits

    def _expand(self, owner: str, vector: np.ndarray, hits: list[RecallHit], include_archived: bool) -> list[RecallHit]:
        """One hop along affiliation edges, only to records the owner holds."""
        seen = {h.record.id for h in hits}
        candidates: dict[int, None] = {}
        for hit in hits:
            for other in self._edges.get(hit.record.id, ()):
                if other in seen or other in candidates:
                    continue
                record = self._records[other]
                holding = record.owners.get(owner)
                if holding is None or (holding.archived and not include_archived):
                    continue
                candidates[other] = None
        if not candidates:
            return []
        index = self._ensure_index()
        ids = list(candidates)
        sims = index.matrix[[index.row(r) for r in ids]] @ vector
        scored = sorted(
            ((self._rank_score(float(sim), self._records[r].owners[owner]), r) for r, sim in zip(ids, sims)),
            key=lambda t: (-t[0], t[1]),
        )
        return [RecallHit(record=self._records[r], via="affiliated", score=score) for score, r in scored[: self.settings.expand_max]]

    # ------------------------------------------------------------------ trust: retraction and decay

    def derived_from(self, record_id: int) -> list[int]:
        """Every record based on this one, transitively (cycle-safe), in breadth-first order."""
        children: dict[int, list[int]] = {}
        for record in self._records.values():
            for parent in record.based_on:
                children.setdefault(parent, []).append(record.id)
        seen = {record_id}
        order: list[int] = []
        frontier = [record_id]
        while frontier:
            nxt = []
            for rid in frontier:
                for child in sorted(children.get(rid, ())):
                    if child not in seen:
                        seen.add(child)
                        order.append(child)
                        nxt.append(child)
            frontier = nxt
        return order

    def deposited_under(self, event_id: str) -> dict[int, tuple[str, ...]]:
        """Every record a statement of this event was deposited into, with the owners it gave it to.

        A statement that merged into an earlier record (by text, cosine or frame) is found through
        the record's merge log, not only by the record's own event id.
        """
        found: dict[int, tuple[str, ...]] = {}
        with self._lock:
            for record in self._records.values():
                merged: dict[str, set[str | None]] = {}
                for entry in record.merge_log:
                    merged.setdefault(entry.owner, set()).add(entry.event_id)
                owners = []
                for owner in record.owners:
                    events = merged.get(owner)
                    if event_id in (events or ()):
                        owners.append(owner)
                    elif record.event_id == event_id and (events is None or None in events):
                        owners.append(owner)  # the inserter (or a merge logged before event ids were)
                if owners:
                    found[record.id] = tuple(owners)
        return found

    def retract_event(self, event_id: str, by: str, round: int | None = None) -> list[int]:
        """Expose an event's claim as false wherever its statements went; returns affected record ids.

        Only the holdings that event deposited are retracted: a lie that merged into a record other
        owners hold for their own reasons leaves their holdings standing (contamination still runs
        to everything derived from the record). A whole record retracts when every holder got it so.
        """
        with self._lock:
            self._check_owner(by, "by")
            affected: list[int] = []
            for rid, owners in self.deposited_under(event_id).items():
                record = self._records[rid]
                whole = set(owners) == set(record.owners)
                for rid2 in self.retract(rid, by=by, round=round, owners=None if whole else owners, event_id=event_id):
                    if rid2 not in affected:
                        affected.append(rid2)
            return affected

    def retract(
        self, record_id: int, by: str, round: int | None = None, owners: Iterable[str] | None = None,
        event_id: str | None = None,
    ) -> list[int]:
        """Expose a record as false: its holdings (or just `owners`') are retracted and halved, everything
        derived from it (transitively) is halved and flagged contaminated. Nothing is deleted. Returns affected ids."""
        with self._lock:
            self._check_owner(by, "by")
            if record_id not in self._records:
                raise ValueError(f"retract: {record_id!r} is not a record id")
            record = self._records[record_id]
            chosen = None if owners is None else [o for o in owners if o in record.owners]
            for owner, h in list(record.owners.items()):
                if chosen is not None and owner not in chosen:
                    continue
                flags = h.flags + tuple(f for f in ("retracted", f"retracted-by:{by}") if f not in h.flags)
                record.owners[owner] = msgspec.structs.replace(h, status="retracted", confidence=h.confidence * 0.5, flags=flags)
            derived = self.derived_from(record_id)
            for rid in derived:
                child = self._records[rid]
                for owner, h in list(child.owners.items()):
                    flags = h.flags + tuple(f for f in ("contaminated", f"contaminated-by:{record_id}") if f not in h.flags)
                    status = "doubted" if h.status == "believed" else h.status
                    child.owners[owner] = msgspec.structs.replace(h, confidence=h.confidence * 0.5, flags=flags, status=status)
            self._retractions.append(
                Retraction(record_id=record_id, by=by, round=self.current_round if round is None else round,
                           contaminated=tuple(derived), owners=tuple(chosen or ()), event_id=event_id)
            )
            if chosen is None or chosen:
                self._lower_reliability(record, by, chosen)
            return [record_id, *derived]

    def _lower_reliability(self, record: Record, by: str, owners: list[str] | None) -> None:
        """Whoever held the exposed record on a speaker's word trusts that speaker less from now on."""
        factor = self.settings.liar_reliability_factor
        for owner, h in record.owners.items():
            if owners is not None and owner not in owners:
                continue
            if h.via in ("told", "read") and h.source and h.source != owner:
                current = self.reliability(owner, h.source)
                self._reliability.setdefault(owner, {})[h.source] = round(current * factor, 6)

    def retractions(self) -> list[Retraction]:
        """Every retraction so far, in order."""
        return list(self._retractions)

    def decay(self, round: int) -> int:
        """Fade holdings not learned or recalled for a while (facts slower); archive below the floor.

        Idempotent per round. Returns how many holdings were archived by this call.
        """
        with self._lock:
            s = self.settings
            if round <= self._last_decay_round:
                return 0
            # Only rounds played count: the first call after a (late) start is one round, not the
            # story time since round 0, which canon learned before the start would otherwise fade through.
            since = self._last_decay_round if self._last_decay_round != NEVER else round - 1
            archived = 0
            for record in self._records.values():
                # Canon (sediment) is story knowledge, kept like a fact, not a stale sighting.
                slow = record.kind in FACT_KINDS or record.sediment
                rate = s.fact_decay if slow else s.observation_decay
                for owner, h in list(record.owners.items()):
                    if h.archived:
                        continue
                    fresh_until = max(h.since_round, record.last_access_round) + s.decay_grace_rounds
                    steps = round - max(since, fresh_until)
                    if steps <= 0:
                        continue
                    confidence = h.confidence * (1.0 - rate) ** steps
                    now_archived = confidence < s.archive_floor
                    archived += now_archived
                    record.owners[owner] = msgspec.structs.replace(h, confidence=confidence, archived=now_archived)
            self._last_decay_round = round
            self.current_round = max(self.current_round, round)
            self._unarchived_rows.clear()
            self._has_archived = {o for r in self._records.values() for o, h in r.owners.items() if h.archived}
            return archived

    # ------------------------------------------------------------------ stats

    def _store_stats(self) -> dict:
        """Linking, expansion and cross-owner dispute figures (the shell counts the rest)."""
        linked = sum(1 for rid in self._records if self._edges.get(rid))
        total = len(self._records)
        return {
            "linked": linked,
            "linked_fraction": linked / total if total else 0.0,
            "edges": sum(len(n) for n in self._edges.values()) // 2,
            "expansion_rate": self._expanding_calls / self._recall_calls if self._recall_calls else 0.0,
            "linked_per_expanding_call": self._affiliated_hits / self._expanding_calls if self._expanding_calls else 0.0,
            "cross_owner_disputes": sum(len(v) for v in self._cross.values()) // 2,
        }
