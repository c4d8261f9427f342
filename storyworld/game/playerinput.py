"""The player's input language: a line of the action bar (or of a script) parsed into a kernel action."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from storyworld.kernel.actions import ActOn, Action, Move, Observe, ReadThread, Say, Wait
from storyworld.kernel.perception import present_at
from storyworld.world.limits import player_line
from storyworld.world.schema import Agent

if TYPE_CHECKING:
    from storyworld.kernel.state import WorldState
    from storyworld.world import World

COMMANDS: tuple[tuple[str, str, str], ...] = (
    ("say", "/say [@who] text", "speak; everyone here hears you; @who (or who:) is the one you address"),
    ("move", "/move place", "walk to a neighbouring place"),
    ("observe", "/observe", "look around: who is here, what lies about"),
    ("act", "/act target verb [to who] [text]", "give, take or read an object, or any other deed"),
    ("read", "/read", "catch up on what was said here before you came"),
    ("wait", "/wait", "let a round pass"),
    ("recall", "/recall query", "ask your own memory (no round passes)"),
    ("help", "/help", "this list"),
)
COMMAND_NAMES: tuple[str, ...] = tuple(name for name, _, _ in COMMANDS)
# Interactive fiction's words (Inform 7 / Frotz), typed bare: (usage, what), shown in /help.
ALIASES: tuple[tuple[str, str], ...] = (
    ("look, l", "look around (/observe)"),
    ("examine X, x X", "look closely at someone or something here (/act X examine)"),
    ("inventory, i", "what you carry (no round passes)"),
    ("again, g", "do your last action once more"),
    ("wait, z", "let a round pass (/wait)"),
    ("n e s w ne se sw nw u d, go X", "walk out by an exit: the Map tab gives each exit its direction"),
)
# Compass words name a place's exits in the order the world lists them: the first exit is north, and so on.
DIRECTIONS: tuple[tuple[str, str], ...] = (
    ("north", "n"), ("east", "e"), ("south", "s"), ("west", "w"), ("northeast", "ne"), ("southeast", "se"),
    ("southwest", "sw"), ("northwest", "nw"), ("up", "u"), ("down", "d"),
)
_DIRECTION_INDEX = {word: i for i, pair in enumerate(DIRECTIONS) for word in pair}


@dataclass(frozen=True)
class Play:
    """A command that becomes the player's action for the next round."""

    action: Action


@dataclass(frozen=True)
class Recall:
    """Search the player's memory; no round passes."""

    query: str


@dataclass(frozen=True)
class Help:
    """Show the command list."""


@dataclass(frozen=True)
class Inventory:
    """List what the player carries; no round passes."""


@dataclass(frozen=True)
class Again:
    """Do the player's last action once more (the screen knows which it was)."""


@dataclass(frozen=True)
class Problem:
    """The input could not be understood; `message` says why and what would work."""

    message: str


Parsed = Play | Recall | Help | Inventory | Again | Problem


