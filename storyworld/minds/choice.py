"""The choice step: which action, from a menu where every branch is valid by construction.

The policy settles what a reader would expect without asking the model (answer who spoke to you,
go where the canon needs you, bring along who must come); otherwise the model picks one branch of
a grammar whose branches are the actions, each with only its own fields and only valid values.
"""

from __future__ import annotations

import logging
import random
import re
from typing import Literal

import msgspec

from storyworld.kernel.actions import ActOn, Action, Move, Observe, ReadThread, Say, Wait, WORDED_VERBS
from storyworld.minds.content import is_asking, is_question
from storyworld.minds.context import DecisionContext, Purpose
from storyworld.minds.direction import shortest_path
from storyworld.world import World

log = logging.getLogger("storyworld.minds")

# A verb on a person is offered only when the canon beat calls for it (or the person just arrived, for
# greet): a watchman does not strike a stranger because the grammar allowed it.
PERSON_CUES: dict[str, tuple[str, ...]] = {
    "greet": ("greet", "welcome", "hail", "salute", "bow"),
    "embrace": ("embrace", "kiss", "hug", "weep", "comfort", "clasp"),
    "confront": ("confront", "challenge", "demand", "rebuke", "scold", "question", "threaten"),
    "accuse": ("accuse", "blame", "charge", "denounce"),
    "strike": ("strike", "stab", "kill", "hit", "wound", "attack", "fight", "duel", "slay", "murder", "fence"),
    "expose": ("expose", "unmask", "reveal the truth", "uncover"),
    "lie": ("lie", "lies", "deceive", "pretend", "feign", "trick", "false"),
}


GIVE_CUES = ("give", "gives", "gave", "hand", "offer", "present", "pass", "deliver", "return")


class Plan(msgspec.Struct, frozen=True, kw_only=True):
    """A chosen action before its words: the action (text empty), what the line is for, and who chose."""

    action: Action
    purpose: Purpose
    chosen_by: Literal["policy", "model", "fallback"] = "policy"
    question: str = ""  # for an agenda's ask: the question, in the words of the goal it serves
    record: int | None = None  # for a bidden telling: the holding to tell (Knowledge.bidden)

    @property
    def needs_words(self) -> bool:
        """Speech, and acts done with words, get a written line."""
        match self.action:
            case Say():
                return True
            case ActOn(verb=verb):
                return verb in WORDED_VERBS or verb == "lead"
        return False


def _mentions(text: str, cues: tuple[str, ...]) -> bool:
    lowered = text.lower()
    return any(re.search(rf"\b{re.escape(cue)}", lowered) for cue in cues)


def _name_words(name: str) -> set[str]:
    return {w for w in re.findall(r"[\w']+", name.lower()) if len(w) > 3} - {"with", "from", "that", "this"}


class Menu(msgspec.Struct, frozen=True, kw_only=True):
    """Every valid choice this agent has this round, typed: who can be spoken to, what can be done to what.

    `labels` say the options in words ("speak to Laertes"), one per option in `options()` order; `menu`
    fills them in from the world's names. The model reads them numbered and answers with a number: one
    or two tokens to generate. `shown` is the order they are numbered in, shuffled by the decision's
    seed: a small model picks the first number far more often than any other, and in a fixed order
    that made every character speak to whoever is listed first (answering with a label's words instead
    made it pick "look around" far more often than it used to).
    """

    say_to: tuple[str, ...]  # people present (a line is always spoken to someone)
    acts: tuple[tuple[str, str, str | None], ...]  # (verb, target, to) triples, each one valid
    read_thread: bool
    observe: bool = True
    wait: bool = True
    labels: tuple[str, ...] = ()
    shown: tuple[int, ...] = ()  # the options' indices in the order they are numbered (default: as listed)

    def options(self, agent: str) -> list[Action]:
        """The actions on the menu, in the order of `labels`."""
        out: list[Action] = [Say(actor=agent, text="", to=to) for to in self.say_to]
        out.extend(ActOn(actor=agent, verb=verb, target=target, to=to) for verb, target, to in self.acts)
        if self.read_thread:
            out.append(ReadThread(actor=agent))
        if self.observe:
            out.append(Observe(actor=agent))
        if self.wait:
            out.append(Wait(actor=agent))
        return out

    def schema(self) -> dict[str, object]:
        """The option's number: the grammar admits only what is on the menu."""
        return {"type": "object", "properties": {"pick": {"enum": list(range(1, len(self.labels) + 1))}},
                "required": ["pick"]}

    def order(self) -> tuple[int, ...]:
        """Which option each number stands for (number n is option order()[n - 1])."""
        return self.shown if sorted(self.shown) == list(range(len(self.labels))) else tuple(range(len(self.labels)))

    def lines(self, world: World) -> list[str]:
        """The options as the model sees them, numbered, one per line."""
        return [f"{number}. {self.labels[index]}" for number, index in enumerate(self.order(), start=1)]

    def to_action(self, agent: str, obj: dict[str, object]) -> Action | None:
        """The action a schema-valid object names, or None if it is not on the menu."""
        pick = obj.get("pick")
        if not isinstance(pick, int) or isinstance(pick, bool) or not 1 <= pick <= len(self.labels):
            return None
        return self.options(agent)[self.order()[pick - 1]]


