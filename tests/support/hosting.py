"""Hosted games for tests: the coterie world hosted on loopback, and waiting on a player's next message."""

from __future__ import annotations

import time
from pathlib import Path
from typing import TypeVar

from storyworld.host.client import Player
from storyworld.host.seats import HostedSession, new_seats
from storyworld.host.server import Hosting, WorldServer
from storyworld.kernel.state import Settings
from storyworld.world import load_world
from tests.support.doubles import HashEmbedder, ScriptedMind
from tests.support.paths import COTERIE

EVERYONE = ("ansel", "bea", "cato", "dora", "emil", "fern", "gus", "hilde")  # the coterie's eight people
MessageT = TypeVar("MessageT")


def hosted(tmp_path: Path, seats: tuple[str, ...], *, timeout: float = 30.0, mind=None) -> Hosting:
    """A hosted coterie game on loopback (the hash embedder: these tests are about seats, not recall)."""
    world = load_world(COTERIE)
    if mind is None and len(seats) < len(EVERYONE):
        mind = ScriptedMind()  # the characters nobody sits in look around
    session = HostedSession.new(world, None, Settings(seed=3), mind, embedder=HashEmbedder(), slot=tmp_path / "game")
    session.seats = new_seats(list(seats))
    session.autosave()  # the start, and the autosave an undo of round one goes back to
    return Hosting(WorldServer(session, turn_timeout=timeout))


async def until(player: Player, kind: type[MessageT], timeout: float = 20.0) -> MessageT:
    """The next message of `kind` (others are read past); bounded."""
    deadline = time.monotonic() + timeout
    while True:
        message = await player.receive(max(0.01, deadline - time.monotonic()))
        if isinstance(message, kind):
            return message
