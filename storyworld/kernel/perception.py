"""What an agent perceives at the start of a round."""

from __future__ import annotations

import msgspec

from storyworld.kernel.state import ThreadLine, WorldState
from storyworld.world import World


class Perception(msgspec.Struct, frozen=True, kw_only=True):
    """Place, company, exits, objects and recent talk as one agent sees them."""

    agent: str
    round: int
    place: str
    place_name: str
    place_description: str
    present: tuple[str, ...]  # other agents here
    exits: tuple[str, ...]
    objects_here: tuple[str, ...]
    objects_held: tuple[str, ...]
    recent_talk: tuple[ThreadLine, ...]
    voices: tuple[str, ...] = ()  # neighbouring places where someone is (heard through a door, seen across a yard)

    def summary(self, world: World) -> str:
        """A compact text for prompts and recall queries."""
        names = ", ".join(world.agents[a].name for a in self.present) or "nobody"
        return f"{self.place_name}; with {names}"


def present_at(world: World, state: WorldState, place: str, *, besides: str | None = None) -> tuple[str, ...]:
    """Who is in play at a place and active (not archived), in id order, without `besides`."""
    return tuple(a for a in state.present(place) if a != besides and world.agents[a].status == "active")


def in_play(world: World, state: WorldState, agent: str) -> bool:
    """Whether an agent is in the story now: somewhere, not absent (dead or not yet come), not archived."""
    return agent in state.positions and agent not in state.absent and world.agents[agent].status == "active"


def perceive(world: World, state: WorldState, agent_id: str, *, talk_lines: int = 4) -> Perception:
    """Build one agent's perception from the world and state."""
    place = state.positions[agent_id]
    place_def = world.places[place]
    present = present_at(world, state, place, besides=agent_id)
    here = tuple(sorted(o for o, p in state.object_places.items() if p == place))
    held = tuple(sorted(o for o, h in state.object_holders.items() if h == agent_id))
    talk = tuple(state.threads.get(place, [])[-talk_lines:])
    return Perception(
        agent=agent_id,
        round=state.round,
        place=place,
        place_name=place_def.name,
        place_description=place_def.description,
        present=present,
        exits=tuple(place_def.exits),
        objects_here=here,
        objects_held=held,
        recent_talk=talk,
        voices=tuple(e for e in place_def.exits if present_at(world, state, e)),
    )
