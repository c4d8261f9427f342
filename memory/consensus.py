"""The consensus store: one record per statement, owned by everyone who holds it (DESIGN §3)."""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

import msgspec
import numpy as np

from memory import disputes, equivalence, guard
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
from memory.records import Deposit, Holding, MergeLogEntry, RecallHit, Record, normalise_text
from memory.settings import MemorySettings
from memory.store import Judge, SameFact, StoreShell, StoreStats
from memory import trust
from memory.trust import FIRST_HAND, NEVER
from memory.table import LinkedTable, texts_of
from memory.unmerge import Unmerge

log = logging.getLogger(__name__)


RULES = ("told", "event_id", "text", "cosine", "frame", "deed", "judge")


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


class ConsensusStore(StoreShell[MemorySettings]):
    """Shared long-term memory: equivalent statements merge into one record owned by all holders.

    Write path: atomize, then same event id, same normalised text, guarded usearch neighbours,
    optional judge, else insert. Read path: owner-scoped top-k plus one-hop affiliation
    expansion restricted to what the owner holds; no model call.
    """

    backend = "consensus"
    merges = True
    RULES = RULES
    table: LinkedTable

    def __init__(
        self,
        embedder: Embedder | None = None,
        settings: MemorySettings | None = None,
        judge: Judge | None = None,
        folder: Path | None = None,
    ) -> None:
        super().__init__(embedder=embedder, settings=settings, folder=folder, judge=judge)
        self._unmerge = Unmerge(self.table, self.settings, self.embed)
        self._last_decay_round = NEVER
        self._reliability: dict[str, dict[str, float]] = {}
        self._cross: dict[int, set[int]] = {}  # records of different owners that contradict each other
        self._retractions: list[Retraction] = []
        self._counters.update({f"merges_{r}": 0 for r in RULES})
        self._counters.update(judge_calls=0, judge_errors=0, unmerges=0, index_rebuilds=0, deposits=0)
        self._expanding_calls = 0
        self._affiliated_hits = 0

    @classmethod
    def _default_settings(cls) -> MemorySettings:
        return MemorySettings()

    def _new_table(self) -> LinkedTable:
        return LinkedTable()

    def same_fact(self) -> SameFact:
        """When two statements are one fact by this store's settings (the guarded cosine and frame rules)."""
        s = self.settings
        return SameFact(merge_high=s.merge_high, frame_cosine_min=s.frame_cosine_min, frame_min=s.frame_min)

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
        self.table.next_id = state.next_id
        self._next_deposit = state.next_deposit
        self.current_round = state.current_round
        self._last_decay_round = state.last_decay_round
        for record in state.records:
            self.table.records[record.id] = record
        for a, b, count in state.edges:
            self.table.edges.setdefault(a, {})[b] = count
            self.table.edges.setdefault(b, {})[a] = count
        self._reliability = state.reliability
        for owner, a, b in state.disputes:
            trust.pair(self.table.disputes.setdefault(owner, {}), a, b)
        self._retractions = list(state.retractions)
        for a, b in state.cross_disputes:
            trust.pair(self._cross, a, b)
        self._counters.update(state.counters)
        self._reindex_maps(keys_saved=state.text_keys is not None and state.event_keys is not None)
        if state.text_keys is not None and state.event_keys is not None:
            self.table.by_text = {(ns, norm): rid for ns, norm, rid in state.text_keys}
            self.table.by_event = {(ns, ev, kind, atom): rid for ns, ev, kind, atom, rid in state.event_keys}
        keys = list(self.table.records)
        try:
            self.table.index, notice = VectorIndex.from_files(files.get(INDEX_FILE), files.get(VECTORS_FILE), state.dim, keys)
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
        keys = list(self.table.records)
        index = VectorIndex(self.dim)
        if keys:
            texts = [self.table.records[k].origin_text or self.table.records[k].text for k in keys]
            index.add(keys, self.embed(texts))
        self.table.index = index

    def _reindex_maps(self, keys_saved: bool = False) -> None:
        """Derived lookups (event keys, text keys, holdings per owner) from the records."""
        self.table.by_event.clear()
        self.table.by_text.clear()
        self.table.held.clear()
        self.table.owner_rows.reset()
        for record in self.table.records.values():
            if not keys_saved:
                self.table.map_record(record)
            for owner, holding in record.owners.items():
                self.table.held.setdefault(owner, {})[record.id] = None
                if holding.archived:
                    self.table.owner_rows.has_archived.add(owner)

    def dump(self) -> dict[str, bytes]:
        """The store as files (`memory.msgpack`, `memory.usearch`) for embedding in a game save."""
        with self.table.lock:
            with gc_paused():
                graph, rows = self._ensure_index().to_files(list(self.table.records))
                state = encode_state(self._state())
            return {STATE_FILE: state, VECTORS_FILE: rows, INDEX_FILE: graph}

    def _state(self) -> StoreState:
        edges = [(a, b, c) for a, nbrs in self.table.edges.items() for b, c in nbrs.items() if a < b]
        disputes = sorted(
            (owner, a, b) for owner, pairs in self.table.disputes.items() for a, others in pairs.items() for b in others if a < b
        )
        return StoreState(
            format=FORMAT_VERSION,
            dim=self.dim,
            generation=self._generation,
            next_id=self.table.next_id,
            next_deposit=self._next_deposit,
            current_round=self.current_round,
            last_decay_round=self._last_decay_round,
            records=list(self.table.records.values()),
            edges=sorted(edges),
            reliability=self._reliability,
            disputes=disputes,
            retractions=list(self._retractions),
            counters=dict(self._counters),
            cross_disputes=trust.pairs_once(self._cross),
            # Insertion order is deterministic already; sorting 40k keys would only cost time.
            text_keys=[(ns, norm, rid) for (ns, norm), rid in self.table.by_text.items() if rid in self.table.records],
            event_keys=[
                (ns, ev, kind, atom, rid) for (ns, ev, kind, atom), rid in self.table.by_event.items() if rid in self.table.records
            ],
        )

    # ------------------------------------------------------------------ basics

    def _ensure_index(self) -> VectorIndex:
        if self.table.index is None:
            self.table.index = VectorIndex(self.dim)
        return self.table.index

    def neighbours(self, record_id: int) -> list[int]:
        """Records affiliated with this one (one hop), by id."""
        return sorted(self.table.edges.get(record_id, ()))

    def edges(self) -> list[tuple[int, int]]:
        """Every affiliation edge once, (a, b) with a < b."""
        return trust.pairs_once(self.table.edges)

    def disputes(self, owner: str) -> list[tuple[int, int]]:
        """Pairs of records an owner holds that contradict each other (unsettled)."""
        return trust.pairs_once(self.table.disputes.get(owner, {}))

    def cross_disputes(self, record_id: int | None = None) -> list[tuple[int, int]]:
        """Pairs of contradicting records held by different owners (all, or those involving one record)."""
        return [p for p in trust.pairs_once(self._cross) if record_id is None or record_id in p]

    def reliability(self, listener: str, speaker: str) -> float:
        """How far a listener trusts what a speaker says (default from settings)."""
        return self._reliability.get(listener, {}).get(speaker, self.settings.default_reliability)

    def set_reliability(self, listener: str, speaker: str, value: float) -> None:
        """Set a listener's trust in a speaker (0-1); scales later `told`/`read` confidence."""
        self._check_owner(listener, "listener")
        self._check_owner(speaker, "speaker")
        if not (isinstance(value, (int, float)) and 0.0 <= float(value) <= 1.0):
            raise ValueError(f"reliability: must be a number in 0..1, got {value!r}")
        with self.table.lock:
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
        seen_events: set[tuple[str, str, str, int]] = set()
        seen_texts: set[tuple[str, str, str, str, str | None]] = set()
        need: list[_Atom] = []
        for atom in atoms:
            d = atom.deposit
            ns = d.namespace
            if equivalence.told_record(self.table.records, d) is not None:
                continue
            if not self.settings.merge:
                need.append(atom)
                continue
            if d.event_id is not None:
                key = (ns, d.event_id, d.kind, atom.index)
                if key in seen_events or key in self.table.by_event:
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
            vectors = self.embed([a.text for a in need])
            for atom, vector in zip(need, vectors):
                atom.vector = vector

    def _text_match(self, key: tuple[str, str], deposit: Deposit | None = None) -> int | None:
        """The record a normalised text belongs to (unmerge keeps this map exact), if it can be the same fact."""
        rid = self.table.by_text.get(key)
        if rid is None or rid not in self.table.records:
            return None
        if deposit is not None and not equivalence.same_kind(deposit, self.table.records[rid]):
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
                self.table.link(a, b)
        linked: set[int] = set()
        for atom in atoms:
            # One justification per record per deposit: a repeated atom's entry links nothing,
            # nor does a merge into a record this same deposit inserted.
            if atom.log_position is None:
                linked.add(atom.record_id)
            elif atom.log_position is not None and len(distinct) > 1 and atom.record_id not in linked:
                linked.add(atom.record_id)
                record = self.table.records[atom.record_id]
                entry = record.merge_log[atom.log_position]
                others = tuple(r for r in distinct if r != atom.record_id)
                record.merge_log[atom.log_position] = msgspec.structs.replace(entry, added_edges=others)
        return ids

    def affiliate(self, record_ids: list[int]) -> None:
        """Link records that belong together (e.g. statements of one event deposited separately)."""
        with self.table.lock:
            ids = list(dict.fromkeys(record_ids))
            for rid in ids:
                if rid not in self.table.records:
                    raise ValueError(f"affiliate: {rid!r} is not a record id")
            for i, a in enumerate(ids):
                for b in ids[i + 1 :]:
                    if b not in self.table.edges.get(a, {}):
                        self.table.link(a, b)

    def _place(self, atom: _Atom) -> int:
        """Find the record this atom joins (cheapest rule first) or insert it; returns its id."""
        d = atom.deposit
        ns = d.namespace
        told = equivalence.told_record(self.table.records, d)
        if told is not None:
            # the listener takes the record as it stands now (the teller's words may predate a merge)
            atom.text = self.table.records[told].text
            atom.norm = normalise_text(atom.text)
            self._merge(told, atom, "told", None)
            return told
        if self.settings.merge:
            if d.event_id is not None:
                rid = self.table.by_event.get((ns, d.event_id, d.kind, atom.index))
                if rid is not None and rid in self.table.records:
                    self._merge(rid, atom, "event_id", None)
                    return rid
            rid = self._text_match((ns, atom.norm), d)
            if rid is not None:
                self._merge(rid, atom, "text", None)
                return rid
            if atom.vector is None:  # placed by a rule during embedding's dry run, but not now
                atom.vector = self.embed([atom.text])[0]
            found = self._cosine_match(atom)
            if found is not None:
                rid, rule, score = found
                self._merge(rid, atom, rule, score)
                atom.record_id = rid
                self._check_disputes(atom)
                return rid
        if atom.vector is None:
            atom.vector = self.embed([atom.text])[0]
        rid = self._insert(atom)
        atom.record_id = rid
        self._check_disputes(atom)
        for other in disputes.candidates(self.table.records, self._ensure_index(), rid, atom.vector, self.settings.cross_dispute_min):
            trust.pair(self._cross, rid, other)
        return rid

    def _cosine_match(self, atom: _Atom) -> tuple[int, str, float] | None:
        """Guarded usearch neighbour at or above merge_high, else a judge-approved one in the band."""
        d = atom.deposit
        s = self.settings
        index = self._ensure_index()
        vector = atom.vector
        assert vector is not None  # _place embeds every atom before it looks for neighbours
        if d.namespace == "shared":
            keys, sims = index.search(vector, s.write_neighbours)
            pairs = [(int(k), float(c)) for k, c in zip(keys, sims)]
        else:  # a private namespace only ever holds its owner's records
            pairs = self._owner_scan(d.owner, vector, s.write_neighbours, include_archived=True)
        band: list[tuple[int, float]] = []
        structural = s.structural_floor()
        floor = min(s.merge_low, structural)
        framed: tuple[int, str, float] | None = None
        for rid, sim in pairs:
            record = self.table.records.get(rid)
            if record is None or record.namespace != d.namespace or sim < floor:
                continue
            if not equivalence.same_kind(d, record):
                continue
            if not guard.check(atom.text, record.text, d.place, record.place).ok:
                continue
            if sim >= s.merge_high:
                return rid, "cosine", sim
            if framed is None and structural <= sim:
                rule = equivalence.structural_rule(atom.text, record.text, sim, s, self.embed)
                framed = (rid, rule, sim) if rule is not None else None
            if sim >= s.merge_low:
                band.append((rid, sim))
        if framed is not None:
            return framed
        if band and self.judge is not None and s.judge_enabled:
            for rid, sim in band[: s.judge_max_calls]:
                self._counters["judge_calls"] += 1
                try:
                    same = self.judge(atom.text, self.table.records[rid].text)
                except Exception as exc:  # a failing judge must not lose the deposit: count it, insert
                    self._counters["judge_errors"] += 1
                    log.warning("merge judge failed (%s); not merging", exc)
                    same = None
                if same is True:
                    return rid, "judge", sim
        return None

    def _fresh_holding(self, d: Deposit, place: str | None = None) -> Holding:
        """The holding a deposit gives its owner, doubted when below its kind's write floor."""
        holding = Holding(via=d.via, source=d.source, since_round=d.round, place=place, flags=tuple(d.flags),
                          confidence=trust.fresh_confidence(d, self.reliability(d.owner, d.source or "")))
        return trust.admitted(holding, self.admits(d.owner, d))

    def admits(self, owner: str, deposit: Deposit) -> bool:
        """The write policy: a statement is kept only at or above its kind's confidence floor (stricter for facts)."""
        floor = self.settings.write_floors.get(deposit.kind, 0.0)
        return trust.fresh_confidence(deposit, self.reliability(owner, deposit.source or "")) >= floor

    def _insert(self, atom: _Atom) -> int:
        d = atom.deposit
        rid = self._new_record(
            d, atom.deposit_id, atom.index, atom.text, self._fresh_holding(d), expires_at=d.expires_at,
            speaker=equivalence.deposit_speaker(d) if d.kind in equivalence.SPOKEN else None,
        ).id
        assert atom.vector is not None  # _place embeds every atom it inserts
        self._ensure_index().add([rid], atom.vector.reshape(1, -1))
        if d.event_id is not None and self.settings.merge:
            self.table.by_event.setdefault((d.namespace, d.event_id, d.kind, atom.index), rid)
        if self.settings.merge:
            self.table.by_text.setdefault((d.namespace, atom.norm), rid)
        self.table.hold(d.owner, rid)
        return rid

    def _owner_scan(self, owner: str, vector: np.ndarray, count: int, include_archived: bool,
                    force: str | None = None) -> list[tuple[int, float]]:
        """Top `count` records the owner holds by cosine (memory/holdings.py)."""
        return self.table.owner_rows.scan(owner, self._ensure_index(), vector, count, include_archived,
                                     self.settings.exact_max_rows, self.settings.oversample, force)

    def _merge(self, rid: int, atom: _Atom, rule: str, score: float | None) -> None:
        """Join an atom to a record: owner union, keep-shorter text, corroboration, logged."""
        d = atom.deposit
        record = self.table.records[rid]
        owner = d.owner
        previous = record.owners.get(owner)
        fresh = self._fresh_holding(d, place=d.place if d.place != record.place else None)
        if rule == "told" and d.confidence is None:
            teller = record.owners[d.source or ""]
            fresh = msgspec.structs.replace(
                fresh, confidence=trust.told_confidence(teller, self.reliability(owner, d.source or "")))
        if rule == "told" and previous is not None:
            holding = previous  # hearing what one holds already changes nothing (a liar is not won over by his lie)
        else:
            holding = trust.combine(previous, fresh) if previous is not None else fresh
        validations = record.validations
        holding, raised = trust.corroborate(record, owner, holding, previous, d, atom.deposit_id, self.settings)
        if record.validations != validations:
            trust.revalidate(record, owner, self.table.records, self._retractions)
        kept = equivalence.choose_text(record.text, atom.text)
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
        if not record.actors and d.actors:
            record.actors = tuple(d.actors)  # a record born without typed actors takes the first that names them
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
            previous_confidences={owner: fresh.confidence},
        )
        record.merge_log.append(entry)
        atom.log_position = len(record.merge_log) - 1
        self.table.by_text.setdefault((record.namespace, atom.norm), rid)
        if d.event_id is not None:
            self.table.by_event.setdefault((d.namespace, d.event_id, d.kind, atom.index), rid)
        self._counters[f"merges_{rule}"] = self._counters.get(f"merges_{rule}", 0) + 1
        self.table.hold(owner, rid)
        self.current_round = max(self.current_round, d.round)
        if d.via in FIRST_HAND:
            settled = trust.settle(self.table.records, self.table.disputes.get(owner), owner, rid)
            if settled:
                record.merge_log[-1] = msgspec.structs.replace(record.merge_log[-1], settled=tuple(settled))

    # ------------------------------------------------------------------ trust: disputes

    def _check_disputes(self, atom: _Atom) -> None:
        """Mark contradictions between this atom and what its owner already holds."""
        held = self.table.held.get(atom.deposit.owner)
        if held and len(held) >= 2 and atom.vector is not None:
            near = self._owner_scan(atom.deposit.owner, atom.vector, 6, include_archived=False)
            trust.mark_disputes(self.table.records, self.table.disputes, atom.deposit, atom.record_id, atom.text, near,
                                self.settings.dispute_min)

    # ------------------------------------------------------------------ unmerge

    def unmerge(self, record_id: int, owner: str) -> int | None:
        """Undo the owner's latest merge into a record (memory/unmerge.py); the split record's id, if any."""
        with self.table.lock:
            self._check_owner(owner)
            if record_id not in self.table.records:
                raise ValueError(f"unmerge: {record_id!r} is not a record id")
            new_id = self._unmerge.latest(record_id, owner)
            self._counters["unmerges"] = self._counters.get("unmerges", 0) + 1
            return new_id

    # ------------------------------------------------------------------ read path

    def _recall(self, owner: str, vector: np.ndarray, k: int, when: int, include_archived: bool, expand: bool,
                force: str | None) -> list[RecallHit]:
        """The owner's top-k records for a query plus one-hop affiliated records it also holds."""
        pool = self._owner_scan(owner, vector, k * self.settings.candidate_factor, include_archived, force=force)
        scored = []
        floor = self.settings.min_recall_confidence
        for rid, sim in pool:
            if sim <= 0.0:  # unrelated: not worth a prompt line
                continue
            record = self.table.records[rid]
            if record.owners[owner].confidence < floor:
                continue
            if record.expires_at is not None and when > record.expires_at:
                continue  # a time-bound fact that no longer holds
            scored.append((trust.rank_score(sim, record.owners[owner]), rid))
        scored.sort(key=lambda t: (-t[0], t[1]))
        hits = [RecallHit(record=self.table.records[rid], via="semantic", score=score) for score, rid in scored[:k]]
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
            for other in self.table.edges.get(hit.record.id, ()):
                if other in seen or other in candidates:
                    continue
                record = self.table.records[other]
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
            ((trust.rank_score(float(sim), self.table.records[r].owners[owner]), r) for r, sim in zip(ids, sims)),
            key=lambda t: (-t[0], t[1]),
        )
        return [RecallHit(record=self.table.records[r], via="affiliated", score=score) for score, r in scored[: self.settings.expand_max]]

    # ------------------------------------------------------------------ trust: retraction and decay

    def derived_from(self, record_id: int) -> list[int]:
        """Every record based on this one, transitively (cycle-safe), in breadth-first order."""
        return trust.derived_from(self.table.records, record_id)

    def deposited_under(self, event_id: str) -> dict[int, tuple[str, ...]]:
        """Every record a statement of this event was deposited into, with the owners it gave it to."""
        with self.table.lock:
            return trust.deposited_under(self.table.records, event_id)

    def retract_event(self, event_id: str, by: str, round: int | None = None) -> list[int]:
        """Expose an event's claim as false wherever its statements went; returns affected record ids.

        Only the holdings that event deposited are retracted: a lie that merged into a record other
        owners hold for their own reasons leaves their holdings standing (contamination still runs
        to everything derived from the record). A whole record retracts when every holder got it so.
        """
        with self.table.lock:
            self._check_owner(by, "by")
            affected: list[int] = []
            for rid, owners in self.deposited_under(event_id).items():
                whole = set(owners) == set(self.table.records[rid].owners)
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
        with self.table.lock:
            self._check_owner(by, "by")
            if record_id not in self.table.records:
                raise ValueError(f"retract: {record_id!r} is not a record id")
            record = self.table.records[record_id]
            chosen = None if owners is None else [o for o in owners if o in record.owners]
            derived = trust.retract(self.table.records, record_id, by, chosen)
            self._retractions.append(
                Retraction(record_id=record_id, by=by, round=self.current_round if round is None else round,
                           contaminated=tuple(derived), owners=tuple(chosen or ()), event_id=event_id)
            )
            if chosen is None or chosen:
                trust.lower_reliability(self.reliability, self._reliability, record, chosen,
                                        self.settings.liar_reliability_factor)
            return [record_id, *derived]

    def retractions(self) -> list[Retraction]:
        """Every retraction so far, in order."""
        return list(self._retractions)

    def decay(self, round: int) -> int:
        """Fade holdings not learned or recalled for a while (facts slower); archive below the floor.

        Idempotent per round. Returns how many holdings were archived by this call.
        """
        with self.table.lock:
            if round <= self._last_decay_round:
                return 0
            archived = trust.decay(self.table.records.values(), round, self._last_decay_round, self.settings)
            self._last_decay_round = round
            self.current_round = max(self.current_round, round)
            self.table.owner_rows.archive_changed()
            return archived

    # ------------------------------------------------------------------ stats

    def _store_stats(self) -> StoreStats:
        """Linking, expansion and cross-owner dispute figures (the shell counts the rest)."""
        linked = sum(1 for rid in self.table.records if self.table.edges.get(rid))
        total = len(self.table.records)
        return {
            "linked": linked,
            "linked_fraction": linked / total if total else 0.0,
            "edges": sum(len(n) for n in self.table.edges.values()) // 2,
            "expansion_rate": self._expanding_calls / self._recall_calls if self._recall_calls else 0.0,
            "linked_per_expanding_call": self._affiliated_hits / self._expanding_calls if self._expanding_calls else 0.0,
            "cross_owner_disputes": sum(len(v) for v in self._cross.values()) // 2,
        }