def labels(world: World, say_to: tuple[str, ...], acts: tuple[tuple[str, str, str | None], ...],
           read_thread: bool, observe: bool = True, wait: bool = True) -> tuple[str, ...]:
    """What each option says, in plain words and distinct ("speak to Laertes", "read the letter")."""
    def name(thing: str) -> str:
        return world.agents[thing].name if thing in world.agents else world.objects[thing].name

    out = [f"speak to {name(to)}" for to in say_to]
    out.extend(f"{verb} {name(target)}" + (f" to {name(to)}" if to else "") for verb, target, to in acts)
    if read_thread:
        out.append("catch up on the talk here")
    if observe:
        out.append("look around")
    if wait:
        out.append("stay quiet and listen")
    seen: dict[str, int] = {}
    distinct = []
    for label in out:  # two things of one name stay two options
        seen[label] = seen.get(label, 0) + 1
        distinct.append(label if seen[label] == 1 else f"{label} ({seen[label]})")
    return tuple(distinct)


def menu(world: World, context: DecisionContext) -> Menu:
    """The typed menu: verbs only on targets of the right kind, gated by what the canon beat calls for."""
    p = context.perception
    direction = context.intention.text if context.intention else ""
    beat_people = set(context.intention.meet) if context.intention else set()
    acts: list[tuple[str, str, str | None]] = []
    for person in p.present:
        for verb, cues in PERSON_CUES.items():
            called = person in beat_people and _mentions(direction, cues)
            if called or (verb == "greet" and person in context.arrivals):
                acts.append((verb, person, None))
    for obj in p.objects_here:
        if _name_words(world.objects[obj].name) & set(re.findall(r"[\w']+", direction.lower())):
            acts.append(("take", obj, None))
    for obj in p.objects_held:
        # a carrier once read is known: reading it again and again is no story
        if world.objects[obj].carries and obj not in context.read_already:
            acts.append(("read", obj, None))
    giving = _mentions(direction, GIVE_CUES)
    for obj in p.objects_held:
        named = _name_words(world.objects[obj].name) & set(re.findall(r"[\w']+", direction.lower()))
        for person in p.present:
            if giving and named and person in beat_people:
                acts.append(("give", obj, person))
    # a line is always spoken to someone: "to everyone" invites a small model to narrate instead of speak
    say_to = people_first(context)
    unique = tuple(dict.fromkeys(acts))
    read_thread = context.missed_lines > 0
    menu_labels = labels(world, say_to, unique, read_thread)
    shown = list(range(len(menu_labels)))
    random.Random(context.seed).shuffle(shown)
    return Menu(say_to=say_to, acts=unique, read_thread=read_thread, labels=menu_labels, shown=tuple(shown))


MENU_PEOPLE = 24  # people a choice prompt names at most: a crowd would not fit a small model's context
_warned: set[tuple[str, int]] = set()


