"""The canon as direction: upcoming beats per agent become intentions (be there, meet them, do this)."""

from __future__ import annotations

from collections import deque

import msgspec

from storyworld.world.schema import Event
from storyworld.kernel.perception import in_play
from storyworld.kernel.state import CanonProgress, SimEvent, WorldState
from storyworld.world import World

SLACK = 2  # story rounds a beat stays open after its canon round before the story moves on without it
LOOKAHEAD = 3  # story rounds ahead a beat starts to pull its agent (plus the walk there)
PACE = 2  # played rounds per story round: the canon packs a scene's many lines into a few rounds


def story_clock(state: WorldState) -> int:
    """The canon round the story has reached: it moves at half the pace of play, so scenes can breathe."""
    return state.start_round + (state.round - state.start_round) // PACE


class Intention(msgspec.Struct, frozen=True, kw_only=True):
    """What the canon asks of one agent next: where to be, whom to meet, what to do there."""

    beat_id: str
    round: int
    place: str
    kind: str  # the canon event's kind: say | act | move | observe | narration
    role: str  # actor | witness
    text: str  # the canon event, in the world's own words
    meet: tuple[str, ...] = ()  # the other people of the beat
    companions: tuple[str, ...] = ()  # co-actors who go there too (someone to bring along)


def beats_for(world: World, agent: str, start_round: int) -> list[Event]:
    """Canon events at or after the start that involve `agent`, as actor or witness, in story order."""
    return [e for e in world.events if e.round >= start_round and (agent in e.actors or agent in e.witness_ids())]


def shortest_path(world: World, origin: str, goal: str) -> list[str]:
    """Places from `origin` (excluded) to `goal` (included) along exits; [] when already there or no way."""
    if origin == goal:
        return []
    came_from: dict[str, str] = {origin: origin}
    queue = deque([origin])
    while queue:
        here = queue.popleft()
        for nxt in world.places[here].exits:
            if nxt in came_from or nxt not in world.places:
                continue
            came_from[nxt] = here
            if nxt == goal:
                path = [goal]
                while path[-1] != origin and came_from[path[-1]] != origin:
                    path.append(came_from[path[-1]])
                return list(reversed(path))
            queue.append(nxt)
    return []


def _settled(progress: CanonProgress) -> set[str]:
    return {*progress.met, *progress.dropped}


def intention_for(world: World, state: WorldState, progress: CanonProgress, agent: str) -> Intention | None:
    """The agent's next open beat that is due soon (its canon round close enough to walk there), or None."""
    settled = _settled(progress)
    here = state.positions.get(agent)
    clock = story_clock(state)
    for event in beats_for(world, agent, state.start_round):
        if event.id in settled or event.id in progress.met_by(agent):
            continue
        if event.round < clock - SLACK:
            continue  # the story has moved on (update() drops it at the round's end)
        if any(not in_play(world, state, a) for a in event.actors if a != agent):
            continue  # someone the beat needs is dead or gone
        walk = len(shortest_path(world, here, event.place)) if here else 0
        if event.round > clock + LOOKAHEAD + walk:
            return None  # nothing due soon: stay where you are
        role = "actor" if agent in event.actors else "witness"
        others = tuple(a for a in dict.fromkeys([*event.actors, *event.witness_ids()]) if a != agent)
        # whoever the beat needs there too and is with you now is brought along (the player too)
        companions = tuple(a for a in dict.fromkeys([*event.actors, *event.witness_ids()]) if a != agent)
        return Intention(
            beat_id=event.id, round=event.round, place=event.place, kind=event.kind, role=role, text=event.text,
            meet=tuple(a for a in others if in_play(world, state, a)),
            companions=tuple(a for a in companions if in_play(world, state, a)),
        )
    return None


def upcoming(world: World, state: WorldState, progress: CanonProgress, agent: str, limit: int = 5) -> list[Event]:
    """The agent's next open canon beats (for the Goals tab and the new-game dialog), due or not."""
    settled = _settled(progress) | progress.met_by(agent)
    found: list[Event] = []
    for event in beats_for(world, agent, state.start_round):
        if event.id in settled or event.round < story_clock(state) - SLACK:
            continue
        found.append(event)
        if len(found) >= limit:
            break
    return found


def update(world: World, state: WorldState, progress: CanonProgress, events: list[SimEvent], *,
           worked: dict[str, str] | None = None, player: str | None = None) -> list[str]:
    """After a round: mark beats met by what happened, drop beats the story has passed; returns met ids.

    A spoken or acted beat is met only by a deed done for it (`worked`: agent -> beat id its action was
    made for) or, for the player, by speaking or acting at its place; a beat of being there, by being there.
    """
    settled = _settled(progress)
    worked = worked or {}
    spoke_at: dict[str, set[str]] = {}
    for event in events:
        if event.kind in ("say", "act"):
            spoke_at.setdefault(event.actor, set()).add(event.place)
    newly: list[str] = []
    spent: set[str] = set()
    clock = story_clock(state)  # update runs after the kernel has advanced the round
    for event in world.events:
        if event.round < state.start_round or event.id in settled:
            continue
        if event.round > clock + LOOKAHEAD:
            break
        actors = [a for a in event.actors if in_play(world, state, a)]
        if not actors and event.actors:
            progress.dropped.append(event.id)
            continue
        at_place = all(state.positions.get(a) == event.place for a in actors)
        # one spoken beat per speaker per round: a line meets the beat it was written for, not every one due
        speaker = next((a for a in actors if event.place in spoke_at.get(a, ()) and a not in spent
                        and (worked.get(a) == event.id or (a == player and a not in worked))), None)
        did = event.kind not in ("say", "act") or speaker is not None
        if at_place and did:
            if speaker is not None and event.kind in ("say", "act"):
                spent.add(speaker)
            progress.met.append(event.id)
            newly.append(event.id)
            continue
        for witness in event.witness_ids():
            there = progress.witnessed.setdefault(event.id, [])
            if witness not in event.actors and witness not in there and state.positions.get(witness) == event.place:
                there.append(witness)
        if not progress.witnessed.get(event.id):
            progress.witnessed.pop(event.id, None)
        if event.round < clock - SLACK:
            progress.dropped.append(event.id)
    return newly


def canon_progress(world: World, state: WorldState, progress: CanonProgress) -> dict[str, float | int]:
    """How much of the canon due during the run was reached: met / (met + dropped), with the counts."""
    met = len(progress.met)
    dropped = len(progress.dropped)
    due = met + dropped
    return {"canon_met": met, "canon_dropped": dropped, "canon_progress": round(met / due, 4) if due else 0.0}
