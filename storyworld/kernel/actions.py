"""The six actions an agent can take, as a frozen msgspec tagged union (DESIGN §4.2)."""

from __future__ import annotations

from typing import Literal

import msgspec


class _Action(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True, tag_field="action"):
    """Common fields: who acts."""

    actor: str


# What a line does, chosen from the speaker's memory (DESIGN §4.2a): answer (what was asked, from a
# holding), tell (a holding the listener lacks), ask, lead, summon, greet, react (to what just happened),
# refuse and unknown (an honest "I will not say" / "I do not know"), lie (only when the plan says so);
# free: words not chosen from memory (the person playing, a scripted player).
SpeechAct = Literal["answer", "tell", "ask", "lead", "summon", "greet", "react", "refuse", "unknown", "lie", "free"]


class Told(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """A record a line carries: its listeners come to hold that record, told by the speaker."""

    record: int
    text: str  # the record's statement (a store without shared records keeps it as a row of its own)
    kind: str = "event"  # the record's memory kind


class Claim(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """What a line asserts that no record of the speaker's says: its listeners hold it as the speaker's word."""

    text: str  # one statement, in the third person
    actors: tuple[str, ...] = ()  # who it says did it (agent ids, the doer first)


class Say(_Action, tag="say"):
    """Speak aloud; everyone present hears, `to` is the addressee (optional)."""

    text: str
    to: str | None = None
    tells: tuple[Told, ...] = ()  # the records the line carries (none: an utterance only, never a belief)
    act: SpeechAct = "free"
    rendered: bool = False  # the words are the deterministic rendering (the model's phrasing failed its check)
    claims: tuple[Claim, ...] = ()  # what the line asserts beyond any record (the person playing, read by minds.listening)


class ReadThread(_Action, tag="read_thread"):
    """Catch up on what was said here before the reader arrived."""


class Observe(_Action, tag="observe"):
    """Look around: who is here, what lies about."""


class Move(_Action, tag="move"):
    """Walk to a neighbouring place."""

    to: str


class ActOn(_Action, tag="act_on"):
    """Do something to an object or agent: give, take, read, lie, or any narrative verb."""

    target: str
    verb: str
    text: str = ""
    to: str | None = None  # the recipient of `give` or the listener of `lie`
    place: str | None = None  # where `lead` takes the actor and the one led


class Wait(_Action, tag="wait"):
    """Do nothing this round."""


Action = Say | ReadThread | Observe | Move | ActOn | Wait
ACTION_NAMES: tuple[str, ...] = ("say", "read_thread", "observe", "move", "act_on", "wait")
CARRIER_VERBS: tuple[str, ...] = ("give", "take", "read")
# Verb typing: what each verb may be done to. Objects: `read` needs a readable one (it carries words).
OBJECT_VERBS: tuple[str, ...] = ("take", "give", "read", "show", "hide", "use")
PERSON_VERBS: tuple[str, ...] = ("greet", "embrace", "confront", "accuse", "strike", "expose", "lie", "lead")
WORDED_VERBS: tuple[str, ...] = ("confront", "accuse", "expose", "lie")  # acts done with words: the line is written
VERBS: tuple[str, ...] = (*OBJECT_VERBS, *PERSON_VERBS)


def describe(action: Action) -> str:
    """A short human line for an action (for caches, logs and the transcript)."""
    match action:
        case Say(text=text, to=to):
            return f"said{' to ' + to if to else ''}: {text}"
        case ReadThread():
            return "caught up on the talk here"
        case Observe():
            return "looked around"
        case Move(to=to):
            return f"went to {to}"
        case ActOn(target=target, verb="lead", place=place):
            return f"led {target} to {place}"
        case ActOn(target=target, verb=verb, text=text):
            return f"{verb} {target}{': ' + text if text else ''}"
        case Wait():
            return "waited"
    return "did something"
