"""Trust policy over records and holdings: confidence, corroboration, settling, disputes, retraction, decay.

The stores place and index statements; how sure an owner is of what it holds is decided here,
as functions over records, holdings and the store's dispute maps, so the policy reads in one place.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Mapping

import msgspec

from memory import guard

from memory.persist import Retraction
from memory.records import Deposit, Holding, MergeLogEntry, Record, Validation
from memory.settings import MemorySettings

Disputes = dict[int, set[int]]  # one owner's contradicting pairs, both ways


def pair(pairs: Disputes, a: int, b: int) -> None:
    """Record a symmetric pair (a dispute, a contradiction across owners) both ways."""
    pairs.setdefault(a, set()).add(b)
    pairs.setdefault(b, set()).add(a)


def pairs_once(pairs: Mapping[int, Collection[int]]) -> list[tuple[int, int]]:
    """Every symmetric pair once, (a, b) with a < b, sorted."""
    return sorted((a, b) for a, others in pairs.items() for b in others if a < b)

FIRST_HAND = frozenset({"witnessed", "sediment", "authored"})
# Confidence of a fresh holding by how it was learned (told and read are scaled by reliability).
BASE_CONFIDENCE = {
    "authored": 0.95,
    "witnessed": 0.9,
    "sediment": 0.88,
    "read": 0.75,
    "told": 0.7,
    "inferred": 0.45,
}
# Higher wins when one owner holds a record twice (told, then saw it).
VIA_STRENGTH = {"inferred": 0, "told": 1, "read": 2, "sediment": 3, "witnessed": 4, "authored": 5}
FACT_KINDS = frozenset({"claim", "inference", "insight", "reflection"})
STATUS_WEIGHT = {"believed": 1.0, "doubted": 0.8, "disputed": 0.85, "retracted": 0.5}
NEVER = -(2**31)  # "no decay yet": rounds before the start point are negative (story time)


def fresh_confidence(deposit: Deposit, reliability: float) -> float:
    """How sure an owner is of a statement it just learned: given, else by how it learned it (hearsay scaled by trust)."""
    if deposit.confidence is not None:
        return float(deposit.confidence)
    base = BASE_CONFIDENCE[deposit.via]
    if deposit.via in ("told", "read") and deposit.source:
        base *= reliability
    return base


def told_confidence(teller: Holding, reliability: float) -> float:
    """How sure a listener is of a record a teller told: hearsay, scaled by how sure the teller is and is trusted.

    A teller who saw it passes on the base `told` confidence; one who was told it passes on less.
    """
    return BASE_CONFIDENCE["told"] * reliability * min(1.0, teller.confidence / BASE_CONFIDENCE["witnessed"])


def admitted(holding: Holding, admits: bool) -> Holding:
    """Below its kind's write floor a statement is still kept (every atom gets a record id) but doubted."""
    if admits:
        return holding
    return msgspec.structs.replace(holding, status="doubted", flags=holding.flags + ("below-write-floor",))


def combine(previous: Holding, fresh: Holding) -> Holding:
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


def rank_score(sim: float, holding: Holding) -> float:
    """Similarity weighed by how sure the owner is and whether the holding is contested."""
    return sim * (0.7 + 0.3 * holding.confidence) * STATUS_WEIGHT.get(holding.status, 1.0)


def corroborate(record: Record, owner: str, holding: Holding, previous: Holding | None, deposit: Deposit,
                deposit_id: str, settings: MemorySettings) -> tuple[Holding, list[str]]:
    """An owner newly holding a record first-hand raises everyone's confidence in it; (its holding, owners raised).

    Each other first-hand witness closes a share of the gap to the cap for the newcomer; every other
    holder gains one share. The record counts one more validation.
    """
    raised: list[str] = []
    if deposit.via not in FIRST_HAND or (previous is not None and previous.via in FIRST_HAND):
        return holding, raised
    others = [o for o, h in record.owners.items() if o != owner and h.via in FIRST_HAND]
    if not others:
        return holding, raised
    gain, cap = settings.corroboration_gain, settings.confidence_cap
    boost = 1.0 - (1.0 - gain) ** len(others)
    if holding.confidence < cap:
        holding = msgspec.structs.replace(holding, confidence=holding.confidence + (cap - holding.confidence) * boost)
    for other, h in record.owners.items():
        if other != owner and h.confidence < cap:
            record.owners[other] = msgspec.structs.replace(h, confidence=h.confidence + (cap - h.confidence) * gain)
            raised.append(other)
    record.validations += 1
    record.validation_log.append(
        Validation(validator=owner, result="confirmed", evidence=f"{deposit.via}:{deposit_id}", round=deposit.round)
    )
    return holding, raised


