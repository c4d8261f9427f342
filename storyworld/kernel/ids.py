"""Identity in the kernel: events, and what a deposit is about (the store's event-id key), as typed values.

A memory key is built here from typed fields and handed to the store as an opaque string; nothing
reads structure back out of one. Whoever needs "which event is this key of" asks `keys_of(event)`.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from typing import Literal

import msgspec

from storyworld.kernel.state import SimEvent

Facet = Literal["event", "claim", "carrier", "scene", "canon"]


class MemoryKey(msgspec.Struct, frozen=True, kw_only=True):
    """What deposits are about: one record per (key, kind, statement) in the consensus store.

    `event` is the kernel event (its own deposits, and the claim a line made); `carrier` is an object
    every reader of it shares one record of; `scene` is what everyone looking around one place in
    one round saw (`seen` tells two different scenes of a place and round apart); `canon` is a canon
    beat as it happened in play (those who saw it and those who had word of it hold one record; the
    key is the beat's id, as sediment keys the beats before the start).
    """

    facet: Facet
    event: str = ""
    carrier: str = ""
    beat: str = ""
    round: int = 0
    place: str = ""
    seen: str = ""

    @property
    def text(self) -> str:
        """The store's event id for this key (opaque to the store and to every reader)."""
        match self.facet:
            case "event":
                return self.event
            case "claim":
                return f"{self.event}/claim"
            case "carrier":
                return f"read:{self.carrier}"
            case "canon":
                return self.beat
        digest = hashlib.blake2b(self.seen.encode("utf-8"), digest_size=4).hexdigest()
        return f"r{self.round:04d}-observe-{self.place}-{digest}"


def event_id(round_: int, index: int) -> str:
    """The id of the `index`-th event resolved in a round."""
    return f"r{round_:04d}-{index:02d}"


def of_event(event: str) -> MemoryKey:
    """The key of an event's own deposits (an utterance, a deed, a move)."""
    return MemoryKey(facet="event", event=event)


def claim_of(event: str) -> MemoryKey:
    """The key of what a spoken line asserted (its listeners' and its speaker's claim record)."""
    return MemoryKey(facet="claim", event=event)


def carrier(object_id: str) -> MemoryKey:
    """The key of a carrier's content: everyone who reads the letter holds one record of it."""
    return MemoryKey(facet="carrier", carrier=object_id)


def scene(round_: int, place: str, seen: str) -> MemoryKey:
    """The key of what everyone who looked around `place` in `round_` saw (`seen`: the scene as narrated)."""
    return MemoryKey(facet="scene", round=round_, place=place, seen=seen)


def canon(beat_id: str) -> MemoryKey:
    """The key of a canon beat's statements as it happened in play (or as word of it came)."""
    return MemoryKey(facet="canon", beat=beat_id)


MECHANICAL = ("move", "observe", "wait", "read")  # event kinds remembered but never news to tell


def mechanical_keys(events: Iterable[SimEvent]) -> frozenset[str]:
    """Store keys of a run's moves, looks around, waits and catch-ups (see `MECHANICAL`)."""
    return frozenset(k for e in events if e.kind in MECHANICAL for k in keys_of(e))


def keys_of(event: SimEvent) -> tuple[str, ...]:
    """Every store key a kernel event deposited under (its own, its claim, the carrier it read, the scene)."""
    keys = [of_event(event.id).text]
    if event.kind == "say":
        keys.append(claim_of(event.id).text)
    elif event.kind == "act" and event.verb == "read" and event.target:
        keys.append(carrier(event.target).text)
    elif event.kind == "observe":
        keys.append(scene(event.round, event.place, event.text).text)
    elif event.kind == "narration" and event.beat:
        keys.append(canon(event.beat).text)
    return tuple(keys)