def people_first(context: DecisionContext, limit: int = MENU_PEOPLE) -> tuple[str, ...]:
    """Who the menu offers to speak to: everyone present, or in a crowd the `limit` who matter most.

    By priority: whoever spoke to this agent, the people of its beat, who just arrived, then the
    rest in the order they are present. Trimming is logged once per agent and crowd size.
    """
    present = tuple(context.perception.present)
    if len(present) <= limit:
        return present
    first = [context.addressed_by.speaker] if context.addressed_by is not None else []
    first += list(context.intention.meet) if context.intention is not None else []
    first += list(context.arrivals)
    chosen = tuple(dict.fromkeys([a for a in first if a in present] + list(present)))[:limit]
    key = (context.agent, len(present))
    if key not in _warned:
        _warned.add(key)
        log.warning("%s is with %d people: the choice prompt names the %d who matter most (who spoke to them, "
                    "their beat's people, newcomers), so it fits the model's context", context.agent, len(present),
                    limit)
    return chosen


def policy(world: World, context: DecisionContext) -> Plan | None:
    """What a reader would expect without asking the model, or None when the choice is open.

    1. Someone here spoke to you: answer them (unless the canon is pulling you away and you answered
       them last round already — then go).
    2. The canon needs you elsewhere: bring along a co-actor who is here and must come too, else go.
    3. The canon's beat is here and its people are present: do it (speak it, with words).
    4. Alone with nothing due: look around on arrival, else keep still.
    """
    p = context.perception
    agent = context.agent
    intention = context.intention
    addressed = context.addressed_by
    away = intention is not None and intention.place != p.place
    if context.replying and addressed is not None:
        return Plan(action=Say(actor=agent, text="", to=addressed.speaker), purpose="answer")
    # a line that answers you does not demand another answer (two agents do not talk in a loop forever);
    # a question does, even one that crossed your own line to them
    is_reply = addressed is not None and not is_asking(addressed) and any(
        c.round in (addressed.round - 1, addressed.round) and isinstance(c.done, Say) and c.done.to == addressed.speaker
        for c in context.shortterm.cache
    )
    if addressed is not None and addressed.speaker in p.present and not is_reply:
        return Plan(action=Say(actor=agent, text="", to=addressed.speaker), purpose="answer")
    call = context.player_call
    if call is not None and context.player in p.present and not (intention and context.player in intention.companions):
        # the story needs the player elsewhere: whoever is with them sends word, in character
        return Plan(action=Say(actor=agent, text="", to=context.player), purpose="summon")
    if away and intention is not None:  # away implies an intention; the test narrows it
        path = shortest_path(world, p.place, intention.place)
        if path:
            companions = [c for c in intention.companions if c in p.present]
            if companions:
                return Plan(action=ActOn(actor=agent, verb="lead", target=companions[0], place=path[0]),
                            purpose="lead")
            return Plan(action=Move(actor=agent, to=path[0]), purpose="beat")
    if intention is not None and intention.place == p.place and intention.role == "actor":
        people = [m for m in intention.meet if m in p.present]
        if intention.kind == "act" and people:
            options = menu(world, context)
            done = {(c.done.verb, c.done.target) for c in context.shortterm.cache[-4:] if isinstance(c.done, ActOn)}
            deed = next(((v, t, to) for v, t, to in options.acts
                         if ((t in people and v in PERSON_CUES and v != "greet") or (v == "give" and to in people))
                         and (v, t) not in done), None)  # a deed once done is not done again at once
            if deed is not None:
                return Plan(action=ActOn(actor=agent, verb=deed[0], target=deed[1], to=deed[2]), purpose="act")
        if intention.kind in ("say", "act") and people:
            return Plan(action=Say(actor=agent, text="", to=people[0]), purpose="beat")
    if not p.present:
        arrived_now = any(c.round == p.round - 1 and (isinstance(c.done, Move) or isinstance(c.done, ActOn) and c.done.verb == "lead")
                          for c in context.shortterm.cache)
        return Plan(action=Observe(actor=agent) if arrived_now else Wait(actor=agent), purpose="idle")
    return None