@dataclass(frozen=True)
class Surroundings:
    """What the parser and the completer may refer to: who is here, where one can go, what is at hand."""

    player: str
    present: tuple[str, ...]  # other active agents at the player's place
    exits: tuple[str, ...]
    objects: tuple[str, ...]  # objects here or held by the player
    aliases: dict[str, str]  # lower-cased name, id or alias -> id (agents, places, objects)
    ids: tuple[str, ...] = ()  # every agent, place and object id, for completion
    held: tuple[str, ...] = ()  # the objects the player carries

    def direction_of(self, exit_id: str) -> str:
        """The compass word an exit answers to ("" past the tenth exit)."""
        at = self.exits.index(exit_id)
        return DIRECTIONS[at][0] if at < len(DIRECTIONS) else ""

    @classmethod
    def of(cls, world: World, state: WorldState, player: str) -> Surroundings:
        """The scene around the player in a world state."""
        place = state.positions[player]
        present = present_at(world, state, place, besides=player)
        objects = tuple(sorted(
            o for o in world.objects
            if state.object_places.get(o) == place or state.object_holders.get(o) == player
        ))
        aliases: dict[str, str] = {}
        for table in (world.places, world.objects, world.agents):  # agents last: a name wins over a prop
            for ident, item in table.items():
                aliases[ident.lower()] = ident
                aliases[item.name.lower()] = ident
                aliases[item.name.lower().replace(" ", "-")] = ident
                for alias in item.aliases if isinstance(item, Agent) else ():  # only people have aliases
                    aliases[alias.lower()] = ident
        return cls(
            player=player, present=present, exits=tuple(world.places[place].exits), objects=objects,
            aliases=aliases, ids=tuple(sorted({*world.agents, *world.places, *world.objects})),
            held=tuple(o for o in objects if state.object_holders.get(o) == player),
        )

    def resolve(self, word: str, among: tuple[str, ...]) -> str | None:
        """The id among `among` that a typed word names (id, name or alias; unique prefix allowed)."""
        key = word.strip().strip("@,:;.!?").lower()
        if not key:
            return None
        ident = self.aliases.get(key)
        if ident in among:
            return ident
        matches = [i for i in among if i.lower().startswith(key)]
        matches += [i for name, i in self.aliases.items() if name.startswith(key) and i in among and i not in matches]
        return matches[0] if len(set(matches)) == 1 else None


def parse(text: str, scene: Surroundings) -> Parsed:
    """Turn a line from the action bar into an action for the round, a local request, or a problem."""
    clean, too_long = player_line(text)  # the limits a world's texts keep: no control characters, a length
    if too_long:
        return Problem(too_long)
    line = " ".join(clean.split())
    if not line:
        return Problem("type a line to say it, or /help for the commands")
    if not line.startswith("/"):
        alias = _fiction(line, scene)
        return alias if alias is not None else _say(line, scene)  # plain text is speech: the most common thing
    head, _, rest = line[1:].partition(" ")
    name = head.lower()
    candidates = [c for c in COMMAND_NAMES if c.startswith(name)] if name else []
    if name not in COMMAND_NAMES:
        if len(candidates) != 1:
            return Problem(f"unknown command /{head}; try /help")
        name = candidates[0]
    actor = scene.player
    match name:
        case "say":
            return _say(rest, scene) if rest else Problem("/say needs something to say, e.g. /say Who's there?")
        case "move":
            if not rest:
                return Problem("/move needs a place: " + (", ".join(scene.exits) or "there is no way out of here"))
            place = scene.resolve(rest, scene.exits)
            if place is None:
                return Problem(f"no way to {rest!r} from here; exits: {', '.join(scene.exits) or 'none'}")
            return Play(Move(actor=actor, to=place))
        case "observe":
            return Play(Observe(actor=actor))
        case "read":
            return Play(ReadThread(actor=actor))
        case "wait":
            return Play(Wait(actor=actor))
        case "recall":
            return Recall(rest) if rest else Problem("/recall needs a query, e.g. /recall the ghost")
        case "help":
            return Help()
        case "act":
            return _act(rest, scene)
    return Problem(f"unknown command /{head}; try /help")


