"""World state that changes during play: positions, objects, talk, event log, short-term memory."""

from __future__ import annotations

from typing import Literal

import msgspec

from storyworld.kernel.actions import Action, Claim, Told
from storyworld.world.schema import EventKind


class CanonProgress(msgspec.Struct, kw_only=True):
    """Which canon beats the run has met or left behind (saved with the state)."""

    met: list[str] = msgspec.field(default_factory=list)  # beat ids done in play
    dropped: list[str] = msgspec.field(default_factory=list)  # beat ids the story moved on from
    summoned: list[str] = msgspec.field(default_factory=list)  # the player's beats someone sent word of
    # beat id -> witnesses who were there for it: met for them, while it stays open for its actors
    witnessed: dict[str, list[str]] = msgspec.field(default_factory=dict)
    # beat id -> who was there when it happened in play (a player's Goals tick done only what they saw)
    present: dict[str, list[str]] = msgspec.field(default_factory=dict)
    # beat ids met in play that the story declined to narrate (RoundOutcome.declined): never ticked done
    declined: list[str] = msgspec.field(default_factory=list)

    def met_by(self, agent: str) -> set[str]:
        """Beats met in play, and those `agent` was there for as a witness."""
        return {*self.met, *(beat for beat, who in self.witnessed.items() if agent in who)}

CachePolicy = Literal["fifo", "relevance", "hybrid"]
AwakePolicy = Literal["all", "near"]


class SimEvent(msgspec.Struct, frozen=True, kw_only=True):
    """One resolved happening in the simulation, as every witness saw it."""

    id: str
    round: int
    place: str
    actor: str
    kind: EventKind
    text: str
    witnesses: tuple[str, ...] = ()
    target: str | None = None
    claim: str | None = None  # what was asserted, for say/lie
    fallback: bool = False  # the actor's decision was a logged fallback
    to: str | None = None  # the addressee of a say, the recipient of a give, the one led
    verb: str | None = None  # for act events
    from_place: str | None = None  # for moves (and leads): where the mover came from
    detail: str = ""  # for act events: the words said or the manner described while doing it
    act: str | None = None  # for say events: the speech act (answer, tell, ask, ...; see kernel.actions.SpeechAct)
    tells: tuple[int, ...] = ()  # for say events: the records the line carried to its listeners
    rendered: bool = False  # for say events: the deterministic rendering was spoken
    led_by: str | None = None  # for moves: whom the mover went along with (led, or a companion of their beat)
    beat: str | None = None  # for narration: the canon beat it tells
    word_from: str | None = None  # for narration: word of what happened at this place reaching the witnesses


class ThreadLine(msgspec.Struct, frozen=True, kw_only=True):
    """One line of talk at a place, for read_thread."""

    round: int
    speaker: str
    text: str
    event_id: str
    heard_by: tuple[str, ...] = ()
    to: str | None = None  # whom it was spoken to (None: everyone here)
    narration: str = ""  # the utterance as its hearers remember it ("Ada tells Maren in the mill: ...")
    tells: tuple[Told, ...] = ()  # the records the line carried
    act: str | None = None  # the speech act (a question is asked of whoever it was spoken to)
    claims: tuple[Claim, ...] = ()  # what the line asserted beyond any record (the person's words, read)


class CacheEntry(msgspec.Struct, frozen=True, kw_only=True):
    """One action–result pair in short-term memory: what was done (typed, and as words) and what came of it."""

    round: int
    action: str  # the action in words, for prompts and the relevance eviction
    result: str
    done: Action | None = None  # the action itself (None in saves from before it was kept)


class ShortTerm(msgspec.Struct, kw_only=True):
    """An agent's short-term memory: goal stack, status register, action–result cache."""

    goals: list[str] = msgspec.field(default_factory=list)
    status: dict[str, str] = msgspec.field(default_factory=dict)
    cache: list[CacheEntry] = msgspec.field(default_factory=list)


class Settings(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Run settings that travel with a save."""

    seed: int = 0
    backend: str = "consensus"
    cache_policy: CachePolicy = "fifo"
    cache_size: int = 6
    awake: AwakePolicy = "all"
    merge: bool = True
    recall_k: int = 4
    max_awake: int = 3  # near scheduling: most agents deciding in one round besides the player (a crowd takes turns)
    player: str | None = None
    model: str = ""


class WorldState(msgspec.Struct, kw_only=True):
    """Everything about the running world that is not the memory store."""

    world_id: str
    world_digest: str
    start_id: str
    round: int
    start_round: int
    positions: dict[str, str]
    object_holders: dict[str, str | None]  # object -> agent holding it, or None
    object_places: dict[str, str | None]  # object -> place it lies at, or None
    threads: dict[str, list[ThreadLine]] = msgspec.field(default_factory=dict)
    events: list[SimEvent] = msgspec.field(default_factory=list)
    shortterm: dict[str, ShortTerm] = msgspec.field(default_factory=dict)
    arrived: dict[str, int] = msgspec.field(default_factory=dict)  # agent -> round it reached its place
    # agent -> round it set off with news for one who lacks it (a messenger keeps its turn where it arrives)
    carrying: dict[str, int] = msgspec.field(default_factory=dict)
    actions: list[Action] = msgspec.field(default_factory=list)  # every resolved action, for Table 5 counts
    lies: dict[str, str] = msgspec.field(default_factory=dict)  # claim event id -> liar
    rng_state: list[int] = msgspec.field(default_factory=list)
    fallbacks: int = 0
    absent: list[str] = msgspec.field(default_factory=list)  # out of play: dead or not yet come
    canon: CanonProgress = msgspec.field(default_factory=CanonProgress)  # beats met or left behind
    invalid: int = 0  # actions the kernel had to refuse (a mind's choice it could not carry out)
    draw: int = 0  # the drawing the last round played was (RoundOutcome.draw): a retry draws the next one

    def present(self, place: str) -> list[str]:
        """Agents in play at a place, in id order."""
        return sorted(a for a, p in self.positions.items() if p == place and a not in self.absent)
