"""World file schema: strict msgspec structs for the TOML tables of a world (DESIGN §4.1)."""

from __future__ import annotations

from typing import Literal

import msgspec

AgentStatus = Literal["active", "archived"]
# What an event is, one vocabulary for the canon of a world file and for what the kernel resolves in play.
EventKind = Literal["say", "act", "move", "observe", "read", "wait", "narration"]
# The kinds a world file's canon may use: reading a carrier and waiting happen only in play.
CanonKind = Literal["say", "act", "move", "observe", "narration"]
Pronouns = Literal["he", "she", "they"]


class Base(msgspec.Struct, forbid_unknown_fields=True, kw_only=True, omit_defaults=True, frozen=True):
    # msgspec applies kw_only only to fields a class defines itself, so each table repeats it.
    """Policy for world tables: unknown keys are errors; defaults stay out of written files."""


class WorldInfo(Base, frozen=True, kw_only=True):
    """The [world] table."""

    id: str
    title: str
    source: str = ""
    language: str = "en"
    default_start: str = ""
    description: str = ""
    # how its people's names are built: "given-first" (Kasimir Dole, called Kasimir) or "family-first"
    # (Guan Yu: "Guan" alone is nobody's name)
    name_order: Literal["given-first", "family-first"] = "given-first"


class Place(Base, frozen=True, kw_only=True):
    """A [[place]]: somewhere agents can be."""

    id: str
    name: str
    description: str = ""
    exits: list[str] = msgspec.field(default_factory=list)
    native_name: str = ""  # the name in the source's own script (洛陽 for Luoyang)


class Agent(Base, frozen=True, kw_only=True):
    """An [[agent]]: a character, played by a person or a model."""

    id: str
    name: str
    description: str = ""
    home: str
    goals: list[str] = msgspec.field(default_factory=list)
    status: AgentStatus = "active"
    playable: bool = True
    aliases: list[str] = msgspec.field(default_factory=list)  # other names, in any script (Xuande, 玄德)
    native_name: str = ""  # the name in the source's own script (劉備 for Liu Bei)
    pronouns: Pronouns = "they"  # how the world speaks of them: said by them, "he"/"she" in a record becomes "I"
    # canon event ids whose deeds this character keeps to itself (asked, it denies); goals may say so too
    secrets: list[str] = msgspec.field(default_factory=list)

    def all_names(self) -> list[str]:
        """Name, native name and aliases, each once, in that order."""
        return list(dict.fromkeys(n for n in [self.name, self.native_name, *self.aliases] if n))


class WorldObject(Base, frozen=True, kw_only=True):
    """An [[object]]: a prop or a carrier of information (letter, seal, poison)."""

    id: str
    name: str
    description: str = ""
    holder: str | None = None
    place: str | None = None
    carries: str = ""
    forged: bool = False  # what it carries is false: exposing it retracts what readers took from it


class Event(Base, frozen=True, kw_only=True):
    """An [[event]] of the canon, in story order."""

    id: str
    round: int
    place: str
    actors: list[str] = msgspec.field(default_factory=list)
    witnesses: list[str] | None = None  # None: the actors
    kind: CanonKind = "narration"
    # the play's staging, not its story: stage business (an entrance, a flourish) or a line the stage sets apart
    # (an aside, a voice from within); its witnesses hold it, nobody tells or quotes it. Set where it is authored.
    staging: bool = False
    text: str
    statements: list[str] = msgspec.field(default_factory=list)
    flags: list[str] = msgspec.field(default_factory=list)

    def witness_ids(self) -> list[str]:
        """Witnesses, defaulting to the actors."""
        return list(self.witnesses) if self.witnesses is not None else list(self.actors)


class Start(Base, frozen=True, kw_only=True):
    """A [[start]] point: the round play begins at; canon before it is sediment."""

    id: str
    round: int
    description: str = ""
    positions: dict[str, str] = msgspec.field(default_factory=dict)  # agent -> place at start
    absent: list[str] = msgspec.field(default_factory=list)  # agents out of play here: dead, or not yet come


class WorldFile(Base, frozen=True, kw_only=True):
    """A whole world file."""

    world: WorldInfo
    place: list[Place] = msgspec.field(default_factory=list)
    agent: list[Agent] = msgspec.field(default_factory=list)
    object: list[WorldObject] = msgspec.field(default_factory=list)
    event: list[Event] = msgspec.field(default_factory=list)
    start: list[Start] = msgspec.field(default_factory=list)


# The top-level tables of a world file, in the order they are written.
TABLES: dict[str, type[msgspec.Struct]] = {
    "world": WorldInfo,
    "place": Place,
    "agent": Agent,
    "object": WorldObject,
    "event": Event,
    "start": Start,
}
ARRAY_TABLES = ("place", "agent", "object", "event", "start")

FieldPath = tuple[str | int, ...]  # a field path: ("agent", 3, "home")