def _fiction(line: str, scene: Surroundings) -> Parsed | None:
    """Interactive fiction's bare words (look, x X, i, again, z, n, go X), or None: the line is speech."""
    head, _, rest = line.partition(" ")
    word, rest = head.lower(), rest.strip()
    actor = scene.player
    if not rest:
        if word in ("look", "l"):
            return Play(Observe(actor=actor))
        if word in ("wait", "z"):
            return Play(Wait(actor=actor))
        if word in ("inventory", "inv", "i"):
            return Inventory()
        if word in ("again", "g"):
            return Again()
        if word in _DIRECTION_INDEX:
            at = _DIRECTION_INDEX[word]
            if at >= len(scene.exits):
                ways = ", ".join(f"{DIRECTIONS[i][1]} ({e})" for i, e in enumerate(scene.exits[:len(DIRECTIONS)]))
                return Problem(f"no way {DIRECTIONS[at][0]} from here; exits: {ways or 'none'}")
            return Play(Move(actor=actor, to=scene.exits[at]))
        return None
    if word in ("look", "l") and rest.lower().startswith("at "):
        word, rest = "examine", rest[3:].strip()
    if word in ("examine", "x", "go"):
        target = rest[4:] if rest.lower().startswith("the ") else rest
        if word == "go":
            place = scene.resolve(target, scene.exits)
            if place is None and target.lower() in _DIRECTION_INDEX:
                return _fiction(target, scene)
            return Play(Move(actor=actor, to=place)) if place is not None else None  # "Go away!" is speech
        reachable = (*scene.objects, *scene.present)
        found = scene.resolve(target, reachable)
        if found is None:
            return Problem(f"{target!r} is not here to examine; you can reach: {', '.join(reachable) or 'nothing'}")
        return Play(ActOn(actor=actor, target=found, verb="examine"))
    return None


def _say(rest: str, scene: Surroundings) -> Parsed:
    """`[@who] text`, `who: text`, `who, text` or `to who text` -> Say with an addressee when one is named."""
    words = rest.split(" ")
    first = words[0]
    to: str | None = None
    if first.startswith("@") or first.endswith((":", ",")):
        to = scene.resolve(first, scene.present)
        if first.startswith("@") and to is None:
            here = ", ".join(scene.present) or "nobody"
            return Problem(f"{first} is not here to hear you; here: {here}")
        if to is not None and not first.endswith(","):
            words = words[1:]  # "@who" and "who:" only address; "Who, ..." is part of the line as spoken
    elif first.lower() == "to" and len(words) > 2:
        to = scene.resolve(words[1], scene.present)
        if to is not None:
            words = words[2:]
    speech = " ".join(words).strip()
    if not speech:
        who = f"@{scene.present[0]} " if scene.present else ""
        return Problem(f"say what? e.g. /say {who}Who's there?")
    return Play(Say(actor=scene.player, text=speech, to=to))


def _act(rest: str, scene: Surroundings) -> Parsed:
    """`target verb [to who] [text]`."""
    words = rest.split(" ") if rest else []
    if len(words) < 2:
        example = f"/act {(scene.objects or scene.present)[0]} {'take' if scene.objects else 'greet'}" if (
            scene.objects or scene.present) else "/act target verb"
        return Problem(f"/act needs a target and a verb, e.g. {example}")
    reachable = (*scene.objects, *scene.present)
    target = scene.resolve(words[0], reachable)
    if target is None:
        return Problem(f"{words[0]!r} is not at hand; you can reach: {', '.join(reachable) or 'nothing'}")
    verb = words[1].lower()
    tail = words[2:]
    to: str | None = None
    if tail and tail[0].lower() == "to" and len(tail) > 1:
        to = scene.resolve(tail[1], scene.present)
        if to is not None:
            tail = tail[2:]
    elif tail:
        to = scene.resolve(tail[0], scene.present) if verb in ("give", "lie", "show") else None
        if to is not None:
            tail = tail[1:]
    if verb == "give" and to is None:
        example = f"/act {target} give {scene.present[0]}" if scene.present else "nobody is here to take it"
        return Problem(f"give it to whom? e.g. {example}")
    return Play(ActOn(actor=scene.player, target=target, verb=verb, text=" ".join(tail), to=to))


def help_text() -> str:
    """The command list as markdown."""
    lines = ["| command | does |", "|---|---|"]
    lines += [f"| `{usage}` | {what} |" for _, usage, what in COMMANDS]
    lines.append("")
    lines.append("Plain text without a slash is said aloud. Tab accepts a completion.")
    return "\n".join(lines)
