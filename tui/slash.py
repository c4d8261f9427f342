"""The action bar's language: slash commands parsed into kernel actions, and their completions."""

from __future__ import annotations

from textual.suggester import Suggester

from storyworld.kernel.actions import VERBS
from storyworld.game.playerinput import (  # noqa: F401 — the action bar's parser lives in the core; re-exported here
    ALIASES, COMMAND_NAMES, COMMANDS, Again, Help, Inventory, Play, Problem, Recall, Surroundings, parse,
)


def complete(value: str, scene: Surroundings) -> str | None:
    """The whole line with its last word completed, or None; case of what was typed is kept.

    A word that starts with `@` completes to someone present, in a bare line as after a command.
    """
    words = value.split(" ")
    if not words[-1].lstrip("@") and (len(words) > 1 or not value.startswith("/")):
        return None  # an empty argument would suggest the first option, which is noise while typing
    found = choices(value, scene)
    return found[0] if found else None


def choices(value: str, scene: Surroundings) -> tuple[str, ...]:
    """Every whole line the last word can complete to, in order (an empty last word: every option)."""
    words = value.split(" ")
    last = words[-1]
    options: tuple[str, ...]
    if not value.startswith("/"):
        if not last.startswith("@"):
            return ()
        prefix, stem, options = "@", last[1:], scene.present
    elif len(words) == 1:
        options = COMMAND_NAMES
        prefix, stem = "/", last[1:]
    else:
        command = words[0][1:].lower()
        position = len(words) - 1  # 1 = first argument
        prefix, stem = "", last
        options = _argument_options(command, position, words, scene)
        if stem.startswith("@"):
            prefix, stem = "@", stem[1:]
            options = scene.present
    return tuple(" ".join([*words[:-1], prefix + stem + option[len(stem):]]) for option in options
                 if option.lower().startswith(stem.lower()) and option.lower() != stem.lower())


def _argument_options(command: str, position: int, words: list[str], scene: Surroundings) -> tuple[str, ...]:
    """What can stand at argument `position` of a command."""
    match command:
        case "move":
            return scene.exits if position == 1 else ()
        case "say":
            if position == 1 or (position == 2 and words[1].lower() == "to"):
                return scene.present
            return ()
        case "act":
            if position == 1:
                return (*scene.objects, *scene.present)
            if position == 2:
                return VERBS
            if position in (3, 4):
                return ("to", *scene.present) if position == 3 else scene.present
            return ()
        case "recall":
            return scene.ids
    return ()


class SlashSuggester(Suggester):
    """Input suggester over the current scene (replaced each round, so no cache)."""

    def __init__(self, scene: Surroundings | None = None) -> None:
        super().__init__(use_cache=False, case_sensitive=True)
        self.scene = scene

    async def get_suggestion(self, value: str) -> str | None:
        """Complete the last word of the line."""
        if self.scene is None:
            return None
        return complete(value, self.scene)
