"""The World a game runs on: a validated world file with its tables by id, canon and starts (DESIGN §4.1)."""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from pathlib import Path


from storyworld.errors import UserError
from storyworld.world.schema import Agent, Event, Place, Start, WorldFile, WorldInfo, WorldObject
from storyworld.world.toml import world_to_toml



class WorldError(UserError):
    """A world file that cannot be used; `problems` holds every problem found, one line each."""

    def __init__(self, problems: Iterable[str]):
        self.problems = list(problems)
        super().__init__("\n".join(self.problems) if self.problems else "invalid world")


class World:
    """A validated world: tables by id, canon events in story order, start points."""

    def __init__(
        self,
        file: WorldFile,
        *,
        path: Path | None = None,
        digest: str = "",
        warnings: Iterable[str] = (),
    ):
        self.file = file
        self.path = path
        self.info: WorldInfo = file.world
        self.places: dict[str, Place] = {p.id: p for p in file.place}
        self.agents: dict[str, Agent] = {a.id: a for a in file.agent}
        self.objects: dict[str, WorldObject] = {o.id: o for o in file.object}
        # Validation rejects decreasing rounds; the stable sort only guards worlds built in code.
        self.events: list[Event] = sorted(file.event, key=lambda event: event.round)
        self.events_by_id: dict[str, Event] = {e.id: e for e in self.events}
        self.staging_events: frozenset[str] = frozenset(e.id for e in self.events if e.staging)
        self.starts: dict[str, Start] = {s.id: s for s in file.start}
        if not digest:
            digest = hashlib.blake2b(world_to_toml(file).encode(), digest_size=32).hexdigest()
        self.digest = digest
        self.warnings: list[str] = list(warnings)

    @property
    def id(self) -> str:
        """The world's id."""
        return self.info.id

    @property
    def title(self) -> str:
        """The world's title."""
        return self.info.title

    def name_of(self, ident: str | None) -> str:
        """The display name of an agent, object or place id (the id itself when unknown, "" for none)."""
        if not ident:
            return ""
        for table in (self.agents, self.objects, self.places):
            if ident in table:
                return table[ident].name
        return ident

    def __repr__(self) -> str:
        return (
            f"World({self.id!r}: {len(self.agents)} agents, {len(self.places)} places, "
            f"{len(self.objects)} objects, {len(self.events)} events, {len(self.starts)} starts)"
        )

    def start(self, start_id: str | None = None) -> Start:
        """The start point by id; None means the world's default_start, else its first start."""
        if start_id is None:
            start_id = self.info.default_start or None
        if start_id is None:
            if not self.file.start:
                raise WorldError([f"{self.id}: the world has no start points"])
            return self.file.start[0]
        found = self.starts.get(start_id)
        if found is None:
            known = ", ".join(self.starts) or "none"
            raise WorldError([f'{self.id}: unknown start "{start_id}" (starts: {known})'])
        return found

    def events_before(self, start_id: str | None = None) -> list[Event]:
        """Canon events that happen before the start point (its sediment), in story order."""
        start_round = self.start(start_id).round
        return [event for event in self.events if event.round < start_round]

    def events_from(self, start_id: str | None = None) -> list[Event]:
        """Canon events at or after the start point (what the story would do next), in story order."""
        start_round = self.start(start_id).round
        return [event for event in self.events if event.round >= start_round]

    def start_positions(self, start_id: str | None = None) -> dict[str, str]:
        """Where every agent (archived and absent ones too) is at the start point: its start position, else its home."""
        start = self.start(start_id)
        return {agent.id: start.positions.get(agent.id, agent.home) for agent in self.agents.values()}

    def positions(self, start_id: str | None = None) -> dict[str, str]:
        """Where each active agent is at the start point: its start position, else its home."""
        absent = set(self.start(start_id).absent)
        return {
            agent: place for agent, place in self.start_positions(start_id).items()
            if self.agents[agent].status == "active" and agent not in absent
        }

    def active_agents(self) -> list[Agent]:
        """Agents that take part in play (not archived), in file order."""
        return [agent for agent in self.agents.values() if agent.status == "active"]

    def playable_agents(self) -> list[Agent]:
        """Agents a person may play, in file order."""
        return [agent for agent in self.agents.values() if agent.status == "active" and agent.playable]

    def resolve_player(self, wanted: str) -> str:
        """An agent id from an id, a name or an alias (case-insensitive); UserError naming the playable cast."""
        key = wanted.strip().lower()
        playable = ", ".join(a.id for a in self.playable_agents()) or "none"
        for agent in self.file.agent:
            names = {agent.id.lower(), agent.name.lower(), *(a.lower() for a in agent.aliases)}
            if key in names:
                if not agent.playable or agent.status != "active":
                    raise UserError(f"{agent.id} is not playable in {self.id}; playable: {playable}")
                return agent.id
        raise UserError(f"no character {wanted!r} in {self.id}; playable: {playable}")

    def summary(self) -> str:
        """One line of counts: `22 agents, 11 places, 260 events, 2 starts, 9 objects`."""
        return ", ".join(
            _count(n, word)
            for n, word in (
                (len(self.agents), "agent"),
                (len(self.places), "place"),
                (len(self.events), "event"),
                (len(self.starts), "start"),
                (len(self.objects), "object"),
            )
        )


def _count(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"
