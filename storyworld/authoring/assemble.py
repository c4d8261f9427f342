"""The one world assembler: drafted places, agents, events and starts (in a pipeline's own keys) -> a WorldFile.

Every authoring pipeline (the play parser, prose, Fountain, character cards) ends here, so the
rules a drafted world follows are written once: ids (`assign_ids`; event ids in story order),
exits from the order the scenes follow one another, an agent's home (the place it witnessed
most), who is playable (the pipeline's principals; when it names none, its busiest speakers),
and where everyone stands at each start.

The drafts carry the pipeline's keys (a play's folded speaker names, a screenplay's cues); the
world carries ids. A draft says both for places and agents, so every reference maps once, here.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence

import msgspec

from storyworld.authoring.common import slugify, unique_id
from storyworld.world.schema import Agent, Event, CanonKind, Place, Start, WorldFile, WorldInfo, WorldObject


class PlaceDraft(msgspec.Struct, frozen=True, kw_only=True):
    """A place before assembly: the pipeline's key for it, its id, and what the world says of it."""

    key: str
    id: str
    name: str
    description: str = ""
    native_name: str = ""


class AgentDraft(msgspec.Struct, frozen=True, kw_only=True):
    """An agent before assembly; `principal` is the pipeline's own reason to make it playable."""

    key: str
    id: str
    name: str
    description: str = ""
    aliases: tuple[str, ...] = ()
    native_name: str = ""
    principal: bool = False  # a named persona, a speaking character, one of the most mentioned
    speeches: int = 0  # how often it speaks: ranks the busiest when there are no principals
    crowd: bool = False  # stands for a group ("Danes"): never one of the busiest


class EventDraft(msgspec.Struct, frozen=True, kw_only=True):
    """A canon event before ids: place, actors and witnesses are the pipeline's keys."""

    round: int
    place: str
    kind: CanonKind
    actors: tuple[str, ...]
    witnesses: tuple[str, ...]
    text: str
    statements: tuple[str, ...] = ()
    flags: tuple[str, ...] = ()
    staging: bool = False  # the play's staging, not its story (schema.Event.staging)


class StartDraft(msgspec.Struct, frozen=True, kw_only=True):
    """A start point: positions are where each agent was last seen in the first `seen_through` events."""

    id: str
    round: int
    description: str = ""
    seen_through: int | None = None  # None: the start gives no positions
    absent: tuple[str, ...] = ()  # agent keys out of play here (the dead)


def assign_ids(named: Iterable[tuple[str, str]], fallback: str, taken: set[str]) -> dict[str, str]:
    """key -> an id slugified from its name (`base`, `base-2`...), in the order given; `taken` grows."""
    return {key: unique_id(slugify(name, fallback), taken) for key, name in named}


def event_ids(count: int) -> list[str]:
    """Event ids e0001... wide enough for `count` events, so they sort in story order."""
    width = max(4, len(str(count)))
    return [f"e{i:0{width}d}" for i in range(1, count + 1)]


def appearance_order(events: Iterable[EventDraft]) -> list[str]:
    """Agent keys in the order they first act in or witness an event."""
    seen: dict[str, None] = {}
    for event in events:
        for key in (*event.actors, *event.witnesses):
            seen.setdefault(key, None)
    return list(seen)


def exits_in_order(place_ids: Sequence[str]) -> dict[str, list[str]]:
    """Exits both ways between places that follow one another in the story (scene after scene)."""
    exits: dict[str, list[str]] = {}
    for before, after in zip(place_ids, place_ids[1:]):
        if before != after:
            if after not in exits.setdefault(before, []):
                exits[before].append(after)
            if before not in exits.setdefault(after, []):
                exits[after].append(before)
    return exits


def homes(events: Iterable[Event]) -> dict[str, str]:
    """Each agent's home: the place where it witnessed most events (the first such place on a tie)."""
    counts: dict[str, Counter[str]] = {}
    for event in events:
        for agent_id in event.witnesses or []:
            counts.setdefault(agent_id, Counter())[event.place] += 1
    return {agent_id: seen.most_common(1)[0][0] for agent_id, seen in counts.items()}


def playable_ids(agents: Sequence[AgentDraft], busiest: int) -> set[str]:
    """The principals; when there are none, the `busiest` speakers that are not crowds."""
    chosen = {agent.id for agent in agents if agent.principal}
    if chosen or not agents:
        return chosen
    ranked = sorted((agent for agent in agents if not agent.crowd), key=lambda agent: -agent.speeches)
    return {agent.id for agent in ranked[:busiest]}


def positions_at(events: Sequence[Event], seen_through: int, absent: set[str]) -> dict[str, str]:
    """Where each agent not absent was last seen in the first `seen_through` events (witnesses included)."""
    positions: dict[str, str] = {}
    for event in events[:seen_through]:
        for agent_id in event.witness_ids():
            positions[agent_id] = event.place
    return {agent_id: place for agent_id, place in sorted(positions.items()) if agent_id not in absent}


def assemble_world(
    info: WorldInfo,
    *,
    places: Sequence[PlaceDraft],
    agents: Sequence[AgentDraft],
    events: Sequence[EventDraft],
    starts: Sequence[StartDraft],
    place_order: Sequence[str] | None = None,
    objects: Sequence[WorldObject] = (),
    busiest_when_no_principal: int = 0,
) -> WorldFile:
    """The world file: events with ids in story order, exits, homes, who is playable, starts.

    `place_order` is the order of the scenes' places (keys) that gives the exits; by default the
    order of the events' places. An agent that witnesses nothing is at home in the first place.
    """
    place_ids = {place.key: place.id for place in places}
    agent_ids = {agent.key: agent.id for agent in agents}
    world_events = [
        Event(id=event_id, round=draft.round, place=place_ids[draft.place],
              actors=[agent_ids[k] for k in draft.actors], witnesses=[agent_ids[k] for k in draft.witnesses],
              kind=draft.kind, staging=draft.staging, text=draft.text, statements=list(draft.statements),
              flags=list(draft.flags))
        for event_id, draft in zip(event_ids(len(events)), events)
    ]
    order = [place_ids[key] for key in place_order] if place_order is not None else [e.place for e in world_events]
    exits = exits_in_order(order)
    world_places = [Place(id=place.id, name=place.name, description=place.description,
                          exits=exits.get(place.id, []), native_name=place.native_name) for place in places]
    home_of = homes(world_events)
    default_home = places[0].id if places else ""
    playable = playable_ids(agents, busiest_when_no_principal)
    world_agents = [Agent(id=agent.id, name=agent.name, description=agent.description,
                          home=home_of.get(agent.id, default_home), playable=agent.id in playable,
                          aliases=list(agent.aliases), native_name=agent.native_name) for agent in agents]
    world_starts = []
    for start in starts:
        absent = sorted({agent_ids[k] for k in start.absent if k in agent_ids})
        positions = positions_at(world_events, start.seen_through, set(absent)) if start.seen_through is not None else {}
        world_starts.append(Start(id=start.id, round=start.round, description=start.description,
                                  positions=positions, absent=absent))
    return WorldFile(world=info, place=world_places, agent=world_agents, object=list(objects), event=world_events,
                     start=world_starts)
