"""A scripted player: one line of input per round, in the action bar's syntax; past its end, waiting."""

from __future__ import annotations

import logging
from pathlib import Path

from storyworld.kernel.actions import Action, Wait
from storyworld.errors import UserError
from storyworld.game.playerinput import Play, Problem, Surroundings, parse
from storyworld.kernel.state import WorldState
from storyworld.world import World

log = logging.getLogger("storyworld.game.script")


def read_script(path: str | Path) -> list[str]:
    """The script's lines (blank lines and `#` comments kept out); a clear error if it cannot be read."""
    file = Path(path)
    try:
        text = file.read_text(encoding="utf-8-sig")  # a BOM (Notepad) is not part of the first line
    except FileNotFoundError:
        raise UserError(f"{file}: no such script file") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise UserError(f"{file}: cannot read the script: {exc}") from None
    return [line.strip() for line in text.splitlines() if line.strip() and not line.strip().startswith("#")]


class ScriptedPlayer:
    """Turns script lines into the player's actions, one per round, against the state of that round."""

    def __init__(self, world: World, player: str, script: list[str]) -> None:
        self.world = world
        self.player = player
        self.script = script
        self.index = 0
        self.problems: list[str] = []

    def next_action(self, state: WorldState) -> Action:
        """The action for this round: the next line parsed where the player now stands, else a wait."""
        if self.index >= len(self.script):
            return Wait(actor=self.player)
        line = self.script[self.index]
        self.index += 1
        parsed = parse(line, Surroundings.of(self.world, state, self.player))
        if isinstance(parsed, Play):
            return parsed.action
        why = parsed.message if isinstance(parsed, Problem) else "not an action (no round passes in play)"
        self.problems.append(f"line {self.index}: {line!r}: {why}")
        log.warning("script line %d %r: %s; the player waits", self.index, line, why)
        return Wait(actor=self.player)