def uncorroborate(record: Record, entry: MergeLogEntry, settings: MemorySettings) -> None:
    """Undo the corroboration one merge gave the other holders (its inverse)."""
    gain, cap = settings.corroboration_gain, settings.confidence_cap
    for other in entry.raised:
        h = record.owners.get(other)
        if h is not None and gain < 1.0:
            restored = (h.confidence - cap * gain) / (1.0 - gain)
            record.owners[other] = msgspec.structs.replace(h, confidence=min(1.0, max(0.0, restored)))
    # the confirmation this merge logged goes with it (older saves lack the entry: fall back to `raised`)
    confirmed = [i for i, v in enumerate(record.validation_log) if v.validator == entry.owner
                 and v.result == "confirmed" and entry.deposit_id and v.evidence.endswith(f":{entry.deposit_id}")]
    if confirmed:
        record.validation_log.pop(confirmed[-1])
    if confirmed or entry.raised:
        record.validations = max(0, record.validations - 1)


def revalidate(record: Record, witness: str, records: dict[int, Record], retractions: list[Retraction]) -> None:
    """An independent witness confirmed the record: contamination from a retracted source is lifted.

    Independent: the witness saw it first-hand and is not the one whose lie contaminated it.
    """
    liars = {r.by for r in retractions} | {records[r.record_id].speaker for r in retractions if r.record_id in records}
    if witness in liars:
        return
    for owner, h in list(record.owners.items()):
        if "contaminated" not in h.flags:
            continue
        flags = tuple(f for f in h.flags if f != "contaminated" and not f.startswith("contaminated-by:")) + ("revalidated",)
        status = "believed" if h.status == "doubted" else h.status
        record.owners[owner] = msgspec.structs.replace(h, flags=flags, status=status)


def set_status(record: Record, owner: str, status: str, *, halve: bool = False, flag: str | None = None) -> None:
    """Change how an owner holds a record (halving its confidence when it is contradicted)."""
    h = record.owners[owner]
    flags = h.flags + (flag,) if flag and flag not in h.flags else h.flags
    record.owners[owner] = msgspec.structs.replace(
        h, status=status, confidence=h.confidence * 0.5 if halve else h.confidence, flags=flags
    )


def mark_contradiction(records: dict[int, Record], pairs: Disputes, owner: str, rid: int, other: int) -> None:
    """`rid` (new) contradicts `other` (held): first-hand beats hearsay, two hearsays are in dispute.

    Two things one saw oneself that differ in a slot are two occasions, not a dispute (Hamlet meets
    Ophelia in the lobby one day and in the garden the next).
    """
    mine = records[rid].owners[owner]
    theirs = records[other].owners[owner]
    if mine.via in FIRST_HAND and theirs.via in FIRST_HAND:
        return
    if mine.via in FIRST_HAND:
        set_status(records[other], owner, "doubted", halve=True, flag=f"contradicted-by:{rid}")
    elif theirs.via in FIRST_HAND:
        set_status(records[rid], owner, "doubted", halve=True, flag=f"contradicts:{other}")
    else:
        set_status(records[rid], owner, "disputed")
        set_status(records[other], owner, "disputed")
        pair(pairs, rid, other)


def mark_disputes(records: dict[int, Record], disputes: dict[str, Disputes], deposit: Deposit, rid: int, text: str,
                  near: Iterable[tuple[int, float]], dispute_min: float) -> None:
    """Mark contradictions between a new statement and what its owner holds (`near`: its closest holdings)."""
    for other, sim in near:
        if other == rid or sim < dispute_min:
            continue
        record = records[other]
        if record.namespace != deposit.namespace or not guard.check(text, record.text).contradiction:
            continue
        mark_contradiction(records, disputes.setdefault(deposit.owner, {}), deposit.owner, rid, other)


