"""What the readers of a run need of a simulation (game.Simulation is one; report may not import game)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from memory.store import MemoryStore
    from storyworld.kernel.state import Settings, WorldState
    from storyworld.world import World


class Run(Protocol):
    """A simulation as a report reads it: its world, state, settings and store."""

    @property
    def world(self) -> World:
        """The world being played."""

    @property
    def state(self) -> WorldState:
        """The world state now."""

    @property
    def settings(self) -> Settings:
        """The run's settings."""

    @property
    def store(self) -> MemoryStore:
        """The memory store."""
