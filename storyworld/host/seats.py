"""Seats of a hosted game: one join code per character a person may take, kept in the save with the game."""

from __future__ import annotations

import secrets
from pathlib import Path
from typing import TYPE_CHECKING

import msgspec

from storyworld.errors import UserError
from storyworld.game.session import Session

if TYPE_CHECKING:
    from collections.abc import Callable
    from datetime import datetime

    from storyworld.game.simulation import Simulation

CODE_ALPHABET = "23456789abcdefghjkmnpqrstuvwxyz"  # no 0/o, 1/l/i: read aloud or typed without mistakes
CODE_GROUPS = 3
CODE_GROUP_CHARS = 4  # 12 characters of 31: about 59 bits, unguessable over a socket


class Seat(msgspec.Struct, kw_only=True, forbid_unknown_fields=True):
    """A character people may play, the code that opens it, and whether it is left to an agent."""

    agent: str
    code: str
    left: bool = False  # the person handed the seat to an agent; the code takes it back


def new_code() -> str:
    """A fresh join code from `secrets` ('k7m2-x9qa-3hfd')."""
    return "-".join("".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_GROUP_CHARS))
                    for _ in range(CODE_GROUPS))


def new_seats(agents: list[str]) -> list[Seat]:
    """A seat and a fresh code for each character."""
    return [Seat(agent=agent, code=new_code()) for agent in agents]


def seats_of_save(folder: Path) -> list[Seat]:
    """The seats a hosted save was played with (UserError naming the save when it has none or they are bad)."""
    from saves import SaveError, read_manifest

    try:
        meta = read_manifest(Path(folder)).meta
    except SaveError as exc:
        raise UserError(str(exc)) from None
    raw = meta.get("seats")
    if raw is None:
        raise UserError(f"{folder}: not a hosted game (its manifest has no seats); give --seat to host it")
    try:
        return msgspec.convert(raw, list[Seat])
    except msgspec.ValidationError as exc:
        raise UserError(f"{folder}/manifest.json: meta.seats: {exc}") from None


class HostedSession(Session):
    """A Session whose saves (the slot and every autosave) also carry the seats, so `host SAVE` keeps them."""

    def __init__(self, sim: Simulation, slot: Path | None, *, saves_root: Path | None = None,
                 clock: Callable[[], datetime] | None = None) -> None:
        super().__init__(sim, slot, saves_root=saves_root, clock=clock)
        self.seats: list[Seat] = []  # given by whoever hosts it, right after new() or load()

    def files(self) -> tuple[dict[str, bytes], dict[str, object]]:
        """The session's save files, with the seats in the manifest's metadata."""
        files, meta = super().files()
        seats = self.seats
        meta["seats"] = msgspec.to_builtins(list(seats))
        meta["character"] = ",".join(seat.agent for seat in seats)
        meta["character_name"] = ", ".join(self.world.name_of(seat.agent) for seat in seats) + " (hosted)"
        return files, meta