def settle(records: dict[int, Record], pairs: Disputes | None, owner: str, rid: int) -> list[tuple[int, Holding]]:
    """The owner witnessed `rid`: it is believed, what it contradicted becomes doubted.

    Returns the (record, holding before) of every dispute it settled, so an unmerge can restore them.
    """
    if not pairs or rid not in pairs:
        return []
    settled: list[tuple[int, Holding]] = []
    for other in pairs.pop(rid):
        pairs.get(other, set()).discard(rid)
        if not pairs.get(other):
            pairs.pop(other, None)
        other_holding = records[other].owners.get(owner)
        if other_holding is None:
            continue
        settled.append((other, other_holding))
        if other_holding.via in FIRST_HAND:
            # Both seen with one's own eyes: still a dispute.
            pair(pairs, rid, other)
            continue
        set_status(records[other], owner, "doubted", halve=True, flag=f"contradicted-by:{rid}")
    if rid not in pairs:
        h = records[rid].owners[owner]
        if h.status == "disputed":
            set_status(records[rid], owner, "believed")
    return settled


def restore_settled(records: dict[int, Record], pairs: Disputes, owner: str, rid: int, entry: MergeLogEntry) -> None:
    """Disputes an undone merge settled are open again, with the holdings they had."""
    if not entry.settled:
        return
    for other, holding in entry.settled:
        if other not in records or owner not in records[other].owners:
            continue
        records[other].owners[owner] = holding
        pair(pairs, rid, other)
    h = records[rid].owners.get(owner)
    if h is not None and h.status == "believed":
        set_status(records[rid], owner, "disputed")


def derived_from(records: dict[int, Record], record_id: int) -> list[int]:
    """Every record based on this one, transitively (cycle-safe), in breadth-first order."""
    children: dict[int, list[int]] = {}
    for record in records.values():
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


def deposited_under(records: dict[int, Record], event_id: str) -> dict[int, tuple[str, ...]]:
    """Every record a statement of this event was deposited into, with the owners it gave it to.

    A statement that merged into an earlier record (by text, cosine or frame) is found through
    the record's merge log, not only by the record's own event id.
    """
    found: dict[int, tuple[str, ...]] = {}
    for record in records.values():
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


def retract(records: dict[int, Record], record_id: int, by: str, owners: list[str] | None) -> list[int]:
    """Expose a record as false: its holdings (or just `owners`') are retracted and halved, everything
    derived from it (transitively) is halved and flagged contaminated. Nothing is deleted; returns the derived ids."""
    record = records[record_id]
    for owner, h in list(record.owners.items()):
        if owners is not None and owner not in owners:
            continue
        flags = h.flags + tuple(f for f in ("retracted", f"retracted-by:{by}") if f not in h.flags)
        record.owners[owner] = msgspec.structs.replace(h, status="retracted", confidence=h.confidence * 0.5, flags=flags)
    derived = derived_from(records, record_id)
    for rid in derived:
        child = records[rid]
        for owner, h in list(child.owners.items()):
            flags = h.flags + tuple(f for f in ("contaminated", f"contaminated-by:{record_id}") if f not in h.flags)
            status = "doubted" if h.status == "believed" else h.status
            child.owners[owner] = msgspec.structs.replace(h, confidence=h.confidence * 0.5, flags=flags, status=status)
    return derived


def lower_reliability(reliability: Callable[[str, str], float], table: dict[str, dict[str, float]], record: Record,
                      owners: list[str] | None, factor: float) -> None:
    """Whoever held an exposed record on a speaker's word trusts that speaker less from now on."""
    for owner, h in record.owners.items():
        if owners is not None and owner not in owners:
            continue
        if h.via in ("told", "read") and h.source and h.source != owner:
            table.setdefault(owner, {})[h.source] = round(reliability(owner, h.source) * factor, 6)


def decay(records: Iterable[Record], round: int, last_decay_round: int, settings: MemorySettings) -> int:
    """Fade holdings not learned or recalled for a while (facts slower); archive below the floor; how many archived.

    Only rounds played count: the first call after a (late) start is one round, not the story time
    since round 0, which canon learned before the start would otherwise fade through.
    """
    s = settings
    since = last_decay_round if last_decay_round != NEVER else round - 1
    archived = 0
    for record in records:
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
    return archived
