"""Waiting on a hosted game's players: the next message of a kind, bounded."""

from __future__ import annotations

import time
from typing import TypeVar

from storyworld.host.client import Player

MessageT = TypeVar("MessageT")


async def until(player: Player, kind: type[MessageT], timeout: float = 20.0) -> MessageT:
    """The next message of `kind` (others are read past); bounded."""
    deadline = time.monotonic() + timeout
    while True:
        message = await player.receive(max(0.01, deadline - time.monotonic()))
        if isinstance(message, kind):
            return message
