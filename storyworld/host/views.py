"""What one seat is shown: a character's perceived events and held records, never the world's whole state.

Every function here takes the character and reads only what that character witnessed, did or holds
(events by `witnesses`/`actor`, records by `owners`), so the host cannot hand a seat anything else.
Call them with the session's lock held (Session.reading()).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from storyworld.host.protocol import Entry, Holding, View
from storyworld.kernel.perception import present_at

if TYPE_CHECKING:
    from memory.records import Holding as Held, Record
    from storyworld.game.simulation import Simulation
    from storyworld.kernel.state import SimEvent
    from storyworld.world import World

HOLDINGS_SHOWN = 40  # newest records in a view; /recall reaches the rest
CATCH_UP_ENTRIES = 400  # lines a rejoining seat is sent at most


def perceived(event: SimEvent, agent: str) -> bool:
    """Whether `agent` did or witnessed the event."""
    return event.actor == agent or agent in event.witnesses


def entries(world: World, events: Iterable[SimEvent], agent: str,
            results: dict[str, str] | None = None) -> tuple[Entry, ...]:
    """The events `agent` perceived as transcript lines, and (a round just played) its own result."""
    found: list[Entry] = []
    spoke = False
    last_round = None
    for event in events:
        if not perceived(event, agent) or event.kind == "wait":
            continue  # a wait is bookkeeping; the character's own shows as its result
        own = event.actor == agent
        last_round = event.round
        if event.kind == "say":
            spoke = spoke or own
            found.append(Entry(kind="line", text=event.claim or event.text, round=event.round, own=own,
                               speaker=world.name_of(event.actor), to=world.name_of(event.target)))
        elif event.kind == "move" and own:
            place = world.places[event.place]
            found.append(Entry(kind="heading", text=place.name, round=event.round, own=True))
        elif event.kind == "narration" and event.word_from:
            found.append(Entry(kind="word", text=event.text, round=event.round))
        else:
            found.append(Entry(kind="direction", text=event.text, round=event.round, own=own))
    mine = (results or {}).get(agent, "")
    if mine and not spoke:
        found.append(Entry(kind="result", text=mine, round=last_round if last_round is not None else 0, own=True))
    return tuple(found)


def history(sim: Simulation, agent: str, after_round: int | None = None) -> tuple[Entry, ...]:
    """Everything `agent` perceived after round `after_round` (None: since the start), oldest first, capped."""
    events = [e for e in sim.state.events if after_round is None or e.round > after_round]
    return entries(sim.world, events, agent)[-CATCH_UP_ENTRIES:]


def how(world: World, holding: Held) -> str:
    """How a character came to hold a record, in its own terms: 'witnessed r3', 'told by Ada r5'."""
    source = world.name_of(holding.source) if holding.source else ""
    match holding.via:
        case "told":
            return f"told by {source or 'someone'} r{holding.since_round}"
        case "read":
            return f"read in {source or 'a text'} r{holding.since_round}"
        case "sediment":
            return f"from the story r{holding.since_round}"
        case "authored":
            return "known from the start"
    return f"{holding.via} r{holding.since_round}"


def holding_of(world: World, record: Record, agent: str) -> Holding:
    """One record as `agent` holds it (its own holding only: other owners are not its to see)."""
    held = record.owners[agent]
    return Holding(id=record.id, text=record.text, round=record.round, how=how(world, held), status=held.status)


def holdings(sim: Simulation, agent: str, limit: int = HOLDINGS_SHOWN) -> tuple[Holding, ...]:
    """The newest records `agent` holds (a record it does not own is never read here)."""
    mine = [r for r in sim.store.held_by(agent) if agent in r.owners]
    mine.sort(key=lambda r: (r.round, r.id), reverse=True)
    return tuple(holding_of(sim.world, r, agent) for r in mine[:limit])


def view(sim: Simulation, agent: str) -> View:
    """Where `agent` stands now and what it holds."""
    world, state = sim.world, sim.state
    here = state.positions[agent]
    place = world.places[here]
    stm = state.shortterm.get(agent)
    return View(
        round=state.round,
        place=here,
        place_name=place.name,
        place_description=place.description,
        present=tuple(world.name_of(a) for a in present_at(world, state, here, besides=agent)),
        exits=tuple(world.places[e].name for e in place.exits),
        carrying=tuple(world.name_of(o) for o, holder in sorted(state.object_holders.items()) if holder == agent),
        goals=tuple(reversed(stm.goals)) if stm else (),
        holdings=holdings(sim, agent),
    )


def recall(sim: Simulation, agent: str, query: str, k: int = 6) -> tuple[Holding, ...]:
    """The character's own recall: hits on records it holds, best first."""
    hits = sim.store.recall(agent, query, k=k)
    return tuple(holding_of(sim.world, h.record, agent) for h in hits if agent in h.record.owners)
