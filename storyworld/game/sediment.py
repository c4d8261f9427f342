"""Sediment: the canon before a start point becomes memory records owned by its witnesses (DESIGN §1)."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING, TypedDict

import msgspec

from memory.records import Deposit, Kind
from storyworld.world.schema import CanonKind, Event
from storyworld.world import World

if TYPE_CHECKING:
    from memory.store import MemoryStore

# The memory kind each canon event kind becomes; the kernel uses the same words for live events.
MEMORY_KIND: dict[CanonKind, Kind] = {
    "say": "utterance",
    "observe": "observation",
    "act": "event",
    "move": "event",
    "narration": "event",
}
# Events per remember_many call: large enough that one encode call covers many statements,
# small enough that progress moves and a cancelled load loses little.
BATCH_EVENTS = 64


class SedimentReport(msgspec.Struct, frozen=True, kw_only=True):
    """What sedimenting a world's canon put into a store."""

    world_id: str
    start_id: str
    start_round: int
    events: int  # canon events before the start that someone witnessed
    unwitnessed: int  # canon events before the start that nobody witnessed (nothing to remember)
    deposits: int  # one per (event, witness)
    witness_sum: int  # sum of witnesses over events: rows a one-row-per-witness design would keep per event
    statement_witness_sum: int  # sum of statements x witnesses: its rows per statement
    records: int  # distinct records the deposits landed in
    seconds: float


class _Content(TypedDict, total=False):
    """A deposit's content: ready statements or a text to split."""

    statements: tuple[str, ...]
    text: str


def _statements(event: Event) -> _Content:
    """The deposit's content: the event's own statements when given, else its text for the store to split."""
    if event.statements:
        return {"statements": tuple(event.statements)}
    return {"text": event.text}


def event_deposits(event: Event) -> list[Deposit]:
    """One memory Deposit per witness of a canon event, all with the event's id (so they merge into one record)."""
    speaker = event.actors[0] if event.kind == "say" and event.actors else None
    content = _statements(event)
    deposits = []
    for owner in dict.fromkeys(event.witness_ids()):  # a witness listed twice still deposits once
        deposits.append(
            Deposit(
                owner=owner,
                round=event.round,
                event_id=event.id,
                via="sediment",
                # Witnesses learned a speech from its speaker; the speaker knows it first-hand.
                source=speaker if speaker != owner else None,
                place=event.place,
                kind=MEMORY_KIND[event.kind],
                actors=tuple(event.actors),
                **content,
            )
        )
    return deposits


def sediment(
    world: World,
    store: MemoryStore,
    start_id: str | None = None,
    progress: Callable[[int, int], None] | None = None,
    *,
    batch_events: int = BATCH_EVENTS,
) -> SedimentReport:
    """Deposit every canon event before the start into `store`, owned by its witnesses (via="sediment").

    Each event is one deposit per witness sharing the event's id, so the store keeps one record per
    statement with all witnesses as owners, and the statements of one event are affiliated.
    Archived agents (dead before the play) still own what they witnessed.
    `progress(done_events, total_events)` is called after each batch.
    """
    started = time.perf_counter()
    start = world.start(start_id)
    before = world.events_before(start.id)
    witnessed = [event for event in before if event.witness_ids()]
    total = len(witnessed)
    record_ids: set[int] = set()
    deposits = witness_sum = statement_witness_sum = 0
    if progress is not None:
        progress(0, total)
    for offset in range(0, total, max(1, batch_events)):
        chunk = witnessed[offset : offset + batch_events]
        batch = []
        for event in chunk:
            owners = event_deposits(event)
            batch.extend(owners)
            witness_sum += len(owners)
        id_lists = store.remember_many(batch)
        deposits += len(batch)
        for ids in id_lists:
            # Each deposit's ids are its statements: what one-row-per-witness would store as rows.
            statement_witness_sum += len(ids)
            record_ids.update(ids)
        if progress is not None:
            progress(min(offset + len(chunk), total), total)
    return SedimentReport(
        world_id=world.id,
        start_id=start.id,
        start_round=start.round,
        events=total,
        unwitnessed=len(before) - total,
        deposits=deposits,
        witness_sum=witness_sum,
        statement_witness_sum=statement_witness_sum,
        records=len(record_ids),
        seconds=time.perf_counter() - started,
    )
